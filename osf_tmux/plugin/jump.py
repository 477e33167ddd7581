"""`osf-tmux next`: move a client to the next pane that waits for a person.

Which panes wait comes from tmux itself (one `list-panes -a` reading `@osf_state`, what the
status bar shows), so a pane that closed or a stale status file can never be jumped to. The
daemon's status file only orders them: longest waiting first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from osf_tmux.tmux import SEP, Tmux

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


def order(panes: Sequence[Waiting]) -> list[Waiting]:
    """Blocked before done; within each, the one waiting longest first (then by pane number,
    so that the order is stable when the daemon's times are unknown)."""
    return sorted(panes, key=lambda w: (WAITING.index(w.state), w.since, _pane_number(w.pane_id)))


def pick(panes: Sequence[Waiting], current: str | None) -> Waiting | None:
    """The pane after `current` in `order` (wrapping), or the first: repeated presses cycle."""
    ordered = order(panes)
    if not ordered:
        return None
    ids = [w.pane_id for w in ordered]
    if current in ids:
        return ordered[(ids.index(current) + 1) % len(ordered)]
    return ordered[0]


def since_times(status: Mapping[str, Any] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for p in (status or {}).get("panes", []):
        since = p.get("since")
        if isinstance(p.get("pane"), str) and isinstance(since, (int, float)):
            out[p["pane"]] = float(since)
    return out


def waiting_panes(
    tmux: Tmux, client: str | None, since: Mapping[str, float]
) -> tuple[list[Waiting], str | None]:
    """The waiting panes and the pane `client` shows now, in one tmux call.

    The client's pane comes from `list-clients`, which says what each client shows. Not from
    `display-message -c CLIENT`: that reads the pane of whoever runs it, from $TMUX_PANE, and a
    run-shell job inherits the one the server was started from (a server started inside tmux),
    so repeated presses would never move on."""
    fmt = SEP.join(("#{pane_id}", "#{session_name}:#{window_index}.#{pane_index}", "#{@osf_state}"))
    clients = ["list-clients", "-F", _CURRENT_HEAD + "#{client_name}" + SEP + "#{pane_id}"]
    out = tmux.run_many([["list-panes", "-a", "-F", _PANE_HEAD + fmt], clients])
    panes, now = [], None
    for line in out.splitlines():
        if line.startswith(_CURRENT_HEAD):
            name, _, pane_id = line[len(_CURRENT_HEAD) :].partition(SEP)
            if name == client and pane_id:
                now = pane_id
        elif line.startswith(_PANE_HEAD):
            pane_id, address, state = line[len(_PANE_HEAD) :].split(SEP)
            if state in WAITING:
                panes.append(Waiting(pane_id, address, state, since.get(pane_id, float("inf"))))
    return panes, now


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
