"""`@osf-notify-command`: a command of the user's, run on each notification.

The command text is the user's own (from their tmux.conf) and runs under `sh -c` as written;
the event reaches it only as data: `OSF_*` environment variables and one JSON object on stdin.
Nothing from a pane is ever put into the command's text, so a prompt holding `$(...)`,
backticks or quotes runs nothing (`"$OSF_QUESTION"` in the command expands to the text, which
the shell does not parse again).

Each run has its own thread that feeds stdin, keeps the tail of stderr and kills the command's
process group at the timeout; the notifier's thread only starts it. At most `MAX_RUNNING` run
at once: past that a notification's command is skipped and logged, never queued."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import subprocess
import threading
import time
from typing import IO, Any

from osf_tmux.plugin.notify import Notice, NotifyConfig

log = logging.getLogger("osf_tmux.plugin.notify")

MAX_RUNNING = 4
STDERR_TAIL = 600


def event(notice: Notice) -> dict[str, str | float | None]:
    """The event as the command gets it in JSON on stdin: `since` is a number (seconds since
    the epoch, as in `list --json` and `events --json`), null when unknown."""
    return {
        "agent": notice.agent,
        "state": notice.state,
        "pane": notice.pane_id,
        "target": notice.address,
        "question": notice.question,
        "detail": notice.detail,
        "since": notice.since or None,
        "title": notice.title,
        "message": notice.line(),
        "host": notice.host,  # another machine's pane (`@osf-hosts`), else null
    }


def command_env(notice: Notice, base: dict[str, str] | None = None) -> dict[str, str]:
    """The same event in OSF_* variables: text, `OSF_SINCE` in whole seconds ('' if unknown)."""
    env = dict(os.environ if base is None else base)
    for key, value in event(notice).items():
        if key == "since":
            value = str(int(value)) if isinstance(value, (int, float)) else ""
        env[f"OSF_{key.upper()}"] = "" if value is None else str(value)
    return env


class CommandRunner:
    """Runs the configured command per notification; remembers how the last run went."""

    def __init__(self, shell: str = "/bin/sh", max_running: int = MAX_RUNNING) -> None:
        self.shell = shell
        self._slots = threading.BoundedSemaphore(max_running)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._running: set[subprocess.Popen[bytes]] = set()
        self.runs = 0
        self.failures = 0
        self.last: dict[str, Any] | None = None
        self.last_failure: dict[str, Any] | None = None

    def run(self, notice: Notice, config: NotifyConfig) -> None:
        command = config.command
        if not command:
            return
        if not self._slots.acquire(blocking=False):
            self._finish(command, notice, None, "skipped: earlier runs still going", "", 0.0)
            return
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                [self.shell, "-c", command],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=command_env(notice),
                start_new_session=True,  # its own process group: a timeout kills all of it
                close_fds=True,
            )
        except OSError as exc:
            self._slots.release()
            self._finish(command, notice, None, f"could not start: {exc}", "", 0.0)
            return
        payload = (json.dumps(event(notice)) + "\n").encode()
        thread = threading.Thread(
            target=self._wait,
            args=(proc, command, notice, payload, config.command_timeout, started),
            name="osf-notify-command",
            daemon=True,
        )
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            self._running.add(proc)
        thread.start()

    def wait_idle(self, timeout: float = 10.0) -> None:
        """For tests and shutdown: until every started run has finished."""
        deadline = time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads)
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))

    def close(self, timeout: float = 2.0) -> None:
        """The daemon stops: give running commands `timeout`, then end them (their timeout
        would otherwise die with the daemon's threads)."""
        self.wait_idle(timeout)
        with self._lock:
            running = list(self._running)
        for proc in running:
            _kill_group(proc)
        self.wait_idle(1.0)  # their threads record how they ended

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "command": {
                    "runs": self.runs,
                    "failures": self.failures,
                    "last": dict(self.last) if self.last else None,
                    "last_failure": dict(self.last_failure) if self.last_failure else None,
                }
            }

    def _wait(
        self,
        proc: subprocess.Popen[bytes],
        command: str,
        notice: Notice,
        payload: bytes,
        timeout: float,
        started: float,
    ) -> None:
        try:
            deadline = started + timeout
            _feed(proc.stdin, payload)
            tail = _read_tail(proc, deadline)
            error = ""
            try:
                code: int | None = proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                code = None
                error = f"killed after {timeout:g}s"
            if code is not None and code != 0:
                error = f"exit status {code}" if code > 0 else f"killed by signal {-code}"
            self._finish(command, notice, code, error, tail, time.monotonic() - started)
        finally:
            with self._lock:
                self._running.discard(proc)
            if proc.stderr is not None:
                with contextlib.suppress(OSError):
                    proc.stderr.close()
            self._slots.release()

    def _finish(
        self, command: str, notice: Notice, code: int | None, error: str, tail: str, took: float
    ) -> None:
        record = {
            "at": time.time(),
            "pane": notice.pane_id,
            "address": notice.address,
            "exit": code,
            "error": error,
            "stderr": tail,
            "seconds": round(took, 3),
        }
        with self._lock:
            self.runs += 1
            self.last = record
            if error:
                self.failures += 1
                self.last_failure = record
        if error:
            more = f": {tail}" if tail else ""
            log.warning("notify command for %s failed (%s)%s", notice.address, error, more)
        else:
            log.info("notify command for %s ran (%.2fs)", notice.address, took)


def _feed(stdin: IO[bytes] | None, payload: bytes) -> None:
    if stdin is None:
        return
    # The payload is far below a pipe's buffer, so this never waits on a command that does
    # not read its stdin; one that exited already just breaks the pipe.
    with contextlib.suppress(OSError):
        stdin.write(payload)
    with contextlib.suppress(OSError):
        stdin.close()


def _read_tail(proc: subprocess.Popen[bytes], deadline: float) -> str:
    """stderr until it closes, the command exits, or the deadline; only the tail is kept."""
    stream = proc.stderr
    if stream is None:
        return ""
    fd = stream.fileno()
    kept = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([fd], [], [], min(left, 0.1))
        if not ready:
            if proc.poll() is not None:
                break  # exited; a child of its own may hold stderr open
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        kept = (kept + chunk)[-STDERR_TAIL:]
    return " ".join(kept.decode(errors="replace").split())[-STDERR_TAIL:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(1.0)
            return
        except subprocess.TimeoutExpired:
            continue
