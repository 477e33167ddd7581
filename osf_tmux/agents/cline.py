"""Cline CLI: its hooks are executables named after events in `~/.cline/hooks` (or
`$CLINE_DIR/hooks`); ours are shell scripts there (own_files.ScriptDir). Cline hands
each one a JSON payload on stdin whose `hookName` says the event. There is no permission event:
PreToolUse runs for every tool, asked or not, so the approval dialog is the screen's to see
(rules/cline.toml)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from osf_tmux.agents.changes import HookFile

NAME = "cline"
TITLE = "Cline"
# Hook file name -> the state it reports. Cline's own names for them, in the payload's
# `hookName`, are in PAYLOAD_EVENTS.
EVENTS: dict[str, str | None] = {
    "TaskStart": "working",
    "TaskResume": "working",
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "TaskComplete": "done",
    "TaskError": "done",
    "TaskCancel": "idle",
    # Ctrl-C quits Cline: the pane is back at its shell, nothing works any more.
    "SessionShutdown": "idle",
}
PAYLOAD_EVENTS = {
    "agent_start": "TaskStart",
    "agent_resume": "TaskResume",
    "prompt_submit": "UserPromptSubmit",
    "tool_call": "PreToolUse",
    "tool_result": "PostToolUse",
    "agent_end": "TaskComplete",
    "agent_error": "TaskError",
    "agent_abort": "TaskCancel",
    "session_shutdown": "SessionShutdown",
}
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 120  # seconds: Cline's own limit for the hooks it waits for (not configurable)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()
NO_LAUNCH = (
    "Cline takes hooks only from files (its --hooks-dir flag is not read in 3.0.65); use "
    "`osf-tmux hooks install --agent cline` (it adds scripts to ~/.cline/hooks beside your "
    "own and can be uninstalled)."
)


def payload_state(payload: Mapping[str, Any]) -> str | None:
    """Cline's payload names its event in `hookName` (not `hook_event_name`)."""
    event = PAYLOAD_EVENTS.get(str(payload.get("hookName")))
    return EVENTS.get(event) if event is not None else None


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.own_files import ScriptDir

    return [ScriptDir(agent_folder(env, "CLINE_DIR", ".cline") / "hooks", tuple(EVENTS))]
