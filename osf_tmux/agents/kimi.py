"""Kimi CLI: its hooks are `[[hooks]]` tables in `~/.kimi/config.toml` (`event`, `command`,
`matcher`, `timeout` in seconds; the payload is JSON on stdin with `hook_event_name`). It has no
permission event: its approval box is seen on the screen only (rules/kimi.toml). Its
`Notification` event is for background tasks reported to the model, not for the person, so it is
not used. `--config-file` would replace the person's whole config, so there is no launch.

Kimi Code CLI (osf_tmux/agents/kimi_code.py) takes the same tables: its module is data only,
and these functions serve both."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile
    from osf_tmux.agents.toml_hooks import Entry

NAME = "kimi"
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
NO_LAUNCH = (
    "Kimi CLI takes extra config only as a whole file (--config-file); use `osf-tmux hooks "
    "install --agent kimi` (it adds [[hooks]] tables to ~/.kimi/config.toml and can be "
    "uninstalled)."
)


def toml_entries(command: str) -> list[Entry]:
    return entries_of(__name__, command)


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    return config_tables(env, None, ".kimi")


# ---- the Kimi family's config.toml -------------------------------------------------------------


def entries_of(module: str, command: str) -> list[Entry]:
    """The `[[hooks]]` tables of a Kimi agent's module, each running `command`."""
    from osf_tmux.agents.changes import agent_data
    from osf_tmux.agents.toml_hooks import event_tables

    return event_tables(agent_data(module), command)


def config_tables(env: Mapping[str, str], variable: str | None, folder: str) -> list[HookFile]:
    """A Kimi agent's config.toml: in `$variable` when set, else in `~/folder`."""
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.toml_hooks import TomlHookTables

    return [TomlHookTables(agent_folder(env, variable, folder) / "config.toml")]
