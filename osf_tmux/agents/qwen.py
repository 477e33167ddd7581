"""Qwen Code: its hooks in `~/.qwen/settings.json` (`$QWEN_HOME/settings.json` when set), in the
Claude-style `hooks` shape; it has no flag for extra settings, so no launch. Its screen:
rules/qwen.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile

NAME = "qwen"
TITLE = "Qwen Code"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    # Fired just before the confirmation box is drawn. Our hook prints nothing, so it never
    # answers the request (an "allow"/"deny" decision on stdout would).
    "PermissionRequest": "blocked",
    "Notification": None,  # decided by notification_type
    "Stop": "done",
}
NOTIFICATIONS = {"permission_prompt": "blocked", "idle_prompt": "idle"}
HOOK_TIMEOUT = 10_000  # Qwen counts milliseconds for command hooks (default 60000)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()
NO_LAUNCH = (
    "Qwen Code has no flag for extra settings; use `osf-tmux hooks install --agent qwen` "
    "(it merges into ~/.qwen/settings.json and can be uninstalled)."
)


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks

    return [JsonHooks(agent_folder(env, "QWEN_HOME", ".qwen") / "settings.json")]
