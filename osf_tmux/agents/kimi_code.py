"""Kimi Code CLI (npm `@moonshot-ai/kimi-code`, the rewrite that replaced the Python Kimi CLI):
its hooks are `[[hooks]]` tables in `config.toml` under `$KIMI_CODE_HOME` (default
`~/.kimi-code`), the same table shape as Kimi CLI's (`event`, `command`, `matcher`, `timeout` in
seconds, 1-600; the payload is JSON on stdin with `hook_event_name`), written by the same
functions (osf_tmux/agents/kimi.py). Unlike Kimi CLI it has permission events:
`PermissionRequest` when an approval panel asks the person, and `PermissionResult` once it is
answered. There is no launch flag for extra settings, so there is no launch; rules/kimi-code.toml
reads its screen."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile
    from osf_tmux.agents.toml_hooks import Entry

NAME = "kimi-code"
TITLE = "Kimi Code CLI"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "PostToolUseFailure": "working",
    "PermissionRequest": "blocked",
    "PermissionResult": "working",
    "Stop": "done",
    "StopFailure": "done",  # the turn ended on an error: the input box is back
    "Interrupt": "idle",  # the person stopped the turn: nothing new to look at
}
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 10  # seconds (Kimi Code allows 1-600)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()
NO_LAUNCH = (
    "Kimi Code CLI reads its hooks from config.toml only; use `osf-tmux hooks install "
    "--agent kimi-code` (it adds [[hooks]] tables to $KIMI_CODE_HOME/config.toml, default "
    "~/.kimi-code/config.toml, and can be uninstalled)."
)


def toml_entries(command: str) -> list[Entry]:
    from osf_tmux.agents.kimi import entries_of

    return entries_of(__name__, command)


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.kimi import config_tables

    return config_tables(env, "KIMI_CODE_HOME", ".kimi-code")
