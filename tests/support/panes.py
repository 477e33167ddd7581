"""A pane as `list-panes` reports it, for tests that need one without a tmux server."""

from __future__ import annotations

import dataclasses
from typing import Any

from osf_tmux.tmux import PaneInfo


def pane_info(**fields: Any) -> PaneInfo:
    """Pane %1 of an attached session (120x32, pid 123, no command); `fields` replace those."""
    base = PaneInfo(
        pane_id="%1", pid=123, tty="/dev/pts/9", width=120, height=32, piped=False, dead=False,
        active=True, window_active=True, window_id="@1", session_id="$1", session_name="s",
        window_index="0", pane_index="0", session_attached=1, current_command="",
        agent_override="", report="", our_pipe="", alt_screen=False,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)
