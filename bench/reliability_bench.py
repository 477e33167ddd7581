"""Reliability benchmarks on a private tmux server (never the default one). Prints numbers.

  python bench/reliability_bench.py scale [--panes 200] [--agents 20] [--seconds 30]
      every pane watched? CPU and RSS of the daemon, the tmux calls it makes, its states
  python bench/reliability_bench.py crash [--trials 5]
      kill -9 the daemon `osf-tmux start` runs: time until a new one shows every state right
  python bench/reliability_bench.py close [--trials 5]
      time from a blocked pane closing (4 ways) to the counts dropping
  python bench/reliability_bench.py foreign [--trials 10] [--seconds 20]
      an agent pane whose pipe is someone else's: prompt -> blocked, answer -> released, CPU

Times are read by polling tmux every few ms (each poll is a `tmux` process, ~3-5 ms here), so
they include up to one poll interval."""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from daemon_bench import start as start_daemon  # noqa: E402

from tests.daemon.test_daemon_live import claude_prompt, pane_status  # noqa: E402
from tests.support.live import DaemonProcess, Feeder  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

SPINNER = ROOT / "bench" / "fake_spinner.py"


def proc_cpu(pid: int) -> tuple[float, float, int]:
    """(CPU s of the process, CPU s of the children it waited for, RSS kB), from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2 :].split()
    ticks = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) / ticks
    children = (int(fields[13]) + int(fields[14])) / ticks
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return own, children, rss


def stats(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[max(0, math.ceil(len(ms) * 0.9) - 1)]
    return (
        f"p50 {statistics.median(ms):.0f} ms, p90 {p90:.0f} ms, max {ms[-1]:.0f} ms (n={len(ms)})"
    )


def poll_until(probe: Callable[[], bool], timeout: float) -> float:
    t0 = time.monotonic()
    retry_until(probe, timeout=timeout, interval=0.002)
    return time.monotonic() - t0


def many_panes(server: TmuxServer, count: int, command: str, name: str) -> list[str]:
    before = set(server.cmd("list-panes", "-a", "-F", "#{pane_id}").split())
    for start in range(0, count, 25):
        args: list[str] = []
        for i in range(start, min(count, start + 25)):
            if args:
                args.append(";")
            args += ["new-session", "-d", "-s", f"{name}{i}", "-x", "120", "-y", "32", command]
        server.cmd(*args)
    after = server.cmd("list-panes", "-a", "-F", "#{pane_id}").split()
    return [p for p in after if p not in before]


# ---- scale -------------------------------------------------------------------------------


def scale(panes: int, agents: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        d = DaemonProcess(server, Path(tmp))
        try:
            shells = many_panes(server, panes - agents - 1, "exec sleep 100000", "shell")
            spinning = many_panes(server, agents, f"{sys.executable} {SPINNER} 10", "agent")
            for pane in spinning:
                server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
            t0 = time.monotonic()
            start_daemon(d)  # patient: see daemon_bench.start
            assert d.proc is not None and server.pid is not None

            def watched() -> bool:
                status = {p["pane"]: p for p in d.status().get("panes", [])}
                return all(
                    status.get(p, {}).get("pipe") == "pipe" for p in shells + spinning
                ) and all(status[p]["state"] == "working" for p in spinning)

            retry_until(watched, timeout=60, interval=0.05)
            ready = time.monotonic() - t0
            time.sleep(2)  # start-up work (seeding) is not the steady state
            own0, kids0, _ = proc_cpu(d.proc.pid)
            srv0, _, _ = proc_cpu(server.pid)
            calls0 = d.status()["counters"]["tmux_calls"]
            t1 = time.monotonic()
            time.sleep(seconds)
            wall = time.monotonic() - t1
            own1, kids1, rss = proc_cpu(d.proc.pid)
            srv1, _, srv_rss = proc_cpu(server.pid)
            retry_until(lambda: d.status()["updated"] > time.time() - 6, timeout=10)
            status = d.status()
            calls1 = status["counters"]["tmux_calls"]
            piped = sum(
                1
                for line in server.cmd("list-panes", "-a", "-F", "#{pane_pipe}").split()
                if line == "1"
            )
            right = sum(
                1 for p in status["panes"] if p["pane"] in spinning and p["state"] == "working"
            )
            print(
                f"{panes} panes ({agents} agents spinning at 10 Hz, {len(shells)} shells): every "
                f"pane piped and every agent `working` {ready:.1f} s after the daemon started"
            )
            print(
                f"  over {wall:.0f} s: daemon CPU {100 * (own1 - own0) / wall:.2f} % of a core, "
                f"with its tmux calls {100 * (own1 - own0 + kids1 - kids0) / wall:.2f} %; "
                f"RSS {rss / 1024:.1f} MB; {(calls1 - calls0) / wall:.1f} tmux calls/s"
            )
            print(
                f"  tmux server CPU {100 * (srv1 - srv0) / wall:.2f} % "
                f"(RSS {srv_rss / 1024:.1f} MB); "
                f"panes with a pipe in tmux: {piped}/{panes}; agents `working`: {right}/{agents}"
            )
        finally:
            d.stop()
            server.kill()


# ---- crash -------------------------------------------------------------------------------


def crash(trials: int) -> None:
    capture, point, size = claude_prompt()
    prompt = capture.bytes_path.read_bytes()[: point.offset]
    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        d = DaemonProcess(server, Path(tmp))
        feeders = []
        try:
            assert d.cli("start").returncode == 0
            for _ in range(3):  # blocked agents
                f = Feeder(server, Path(tmp), size[0], size[1], "claude")
                feeders.append(f)
            spinning = many_panes(server, 3, f"{sys.executable} {SPINNER} 10", "agent")
            for pane in spinning:
                server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
            for f in feeders:
                retry_until(lambda f=f: d.status() and f.pane in str(d.status()), timeout=10)  # type: ignore[misc]
                f.write(prompt)
            want = {f.pane: "blocked" for f in feeders} | {p: "working" for p in spinning}

            def right(pid: int) -> bool:
                status = d.status()
                if status.get("pid") == pid or not status.get("running"):
                    return False
                panes = {p["pane"]: p for p in status.get("panes", [])}
                return (
                    all(
                        panes.get(p, {}).get("state") == s and panes[p]["pipe"] == "pipe"
                        for p, s in want.items()
                    )
                    and server.cmd("show-options", "-gqv", "@osf_blocked_count").strip() == "3"
                )

            retry_until(lambda: right(-1), timeout=10)
            up, states = [], []
            for _ in range(trials):
                pid = d.status()["pid"]
                t0 = time.monotonic()
                os.kill(pid, signal.SIGKILL)
                retry_until(
                    lambda p=pid: (
                        d.status().get("pid") not in (None, p) and d.status().get("running")
                    ),  # type: ignore[misc]
                    timeout=20,
                    interval=0.005,
                )
                up.append(time.monotonic() - t0)
                retry_until(lambda p=pid: right(p), timeout=20, interval=0.005)  # type: ignore[misc]
                states.append(time.monotonic() - t0)
                # the watchdog restarts at most 3 times in 10 min; a person's `start` resets that
                revives = next(Path(tmp).rglob("revives"), None)
                if revives is not None:
                    revives.unlink()
                time.sleep(0.5)
            print(
                f"kill -9 of the daemon (3 blocked agents, 3 working, watchdog from `start`), "
                f"{trials} times:"
            )
            print(f"  a new daemon running: {stats(up)}")
            print(f"  every state right again, pipes taken back, counts right: {stats(states)}")
        finally:
            d.cli("stop")
            for f in feeders:
                f.close()
            server.kill()


# ---- close -------------------------------------------------------------------------------


def close(trials: int) -> None:
    capture, point, size = claude_prompt()
    prompt = capture.bytes_path.read_bytes()[: point.offset]
    ways: dict[str, Callable[[TmuxServer, str], object]] = {
        "kill-pane": lambda s, p: s.cmd("kill-pane", "-t", p),
        "its program exits": lambda s, p: os.kill(
            int(s.cmd("display-message", "-p", "-t", p, "#{pane_pid}").strip()), signal.SIGTERM
        ),
        "kill-window": lambda s, p: s.cmd("kill-window", "-t", p),
        "kill-session": lambda s, p: s.cmd("kill-session", "-t", p),
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        d = DaemonProcess(server, Path(tmp))
        d.start()
        try:
            print(f"a blocked pane closes: time until @osf_blocked_count drops ({trials} each)")
            for name, how in ways.items():
                times = []
                for _ in range(trials):
                    f = Feeder(server, Path(tmp), size[0], size[1], "claude")
                    session = server.cmd(
                        "display-message", "-p", "-t", f.pane, "#{session_name}"
                    ).strip()
                    server.cmd("new-window", "-d", "-t", f"{session}:", "sleep 100000")
                    retry_until(lambda f=f: f.pane in str(d.status()), timeout=10)  # type: ignore[misc]
                    f.write(prompt)
                    retry_until(
                        lambda: (
                            server.cmd("show-options", "-gqv", "@osf_blocked_count").strip() == "1"
                        ),
                        timeout=10,
                    )
                    t0 = time.monotonic()
                    how(server, f.pane)
                    poll_until(
                        lambda: (
                            server.cmd("show-options", "-gqv", "@osf_blocked_count").strip() == "0"
                        ),
                        timeout=10,
                    )
                    times.append(time.monotonic() - t0)
                    f.close()
                    server.cmd("kill-session", "-t", session, check=False)
                print(f"  {name:18} {stats(times)}")
        finally:
            d.stop()
            server.kill()


# ---- foreign -----------------------------------------------------------------------------


def foreign(trials: int, seconds: float) -> None:
    capture, point, size = claude_prompt()
    prompt = capture.bytes_path.read_bytes()[: point.offset]
    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        d = DaemonProcess(server, Path(tmp))
        d.start()
        assert d.proc is not None
        try:
            f = Feeder(server, Path(tmp), size[0], size[1], None)
            server.cmd("pipe-pane", "-O", "-t", f.pane, f"cat >> {tmp}/their.log")
            server.cmd("set-option", "-p", "-t", f.pane, "@osf-agent", "claude")
            retry_until(lambda: (pane_status(d, f.pane) or {}).get("pipe") == "foreign", timeout=10)
            shown, released = [], []
            for _ in range(trials):
                f.write(b"\x1b[2J\x1b[H")
                retry_until(lambda: f.state() in ("idle", "done"), timeout=10)
                time.sleep(0.3 + (time.monotonic() * 7919) % 0.3)  # any phase of the polls
                t0 = time.monotonic()
                f.write(prompt)
                shown.append(poll_until(lambda: f.state() == "blocked", timeout=10))
                time.sleep(0.5)
                t0 = time.monotonic()
                f.write(b"\x1b[2J\x1b[H")
                released.append(poll_until(lambda: f.state() != "blocked", timeout=10))
                del t0
            print(f"an agent pane with someone else's pipe-pane ({trials} prompts):")
            print(f"  prompt drawn -> blocked: {stats(shown)}")
            print(f"  prompt erased -> not blocked: {stats(released)}")
            f.close()
            server.kill_pane(f.pane)
            for mode in ("foreign", "pipe"):
                pane = server.new_pane([sys.executable, str(SPINNER), "10"], 120, 32)
                if mode == "foreign":
                    server.cmd("pipe-pane", "-O", "-t", pane, "cat > /dev/null")
                server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
                retry_until(
                    lambda p=pane: (pane_status(d, p) or {}).get("state") == "working",  # type: ignore[misc]
                    timeout=10,
                )
                time.sleep(2)
                own0, kids0, _ = proc_cpu(d.proc.pid)
                t1 = time.monotonic()
                time.sleep(seconds)
                wall = time.monotonic() - t1
                own1, kids1, _ = proc_cpu(d.proc.pid)
                whose = "someone else's" if mode == "foreign" else "its own"
                print(
                    f"  one agent spinning at 10 Hz, {whose} pipe: daemon CPU "
                    f"{100 * (own1 - own0) / wall:.2f} %, with its tmux calls "
                    f"{100 * (own1 - own0 + kids1 - kids0) / wall:.2f} %"
                )
                server.kill_pane(pane)
        finally:
            d.stop()
            server.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    sc = sub.add_parser("scale")
    sc.add_argument("--panes", type=int, default=200)
    sc.add_argument("--agents", type=int, default=20)
    sc.add_argument("--seconds", type=float, default=30)
    cr = sub.add_parser("crash")
    cr.add_argument("--trials", type=int, default=5)
    cl = sub.add_parser("close")
    cl.add_argument("--trials", type=int, default=5)
    fo = sub.add_parser("foreign")
    fo.add_argument("--trials", type=int, default=10)
    fo.add_argument("--seconds", type=float, default=20)
    args = ap.parse_args()
    if args.what == "scale":
        scale(args.panes, args.agents, args.seconds)
    elif args.what == "crash":
        crash(args.trials)
    elif args.what == "close":
        close(args.trials)
    else:
        foreign(args.trials, args.seconds)


if __name__ == "__main__":
    main()
