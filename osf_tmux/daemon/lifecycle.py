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

from osf_tmux.paths import (
    UnsafeDirectoryError,
    open_private,
    private_dir,
    runtime_dir,
    state_dir,
)
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

    @property
    def revives(self) -> Path:
        """When the watchdog last restarted a daemon that died (epoch seconds, one a line)."""
        return self.state / "revives"


def running_pid(files: DaemonFiles) -> int | None:
    """The pid of the daemon holding the lock, or None when no daemon runs."""
    try:
        fd = open_private(files.lock, os.O_RDONLY)
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
    private_dir(files.state)
    fd = open_private(files.lock, os.O_RDWR | os.O_CREAT)
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
    try:
        private_dirs(files)
    except UnsafeDirectoryError as exc:
        raise LifecycleError(str(exc)) from None
    # Asked for by a person (or a plugin load): the watchdog's count of restarts begins anew.
    with contextlib.suppress(FileNotFoundError):
        files.revives.unlink()
    argv = [sys.executable, "-m", "osf_tmux", *server.args(), "daemon", "--watchdog"]
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


def private_dirs(files: DaemonFiles) -> None:
    """Both directories private (0700, ours), or UnsafeDirectoryError saying why not."""
    private_dir(files.state)
    private_dir(files.runtime)


def setup_logging(files: DaemonFiles, also: TextIO | None = None, debug: bool = False) -> None:
    import logging.handlers  # here: `next` and `menu` read the status file and log nothing

    class PrivateLog(logging.handlers.RotatingFileHandler):
        """The log holds prompt excerpts: 0600, and never written through a symlink."""

        def _open(self) -> Any:
            fd = open_private(Path(self.baseFilename), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            os.fchmod(fd, 0o600)  # a log made by an older version may be 0644
            return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)

    private_dir(files.state)
    root = logging.getLogger("osf_tmux")
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler: logging.Handler = PrivateLog(files.log, maxBytes=1_000_000, backupCount=1)
    handler.setFormatter(fmt)
    root.addHandler(handler)
    if also is not None:
        stream = logging.StreamHandler(also)
        stream.setFormatter(fmt)
        root.addHandler(stream)


# ---- the watchdog ------------------------------------------------------------------------
#
# A daemon can die without cleaning up (kill -9, the OOM killer, a bug). A tiny shell, the
# daemon's child, waits on a pipe from it: a daemon that stops properly writes `stopped` first;
# end-of-file without it means the daemon died, and the shell starts `osf-tmux daemon
# --revived` in its place, which takes over what the dead one left (its pipes, published states,
# hooks) or, after too many deaths in a row, clears it all and says so on the status line.

_WATCHDOG = 'read -r said; [ "$said" = stopped ] && exit 0; exec "$@"'
# The exit status of every command that reports what the daemon sees (status, list, next,
# menu, wait, events) when no daemon runs for the server: they say so, then exit with it. A key
# press (`--client`) exits 0: its answer is the message on that client, and tmux would show a
# non-zero status of a key's run-shell on top of it.
EXIT_NO_DAEMON = 3
REVIVE_LIMIT = 3  # restarts ...
REVIVE_WINDOW = 600.0  # ... within this many seconds; one more death and it stays down


def spawn_watchdog(server: ServerSpec) -> int:
    """Start the watchdog for this process (the daemon); returns the pipe's writing end, which
    the daemon keeps open for its life and hands to `release_watchdog` when it stops."""
    read_fd, write_fd = os.pipe()
    revive = [sys.executable, "-m", "osf_tmux", *server.args(), "daemon", "--watchdog", "--revived"]
    with open(os.devnull, "wb") as devnull:
        subprocess.Popen(
            ["/bin/sh", "-c", _WATCHDOG, "osf-tmux-watchdog", *revive],
            stdin=read_fd,
            stdout=devnull,
            stderr=devnull,
            close_fds=True,
        )
    os.close(read_fd)
    return write_fd


def release_watchdog(write_fd: int) -> None:
    """The daemon stops properly: the watchdog ends without starting anything."""
    with contextlib.suppress(OSError):
        os.write(write_fd, b"stopped\n")
    with contextlib.suppress(OSError):
        os.close(write_fd)


def may_revive(files: DaemonFiles, now: float) -> bool:
    """Whether a daemon that died may be restarted once more (it is noted if so): not after
    REVIVE_LIMIT restarts within REVIVE_WINDOW seconds, so a daemon that keeps crashing does not
    keep the machine busy."""
    try:
        times = [float(t) for t in files.revives.read_text().split()]
    except (OSError, ValueError):
        times = []
    recent = [t for t in times if 0 <= now - t < REVIVE_WINDOW]
    if len(recent) >= REVIVE_LIMIT:
        return False
    files.state.mkdir(parents=True, exist_ok=True)
    files.revives.write_text("".join(f"{t:.3f}\n" for t in [*recent, now]))
    return True


def died(files: DaemonFiles) -> dict[str, Any] | None:
    """The status a daemon left when it died without stopping (its file says running, but
    nobody holds the lock), else None."""
    if running_pid(files) is not None:
        return None
    status = read_status(files)
    return status if status and status.get("running") else None
