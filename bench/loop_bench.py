"""The daemon's loop alone, in process, without tmux: CPU per wake-up and per frame.

  python bench/loop_bench.py [--agents 20] [--shells 180] [--seconds 20] [--runs 3]
  python bench/loop_bench.py --agents 10 --shells 0           (issue #15's 10 panes)

A `Daemon` (loop.py, unchanged) watches `agents` panes marked as Claude's and `shells` plain
panes, each with a real FIFO opened and attached by the daemon's own code path (tmux is a
recorder that answers nothing, so no sweep, seed or publish reaches a real server). A forked
writer plays issue #15's Claude 2.1.x frame (bench/agent_frames.py, `claude-2.1-issue`) into
every agent pane's FIFO at 10 Hz, the panes staggered. The main thread runs `Daemon.step()` for
`seconds` of wall time; its CPU (thread time: the writer is another process) is divided by
the wake-ups and frames judged the daemon counted. Then 20 sweeps of a listing of those panes
(as tmux would answer `list-panes -a`, every pane piped by us) are timed alone, 0.1 s apart.
Runs are repeated; median (min-max).

What it leaves out, on purpose: tmux's own calls, and the periodic sweep from the loop's
figure (it is timed on its own). `--profile N`: the top N functions by
their own CPU (cProfile, thread time; its overhead makes the CPU figures of that run ~2x).
Prints numbers only."""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_frames import issue_claude  # noqa: E402

from osf_tmux.daemon.loop import Daemon, PaneWatch  # noqa: E402
from osf_tmux.daemon.source import PipeFactory  # noqa: E402
from osf_tmux.judge.combine import PaneTracker  # noqa: E402
from osf_tmux.judge.ruleset import load_rules  # noqa: E402
from osf_tmux.tmux import PANE_FIELDS, SEP, PaneInfo, ServerSpec, Tmux  # noqa: E402
from osf_tmux.vt.pane import PaneScreen  # noqa: E402


class SilentTmux(Tmux):
    """Takes every command, answers nothing (or `listing` to `list-panes`): no server is ever
    started or reached."""

    def __init__(self) -> None:
        super().__init__(ServerSpec("osf-loop-bench-never-started"))
        self.listing = ""

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        return self.listing if commands and commands[0][0] == "list-panes" else ""


def _listing(daemon: Daemon) -> str:
    """`list-panes -a` as tmux would answer it for the daemon's panes, each piped by us."""
    lines = []
    for w in daemon.panes.values():
        i = w.info
        f = {
            "pane_id": i.pane_id, "pane_pid": str(i.pid), "pane_tty": i.tty,
            "pane_width": str(i.width), "pane_height": str(i.height), "pane_pipe": "1",
            "pane_dead": "0", "pane_active": "1", "window_active": "1",
            "window_id": i.window_id, "session_id": i.session_id,
            "session_name": i.session_name, "window_index": i.window_index,
            "pane_index": i.pane_index, "session_attached": "0",
            "pane_current_command": i.current_command, "@osf-agent": i.agent_override,
            "@osf-generic-processes": "", "@osf_report": "", "@osf_pipe": daemon.token,
            "alternate_on": "1" if i.alt_screen else "0",
        }  # fmt: skip
        lines.append(SEP.join(f[k] for k in PANE_FIELDS))
    return "\n".join(lines) + "\n"


def _info(n: int, pid: int, agent: str) -> PaneInfo:
    return PaneInfo(
        pane_id=f"%{n}", pid=pid, tty="/dev/pts/9", width=120, height=32, piped=False,
        dead=False, active=False, window_active=False, window_id=f"@{n}", session_id=f"${n}",
        session_name=f"s{n}", window_index="0", pane_index="0", session_attached=0,
        current_command="claude" if agent else "sleep", agent_override=agent, report="",
        our_pipe="", alt_screen=bool(agent),
    )  # fmt: skip


def _writer(paths: list[Path], seconds: float) -> None:
    """The agents: every pane's frame at 10 Hz, pane i offset by i/len(paths) of a period."""
    fds = [os.open(p, os.O_WRONLY | os.O_NONBLOCK) for p in paths]
    _, frames = issue_claude()
    period = 0.1
    start = time.monotonic()
    slot = period / max(len(fds), 1)
    due = start
    i = 0
    while time.monotonic() - start < seconds:
        frame = next(frames)[1]
        for k, fd in enumerate(fds):
            at = due + k * slot
            delay = at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            with contextlib.suppress(BlockingIOError):  # a full FIFO: the daemon is behind
                os.write(fd, frame)
        i += 1
        due = start + i * period
    os._exit(0)


def run_once(
    agents: int, shells: int, seconds: float, profile: cProfile.Profile | None = None
) -> tuple[float, float, float, float, float]:
    """(CPU % of a core, µs per wake-up, µs per frame judged, wake-ups/s, ms per sweep) of the
    main thread."""
    with tempfile.TemporaryDirectory() as tmp:
        rules = load_rules(None)
        daemon = Daemon(
            SilentTmux(),
            rules,
            PipeFactory(Path(tmp) / "run"),
            "token",
            status_file=Path(tmp) / "status.json",
            identify=lambda pid: [["sleep", "100000"]],
        )
        daemon.pipes.prepare()
        prefix, _ = issue_claude()
        now = daemon.clock.now()
        paths: list[Path] = []
        for n in range(agents + shells):
            agent = "claude" if n < agents else ""
            info = _info(n + 1, os.getpid(), agent)
            w = daemon.panes[info.pane_id] = PaneWatch(info, PaneTracker(daemon.settings.timing))
            daemon._reconcile_pipe(w)  # the sweep's own path: FIFO opened, a seed wanted
            daemon._identify(w, now, if_changed=True)
            if w.needs_seed or w.dirty_since is not None:
                daemon.active.add(info.pane_id)  # as the sweep does
            if agent:
                assert w.pipe is not None and w.manifest is not None
                screen = PaneScreen(120, 32)
                screen.feed(prefix)  # what a seed from capture-pane would have shown
                w.screen, w.needs_seed = screen, False
                paths.append(w.pipe.path)
        daemon.next_sweep = float("inf")  # no tmux to list
        daemon.next_check = float("inf")
        pid = os.fork()
        if pid == 0:
            _writer(paths, seconds + 2)
        try:
            end = time.monotonic() + 1.0  # the first frames: every pane judged once
            while time.monotonic() < end:
                daemon.step(max_wait=0.5)
            c0 = dict(daemon.counters)
            cpu0, t0 = time.thread_time(), time.monotonic()
            end = t0 + seconds
            if profile is not None:
                profile.enable()
            while time.monotonic() < end:
                daemon.step(max_wait=end - time.monotonic())
            if profile is not None:
                profile.disable()
            cpu, wall = time.thread_time() - cpu0, time.monotonic() - t0
            wakeups = daemon.counters["wakeups"] - c0["wakeups"]
            judged = daemon.counters["judged"] - c0["judged"]
            working = sum(1 for w in daemon.panes.values() if w.tracker.current.state == "working")
            if working != agents:
                raise SystemExit(f"only {working} of {agents} agent panes working")
            # The sweep, alone: as every 2 s, with the writer still drawing.
            tmux = daemon.tmux
            assert isinstance(tmux, SilentTmux)
            tmux.listing = _listing(daemon)
            for w in daemon.panes.values():
                if w.pipe is not None:
                    w.pipe.writer_pid = os.getpid()  # tmux's `cat`, alive
            sweeps, spent = 0, 0.0
            for _ in range(20):
                c = time.thread_time()
                daemon.sweep()
                spent += time.thread_time() - c
                sweeps += 1
                daemon.next_sweep = float("inf")
                end = time.monotonic() + 0.1
                while time.monotonic() < end:
                    daemon.step(max_wait=end - time.monotonic())
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            for w in daemon.panes.values():
                daemon._close_pipe(w)
        return (
            100 * cpu / wall,
            1e6 * cpu / max(wakeups, 1),
            1e6 * cpu / max(judged, 1),
            wakeups / wall,
            1e3 * spent / sweeps,
        )


def _spread(values: list[float], fmt: str) -> str:
    return (
        f"{fmt.format(statistics.median(values))} "
        f"({fmt.format(min(values))}-{fmt.format(max(values))})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--agents", type=int, default=20)
    ap.add_argument("--shells", type=int, default=180)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", type=int, default=0, help="print the top N functions (CPU)")
    a = ap.parse_args()
    prof = cProfile.Profile(time.thread_time) if a.profile else None
    rows = [run_once(a.agents, a.shells, a.seconds, prof) for _ in range(a.runs)]
    if prof is not None:
        pstats.Stats(prof).sort_stats("tottime").print_stats(a.profile)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(
        f"{a.agents} agents at 10 Hz + {a.shells} quiet panes, {a.seconds:g} s x {a.runs}, "
        f"load average {load}: loop CPU {_spread([r[0] for r in rows], '{:.2f}')} % of a core; "
        f"{_spread([r[1] for r in rows], '{:.0f}')} µs a wake-up, "
        f"{_spread([r[2] for r in rows], '{:.0f}')} µs a frame judged, "
        f"{_spread([r[3] for r in rows], '{:.1f}')} wake-ups/s; a sweep of the listing "
        f"{_spread([r[4] for r in rows], '{:.2f}')} ms"
    )


if __name__ == "__main__":
    main()
