"""Mistral Vibe: its hooks are `[[hooks]]` tables in `~/.vibe/hooks.toml` (`name`, unique across
files; `type` pre_tool / post_tool / post_agent; `command`; `timeout` in seconds). The payload
is JSON on stdin with `hook_event_name`. Vibe has no permission event and no prompt-submitted
event: its permission box is seen on the screen only (rules/vibe.toml), and a turn shows as
working from its first tool call or from the screen. Our hook prints nothing and exits 0, which
Vibe takes as "pass through" (other output would count as a hook failure). It has no flag for
extra hooks, so there is no launch."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile
    from osf_tmux.agents.toml_hooks import Entry

NAME = "vibe"
TITLE = "Mistral Vibe"
EVENTS: dict[str, str | None] = {
    "pre_tool": "working",  # before the permission box is drawn
    "post_tool": "working",  # only when the tool body ran
    "post_agent": "done",  # the turn ended with no tool call pending
}
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 10  # seconds (Vibe's default is 60)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = (
    "Mistral Vibe has no permission event: its permission box is read from the screen.",
)
NO_LAUNCH = (
    "Mistral Vibe has no flag for extra hooks; use `osf-tmux hooks install --agent vibe` (it "
    "adds [[hooks]] tables to ~/.vibe/hooks.toml and can be uninstalled)."
)


def toml_entries(command: str) -> list[Entry]:
    """One table per event, named (Vibe wants names unique across files)."""
    return [
        {"name": f"osf-tmux-{e}", "type": e, "command": command, "timeout": float(HOOK_TIMEOUT)}
        for e in EVENTS
    ]


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.toml_hooks import TomlHookTables

    return [TomlHookTables(agent_folder(env, None, ".vibe") / "hooks.toml", toml_entries)]
