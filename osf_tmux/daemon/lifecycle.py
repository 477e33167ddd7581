"""One daemon per tmux server: its lock, status file and log, and starting and stopping it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.paths import runtime_dir, state_dir
from osf_tmux.tmux import ServerSpec

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


class LifecycleError(RuntimeError):
    pass


@dataclass(frozen=True)
class DaemonFiles:
    state: Path
    runtime: Path

    @classmethod
    def for_server(cls, server: ServerSpec, env: Mapping[str, str] | None = None) -> DaemonFiles:
        key = server.key()
        return cls(state_dir(key, env), runtime_dir(key, env))

    @property
    def lock(self) -> Path:
        return self.state / "daemon.lock"

    @property
    def status(self) -> Path:
        return self.state / "status.json"

    @property
    def log(self) -> Path:
        return self.state / "daemon.log"


def running_pid(files: DaemonFiles) -> int | None:
    """The pid of the daemon holding the lock, or None when no daemon runs."""
    try:
        fd = os.open(files.lock, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode(errors="replace").strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def acquire_lock(files: DaemonFiles) -> int | None:
    """Take the daemon lock for this process; None if another daemon holds it. The fd stays
    open for the daemon's life (the kernel drops the lock when the process dies, even by -9)."""
    files.state.mkdir(parents=True, exist_ok=True)
    fd = os.open(files.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def read_status(files: DaemonFiles) -> dict[str, Any] | None:
    try:
        data = json.loads(files.status.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def start(server: ServerSpec, files: DaemonFiles, wait: float = 10.0) -> tuple[int, bool]:
    """Start the daemon for `server` unless one runs; (pid, True if it was already running).

    The child gets no terminal and none of our descriptors: a daemon that kept the stdout of a
    tmux `run-shell` open would hang tmux's plugin loading."""
    pid = running_pid(files)
    if pid is not None:
        return pid, True
    files.state.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "osf_tmux", *server.args(), "daemon"]
    with open(os.devnull, "rb") as devnull_in, open(os.devnull, "wb") as devnull_out:
        child = subprocess.Popen(
            argv,
            stdin=devnull_in,
            stdout=devnull_out,
            stderr=devnull_out,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        status = read_status(files)
        if status and status.get("pid") == child.pid and status.get("running"):
            return child.pid, False
        code = child.poll()
        if code is not None:
            pid = running_pid(files)
            if pid is not None:  # lost a race with another start: that one runs
                return pid, True
            raise LifecycleError(f"the daemon exited at once (status {code}); see {files.log}")
        time.sleep(0.02)
    raise LifecycleError(f"the daemon did not come up within {wait:.0f}s; see {files.log}")


def stop(files: DaemonFiles, wait: float = 10.0) -> int | None:
    """Stop the daemon; its pid, or None if none ran."""
    pid = running_pid(files)
    if pid is None or pid <= 0:
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if running_pid(files) is None:
            return pid
        time.sleep(0.02)
    raise LifecycleError(f"daemon {pid} did not stop within {wait:.0f}s")


def setup_logging(files: DaemonFiles, also: TextIO | None = None, debug: bool = False) -> None:
    import logging.handlers  # here: `next` and `menu` read the status file and log nothing

    files.state.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger("osf_tmux")
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler: logging.Handler = logging.handlers.RotatingFileHandler(
        files.log, maxBytes=1_000_000, backupCount=1
    )
    handler.setFormatter(fmt)
    root.addHandler(handler)
    if also is not None:
        stream = logging.StreamHandler(also)
        stream.setFormatter(fmt)
        root.addHandler(stream)
