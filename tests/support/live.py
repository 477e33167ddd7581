"""Helpers for tests that run the real daemon against a private tmux server."""

from __future__ import annotations

import bisect
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from osf_tmux.daemon.lifecycle import DaemonFiles, read_status, running_pid
from osf_tmux.tmux import ServerSpec
from tests.support.tmux_server import TmuxServer, environ_now, retry_until

RELAY = Path(__file__).with_name("pane_relay.py")


class DaemonProcess:
    """`osf-tmux -L NAME daemon` as a child process, with its files under `home`."""

    def __init__(self, server: TmuxServer, home: Path) -> None:
        self.server = server
        self.env = environ_now()
        self.env.update(
            {
                "XDG_STATE_HOME": str(home / "state"),
                "XDG_RUNTIME_DIR": str(home / "run"),
                "XDG_CONFIG_HOME": str(home / "config"),
            }
        )
        self.env.pop("TMUX", None)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = home / "daemon.stderr"

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "osf_tmux", "-L", self.server.socket_name, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    debug = True  # the daemon's --debug log (a profile leaves it out)

    # What runs the CLI (a profiler may run it in-process instead: bench/loop_profile.py).
    def cli_command(self) -> list[str]:
        return [sys.executable, "-m", "osf_tmux"]

    # A daemon starts in ~0.5 s; under a loaded machine's scheduling (helpers saw 10 s run
    # out at load average 20-27) it may take many times that. Waiting longer costs nothing
    # when it starts at once.
    def start(self, timeout: float = 30) -> None:
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(
                [
                    *self.cli_command(),
                    "-L",
                    self.server.socket_name,
                    "daemon",
                    "--foreground",
                    *(["--debug"] if self.debug else []),
                ],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
            )
        # Its own status: after a kill -9 the file still holds the dead daemon's.
        pid = self.proc.pid
        retry_until(
            lambda: self.status().get("running") and self.status().get("pid") == pid,
            timeout=timeout,
            what="daemon status",
        )

    def status(self) -> dict[str, Any]:
        """The daemon's status file, read directly (a `status` subprocess per poll is slow)."""
        files = DaemonFiles.for_server(ServerSpec(self.server.socket_name), self.env)
        if running_pid(files) is None:
            return {}
        return read_status(files) or {}

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""


class Feeder:
    """A pane whose bytes the test writes, through a FIFO and the relay inside the pane."""

    def __init__(
        self, server: TmuxServer, workdir: Path, cols: int, rows: int, agent: str | None
    ) -> None:
        self.server = server
        self.fifo = workdir / f"feed-{time.monotonic_ns()}"
        os.mkfifo(self.fifo)
        self.pane = server.new_pane([sys.executable, str(RELAY), str(self.fifo)], cols, rows)
        if agent:
            server.cmd("set-option", "-p", "-t", self.pane, "@osf-agent", agent)
        self.fd = os.open(self.fifo, os.O_WRONLY)
        self.offset = 0

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        self.offset += len(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def option(self, name: str) -> str | None:
        out = self.server.cmd("show-options", "-p", "-v", "-t", self.pane, name, check=False)
        return out.strip() or None

    def state(self) -> str | None:
        return self.option("@osf_state")


class Pace:
    """Byte offset -> seconds since launch, interpolated between labelled anchors; or, with
    `reads`, the anchors are the capture's pipe-pane reads and every byte of a read is due when
    the read arrived, as tmux wrote them (a redraw that paused for the terminal's answer pauses
    the same way, instead of being spread over the seconds between two labels)."""

    def __init__(
        self, anchors: list[tuple[int, float]], max_gap: float = 1.0, reads: bool = False
    ) -> None:
        self.reads = reads
        points = sorted(set(anchors))
        self.offsets = [o for o, _ in points]
        # Long silent stretches are shortened: the daemon needs only its settle time.
        times, t_prev, acc = [], None, 0.0
        for _, t in points:
            acc += 0.0 if t_prev is None else min(max(t - t_prev, 0.0), max_gap)
            times.append(acc)
            t_prev = t
        self.times = times

    def boundary(self, offset: int) -> int | None:
        """With `reads`, the end of the read holding the byte at `offset` (a write must not
        join two reads); else None."""
        if not self.reads:
            return None
        i = bisect.bisect_right(self.offsets, offset)
        return self.offsets[i] if i < len(self.offsets) else None

    def at(self, offset: int) -> float:
        if self.reads:  # the time of the read that holds this byte
            i = bisect.bisect_left(self.offsets, offset)
            return self.times[min(i, len(self.times) - 1)]
        i = bisect.bisect_right(self.offsets, offset)
        if i == 0:
            return 0.0
        if i == len(self.offsets):
            return self.times[-1]
        o0, o1 = self.offsets[i - 1], self.offsets[i]
        t0, t1 = self.times[i - 1], self.times[i]
        return t0 + (t1 - t0) * (offset - o0) / max(o1 - o0, 1)


def feed_paced(
    feeder: Feeder, data: bytes, end: int, pace: Pace, start_wall: float, chunk: int = 256
) -> None:
    """Write `data[feeder.offset:end]` in small chunks at the recorded pace."""
    while feeder.offset < end:
        n = min(chunk, end - feeder.offset)
        boundary = pace.boundary(feeder.offset)
        if boundary is not None:
            n = min(n, boundary - feeder.offset)
        due = start_wall + pace.at(feeder.offset + n)
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        feeder.write(data[feeder.offset : feeder.offset + n])
