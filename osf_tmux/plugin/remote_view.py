"""The remote panes and hosts as the daemon's status file tells them: what the overview menu and
`next` add to the local panes.

The local daemon writes, for each host of `@osf-hosts`, its link's state (`hosts` in
status.json) and the agent panes its remote daemon reports (`panes` entries whose `host` is
set). Everything in them came from another machine: it is checked for shape here (a pane id is
`%N`, a state one of ours, text a string) and stays text; the callers escape it for wherever it
goes (a tmux menu, a terminal). The panes of a host that is not `online` are never returned:
what it said last is no longer current, and the host gets one row of its own instead."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ONLINE = "online"
PANE_ID = re.compile(r"^%[0-9]{1,9}$")
# A remote agent's name is looked up among our manifests (for the menu's answers) only when it
# has the shape of a manifest id: it names a file there.
SAFE_AGENT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")
_STATES = frozenset(("blocked", "done", "working", "idle"))
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tab and newline
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TEXT_LIMIT = 500  # a question or a name longer than this is cut: a row shows far less anyway


@dataclass(frozen=True)
class RemotePane:
    host: str  # as in @osf-hosts
    pane_id: str  # the remote tmux's pane id
    target: str  # the remote session:window.pane
    state: str
    agent: str
    since: float | None
    question: str = ""
    detail: str = ""
    options: tuple[tuple[str, str], ...] = ()

    @property
    def session(self) -> str:
        """The remote session's name (tmux keeps `:` out of session names)."""
        return self.target.split(":", 1)[0]

    @property
    def where(self) -> str:
        """How it is shown and typed: `devbox:work:1.0`."""
        return f"{self.host}:{self.target}"


@dataclass(frozen=True)
class HostState:
    name: str
    state: str  # online, offline, connecting, incompatible (or what a newer daemon says)
    since: float | None = None
    error: str = ""


def host_states(status: Mapping[str, Any] | None) -> list[HostState]:
    """Every host the daemon links to, in the order it lists them."""
    hosts = (status or {}).get("hosts")
    if not isinstance(hosts, dict):
        return []
    out = []
    for name, info in hosts.items():
        if not isinstance(name, str) or not isinstance(info, dict):
            continue
        state = info.get("state")
        since = info.get("since")
        error = info.get("error")
        out.append(
            HostState(
                _text(name),
                _text(state) if isinstance(state, str) else "unknown",
                float(since) if isinstance(since, (int, float)) and _number(since) else None,
                _text(error) if isinstance(error, str) else "",
            )
        )
    return out


def remote_panes(status: Mapping[str, Any] | None) -> list[RemotePane]:
    """The agent panes of the hosts that are online now; entries of any other shape are left
    out (a newer or a hostile remote must not break the menu)."""
    online = {h.name for h in host_states(status) if h.state == ONLINE}
    out = []
    for p in (status or {}).get("panes", []):
        if not isinstance(p, dict):
            continue
        host, pane_id, target = p.get("host"), p.get("pane"), p.get("target")
        state, agent = p.get("state"), p.get("agent")
        if not (isinstance(host, str) and host in online):
            continue
        if not (isinstance(pane_id, str) and PANE_ID.match(pane_id)):
            continue
        if not (isinstance(target, str) and target and state in _STATES):
            continue
        since = p.get("since")
        out.append(
            RemotePane(
                host,
                pane_id,
                _text(target),
                str(state),
                _text(agent) if isinstance(agent, str) and agent else "?",
                float(since) if isinstance(since, (int, float)) and _number(since) else None,
                _text(p.get("question")),
                _text(p.get("detail")),
                _options(p.get("options")),
            )
        )
    return out


def find(status: Mapping[str, Any] | None, host: str, target: str) -> RemotePane | None:
    """The remote agent pane `target` (its pane id, or its session:window.pane) on `host`."""
    for pane in remote_panes(status):
        if pane.host == host and target in (pane.pane_id, pane.target):
            return pane
    return None


def _options(value: object) -> tuple[tuple[str, str], ...]:
    """`[{"choice": "1", "label": "Yes"}, ...]` (as `list --json` writes them) or pairs."""
    if not isinstance(value, list):
        return ()
    out = []
    for item in value[:20]:
        if isinstance(item, dict):
            choice, label = item.get("choice"), item.get("label")
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            choice, label = item
        else:
            continue
        if isinstance(choice, str) and choice.isdigit() and len(choice) <= 3:
            out.append((choice, _text(label)))
    return tuple(out)


def printable(text: str) -> str:
    """`text` with its control characters (escape sequences, carriage returns, C1 controls)
    shown as `^[`, `^M`, `\\x9b` instead of acting on a terminal; newlines and tabs stay."""
    return _CONTROL.sub(_shown, text)


def _shown(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x20:
        return "^" + chr(c + 0x40)
    return "^?" if c == 0x7F else f"\\x{c:02x}"


def _text(value: object) -> str:
    """A string from the status file, cut, on one line, with no control character left to act
    anywhere (a name, a target, a question: all one line where they are shown)."""
    return _ANY_CONTROL.sub("?", value[:_TEXT_LIMIT]) if isinstance(value, str) else ""


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
