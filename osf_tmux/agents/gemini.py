"""Gemini CLI: its hooks in `~/.gemini/settings.json`; it has no flag for extra settings, so no
launch. Its screen: rules/gemini.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile

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


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.hooks import JsonHooks

    home = Path(env.get("HOME") or Path.home())
    return [JsonHooks(home / ".gemini" / "settings.json")]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.hooks import HooksError

    raise HooksError(
        "Gemini CLI has no flag for extra settings; use `osf-tmux hooks install --agent "
        "gemini` (it merges into ~/.gemini/settings.json and can be uninstalled)."
    )
