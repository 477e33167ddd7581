"""The daemon's event feed as a reader sees it: where the socket is, what a message holds,
reading messages with a deadline, and what `osf-tmux wait` waits for.

One JSON object a line. On connect the daemon sends one `state` message per pane with an agent
(as it is now), then `synced`; after that a `transition` for each change of a pane's state, a
`gone` when the daemon finds a pane closed, and `bye` when it stops. A reader that falls too far
behind is dropped: it gets end-of-file without `bye`.

Standard library only, cheap to import: `osf-tmux wait` starts with this module."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SOCKET_NAME = "events.sock"
STATES = ("blocked", "working", "done", "idle")
KINDS = ("state", "synced", "transition", "gone", "bye")
MAX_LINE = 1 << 20  # a line longer than this is not from our daemon
_SUN_PATH = 100  # sockaddr_un holds 104-108 bytes, with the terminating NUL


class FeedError(RuntimeError):
    """The feed cannot be read: no daemon, a socket that is not ours, a connection gone."""


class FeedClosed(FeedError):
    """The daemon closed the connection: `said_bye` if it stopped, else it dropped us or died."""

    def __init__(self, said_bye: bool) -> None:
        super().__init__(
            "the osf-tmux daemon stopped"
            if said_bye
            else "the osf-tmux daemon closed the feed (it died, or this reader fell behind)"
        )
        self.said_bye = said_bye


def socket_path(runtime: Path) -> Path:
    return runtime / SOCKET_NAME


@dataclass(frozen=True)
class Event:
    """One message. `time`: wall-clock seconds (when the pane entered `after`, for `state` and
    `transition`; when the daemon found it closed, for `gone`). `after` is None where no agent
    runs (any more), and for `gone`; `before` is None in a `state` message."""

    kind: str
    time: float = 0.0
    pane: str = ""
    target: str = ""  # session:window.pane
    agent: str | None = None
    before: str | None = None
    after: str | None = None
    rule: str | None = None
    question: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str | bytes) -> Event | None:
        """The message in `line`, or None for anything that is not one (a newer daemon may add
        kinds and keys: unknown kinds are skipped, unknown keys ignored)."""
        try:
            data = json.loads(line)
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            return None
        return cls(
            kind=str(data["kind"]),
            time=_number(data.get("time")),
            pane=_text(data.get("pane")) or "",
            target=_text(data.get("target")) or "",
            agent=_text(data.get("agent")),
            before=_text(data.get("before")),
            after=_text(data.get("after")),
            rule=_text(data.get("rule")),
            question=_text(data.get("question")) or "",
        )

    def line(self) -> str:
        """Tab-separated for people and `cut`/`awk`: time, pane, target, agent, before, after,
        rule, question; `-` for nothing, `gone` as the state after a pane closed."""
        after = "gone" if self.kind == "gone" else self.after
        fields = (
            time.strftime("%H:%M:%S", time.localtime(self.time)),
            self.pane,
            self.target,
            self.agent,
            self.before,
            after,
            self.rule,
            self.question,
        )
        return "\t".join(_tabless(f) or "-" for f in fields)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _tabless(value: str | None) -> str | None:
    return value.replace("\t", " ").replace("\n", " ") if value else value


@contextlib.contextmanager
def unix_address(path: Path) -> Iterator[str]:
    """An address for bind/connect even when `path` is longer than a socket address holds
    (deep $XDG_RUNTIME_DIR, test directories): on Linux through /proc/self/fd of its folder."""
    text = str(path)
    if len(os.fsencode(text)) <= _SUN_PATH:
        yield text
        return
    if not Path("/proc/self/fd").is_dir():
        raise FeedError(f"socket path too long for this system ({len(text)} bytes): {text}")
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def check_private(folder: Path) -> None:
    """The feed's folder must be this user's alone: another user could otherwise have put a
    socket there that tells us lies."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return  # no daemon ever ran here: connecting says so
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        raise FeedError(f"{folder} is not private to this user (owner or mode): not reading it")


class Subscription:
    """A connection to the daemon's feed, read a line at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buf = bytearray()
        self._lines: list[bytes] = []
        self.said_bye = False

    @classmethod
    def connect(cls, path: Path) -> Subscription:
        check_private(path.parent)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with unix_address(path) as address:
                sock.connect(address)
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            raise FeedError("the osf-tmux daemon is not running (osf-tmux start)") from None
        except OSError as exc:
            sock.close()
            raise FeedError(f"cannot reach the osf-tmux daemon at {path}: {exc}") from None
        return cls(sock)

    def read(self, timeout: float | None = None) -> Event | None:
        """The next message; None once `timeout` seconds passed without one (None: no limit).
        Raises FeedClosed at the end of the feed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while self._lines:
                event = Event.from_json(self._lines.pop(0))
                if event is not None:
                    if event.kind == "bye":
                        self.said_bye = True
                    return event
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                return None
            except OSError as exc:
                raise FeedError(f"reading the osf-tmux daemon's feed: {exc}") from None
            if not chunk:
                raise FeedClosed(self.said_bye)
            self._buf += chunk
            *lines, rest = self._buf.split(b"\n")
            self._lines += [bytes(x) for x in lines]
            self._buf = bytearray(rest)
            if len(self._buf) > MAX_LINE:
                raise FeedError("the feed sent a line too long to be ours")

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- waiting for a state ---------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How a wait ended: `reached` (event: the pane in the state), `gone` (event: its closing),
    `stopped` (the daemon said bye)."""

    how: str
    event: Event


@dataclass
class Wait:
    """What `osf-tmux wait` waits for, fed the feed's messages one by one. Pure: no I/O.

    `pane` None: any pane. A pane already in one of `states` when the feed starts counts,
    unless `fresh` (then only a transition into one of them does)."""

    pane: str | None
    states: frozenset[str]
    fresh: bool = False

    def feed(self, event: Event) -> Outcome | None:
        if event.kind == "bye":
            return Outcome("stopped", event)
        if self.pane is not None and event.pane != self.pane:
            return None
        if event.kind == "gone":
            return Outcome("gone", event) if self.pane is not None else None
        counts = event.kind == "transition" or (event.kind == "state" and not self.fresh)
        if counts and event.after in self.states:
            return Outcome("reached", event)
        return None
