"""Where the daemon's CPU goes per frame: the daemon under cProfile, on a private tmux server.

  python bench/loop_profile.py scale [--panes 200] [--agents 20] [--seconds 30] [--top 30]
      200 panes, 20 of them a fake Claude spinner at 10 Hz (reliability_bench.py scale)
  python bench/loop_profile.py issue [--panes 10] [--seconds 30] [--top 30]
      10 panes replaying issue #15's Claude 2.1.x frame (daemon_bench.py load --frames)

The daemon runs in a child of this script (`loop_profile.py _child FILE -- ARGS`) that counts
the main thread's CPU time (not wall time: waiting in select, sleep or for a tmux child costs
nothing) with cProfile, only over the measured span: SIGUSR2 starts the profile after start-up,
a second SIGUSR2 stops it and writes FILE. The steady-state rates come from the daemon's
counters over the same span. cProfile adds its own cost to every Python call (the CPU under it
is ~2x the real one); the shares are what to read. Prints numbers only."""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from daemon_bench import _fresh_status, _loadavg, proc_times, spinners  # noqa: E402
from daemon_bench import start as start_daemon  # noqa: E402
from reliability_bench import SPINNER, many_panes  # noqa: E402

from tests.support.live import DaemonProcess  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402


class ProfiledDaemon(DaemonProcess):
    """The daemon as `DaemonProcess` starts it, under cProfile."""

    def __init__(self, server: TmuxServer, home: Path, out: Path) -> None:
        super().__init__(server, home)
        self.out = out

    debug = False

    def cli_command(self) -> list[str]:
        return [sys.executable, __file__, "_child", str(self.out), "--"]

    def start(self, timeout: float = 120) -> None:
        super().start(timeout)

    def toggle(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR2)


def child(out: str, argv: list[str]) -> None:
    """The daemon's CLI in this process, profiled between two SIGUSR2."""
    from osf_tmux.cli.main import main as cli_main

    prof = cProfile.Profile(time.thread_time)
    on = [False]

    def toggle(signum: int, frame: object) -> None:
        if not on[0]:
            prof.enable()
            on[0] = True
        else:
            prof.disable()
            prof.dump_stats(out)

    signal.signal(signal.SIGUSR2, toggle)
    cli_main(argv)


def run(scenario: str, panes: int, agents: int, seconds: float, top: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "daemon.prof"
        server = TmuxServer()
        server.start()
        d = ProfiledDaemon(server, Path(tmp), out)
        try:
            if scenario == "scale":
                many_panes(server, panes - agents - 1, "exec sleep 100000", "shell")
                spinning = many_panes(server, agents, f"{sys.executable} {SPINNER} 10", "agent")
                for pane in spinning:
                    server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
                want = agents
            else:
                spinners(server, panes, 10, "claude", "claude-2.1-issue", Path(tmp))
                want = panes
            start_daemon(d)
            assert d.proc is not None
            retry_until(
                lambda: (
                    sum(1 for p in d.status().get("panes", []) if p.get("state") == "working")
                    >= want
                ),
                timeout=90,
                what="every spinner judged working",
            )
            time.sleep(2)
            st0 = _fresh_status(d, time.time())
            cpu0, _ = proc_times(d.proc.pid)
            d.toggle()
            t0 = time.monotonic()
            time.sleep(seconds)
            d.toggle()
            cpu1, _ = proc_times(d.proc.pid)
            wall = time.monotonic() - t0
            st1 = _fresh_status(d, time.time())
            retry_until(out.exists, timeout=30, what="the profile written")
            time.sleep(0.5)
        finally:
            d.stop()
            server.kill()
        c0, c1 = st0["counters"], st1["counters"]
        span = float(st1["updated"]) - float(st0["updated"])
        cpu = cpu1 - cpu0
        judged = c1["judged"] - c0["judged"]
        wakeups = c1["wakeups"] - c0["wakeups"]
        sweeps = c1["sweeps"] - c0["sweeps"]
        print(
            f"{scenario}: {wall:.0f} s under cProfile, load average {_loadavg()}: CPU "
            f"{100 * cpu / wall:.2f} % of a core; {wakeups / span:.1f} wake-ups/s, "
            f"{judged / span:.1f} frames judged/s, {sweeps / span:.2f} sweeps/s; "
            f"{1e6 * cpu / max(judged, 1):.0f} µs of CPU per judged frame, "
            f"{1e6 * cpu / max(wakeups, 1):.0f} µs per wake-up (profiled)"
        )
        text = io.StringIO()
        stats = pstats.Stats(str(out), stream=text)
        stats.sort_stats("tottime").print_stats(top)
        stats.sort_stats("cumulative").print_stats(top)
        total = stats.total_tt  # type: ignore[attr-defined]
        print(f"profiled CPU of the main thread: {total:.3f} s over {wall:.0f} s")
        print(text.getvalue())


def main() -> None:
    if len(sys.argv) > 3 and sys.argv[1] == "_child" and sys.argv[3] == "--":
        child(sys.argv[2], sys.argv[4:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("scenario", choices=["scale", "issue"])
    ap.add_argument("--panes", type=int, default=None)
    ap.add_argument("--agents", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    panes = a.panes if a.panes is not None else (200 if a.scenario == "scale" else 10)
    run(a.scenario, panes, a.agents, a.seconds, a.top)


if __name__ == "__main__":
    main()
