"""Claude Code: its hooks in `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`), and
`--settings` to add ours for one run. Its screen: rules/claude.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile

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


def settings_path(env: Mapping[str, str]) -> str:
    import os

    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    return os.path.join(base, "settings.json")


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.hooks import JsonHooks

    return [JsonHooks(Path(settings_path(env)))]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    import json

    from osf_tmux.agents.hooks import hooks_table

    # --settings takes a JSON string; its hooks run beside the person's own.
    settings = json.dumps({"hooks": hooks_table("claude")}, separators=(",", ":"))
    return [binary, "--settings", settings, *args], []
