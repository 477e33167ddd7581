"""Qwen Code: its hooks in `~/.qwen/settings.json` (`$QWEN_HOME/settings.json` when set), in the
Claude-style `hooks` shape; it has no flag for extra settings, so no launch. Its screen:
rules/qwen.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile

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


def settings_path(env: Mapping[str, str]) -> str:
    import os

    base = env.get("QWEN_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".qwen")
    return os.path.join(base, "settings.json")


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.hooks import JsonHooks

    return [JsonHooks(Path(settings_path(env)))]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.hooks import HooksError

    raise HooksError(
        "Qwen Code has no flag for extra settings; use `osf-tmux hooks install --agent qwen` "
        "(it merges into ~/.qwen/settings.json and can be uninstalled)."
    )
