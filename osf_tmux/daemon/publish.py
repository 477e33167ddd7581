"""Pushing states into tmux user options, only when they change.

The status line reads these options (`#{@osf_status}`, `#{@osf_window_state}`): no `#()`
process per redraw."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from osf_tmux.judge.combine import most_urgent

Command = list[str]
# Never published: even "no state" is written once, clearing what an earlier daemon left behind.
_UNKNOWN = "?"


@dataclass(frozen=True)
class PanePlace:
    pane_id: str
    window_id: str


def summary(states: Mapping[str, str | None], remote: Iterable[str] = ()) -> dict[str, str]:
    """The global options: a short line for the status bar, and counts per state (of this
    server's panes and of the `remote` panes of other machines alike)."""
    counts = Counter(s for s in states.values() if s)
    counts.update(s for s in remote if s)
    parts = [f"{counts[s]} {s}" for s in ("blocked", "done") if counts[s]]
    return {
        "@osf_status": " · ".join(parts),
        "@osf_blocked_count": str(counts["blocked"]),
        "@osf_done_count": str(counts["done"]),
        "@osf_working_count": str(counts["working"]),
        "@osf_idle_count": str(counts["idle"]),
    }


class Publisher:
    """Remembers what tmux already holds and turns new states into the fewest commands."""

    def __init__(self) -> None:
        self.panes: dict[str, str | None] = {}
        self.windows: dict[str, str | None] = {}
        self.globals: dict[str, str] = {}

    def commands(
        self,
        states: Mapping[str, str | None],
        places: Mapping[str, PanePlace],
        remote: Iterable[str] = (),
    ) -> list[Command]:
        """`remote`: the states of other machines' panes, which count in the global options
        only (no pane or window of this server carries them)."""
        out: list[Command] = []
        for pane_id, state in states.items():
            if self.panes.get(pane_id, _UNKNOWN) != state:
                out.append(_set(["-p", "-t", pane_id], "@osf_state", state))
                self.panes[pane_id] = state
        for gone in set(self.panes) - set(states):
            del self.panes[gone]  # the pane is gone, and its options with it

        by_window: dict[str, list[str | None]] = {}
        for pane_id, place in places.items():
            by_window.setdefault(place.window_id, []).append(states.get(pane_id))
        for window_id, window_states in by_window.items():
            state = most_urgent(window_states)
            if self.windows.get(window_id, _UNKNOWN) != state:
                out.append(_set(["-w", "-t", window_id], "@osf_window_state", state))
                self.windows[window_id] = state
        for gone in set(self.windows) - set(by_window):
            del self.windows[gone]

        for name, value in summary(states, remote).items():
            if self.globals.get(name) != value:
                out.append(["set-option", "-g", name, value])
                self.globals[name] = value
        return out

    def clear_commands(self) -> list[Command]:
        """Everything we set, unset again (when the daemon stops)."""
        out = [_set(["-p", "-t", p], "@osf_state", None) for p, s in self.panes.items() if s]
        out += [
            _set(["-w", "-t", w], "@osf_window_state", None) for w, s in self.windows.items() if s
        ]
        out += [["set-option", "-g", "-u", name] for name in self.globals]
        self.panes.clear()
        self.windows.clear()
        self.globals.clear()
        return out

    def forget(self) -> None:
        """Make the next `commands` write everything again (after tmux lost our options)."""
        self.panes.clear()
        self.windows.clear()
        self.globals.clear()


def _set(scope: list[str], name: str, value: str | None) -> Command:
    if value is None:
        return ["set-option", "-u", *scope, name]
    return ["set-option", *scope, name, value]
