"""Notification latency of the real daemon on a private tmux server and a private session bus
with the tests' fake notification service (never the default tmux server, never a real bus).
Prints numbers.

  python bench/notify_bench.py [--trials 10]

For each trial a new pane gets the bytes of a Claude Code permission prompt (each pane has its
own cooldown). Measured from the write of those bytes:
  desktop   until the fake service receives Notify
  terminal  with the service killed: until the daemon logs 'notified via terminal' (the log's
            millisecond timestamps against the wall time of the write)
  command   until @osf-notify-command has written its marker file"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.daemon.lifecycle import DaemonFiles  # noqa: E402
from osf_tmux.plugin.notify_desktop import BUS_VAR  # noqa: E402
from osf_tmux.tmux import ServerSpec  # noqa: E402
from tests.support.live import DaemonProcess, Feeder  # noqa: E402
from tests.support.session_bus import FakeNotifications, SessionBus  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

CAPTURE = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676


def taken(daemon: DaemonProcess, pane: str) -> bool:
    """The daemon pipes the pane and knows its agent (from @osf-agent, set just after the pane
    was made): from here on the time measured is the daemon's, not the harness's."""
    return any(
        p.get("pane") == pane and p.get("agent") == "claude" and p.get("pipe") == "pipe"
        for p in daemon.status().get("panes", [])
    )


def log_time(line: str) -> float:
    stamp = " ".join(line.split(" ", 2)[:2])  # 2026-12-01 15:26:53,195
    return datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def summary(name: str, values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return (
        f"{name:9} n={len(ms):2}  p50 {statistics.median(ms):6.0f} ms  "
        f"max {ms[-1]:6.0f} ms  min {ms[0]:6.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10)
    args = parser.parse_args()
    data = CAPTURE.read_bytes()[:BLOCKED_AT]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        server = TmuxServer()
        server.start()
        bus = SessionBus(home / "bus").start()
        service = FakeNotifications(bus, home / "bus").start()
        daemon = DaemonProcess(server, home)
        daemon.env.pop(BUS_VAR, None)
        (home / "run").mkdir()
        server.cmd("set-environment", "-g", BUS_VAR, bus.address)
        marks = home / "marks"
        marks.mkdir()
        server.cmd("set-option", "-g", "@osf-notify-command", f'touch "{marks}/$OSF_PANE"')
        files = DaemonFiles.for_server(ServerSpec(server.socket_name), daemon.env)
        feeders: list[Feeder] = []
        results: dict[str, list[float]] = {"desktop": [], "terminal": [], "command": []}
        daemon.start()
        try:
            for mode in ("desktop", "terminal"):
                if mode == "terminal":
                    service.kill()
                for _ in range(args.trials):
                    feeder = Feeder(server, home, 120, 32, "claude")
                    feeders.append(feeder)
                    retry_until(lambda f=feeder: taken(daemon, f.pane), timeout=10)  # type: ignore[misc]
                    where = server.cmd(
                        "display-message", "-p", "-t", feeder.pane, "#{session_name}:"
                    ).strip()
                    sent = len(service.sent()) if mode == "desktop" else 0
                    wall, start = time.time(), time.monotonic()
                    feeder.write(data)
                    if mode == "desktop":
                        retry_until(
                            lambda n=sent: len(service.sent()) > n,  # type: ignore[misc]
                            timeout=10,
                            interval=0.002,
                        )
                        results["desktop"].append(time.monotonic() - start)
                    else:

                        def logged(w: str = where) -> str | None:
                            text = files.log.read_text(errors="replace")
                            return next(
                                (
                                    x
                                    for x in text.splitlines()
                                    if "notified via terminal" in x and f" in {w}" in x
                                ),
                                None,
                            )

                        line = retry_until(logged, timeout=10, interval=0.005)
                        results["terminal"].append(log_time(line) - wall)
                    mark = marks / feeder.pane
                    retry_until(mark.exists, timeout=10, interval=0.002)
                    results["command"].append(mark.stat().st_mtime - wall)
        finally:
            daemon.stop()
            for f in feeders:
                f.close()
            service.kill()
            bus.stop()
            server.kill()
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"notification latency from the prompt's bytes (load average {load}):")
    for name, values in results.items():
        print(summary(name, values))


if __name__ == "__main__":
    main()
