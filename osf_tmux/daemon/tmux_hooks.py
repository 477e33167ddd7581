"""tmux hooks that wake the daemon when panes, windows, sessions or focus change, so it need
not poll `list-panes` often. Hooks are shared with the user's own configuration: ours are
appended (`set-hook -ga`), carry a marker, and only entries with that marker are ever removed."""

from __future__ import annotations

import re
import shlex

from osf_tmux.tmux import Tmux, TmuxError

# Events after which the set of panes, their sizes, or what a person sees may have changed.
EVENTS = (
    "after-new-window",
    "after-split-window",
    "after-new-session",
    "after-kill-pane",
    "after-resize-pane",
    "after-resize-window",
    "window-resized",
    "after-select-pane",
    "after-select-window",
    "client-attached",
    "client-detached",
    "client-session-changed",
    "session-window-changed",
    "session-closed",
    "window-unlinked",
)

_ENTRY = re.compile(r"^(?P<name>[a-z-]+)\[(?P<index>\d+)\]\s+(?P<command>.*)$")


def marker(token: str) -> str:
    return f"osf-tmux-wake:{token}"


def install_commands(pid: int, token: str) -> list[list[str]]:
    # `|| true`: after a kill -9 the stale hook must stay silent until the next daemon removes it.
    shell = f"kill -USR1 {pid} 2>/dev/null || true # {marker(token)}"
    command = f"run-shell -b {shlex.quote(shell)}"
    return [["set-hook", "-ga", event, command] for event in EVENTS]


def ours(show_hooks_output: str, token: str) -> list[tuple[str, int]]:
    """(hook, index) of every entry that carries our marker."""
    found = []
    mark = marker(token)
    for line in show_hooks_output.splitlines():
        m = _ENTRY.match(line.strip())
        if m and mark in m.group("command"):
            found.append((m.group("name"), int(m.group("index"))))
    return found


def remove(tmux: Tmux, token: str) -> int:
    """Unset our entries (from this daemon or a killed one); returns how many."""
    try:
        listing = tmux.run("show-hooks", "-g")
    except TmuxError:
        return 0
    entries = ours(listing, token)
    if entries:
        tmux.run_many([["set-hook", "-gu", f"{name}[{index}]"] for name, index in entries])
    return len(entries)


def install(tmux: Tmux, pid: int, token: str) -> None:
    remove(tmux, token)
    tmux.run_many(install_commands(pid, token))
