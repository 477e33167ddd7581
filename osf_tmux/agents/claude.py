"""Claude Code: its hooks in `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`), and
`--settings` to add ours for one run. Its screen: rules/claude.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile

NAME = "claude"
TITLE = "Claude Code"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PermissionRequest": "blocked",
    "Notification": None,  # decided by notification_type
    "Stop": "done",
}
NOTIFICATIONS = {"permission_prompt": "blocked", "idle_prompt": "idle"}
HOOK_TIMEOUT = 10  # seconds
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks

    return [JsonHooks(agent_folder(env, "CLAUDE_CONFIG_DIR", ".claude") / "settings.json")]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    import json

    from osf_tmux.agents.changes import agent_data
    from osf_tmux.agents.json_hooks import hooks_table

    # --settings takes a JSON string; its hooks run beside the person's own.
    settings = json.dumps({"hooks": hooks_table(agent_data(__name__))}, separators=(",", ":"))
    return [binary, "--settings", settings, *args], []
