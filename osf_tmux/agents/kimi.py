"""Kimi CLI: its hooks are `[[hooks]]` tables in `~/.kimi/config.toml` (`event`, `command`,
`matcher`, `timeout` in seconds; the payload is JSON on stdin with `hook_event_name`). It has no
permission event: its approval box is seen on the screen only (rules/kimi.toml). Its
`Notification` event is for background tasks reported to the model, not for the person, so it is
not used. `--config-file` would replace the person's whole config, so there is no launch."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile
    from osf_tmux.agents.toml_hooks import Entry

TITLE = "Kimi CLI"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    # Fired before the approval box is drawn, and again after each tool ran.
    "PreToolUse": "working",
    "PostToolUse": "working",
    "PostToolUseFailure": "working",
    "Stop": "done",
    "StopFailure": "done",  # the turn ended on an error: the input box is back
}
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 10  # seconds (Kimi allows 1-600, default 30)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = (
    "Kimi CLI has no permission event: its approval box is read from the screen.",
)


def config_path(env: Mapping[str, str]) -> str:
    import os

    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".kimi", "config.toml")


def toml_entries(command: str) -> list[Entry]:
    """One `[[hooks]]` table per event (an empty matcher matches every tool)."""
    return [{"event": e, "command": command, "timeout": HOOK_TIMEOUT} for e in EVENTS]


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.toml_hooks import TomlHookTables

    return [TomlHookTables(Path(config_path(env)))]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.hooks import HooksError

    raise HooksError(
        "Kimi CLI takes extra config only as a whole file (--config-file); use `osf-tmux hooks "
        "install --agent kimi` (it adds [[hooks]] tables to ~/.kimi/config.toml and can be "
        "uninstalled)."
    )
