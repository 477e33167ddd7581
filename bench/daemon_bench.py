"""Daemon benchmarks on a private tmux server (never the default one). Prints numbers.

  python bench/daemon_bench.py latency [--trials 30] [--busy 9]   prompt bytes -> blocked
  python bench/daemon_bench.py latency --lead-in ...    ... the prompt coming while its pane
                                                        still draws (its working stretch first)
  python bench/daemon_bench.py load [--panes 10] [--seconds 30]   CPU and RSS, spinners at 10 Hz
  python bench/daemon_bench.py load --frames codex      ... panes replaying a working stretch of
                                                        a real capture (bench/agent_frames.py)
  python bench/daemon_bench.py table [--runs 3]         load for every agent's frames: a table
  python bench/daemon_bench.py flood [--seconds 5]     a pane flooding at full speed
  python bench/daemon_bench.py rest [--panes 10]       tmux calls per second when nothing happens

Budgets (DESIGN.md): latency p50 <= 100 ms, max <= 300 ms; 10 spinning panes <= 1 % of a core;
RSS <= 60 MB with 50 panes; a flood keeps memory bounded and the state right within 1 s."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_frames import ISSUE_CLAUDE, JUNCTIONS, agents_with_stretches, write_loop  # noqa: E402

from osf_tmux.judge.corpus import Capture, find_captures  # noqa: E402
from tests.support.live import DaemonProcess, Feeder  # noqa: E402
from tests.support.tmux_server import TmuxServer, WaitTimeout, retry_until  # noqa: E402

SPINNER = ROOT / "bench" / "fake_spinner.py"
REPLAY = ROOT / "bench" / "replay_pane.py"


def proc_times(pid: int) -> tuple[float, int]:
    """(CPU seconds used, RSS in kB) of a process, from /proc.

    The scheduler's own count of time on a CPU (schedstat, in ns) when the kernel has it:
    utime/stime are sampled at each clock tick, coarse for a process that runs in short bursts."""
    try:
        cpu = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rfind(")") + 2 :].split()
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return cpu, rss


@contextlib.contextmanager
def private_daemon() -> Iterator[tuple[TmuxServer, DaemonProcess, Path]]:
    """A private tmux server and a daemon for it, not started yet; both gone afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        daemon = DaemonProcess(server, Path(tmp))
        try:
            yield server, daemon, Path(tmp)
        finally:
            daemon.stop()
            server.kill()


# Agents the fake spinner can draw (bench/fake_spinner.py); others get Claude's screen.
LOOKS = ("claude", "pi")


def spinners(
    server: TmuxServer,
    count: int,
    rate: float = 10.0,
    agent: str = "claude",
    frames: str | None = None,
    into: Path | None = None,
    junction: str = "repaint",
) -> None:
    """`count` panes marked as `agent`'s, running the fake spinner (drawn like `agent`, if it
    can) or, with `frames`, replaying that source's working frames (bench/agent_frames.py)."""
    look = agent if agent in LOOKS else "claude"
    command = [sys.executable, str(SPINNER), str(rate), look]
    if frames is not None:
        loop = (into or Path(tempfile.mkdtemp(prefix="osf-frames-"))) / "frames.json"
        write_loop(frames, loop, junction)
        command = [sys.executable, str(REPLAY), str(loop)]
    for _ in range(count):
        pane = server.new_pane(command, 120, 32)
        server.cmd("set-option", "-p", "-t", pane, "@osf-agent", agent)


def frames_agent(frames: str) -> str:
    """Whose rules judge a source of frames."""
    return "claude" if frames == ISSUE_CLAUDE else frames


def context_switches(pid: int) -> int:
    """Voluntary context switches of every thread of `pid`: each time it blocked (select,
    sleep, a read), so each wake-up of the process."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(OSError):
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


def children_cpu(pid: int) -> float:
    """CPU seconds of `pid`'s children that ended (its tmux calls), from /proc (clock ticks)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class LoadRun:
    """One `load` measurement: per second of wall time, except RSS."""

    cpu: float  # % of a core, the daemon process alone
    cpu_children: float  # % of a core, its tmux calls
    rss_mb: float
    wakeups: float  # loop turns per second (the daemon's counter)
    switches: float  # voluntary context switches per second (the kernel's count)
    judged: float  # screens judged per second ...
    classified: float  # ... of which classified
    tmux_calls: float
    states: dict[str, int]  # the panes' states at the end


def _fresh_status(daemon: DaemonProcess, after: float) -> dict[str, Any]:
    """The status file as the daemon wrote it after `after` (wall clock)."""
    found: dict[str, Any] = {}

    def fresh() -> bool:
        found.update(daemon.status())
        return float(found.get("updated", 0)) > after

    retry_until(fresh, timeout=10, interval=0.05, what="a fresh status file")
    return found


def measure_load(
    panes: int,
    seconds: float,
    rate: float,
    agent: str,
    frames: str | None,
    junction: str = "repaint",
) -> LoadRun:
    with private_daemon() as (server, daemon, tmp):
        spinners(server, panes, rate, agent, frames, tmp, junction)
        start(daemon)
        assert daemon.proc is not None
        pid = daemon.proc.pid
        # An agent's rules see its own spinner screen as working; other agents' rules may not.
        want = "working" if agent in LOOKS or frames is not None else None
        retry_until(
            lambda: (
                sum(
                    1
                    for p in daemon.status().get("panes", [])
                    if p.get("state") and (want is None or p.get("state") == want)
                )
                == panes
            ),
            timeout=30,
            what="every spinner pane judged",
        )
        time.sleep(2)  # let start-up work (seeding) finish before measuring
        st0 = _fresh_status(daemon, time.time())
        cpu0, _ = proc_times(pid)
        kids0, sw0 = children_cpu(pid), context_switches(pid)
        t0 = time.monotonic()
        time.sleep(seconds)
        cpu1, rss = proc_times(pid)
        kids1, sw1 = children_cpu(pid), context_switches(pid)
        wall = time.monotonic() - t0
        st1 = _fresh_status(daemon, time.time())
        c0, c1 = st0["counters"], st1["counters"]
        span = float(st1["updated"]) - float(st0["updated"])

        def rate_of(key: str) -> float:
            return (float(c1.get(key, 0)) - float(c0.get(key, 0))) / span

        states: dict[str, int] = {}
        for p in st1.get("panes", []):
            states[str(p.get("state"))] = states.get(str(p.get("state")), 0) + 1
        return LoadRun(
            cpu=100 * (cpu1 - cpu0) / wall,
            cpu_children=100 * (kids1 - kids0) / wall,
            rss_mb=rss / 1024,
            wakeups=rate_of("wakeups"),
            switches=(sw1 - sw0) / wall,
            judged=rate_of("judged"),
            classified=rate_of("classified"),
            tmux_calls=rate_of("tmux_calls"),
            states=states,
        )


def blocked_cases() -> list[tuple[Capture, int, int]]:
    """(capture, offset where the agent still works, offset where the prompt is on screen)."""
    return [
        (cap, working_at, blocked_at)
        for cap in find_captures(ROOT / "captures")
        if cap.labels_path is not None
        for working_at, blocked_at in cap.prompts_after_work()
    ]


def latency(trials: int, busy: int, lead: bool = False) -> None:
    """Prompt bytes -> `blocked`. Without `lead`, the pane shows its working screen and is
    quiet when the prompt comes; with it, the pane first draws its working stretch at its
    recorded pace and the prompt comes right after its last read, as it did in the capture
    (a pane whose verdict holds while it draws is read on the daemon's slower beat)."""
    cases = blocked_cases()
    if not cases:
        sys.exit("no capture with a working -> blocked transition under captures/")
    with private_daemon() as (server, daemon, tmp):
        spinners(server, busy)  # other agents drawing meanwhile
        start(daemon)
        results = []
        parked: list[bool] = []  # whether each lead-in put its pane on the slower beat
        rng = random.Random(7)
        for i in range(trials):
            # Spread over every capture (they are sorted by agent), not the first `trials`.
            cap, working_at, blocked_at = cases[(i * len(cases)) // trials % len(cases)]
            size, agent = cap.size(), cap.agent()
            assert size and agent
            data = cap.bytes_path.read_bytes()
            feeder = Feeder(server, tmp, size[0], size[1], agent)
            pane = feeder.pane

            def shows(state: str, f: Feeder = feeder) -> bool:
                return f.state() == state

            try:
                retry_until(lambda: _known(daemon, pane), timeout=5)  # noqa: B023
                feeder.write(data[:working_at])
                retry_until(lambda: shows("working"), timeout=5)
                # The poll above returns just after a wake-up of the daemon: without a
                # random pause every prompt would land at the same phase of its loop.
                time.sleep(rng.uniform(0.0, 0.2))
                began, done = time.monotonic(), working_at
                # The reads between the working cue and the one that brings the prompt.
                reads = cap.reads_after(working_at, blocked_at - 1) if lead else []
                for at, end in reads:
                    time.sleep(max(0.0, began + at - time.monotonic()))
                    feeder.write(data[done:end])
                    done = end
                t0 = time.monotonic()
                feeder.write(data[done:blocked_at])
                retry_until(lambda: shows("blocked"), timeout=5, interval=0.002)
                results.append(time.monotonic() - t0)
                if lead:
                    status = _fresh_status(daemon, time.time() - 0.5)
                    mine = [p for p in status.get("panes", []) if p["pane"] == pane]
                    parked.append(bool(mine and mine[0].get("parked")))
            finally:
                feeder.close()
                server.kill_pane(feeder.pane)
        ms = sorted(r * 1000 for r in results)
        print(
            f"latency over {len(ms)} prompts ({len(cases)} distinct, agents: "
            f"{sorted({c.agent() or '?' for c, _, _ in cases})}), "
            f"{busy} other panes spinning at 10 Hz"
            + (", each prompt after its working stretch at the recorded pace:" if lead else ":")
        )
        print(
            f"  p50 {statistics.median(ms):.0f} ms   p90 {ms[math.ceil(len(ms) * 0.9) - 1]:.0f} ms"
            f"   max {ms[-1]:.0f} ms   (includes ~3 ms per tmux poll)"
        )
        if lead:
            print(f"  {sum(parked)} of {len(parked)} panes went onto the slower beat meanwhile")


def start(daemon: DaemonProcess) -> None:
    """`daemon.start()`, with more patience: on a machine at load average 30 to 40 the daemon
    took 15 s of wall time (0.4 s of CPU) to import and write its first status."""
    try:
        daemon.start()
    except WaitTimeout:
        assert daemon.proc is not None
        pid = daemon.proc.pid
        retry_until(
            lambda: daemon.status().get("running") and daemon.status().get("pid") == pid,
            timeout=120,
            what="daemon status",
        )


def _known(daemon: DaemonProcess, pane: str) -> bool:
    return any(p.get("pane") == pane and p.get("agent") for p in daemon.status().get("panes", []))


def describe(run: LoadRun) -> str:
    return (
        f"daemon CPU {run.cpu:.2f} % of a core (+{run.cpu_children:.2f} % its tmux calls), "
        f"RSS {run.rss_mb:.1f} MB, {run.wakeups:.1f} wake-ups/s ({run.switches:.1f} context "
        f"switches/s), judged {run.judged:.1f}/s: classified {run.classified:.1f}/s, skipped "
        f"{run.judged - run.classified:.1f}/s; {run.tmux_calls:.2f} tmux calls/s; "
        f"states {run.states}"
    )


def load(
    panes: int, seconds: float, rate: float, agent: str, frames: str | None, junction: str
) -> None:
    if frames is not None:
        agent = frames_agent(frames)
    run = measure_load(panes, seconds, rate, agent, frames, junction)
    what = f"replaying {frames}" if frames else f"spinning at {rate:g} Hz"
    print(f"{panes} panes {what} ({agent} rules) for {seconds:g} s, load average {_loadavg()}:")
    print(f"  {describe(run)}")


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """median (min-max)"""
    med = statistics.median(values)
    if len(values) == 1:
        return fmt.format(med)
    return f"{fmt.format(med)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def table(sources: list[str], panes: int, seconds: float, runs: int, junction: str) -> None:
    """`load` for each source, `runs` times, interleaved (round after round, so the machine's
    load falls on every source alike); a markdown table of medians and spreads."""
    results: dict[str, list[LoadRun]] = {s: [] for s in sources}
    loads = [_loadavg()]
    for r in range(runs):
        for src in sources:
            for attempt in range(3):
                try:
                    run = measure_load(panes, seconds, 10, frames_agent(src), src, junction)
                    break
                except WaitTimeout as exc:  # start-up on a busy machine: that run again
                    print(f"# run {r + 1} {src}: attempt {attempt + 1} failed: {exc}", flush=True)
            else:
                continue
            results[src].append(run)
            print(f"# run {r + 1} {src}: {describe(run)}", flush=True)
        loads.append(_loadavg())
    print(
        f"\n{panes} panes per row, {seconds:g} s a run, {runs} runs each, loops joined by "
        f"{junction}: median (min-max)"
    )
    print(f"load average (1, 5, 15 min) at the start and after each round: {' | '.join(loads)}\n")
    print(
        "| frames | CPU % of a core | + its tmux calls | RSS MB | wake-ups/s | context "
        "switches/s | judged/s | classified/s | skipped/s | states |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for src, rs in results.items():
        if not rs:
            continue
        print(
            f"| {src} | {_spread([r.cpu for r in rs])} | "
            f"{_spread([r.cpu_children for r in rs])} | "
            f"{_spread([r.rss_mb for r in rs], '{:.1f}')} | "
            f"{_spread([r.wakeups for r in rs], '{:.1f}')} | "
            f"{_spread([r.switches for r in rs], '{:.0f}')} | "
            f"{_spread([r.judged for r in rs], '{:.1f}')} | "
            f"{_spread([r.classified for r in rs], '{:.1f}')} | "
            f"{_spread([r.judged - r.classified for r in rs], '{:.1f}')} | "
            f"{rs[-1].states} |"
        )


def rest(panes: int, seconds: float, agents: int) -> None:
    """tmux calls and wake-ups per second while nothing happens: idle agent panes (the first
    `agents`) and plain shells."""
    with private_daemon() as (server, daemon, _):
        for i in range(panes):
            pane = server.new_pane(["sh", "-c", "printf 'idle'; exec sleep 100000"], 120, 32)
            if i < agents:
                server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
        start(daemon)
        assert daemon.proc is not None
        retry_until(lambda: len(daemon.status().get("panes", [])) >= panes, timeout=15)
        time.sleep(3)  # start-up (attaching, seeding) is not rest
        pid = daemon.proc.pid
        st0 = _fresh_status(daemon, time.time())
        cpu0, _ = proc_times(pid)
        sw0 = context_switches(pid)
        t0 = time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - t0
        cpu1, rss = proc_times(pid)
        sw1 = context_switches(pid)
        st1 = _fresh_status(daemon, time.time())
        span = float(st1["updated"]) - float(st0["updated"])
        c0, c1 = st0["counters"], st1["counters"]
        print(
            f"at rest with {panes} panes ({agents} agents) for {wall:.0f} s, load average "
            f"{_loadavg()}: {(c1['tmux_calls'] - c0['tmux_calls']) / span:.2f} tmux calls/s, "
            f"{(c1['wakeups'] - c0['wakeups']) / span:.2f} wake-ups/s "
            f"({(sw1 - sw0) / wall:.2f} context switches/s), "
            f"{(c1['sweeps'] - c0['sweeps']) / span:.2f} sweeps/s, CPU "
            f"{100 * (cpu1 - cpu0) / wall:.2f} % of a core, RSS {rss / 1024:.1f} MB"
        )


def flood(seconds: float, busy: int) -> None:
    with private_daemon() as (server, daemon, _):
        spinners(server, busy)  # other agents drawing meanwhile
        start(daemon)
        assert daemon.proc is not None and server.pid is not None
        pid = daemon.proc.pid
        cmd = [
            "sh",
            "-c",
            f"timeout {seconds} yes 'flood flood flood flood flood'; "
            "printf '\\033[2J\\033[H  esc to interrupt\\n'; exec sleep 100000",
        ]
        pane = server.new_pane(cmd, 120, 32)
        server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
        t0 = time.monotonic()
        peak = tmux_peak = 0
        while time.monotonic() - t0 < seconds:
            peak = max(peak, proc_times(pid)[1])
            tmux_peak = max(tmux_peak, proc_times(server.pid)[1])
            time.sleep(0.1)
        end = time.monotonic()
        retry_until(
            lambda: (
                server.cmd(
                    "show-options", "-p", "-v", "-t", pane, "@osf_state", check=False
                ).strip()
                == "working"
            ),
            timeout=10,
        )
        settle = time.monotonic() - end
        pane_status = next(p for p in daemon.status()["panes"] if p["pane"] == pane)
        print(
            f"flood {seconds:g} s ({busy} other panes spinning): daemon peak RSS "
            f"{peak / 1024:.1f} MB, tmux server peak RSS {tmux_peak / 1024:.1f} MB, state "
            f"right {settle:.2f} s after the flood, dropped {pane_status['dropped_bytes']} "
            f"bytes, reseeds {pane_status['reseeds']}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    JUNCTION_HELP = (
        "how a capture's loop goes back to its stretch's first screen: repaint (that screen "
        "painted again, a few kB) or replay (every byte before the stretch written again, as "
        "until session 6)"
    )
    lat = sub.add_parser("latency")
    lat.add_argument("--trials", type=int, default=30)
    lat.add_argument("--busy", type=int, default=0, help="other panes spinning meanwhile")
    lat.add_argument(
        "--lead-in",
        action="store_true",
        help="the prompted pane first draws its working stretch at the recorded pace",
    )
    ld = sub.add_parser("load")
    ld.add_argument("--panes", type=int, default=10)
    ld.add_argument("--seconds", type=float, default=30)
    ld.add_argument("--rate", type=float, default=10)
    ld.add_argument(
        "--frames",
        help=f"replay these frames instead of the spinner: {ISSUE_CLAUDE} (issue #15's Claude "
        "Code 2.1.x frame) or an agent (a working stretch of its capture); judged by its rules",
    )
    ld.add_argument(
        "--agent",
        default="claude",
        help="whose rules judge the spinner screen (claude: a ticking row no rule looks at "
        "skips classification; codex, gemini, aider: rules that span lines classify every frame)",
    )
    ld.add_argument("--junction", choices=JUNCTIONS, default="repaint", help=JUNCTION_HELP)
    tb = sub.add_parser("table")
    tb.add_argument("--panes", type=int, default=10)
    tb.add_argument("--seconds", type=float, default=20)
    tb.add_argument("--runs", type=int, default=3)
    tb.add_argument("--junction", choices=JUNCTIONS, default="repaint", help=JUNCTION_HELP)
    tb.add_argument("sources", nargs="*", help="default: the issue's frame and every agent's")
    rs = sub.add_parser("rest")
    rs.add_argument("--panes", type=int, default=10)
    rs.add_argument("--seconds", type=float, default=30)
    rs.add_argument("--agents", type=int, default=None, help="default: half the panes")
    fl = sub.add_parser("flood")
    fl.add_argument("--seconds", type=float, default=5)
    fl.add_argument("--busy", type=int, default=0, help="other panes spinning meanwhile")
    args = ap.parse_args()
    if args.what == "latency":
        latency(args.trials, args.busy, args.lead_in)
    elif args.what == "load":
        load(args.panes, args.seconds, args.rate, args.agent, args.frames, args.junction)
    elif args.what == "table":
        table(
            args.sources or [ISSUE_CLAUDE, *agents_with_stretches()],
            args.panes,
            args.seconds,
            args.runs,
            args.junction,
        )
    elif args.what == "rest":
        rest(
            args.panes, args.seconds, (args.panes + 1) // 2 if args.agents is None else args.agents
        )
    else:
        flood(args.seconds, args.busy)


if __name__ == "__main__":
    main()
