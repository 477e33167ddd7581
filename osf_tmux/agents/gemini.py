"""Gemini CLI: its hooks in `~/.gemini/settings.json`; it has no flag for extra settings, so no
launch. Its screen: rules/gemini.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile

NAME = "gemini"
TITLE = "Gemini CLI"
EVENTS: dict[str, str | None] = {
    "BeforeAgent": "working",
    "BeforeTool": "working",
    "Notification": None,
    "AfterAgent": "done",
}
NOTIFICATIONS = {"ToolPermission": "blocked"}
HOOK_TIMEOUT = 10_000  # Gemini counts milliseconds
HOOK_EXTRA: dict[str, object] = {"name": "osf-tmux"}  # Gemini shows hook names while they run
INSTALL_NOTES: tuple[str, ...] = ()
NO_LAUNCH = (
    "Gemini CLI has no flag for extra settings; use `osf-tmux hooks install --agent "
    "gemini` (it merges into ~/.gemini/settings.json and can be uninstalled)."
)


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks

    return [JsonHooks(agent_folder(env, None, ".gemini") / "settings.json")]
