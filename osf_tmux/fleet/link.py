"""One host's link: an ssh process that streams the remote daemon's feed, read without blocking.

The daemon's loop owns the selector; a link only says which descriptor to watch (`Watch`),
reads what is there when told, and names its next deadline (a retry, a hello that is late, an
ssh that closed its output but has not exited yet). No polling: at rest a link costs nothing but
its descriptor in the selector.

States: `connecting` (the first connection, no hello yet), `online` (the remote daemon said
hello and streams), `offline` (ssh failed or the stream ended: retried after 1 s, 2 s, ... up to
60 s, and offline, since when it went, until a retry gets a hello), `incompatible` (osf-tmux
missing there, or a version that does not speak this protocol: said once, retried at the
slowest pace, since an upgrade there should be picked up). A host that is not online has no
panes: its last states are never shown as current.

ssh's stderr (and the remote command's) goes to a private file of the link's, read when ssh
exits to say why: a file, not a pipe, since the shared connection's master that ssh may leave in
the background keeps the stderr it was started with."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from osf_tmux.clock import Clock
from osf_tmux.fleet.remote import (
    MAX_LINE,
    PROTOCOL,
    Hello,
    Message,
    ProtocolError,
    RemotePane,
    RemoteTransition,
    one_line,
    parse_line,
)
from osf_tmux.paths import open_private

log = logging.getLogger("osf_tmux.fleet.link")

FIRST_RETRY = 1.0
LAST_RETRY = 60.0
STEADY = 30.0  # online this long: the next failure retries at FIRST_RETRY again
HELLO_WAIT = 20.0  # ssh's connect timeout, plus a slow login and a slow start of osf-tmux there
EXIT_WAIT = 2.0  # after end-of-file, how long ssh may take to exit before it is killed
EXIT_STEP = 0.05
MAX_PANES = 1000
EXIT_NOT_FOUND = 127  # the remote shell: no such command
EXIT_USAGE = 2  # click: an option this osf-tmux does not know (older than --hello)
EXIT_SSH = 255

CONNECTING, ONLINE, OFFLINE, INCOMPATIBLE = "connecting", "online", "offline", "incompatible"
HOST_STATES = (CONNECTING, ONLINE, OFFLINE, INCOMPATIBLE)


class Watch(Protocol):
    """The loop's selector, as a link sees it."""

    def watch(self, fd: int, on_ready: Callable[[], None]) -> None: ...

    def unwatch(self, fd: int) -> None: ...


Spawn = Callable[[Sequence[str], int], "subprocess.Popen[bytes]"]


def spawn(argv: Sequence[str], stderr: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        close_fds=True,
        start_new_session=True,  # no terminal: nothing can prompt, no ^C from one reaches it
    )


class HostLink:
    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        clock: Clock,
        watch: Watch,
        errors: Path,
        remote_command: str,
        on_change: Callable[[], None],
        on_transition: Callable[[RemoteTransition], None] | None = None,
        spawn: Spawn = spawn,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.clock = clock
        self.watcher = watch
        self.errors = errors  # ssh's stderr, rewritten at each connection
        self.remote_command = remote_command
        self.on_change = on_change
        self.on_transition = on_transition
        self.spawn = spawn
        self.state = CONNECTING
        self.since = clock.wall()
        self.error: str | None = None
        self.version: str | None = None
        self.panes: dict[str, RemotePane] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.next_try = clock.now()
        self.retry = FIRST_RETRY
        self.online_at: float | None = None
        self.hello_by = float("inf")
        self.eof_at: float | None = None  # ssh closed its output; waiting for it to exit
        self.exit_check = float("inf")  # meanwhile, when to look again
        self.said_bye = False
        self.counters = {"connects": 0, "messages": 0, "skipped": 0}
        self._buf = bytearray()
        self._fd: int | None = None
        self._said: tuple[str, str | None] | None = None
        self._too_many = False

    # ---- what the daemon's loop calls ------------------------------------------------------

    def deadline(self) -> float:
        if self.proc is None:
            return self.next_try
        if self.eof_at is not None:
            return self.exit_check
        return self.hello_by if self.online_at is None else float("inf")

    def tick(self) -> None:
        """Whatever is due: connect, give up on a late hello, reap an ssh that ended."""
        now = self.clock.now()
        if self.proc is None:
            if now >= self.next_try:
                self.connect()
            return
        if self.eof_at is not None:
            if self.proc.poll() is not None or now - self.eof_at >= EXIT_WAIT:
                self._ended()
            else:
                self.exit_check = now + EXIT_STEP
            return
        if self.online_at is None and now >= self.hello_by:
            self._fail(OFFLINE, f"no answer from osf-tmux there within {HELLO_WAIT:g} s")

    def connect(self) -> None:
        self.counters["connects"] += 1
        log.debug("host %s: connecting (%s)", self.name, " ".join(self.argv))
        try:
            # O_APPEND: the shared connection's master, which ssh may leave in the background,
            # keeps this file and may write to it later: at its end, never over a new start.
            err = open_private(self.errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        except OSError as exc:
            self._retry_later(OFFLINE, f"cannot write {self.errors}: {exc}")
            return
        try:
            self.proc = self.spawn(self.argv, err)
        except OSError as exc:
            self._retry_later(OFFLINE, f"cannot run ssh: {exc}")
            return
        finally:
            os.close(err)
        assert self.proc.stdout is not None
        self._fd = self.proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self.watcher.watch(self._fd, self.on_readable)
        self._buf.clear()
        self.said_bye = False
        self.eof_at = None
        self.hello_by = self.clock.now() + HELLO_WAIT

    def on_readable(self) -> None:
        if self._fd is None:
            return
        for _ in range(16):  # a host that floods us yields to the others and the local panes
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._eof()
                return
            self._buf += chunk
            try:
                self._lines()
            except ProtocolError as exc:
                self._fail(OFFLINE, f"{exc}: not listening to it")
                return
            if self.proc is None:  # the link ended on what it read
                return

    def close(self) -> None:
        """Stop the stream (the daemon stops, or the host left @osf-hosts)."""
        self._stop_process()
        self._drop_panes()

    # ---- reading ---------------------------------------------------------------------------

    def _lines(self) -> None:
        *lines, rest = self._buf.split(b"\n")
        if len(rest) > MAX_LINE:
            raise ProtocolError(f"a line of more than {MAX_LINE} bytes")
        self._buf = bytearray(rest)
        for line in lines:
            item = parse_line(bytes(line))
            if item is None:
                self.counters["skipped"] += 1
            elif isinstance(item, Hello):
                self._hello(item)
            elif self.online_at is not None:
                self.counters["messages"] += 1
                self._message(item)
            if self.proc is None:
                return

    def _hello(self, hello: Hello) -> None:
        self.version = hello.version
        if hello.protocol != PROTOCOL:
            self._fail(
                INCOMPATIBLE,
                f"osf-tmux {hello.version} there speaks protocol {hello.protocol}, this one "
                f"{PROTOCOL}: install the same osf-tmux on both machines",
            )
            return
        self.online_at = self.clock.now()
        self._set(ONLINE, None)

    def _message(self, m: Message) -> None:
        if m.kind == "bye":
            self.said_bye = True
            return
        if m.kind == "synced":
            return
        old = self.panes.get(m.pane)
        if m.kind == "gone" or m.after is None:
            if old is not None:
                del self.panes[m.pane]
                self._changed(RemoteTransition(old, old.state, None, old.rule))
            return
        if old is None and len(self.panes) >= MAX_PANES:
            if not self._too_many:
                log.warning("%s: more than %d panes with agents; the rest left out", self.name,
                            MAX_PANES)  # fmt: skip
                self._too_many = True
            return
        pane = RemotePane(
            host=self.name,
            pane=m.pane,
            target=m.target,
            agent=m.agent,
            state=m.after,
            since=m.since,
            rule=m.rule,
            question=m.question if m.after == "blocked" else "",
        )
        self.panes[m.pane] = pane
        before = old.state if old is not None else None
        if old != pane:
            transition = None
            if before != pane.state:
                transition = RemoteTransition(pane, before, pane.state, old.rule if old else None)
            self._changed(transition)

    def _changed(self, t: RemoteTransition | None) -> None:
        if t is not None and self.on_transition is not None:
            try:
                self.on_transition(t)
            except Exception:  # a listener must never take the link down
                log.exception("%s: a listener failed", self.name)
        self.on_change()

    # ---- ending ----------------------------------------------------------------------------

    def _eof(self) -> None:
        if self._fd is not None:
            self.watcher.unwatch(self._fd)
        self.eof_at = self.clock.now()
        self.tick()

    def _ended(self) -> None:
        """ssh exited (or was killed after closing its output): why, and when to try again."""
        proc = self.proc
        assert proc is not None
        code = proc.poll()
        self._stop_process()
        said = self._stderr()
        log.debug("host %s: ssh exited (%s): %s", self.name, code, said)
        online = self.online_at is not None
        if not online and (code == EXIT_NOT_FOUND or "command not found" in said
                           or "No such file or directory" in said):  # fmt: skip
            self._retry_later(
                INCOMPATIBLE,
                f"osf-tmux is not installed there (`{self.remote_command}` not found): install "
                "it, or set @osf-remote-command to its path",
            )
        elif not online and code == EXIT_USAGE and "--hello" in said:
            self._retry_later(
                INCOMPATIBLE,
                "the osf-tmux there is older than this one (it has no `events --hello`): "
                "install the same osf-tmux on both machines",
            )
        elif self.said_bye:
            self._retry_later(OFFLINE, "the osf-tmux daemon there stopped")
        else:
            why = said or (
                "the connection was lost" if code == EXIT_SSH else f"ssh exited with status {code}"
            )
            self._retry_later(OFFLINE, why)

    def _fail(self, state: str, error: str) -> None:
        self._stop_process()
        self._retry_later(state, error)

    def _retry_later(self, state: str, error: str) -> None:
        now = self.clock.now()
        if self.online_at is not None and now - self.online_at >= STEADY:
            self.retry = FIRST_RETRY
        wait = LAST_RETRY if state == INCOMPATIBLE else self.retry
        self.next_try = now + wait
        self.retry = min(self.retry * 2, LAST_RETRY)
        self.online_at = None
        self._drop_panes()
        self._set(state, error)

    def _stop_process(self) -> None:
        proc, self.proc = self.proc, None
        if self._fd is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.watcher.unwatch(self._fd)
            self._fd = None
        self.eof_at = None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()  # ssh holds nothing to save; the remote end sees the connection go
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=EXIT_WAIT)

    def _drop_panes(self) -> None:
        if self.panes:
            self.panes.clear()
            self.on_change()

    def _stderr(self) -> str:
        """The last lines ssh (or the remote command) wrote, on one line."""
        try:
            with open(self.errors, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 2048))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return one_line(" / ".join(lines[-3:]), 400)

    def _set(self, state: str, error: str | None) -> None:
        if state != self.state:
            self.since = self.clock.wall()
        self.state, self.error = state, error
        said = (state, error)
        if state != CONNECTING and said != self._said:
            # Each state and reason once: a host down for a day retries every minute silently.
            self._said = said
            level = logging.INFO if state == ONLINE else logging.WARNING
            version = f" (osf-tmux {self.version})" if state == ONLINE and self.version else ""
            reason = f" ({error})" if error else ""
            log.log(level, "host %s: %s%s%s", self.name, state, version, reason)
        self.on_change()

    def status(self) -> dict[str, object]:
        return {
            "state": self.state,
            "since": self.since,
            "error": self.error,
            "version": self.version,
            "remote_command": self.remote_command,
        }
