"""The daemon's loop alone, in process, without tmux: CPU per wake-up and per frame.

  python bench/loop_bench.py [--agents 20] [--shells 180] [--seconds 20] [--runs 3]
  python bench/loop_bench.py --agents 10 --shells 0           (issue #15's 10 panes)
  python bench/loop_bench.py --agents 50 --shells 0 --source gemini

A `Daemon` (loop.py, unchanged) watches `agents` panes marked as the source's agent's (Claude's
for the issue's frame) and `shells` plain panes, each with a real FIFO opened and attached by
the daemon's own code path (tmux is a recorder that answers nothing, so no sweep, seed or
publish reaches a real server). A forked writer plays the source's frames (bench/agent_frames.py:
issue #15's Claude 2.1.x frame at 10 Hz, `claude-2.1-issue`, or an agent's working stretch at
its recorded pace) into every agent pane's FIFO, the panes staggered. The main thread runs
`Daemon.step()` for `seconds` of wall time; its CPU (thread time: the writer is another
process) is divided by the wake-ups and frames judged the daemon counted. Then 20 sweeps of a
listing of those panes (as tmux would answer `list-panes -a`, every pane piped by us) are timed
alone, 0.1 s apart. Runs are repeated; median (min-max).

What it leaves out, on purpose: tmux's own calls, and the periodic sweep from the loop's
figure (it is timed on its own). `--profile N`: the top N functions by their own CPU
(cProfile, thread time; its overhead makes the CPU figures of that run ~2x).
Prints numbers only."""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import heapq
import itertools
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

from agent_frames import ISSUE_CLAUDE, pick_stretch, source  # noqa: E402

from osf_tmux.daemon.loop import Daemon  # noqa: E402
from osf_tmux.daemon.source import PipeFactory  # noqa: E402
from osf_tmux.daemon.watch import PaneWatch  # noqa: E402
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
    for w in daemon.table.panes.values():
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


def _frames(name: str) -> tuple[bytes, list[tuple[float, bytes]]]:
    """`name`'s prefix and one loop of its (pause, frame), worked out once: finding a capture's
    stretch takes seconds."""
    prefix, frames = source(name)
    length = 1000 if name == ISSUE_CLAUDE else len(pick_stretch(name).chunks) + 1
    return prefix, list(itertools.islice(frames, length))


def _writer(paths: list[Path], seconds: float, loop: list[tuple[float, bytes]]) -> None:
    """The agents: every pane plays the loop of frames at its pace (bench/agent_frames.py), pane
    i starting i/len(paths) of a tenth of a second after pane 0."""
    fds = [os.open(p, os.O_WRONLY | os.O_NONBLOCK) for p in paths]
    loops = [itertools.cycle(loop) for _ in fds]
    start = time.monotonic()
    slot = 0.1 / max(len(fds), 1)
    due: list[tuple[float, int, bytes]] = []
    for k, frames in enumerate(loops):
        pause, chunk = next(frames)
        heapq.heappush(due, (start + k * slot + pause, k, chunk))
    while due and time.monotonic() - start < seconds:
        at, k, chunk = heapq.heappop(due)
        delay = at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        with contextlib.suppress(BlockingIOError):  # a full FIFO: the daemon is behind
            os.write(fds[k], chunk)
        pause, chunk = next(loops[k])
        heapq.heappush(due, (at + pause, k, chunk))
    os._exit(0)


def run_once(
    agents: int,
    shells: int,
    seconds: float,
    profile: cProfile.Profile | None = None,
    name: str = ISSUE_CLAUDE,
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
        prefix, loop = _frames(name)
        agent_name = "claude" if name == ISSUE_CLAUDE else name
        now = daemon.clock.now()
        paths: list[Path] = []
        for n in range(agents + shells):
            agent = agent_name if n < agents else ""
            info = _info(n + 1, os.getpid(), agent)
            w = daemon.table.panes[info.pane_id] = PaneWatch(
                info, PaneTracker(daemon.settings.timing)
            )
            daemon.registry.reconcile_pipe(w)  # the sweep's own path: FIFO opened, a seed wanted
            daemon.registry.identify(w, now, if_changed=True)
            if w.needs_seed or w.dirty_since is not None:
                daemon.table.active.add(info.pane_id)  # as the sweep does
            if agent:
                assert w.pipe is not None and w.manifest is not None
                screen = PaneScreen(120, 32)
                screen.feed(prefix)  # what a seed from capture-pane would have shown
                w.screen, w.needs_seed = screen, False
                paths.append(w.pipe.path)
        daemon.scheduler.next_sweep = float("inf")  # no tmux to list
        daemon.screens.next_check = float("inf")
        pid = os.fork()
        if pid == 0:
            _writer(paths, seconds + 2, loop)
        try:
            end = time.monotonic() + 1.0  # the first frames: every pane judged once
            while time.monotonic() < end:
                daemon.step(max_wait=0.5)
            c0 = dict(daemon.table.counters)
            cpu0, t0 = time.thread_time(), time.monotonic()
            end = t0 + seconds
            if profile is not None:
                profile.enable()
            while time.monotonic() < end:
                daemon.step(max_wait=end - time.monotonic())
            if profile is not None:
                profile.disable()
            cpu, wall = time.thread_time() - cpu0, time.monotonic() - t0
            wakeups = daemon.table.counters["wakeups"] - c0["wakeups"]
            judged = daemon.table.counters["judged"] - c0["judged"]
            working = sum(
                1 for w in daemon.table.panes.values() if w.tracker.current.state == "working"
            )
            if working != agents:
                raise SystemExit(f"only {working} of {agents} agent panes working")
            # The sweep, alone: as every 2 s, with the writer still drawing.
            tmux = daemon.tmux
            assert isinstance(tmux, SilentTmux)
            tmux.listing = _listing(daemon)
            for w in daemon.table.panes.values():
                if w.pipe is not None:
                    w.pipe.writer_pid = os.getpid()  # tmux's `cat`, alive
            sweeps, spent = 0, 0.0
            for _ in range(20):
                c = time.thread_time()
                daemon.sweep()
                spent += time.thread_time() - c
                sweeps += 1
                daemon.scheduler.next_sweep = float("inf")
                end = time.monotonic() + 0.1
                while time.monotonic() < end:
                    daemon.step(max_wait=end - time.monotonic())
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            for w in daemon.table.panes.values():
                daemon.registry.close_pipe(w)
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
    ap.add_argument(
        "--source", default=ISSUE_CLAUDE, help="whose frames the agents play (agent_frames.py)"
    )
    a = ap.parse_args()
    prof = cProfile.Profile(time.thread_time) if a.profile else None
    rows = [run_once(a.agents, a.shells, a.seconds, prof, a.source) for _ in range(a.runs)]
    if prof is not None:
        pstats.Stats(prof).sort_stats("tottime").print_stats(a.profile)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(
        f"{a.agents} agents ({a.source}) + {a.shells} quiet panes, {a.seconds:g} s x {a.runs}, "
        f"load average {load}: loop CPU {_spread([r[0] for r in rows], '{:.2f}')} % of a core; "
        f"{_spread([r[1] for r in rows], '{:.0f}')} µs a wake-up, "
        f"{_spread([r[2] for r in rows], '{:.0f}')} µs a frame judged, "
        f"{_spread([r[3] for r in rows], '{:.1f}')} wake-ups/s; a sweep of the listing "
        f"{_spread([r[4] for r in rows], '{:.2f}')} ms"
    )


if __name__ == "__main__":
    main()
