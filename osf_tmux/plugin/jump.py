"""`osf-tmux next`: move a client to the next pane that waits for a person.

Which panes wait comes from tmux itself (one `list-panes -a` reading `@osf_state`, what the
status bar shows), so a pane that closed or a stale status file can never be jumped to. The
daemon's status file only orders them: longest waiting first. The panes of other machines
(`@osf-hosts`) come from the status file, where the daemon keeps what their daemons report, for
the hosts that are online; going to one opens or reuses a window attached there
(remote_window.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from osf_tmux.tmux import SEP, Tmux, TmuxError

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The states worth a jump, most urgent first.
WAITING = ("blocked", "done")
_PANE_HEAD = "OSFPANE" + SEP
_CURRENT_HEAD = "OSFCURRENT" + SEP


@dataclass(frozen=True)
class Waiting:
    pane_id: str
    address: str
    state: str
    since: float
    host: str | None = None  # a pane of another machine: pane_id and address are its own

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.host, self.pane_id)

    @property
    def where(self) -> str:
        return self.address if self.host is None else f"{self.host}:{self.address}"


def order(panes: Sequence[Waiting]) -> list[Waiting]:
    """Blocked before done; within each, the one waiting longest first (then by pane number,
    so that the order is stable when the daemon's times are unknown)."""
    return sorted(panes, key=lambda w: (WAITING.index(w.state), w.since, _pane_number(w.pane_id)))


def pick(panes: Sequence[Waiting], current: str | tuple[str | None, str] | None) -> Waiting | None:
    """The pane after `current` in `order` (wrapping), or the first: repeated presses cycle.
    `current` is a local pane id, or (host, remote pane) for a window attached to a host: its
    id, or its session:window.pane."""
    ordered = order(panes)
    if not ordered:
        return None
    ids = [w.key for w in ordered]
    if isinstance(current, str):
        current = (None, current)
    # a window sent to a remote pane by its session:window.pane (`osf-tmux go devbox:work:1.0`)
    places = [(w.host, w.address) for w in ordered]
    if current is not None and current[0] is not None and current not in ids and current in places:
        current = ids[places.index(current)]
    if current in ids:
        return ordered[(ids.index(current) + 1) % len(ordered)]
    return ordered[0]


def since_times(status: Mapping[str, Any] | None) -> dict[str, float]:
    """Since when each local pane is in its state (another machine's pane ids are its own)."""
    out: dict[str, float] = {}
    for p in (status or {}).get("panes", []):
        if p.get("host") is not None:
            continue
        since = p.get("since")
        if isinstance(p.get("pane"), str) and isinstance(since, (int, float)):
            out[p["pane"]] = float(since)
    return out


def waiting_panes(
    tmux: Tmux, client: str | None, since: Mapping[str, float]
) -> tuple[list[Waiting], tuple[str | None, str] | None]:
    """The waiting panes and the pane `client` shows now, in one tmux call.

    The client's pane comes from `list-clients`, which says what each client shows. Not from
    `display-message -c CLIENT`: that reads the pane of whoever runs it, from $TMUX_PANE, and a
    run-shell job inherits the one the server was started from (a server started inside tmux),
    so repeated presses would never move on. A client on a window attached to another
    machine shows the remote pane it was last sent to: (host, pane id)."""
    fmt = SEP.join(("#{pane_id}", "#{session_name}:#{window_index}.#{pane_index}", "#{@osf_state}"))
    remote = ("#{@osf-remote-host}", "#{@osf-remote-pane}")
    out = tmux.run_many([["list-panes", "-a", "-F", _PANE_HEAD + fmt], shown_by(client, remote)])
    panes: list[Waiting] = []
    now: tuple[str | None, str] | None = None
    for line in out.splitlines():
        if (seen := client_line(line, client)) is not None:
            pane, host, remote_pane = [*seen, "", ""][:3]
            now = (host, remote_pane) if host and remote_pane else (None, pane) if pane else None
        elif line.startswith(_PANE_HEAD):
            pane_id, address, state = line[len(_PANE_HEAD) :].split(SEP)
            if state in WAITING:
                panes.append(Waiting(pane_id, address, state, since.get(pane_id, float("inf"))))
    return panes, now


def remote_waiting(status: Mapping[str, Any] | None) -> list[Waiting]:
    """The waiting panes of the hosts that are online, from the status file."""
    from osf_tmux.plugin.remote_view import remote_panes

    unknown = float("inf")
    return [
        Waiting(p.pane_id, p.target, p.state, unknown if p.since is None else p.since, p.host)
        for p in remote_panes(status)
        if p.state in WAITING
    ]


# How `next` goes to a pane on another machine: (tmux, client, pane, message) -> message shown.
RemoteJump = Callable[[Tmux, "str | None", Waiting, str], str]


def go_next(
    tmux: Tmux,
    status: Mapping[str, Any] | None,
    running: bool,
    client: str | None,
    go_remote: RemoteJump | None = None,
) -> str:
    """Move `client` (default: the current one) to the next waiting pane, or say that none
    waits; the message it was shown. Two tmux calls: one to look, one to move and say so. A
    pane on another machine goes to `go_remote` (remote_go.go_to_waiting: a window attached
    there); it is passed in since that module sits above this one."""
    panes, current = waiting_panes(tmux, client, since_times(status))
    panes += remote_waiting(status)
    target = pick(panes, current)
    if target is None:
        note = "" if running else " (the daemon is not running: osf-tmux doctor)"
        message = f"osf-tmux: no agent is waiting{note}"
        say(tmux, client, message, [])
        return message
    rank = [w.key for w in order(panes)].index(target.key) + 1
    message = f"osf-tmux: {target.where} {target.state} ({rank} of {len(panes)})"
    if target.host is not None:
        if go_remote is None:  # a caller that cannot go to other machines
            raise TmuxError(f"{target.where} is on another machine: osf-tmux go {target.where}")
        return go_remote(tmux, client, target, message)
    say(tmux, client, message, jump_commands(target.pane_id, client))
    return message


def say(tmux: Tmux, client: str | None, message: str, before: list[list[str]]) -> None:
    """Run `before`, then show `message` on the client, in one tmux call. Without a client
    named and none current (a terminal outside tmux), the message alone is left out."""
    shown = ["display-message", *(["-c", client] if client else []), message.replace("#", "##")]
    if client:
        tmux.run_many([*before, shown])
        return
    if before:
        tmux.run_many(before)
    with contextlib.suppress(TmuxError):
        tmux.run(*shown)


def shown_by(client: str | None, fields: Sequence[str]) -> list[str]:
    """The tmux command that prints the pane `client` shows (and `fields` of it; parse its
    line with `client_line`). A named client is found in list-clients, which takes each
    client's own pane: display-message -c takes the pane of $TMUX_PANE when run from inside
    tmux (a pane of this server or, with -L/-S, of another one). Without a name: the current
    client, as display-message sees it."""
    fmt = SEP.join(("#{client_name}", "#{pane_id}", *fields))
    if client:
        return ["list-clients", "-F", _CURRENT_HEAD + fmt]
    return ["display-message", "-p", _CURRENT_HEAD + fmt]


def client_line(line: str, client: str | None) -> list[str] | None:
    """The pane id and fields from a line `shown_by(client, fields)` printed, if it is
    `client`'s (any client's line, when none was named)."""
    if not line.startswith(_CURRENT_HEAD):
        return None
    name, *rest = line[len(_CURRENT_HEAD) :].split(SEP)
    return rest if not client or name == client else None


def jump_commands(pane_id: str, client: str | None) -> list[list[str]]:
    """switch-client with a pane target selects its session, window and pane in one go."""
    return [["switch-client", *(["-c", client] if client else []), "-t", pane_id]]


def _pane_number(pane_id: str) -> int:
    digits = pane_id.lstrip("%")
    return int(digits) if digits.isdigit() else 0


def recent_client(tmux: Tmux) -> str | None:
    """The client someone used last (a click on a desktop notification carries no client)."""
    out = tmux.run("list-clients", "-F", "#{client_activity}" + SEP + "#{client_name}")
    clients = [line.split(SEP, 1) for line in out.splitlines() if SEP in line]
    if not clients:
        return None
    return max(clients, key=lambda c: int(c[0]) if c[0].isdigit() else 0)[1]


def focus(tmux: Tmux, pane_id: str) -> None:
    """Show `pane_id` on the client used last (what clicking a notification does)."""
    client = recent_client(tmux)
    if client is not None:
        tmux.run_many(jump_commands(pane_id, client))
