"""The event feed against the real daemon on a private tmux server (never the default one).
Prints numbers.

  python bench/events_bench.py [--trials 10] [--stalled 1,8] [--backlog BYTES]

wait     `osf-tmux wait PANE --until blocked --json`, subscribed before the prompt's bytes are
         written into the pane: from the daemon's transition (the event's own time) to the
         process's exit, and from the prompt's bytes to it.
readers  the daemon's own latency, prompt bytes -> `@osf_state` blocked (polled every 2 ms, as
         bench/daemon_bench.py; ~3 ms per poll included), without any reader, then with one
         `osf-tmux events --json` reading and N new readers that never read connected before
         each prompt and kept until the last trial of the phase (with a small --backlog they
         fill up and are dropped a few trials later, so that each prompt meets readers fresh,
         full and being dropped). Also prompt -> the transition's time as the reading reader
         received it (the daemon's decision, no tmux poll).

Each trial uses a new pane, taken as Claude's by the daemon before the prompt, after a random
pause of up to 0.2 s so that prompts do not land at one phase of the daemon's loop."""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.daemon.feed import socket_path, unix_address  # noqa: E402
from osf_tmux.daemon.lifecycle import DaemonFiles  # noqa: E402
from osf_tmux.tmux import ServerSpec  # noqa: E402
from tests.support.live import DaemonProcess, Feeder  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

CAPTURE = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676


class Bench:
    def __init__(self, server: TmuxServer, daemon: DaemonProcess, home: Path) -> None:
        self.server, self.daemon, self.home = server, daemon, home
        self.files = DaemonFiles.for_server(ServerSpec(server.socket_name), daemon.env)
        self.prompt = CAPTURE.read_bytes()[:BLOCKED_AT]
        self.rng = random.Random(7)
        self.feeders: list[Feeder] = []

    def pane(self) -> Feeder:
        feeder = Feeder(self.server, self.home, 120, 32, "claude")
        self.feeders.append(feeder)
        retry_until(
            lambda: any(
                p.get("pane") == feeder.pane and p.get("agent") == "claude" and p["pipe"] == "pipe"
                for p in self.daemon.status().get("panes", [])
            ),
            timeout=10,
        )
        return feeder

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "osf_tmux", "-L", self.server.socket_name, *args]
        return subprocess.Popen(
            argv, env=self.daemon.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def subscribed(self, proc: subprocess.Popen[str]) -> None:
        mark = f"event feed: reader pid {proc.pid} connected"
        retry_until(lambda: mark in self.files.log.read_text(errors="replace"), timeout=30)

    def pause(self) -> None:
        time.sleep(self.rng.uniform(0.0, 0.2))

    def wait_trials(self, trials: int) -> tuple[list[float], list[float]]:
        after_transition, after_prompt = [], []
        for _ in range(trials):
            feeder = self.pane()
            proc = self.spawn("wait", feeder.pane, "--until", "blocked", "--json")
            self.subscribed(proc)
            self.pause()
            written = time.time()
            feeder.write(self.prompt)
            while proc.poll() is None:
                time.sleep(0.001)
            done = time.time()
            out, err = proc.communicate()
            assert proc.returncode == 0, err
            event = json.loads(out)
            after_transition.append(done - event["time"])
            after_prompt.append(done - written)
            self.server.kill_pane(feeder.pane)
        return after_transition, after_prompt

    def reader_trials(
        self, trials: int, stalled: int, reader: list[dict[str, Any]] | None
    ) -> tuple[list[float], list[float]]:
        published, decided = [], []
        socks = []
        for _ in range(trials):
            feeder = self.pane()
            for _ in range(stalled):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with unix_address(socket_path(self.files.runtime)) as address:
                    sock.connect(address)
                socks.append(sock)
            self.pause()
            written_wall, written = time.time(), time.monotonic()
            feeder.write(self.prompt)
            retry_until(lambda f=feeder: f.state() == "blocked", timeout=10, interval=0.002)  # type: ignore[misc]
            published.append(time.monotonic() - written)
            if reader is not None:
                event = retry_until(
                    lambda f=feeder: next(  # type: ignore[misc]
                        (
                            e
                            for e in list(reader)
                            if e["pane"] == f.pane and e["after"] == "blocked"
                        ),
                        None,
                    ),
                    timeout=10,
                )
                decided.append(event["time"] - written_wall)
            self.server.kill_pane(feeder.pane)
        for sock in socks:
            sock.close()
        return published, decided


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:66} -"
    ms = sorted(v * 1000 for v in values)
    return (
        f"{name:66} n={len(ms):2}  p50 {statistics.median(ms):6.1f} ms  "
        f"max {ms[-1]:6.1f} ms  min {ms[0]:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--stalled", default="1,4", help="new readers a trial that never read")
    parser.add_argument("--backlog", type=int, help="OSF_TMUX_EVENTS_BACKLOG for the daemon")
    args = parser.parse_args()
    stalled_counts = [int(x) for x in args.stalled.split(",") if x]
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        server = TmuxServer()
        server.start()
        daemon = DaemonProcess(server, home)
        if args.backlog:
            daemon.env["OSF_TMUX_EVENTS_BACKLOG"] = str(args.backlog)
        bench = Bench(server, daemon, home)
        daemon.start()
        reader_proc = None
        try:
            exit_after, exit_after_prompt = bench.wait_trials(args.trials)
            lines.append(summary("wait: transition -> exit", exit_after))
            lines.append(summary("wait: prompt bytes -> exit", exit_after_prompt))
            published, _ = bench.reader_trials(args.trials, 0, None)
            lines.append(summary("no reader: prompt -> @osf_state", published))
            reader_proc = bench.spawn("events", "--json")
            bench.subscribed(reader_proc)
            heard: list[dict[str, Any]] = []

            def collect(proc: subprocess.Popen[str] = reader_proc) -> None:
                assert proc.stdout is not None
                for line in proc.stdout:
                    heard.append(json.loads(line))

            threading.Thread(target=collect, daemon=True).start()
            for n in stalled_counts:
                before = daemon.status().get("events") or {}
                published, decided = bench.reader_trials(args.trials, n, heard)
                time.sleep(0.5)  # status.json is rewritten at most every 0.2 s
                after = daemon.status().get("events") or {}
                dropped = after.get("dropped", 0) - before.get("dropped", 0)
                refused = after.get("refused", 0) - before.get("refused", 0)
                label = f"1 reading + {n}/trial stalled ({dropped} dropped, {refused} refused)"
                lines.append(summary(f"{label}: prompt -> @osf_state", published))
                lines.append(summary(f"{label}: prompt -> decision", decided))
            assert reader_proc.poll() is None, "the reading reader ended"
        finally:
            if reader_proc is not None:
                reader_proc.kill()
                reader_proc.communicate()
            daemon.stop()
            for f in bench.feeders:
                f.close()
            server.kill()
    load = Path("/proc/loadavg").read_text().split()[0]
    backlog = args.backlog or "default (64 KiB)"
    print(f"event feed (load average {load}, backlog {backlog}, pid {os.getpid()}):")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    main()
