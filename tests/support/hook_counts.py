"""How many of osf-tmux's hooks each event of a JSON `hooks` object holds: the check every
agent's hook-file tests make after an install or an uninstall."""

from __future__ import annotations

from typing import Any

from osf_tmux.agents import hooks as agent_hooks


def ours(hooks: dict[str, Any]) -> dict[str, int]:
    """Per event, our hooks among its groups; keys that hold no list of groups (Droid keeps its
    flags beside the events) are not events."""
    return {
        event: sum(
            agent_hooks.is_our_command(h.get("command", ""))
            for group in groups
            for h in group.get("hooks", [])
        )
        for event, groups in hooks.items()
        if isinstance(groups, list)
    }
