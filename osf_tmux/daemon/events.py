"""The event feed's server: every state change of every pane, to any number of local readers
(`osf-tmux events`, `osf-tmux wait`, a status bar's script), over a Unix socket in the daemon's
private runtime folder (0700; the socket 0600).

The daemon's loop only appends to an inbox and writes one byte to a pipe (`on_transition`,
`on_pane_gone`): a thread of its own encodes each message once, keeps every pane's current
state for the snapshot a new reader gets, and writes to the readers without ever blocking. What
a reader has not taken yet waits in a buffer of its own, at most `backlog` bytes (beyond what
the kernel holds for its socket, `sndbuf`): a reader that stops reading is dropped once that
fills, never buffered without bound, and neither the loop nor the other readers wait for it.
The wire format is in feed.py."""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.daemon.feed import Event, socket_path, unix_address
from osf_tmux.judge.question import ask_excerpt
from osf_tmux.tmux import PaneInfo

if TYPE_CHECKING:
    from osf_tmux.daemon.watch import Transition

log = logging.getLogger("osf_tmux.daemon.events")

BACKLOG = 64 * 1024  # bytes a reader may leave unread (past its socket's buffer) before it goes
SNDBUF = 32 * 1024  # at most the kernel's share, per reader (Linux doubles it for bookkeeping)
MAX_READERS = 32
MAX_INPUT = 4096  # readers have nothing to say; one that talks this much is not ours
BACKLOG_VAR = "OSF_TMUX_EVENTS_BACKLOG"


def backlog_from(env: Mapping[str, str]) -> int:
    """The backlog in bytes from the daemon's environment (the tests make it small), else
    the default; never below 1 KiB."""
    text = env.get(BACKLOG_VAR, "").strip()
    return max(int(text), 1024) if text.isdigit() else BACKLOG


def fan_out(*listeners: Callable[[Transition], None]) -> Callable[[Transition], None]:
    """One `on_transition` for the daemon that calls each listener: one failing does not keep
    the others from hearing."""

    def each(t: Transition) -> None:
        for listener in listeners:
            try:
                listener(t)
            except Exception:
                log.exception("%s: a transition listener failed", t.pane.pane_id)

    return each


@dataclass
class _Pane:
    target: str
    agent: str | None
    state: str | None
    since: float
    rule: str | None
    question: str


class _Reader:
    def __init__(self, sock: socket.socket, peer: str) -> None:
        self.sock = sock
        self.peer = peer
        self.out = bytearray()
        self.heard = 0
        self.watching_writes = False


class EventHub:
    """Serves the feed from its own thread; `start`, hand its `on_*` to the daemon, `close`."""

    def __init__(
        self,
        runtime: Path,
        *,
        backlog: int = BACKLOG,
        sndbuf: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.runtime = runtime
        self.path = socket_path(runtime)
        self.backlog = backlog
        self.sndbuf = min(backlog // 2, SNDBUF) if sndbuf is None else sndbuf
        self.clock = clock or SystemClock()
        # deque.append and popleft are atomic: the loop's side needs no lock.
        self._inbox: collections.deque[tuple[str, Any]] = collections.deque()
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        # The feed's thread closes the pipe as it ends, which may be before `close` or a late
        # `_post` writes to it: a write under this lock never reaches a closed number, which
        # the process may already have handed to something else.
        self._wake_lock = threading.Lock()
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._readers: dict[int, _Reader] = {}
        self._panes: dict[str, _Pane] = {}
        self._closing = False
        self._thread: threading.Thread | None = None
        self.counters = {"readers_total": 0, "dropped": 0, "refused": 0, "events": 0}

    # ---- the daemon's side (its loop's thread) --------------------------------------------

    def on_transition(self, t: Transition) -> None:
        self._post("transition", t)

    def on_pane_gone(self, info: PaneInfo) -> None:
        self._post("gone", (info, self.clock.wall()))

    def _post(self, kind: str, item: Any) -> None:
        if self._thread is None:
            return
        self._inbox.append((kind, item))
        self._wake()

    def status(self) -> dict[str, Any]:
        """For status.json (read from the loop's thread: plain reads of ints and a dict size)."""
        return {"socket": str(self.path), "readers": len(self._readers), **self.counters}

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.runtime, 0o700)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a killed daemon's (we hold the daemon lock: nobody else's)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with unix_address(self.path) as address:
            listener.bind(address)
        os.chmod(self.path, 0o600)
        listener.listen(16)
        listener.setblocking(False)
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ, "listen")
        self._selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._thread = threading.Thread(target=self._run, name="osf-events", daemon=True)
        self._thread.start()
        log.info("event feed at %s", self.path)

    def close(self, timeout: float = 2.0) -> None:
        """Say bye to every reader and take the socket away."""
        thread = self._thread
        if thread is None:  # never started, or closed already: only the wake-up pipe left
            self._close_wake()
            return
        self._closing = True
        self._wake()
        thread.join(timeout)
        self._thread = None

    # ---- the feed's thread -----------------------------------------------------------------

    def _run(self) -> None:
        while not self._closing:
            try:
                self._turn()
            except Exception:  # the feed must outlive any one reader's or message's trouble
                log.exception("event feed")
                time.sleep(0.1)  # and a trouble that repeats must not spin a core
        self._finish()

    def _turn(self) -> None:
        for key, mask in self._selector.select():
            if key.data == "listen":
                self._accept()
            elif key.data == "wake":
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 4096)
            elif isinstance(key.data, _Reader):
                reader = key.data
                if mask & selectors.EVENT_READ:
                    self._hear(reader)
                if mask & selectors.EVENT_WRITE and reader.sock.fileno() in self._readers:
                    self._flush(reader)
        while self._inbox:
            kind, item = self._inbox.popleft()
            event = self._transition(item) if kind == "transition" else self._gone(*item)
            if event is not None:
                self._broadcast(event)

    def _transition(self, t: Transition) -> Event:
        pane = t.pane
        question = ask_excerpt(t.snapshot)[0] if t.after.state == "blocked" else ""
        if t.after.state is None:
            self._panes.pop(pane.pane_id, None)
        else:
            self._panes[pane.pane_id] = _Pane(
                pane.address, t.agent, t.after.state, t.after.since, t.after.rule, question
            )
        return Event(
            kind="transition",
            time=t.after.since,
            pane=pane.pane_id,
            target=pane.address,
            agent=t.agent,
            before=t.before.state,
            after=t.after.state,
            rule=t.after.rule,
            question=question,
        )

    def _gone(self, info: PaneInfo, when: float) -> Event:
        last = self._panes.pop(info.pane_id, None)
        return Event(
            kind="gone",
            time=when,
            pane=info.pane_id,
            target=info.address,
            agent=last.agent if last else None,
            before=last.state if last else None,
        )

    def _broadcast(self, event: Event) -> None:
        self.counters["events"] += 1
        data = (event.to_json() + "\n").encode()
        for reader in list(self._readers.values()):
            if len(reader.out) + len(data) > self.backlog:
                self._drop(reader, f"it fell {len(reader.out)} bytes behind")
                continue
            reader.out += data
            self._flush(reader)

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            peer = peer_of(sock)
            if peer is None or len(self._readers) >= MAX_READERS:
                self.counters["refused"] += 1
                why = "another user" if peer is None else f"{MAX_READERS} readers already"
                log.warning("event feed: refused a reader (%s)", why)
                sock.close()
                continue
            sock.setblocking(False)
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.sndbuf)
            reader = _Reader(sock, peer)
            self._readers[sock.fileno()] = reader
            self._selector.register(sock, selectors.EVENT_READ, reader)
            self.counters["readers_total"] += 1
            # What it missed: every pane with an agent as it is now. Not counted against the
            # backlog: it is as large as the number of panes, not as slow as the reader.
            for pane_id, p in self._panes.items():
                state = Event(
                    kind="state",
                    time=p.since,
                    pane=pane_id,
                    target=p.target,
                    agent=p.agent,
                    after=p.state,
                    rule=p.rule,
                    question=p.question,
                )
                reader.out += (state.to_json() + "\n").encode()
            reader.out += (Event(kind="synced", time=self.clock.wall()).to_json() + "\n").encode()
            log.debug("event feed: reader %s connected", peer)
            self._flush(reader)

    def _flush(self, reader: _Reader) -> None:
        try:
            while reader.out:
                sent = reader.sock.send(reader.out)
                del reader.out[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:  # it went away
            self._forget(reader)
            return
        want_writes = bool(reader.out)
        if want_writes != reader.watching_writes:
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if want_writes else 0)
            self._selector.modify(reader.sock, events, reader)
            reader.watching_writes = want_writes

    def _hear(self, reader: _Reader) -> None:
        try:
            data = reader.sock.recv(MAX_INPUT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._forget(reader)
            return
        reader.heard += len(data)
        if reader.heard > MAX_INPUT:
            self._drop(reader, "it talks; readers only read")

    def _drop(self, reader: _Reader, why: str) -> None:
        self.counters["dropped"] += 1
        log.info("event feed: dropped reader %s: %s", reader.peer, why)
        self._forget(reader)

    def _forget(self, reader: _Reader) -> None:
        self._readers.pop(reader.sock.fileno(), None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(reader.sock)
        reader.sock.close()

    def _finish(self) -> None:
        bye = (Event(kind="bye", time=self.clock.wall()).to_json() + "\n").encode()
        # A reader that reads gets it; one that does not holds the daemon's exit up 0.5 s at most.
        deadline = time.monotonic() + 0.5
        for reader in list(self._readers.values()):
            if len(reader.out) + len(bye) <= self.backlog:
                reader.out += bye
                with contextlib.suppress(OSError):
                    reader.sock.settimeout(min(max(deadline - time.monotonic(), 0.0), 0.05))
                    reader.sock.sendall(reader.out)
            self._forget(reader)
        if self._listener is not None:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(self._listener)
            self._listener.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self._selector.close()
        self._close_wake()

    def _wake(self) -> None:
        with self._wake_lock:
            if self._wake_w < 0:  # the thread ended and closed it: nobody left to wake
                return
            with contextlib.suppress(BlockingIOError):  # full: a wake-up is pending anyway
                os.write(self._wake_w, b"\0")

    def _close_wake(self) -> None:
        with self._wake_lock:
            for fd in (self._wake_r, self._wake_w):
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._wake_r = self._wake_w = -1  # never closed twice: the numbers get reused


def peer_of(sock: socket.socket) -> str | None:
    """Who connected (its pid, for the log), or None if it is not this user. The folder is
    0700 already; this holds even if someone loosened it."""
    cred = getattr(socket, "SO_PEERCRED", None)
    if cred is None:  # macOS and the BSDs: the folder's mode is the guard
        return "?"
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, cred, struct.calcsize("3i"))
    except OSError:
        return None
    pid, uid, _gid = struct.unpack("3i", raw)
    return f"pid {pid}" if uid == os.getuid() else None
