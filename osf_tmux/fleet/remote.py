"""What a remote daemon says, as far as we believe it: its lines read, checked field by field.

The remote end is another machine: whatever it sends is data to check, never tmux format or
shell text. A pane id has the shape tmux gives it (`%12`), a state is one of the four, an agent
a short name, a target `session:window.pane` without control characters, a question short and
on one line. A line that is not JSON or not one of the feed's kinds is skipped; a field that
fails its check drops the whole message (a pane we cannot name is no pane)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

PROTOCOL = 1  # what `events --hello` says; a remote with another number is incompatible
STATES = ("blocked", "working", "done", "idle")
KINDS = ("hello", "state", "synced", "transition", "gone", "bye")
MAX_LINE = 64 * 1024  # longer than any message of ours: the link ends
MAX_TARGET = 200
MAX_TEXT = 300  # a question, a rule's id
MAX_VERSION = 40

_PANE_RE = re.compile(r"%[0-9]{1,9}")
_AGENT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}")
_TARGET_RE = re.compile(r"[^:]{1,160}:[0-9]{1,6}\.[0-9]{1,6}")
_VERSION_RE = re.compile(r"[0-9A-Za-z.+_-]{1,40}")
# C0, DEL and C1 controls, and the Unicode line and paragraph separators: never shown as sent.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ProtocolError(ValueError):
    """The remote broke the protocol: the link ends (and says this)."""


@dataclass(frozen=True)
class Hello:
    version: str
    protocol: int


@dataclass(frozen=True)
class Message:
    """One of the feed's messages, checked. `after` None: no agent (any more) or `gone`."""

    kind: str
    pane: str = ""
    target: str = ""
    agent: str | None = None
    after: str | None = None
    since: float | None = None
    rule: str | None = None
    question: str = ""


def one_line(text: str, limit: int) -> str:
    """`text` with every control character a space, cut to `limit` characters."""
    text = _CONTROLS.sub(" ", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_line(line: bytes) -> Hello | Message | None:
    """A line of the remote feed: a Hello, a Message, or None to skip it. Raises
    ProtocolError for a line too long to be ours."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"a line of {len(line)} bytes, longer than any message of ours")
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if kind == "hello":
        return _hello(data)
    if kind not in KINDS:
        return None
    if kind in ("synced", "bye"):
        return Message(kind)
    return _message(str(kind), data)


def _hello(data: dict[str, Any]) -> Hello:
    version, protocol = data.get("version"), data.get("protocol")
    if not isinstance(version, str) or not _VERSION_RE.fullmatch(version):
        version = "unknown"
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        protocol = 0
    return Hello(version, protocol)


def _message(kind: str, data: dict[str, Any]) -> Message | None:
    pane, target = data.get("pane"), data.get("target")
    if not isinstance(pane, str) or not _PANE_RE.fullmatch(pane):
        return None
    if not isinstance(target, str) or not _TARGET_RE.fullmatch(target):
        return None
    if _CONTROLS.search(target):
        return None
    if kind == "gone":
        return Message(kind, pane, target)
    agent, after = data.get("agent"), data.get("after")
    if agent is not None and (not isinstance(agent, str) or not _AGENT_RE.fullmatch(agent)):
        return None
    if after is not None and after not in STATES:
        return None
    when = data.get("time")
    since: float | None = None
    if isinstance(when, (int, float)) and not isinstance(when, bool) and math.isfinite(when):
        since = float(when) if when > 0 else None
    rule, question = data.get("rule"), data.get("question")
    return Message(
        kind=kind,
        pane=pane,
        target=target,
        agent=agent,
        after=after,
        since=since,
        rule=one_line(rule, MAX_TEXT) if isinstance(rule, str) else None,
        question=one_line(question, MAX_TEXT) if isinstance(question, str) else "",
    )


@dataclass(frozen=True)
class RemotePane:
    """A pane of another machine, as its daemon last told it."""

    host: str
    pane: str
    target: str
    agent: str | None
    state: str
    since: float | None
    rule: str | None
    question: str

    @property
    def address(self) -> str:
        """As `list` shows it: `devbox:work:1.0`."""
        return f"{self.host}:{self.target}"


@dataclass(frozen=True)
class RemoteTransition:
    """A remote pane's state changed (what notifications are made of). `after` None: the agent
    left the pane, or the pane closed."""

    pane: RemotePane
    before: str | None
    after: str | None
    before_rule: str | None = None
