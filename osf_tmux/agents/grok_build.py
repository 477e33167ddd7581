"""Grok Build (xAI's Grok CLI, agent id `grok-build`): our hooks in a file of our own,
`osf-tmux.json`, in its global hooks folder (`$GROK_HOME/hooks/`, default `~/.grok/hooks/`),
which it always trusts and loads beside the person's own files there. The file has the
Claude-style shape (`{"hooks": {"Event": [{"hooks": [{"type": "command", ...}]}]}}`, `timeout`
in seconds). Its screen: rules/grok-build.toml.

Grok Build sends its own envelope, whatever file the hook came from: camelCase keys and the
event in snake case (`{"hookEventName": "pre_tool_use", "toolName": ...}`), never Claude's
`hook_event_name`; so the state is read by `payload_state`. Recorded in the lab against 0.2.111
(captures/grok-build-0.2.111-lab/hooks_*-120x32.hooks.jsonl, rules/NOTES-grok-build.md):
- a command that needs approval: `user_prompt_submit`, `pre_tool_use`, `notification` with
  `notificationType` `permission_prompt` (the panel), then `post_tool_use` and `stop`
  (`reason` `end_turn`) once approved;
- rejected: `permission_denied` and nothing more (the turn is cancelled, no `stop`). Not used:
  after a rejection with feedback the model goes on, and an idle report would hide that; the
  blocked report loses to the screen without its panel.
- `stop` also fires when the session ends (`reason` `shutdown` / `channel_closed`): ignored.
Grok Build also runs the hooks of `~/.claude/settings.json` (Claude Code compatibility) with
this same envelope: osf-tmux's Claude hooks find no `hook_event_name` there and report
nothing, so a Grok Build pane is never reported as Claude Code."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from osf_tmux.agents.changes import HookFile

NAME = "grok-build"
TITLE = "Grok Build"
# The file's event keys (what `hooks install` writes); the payload names them in snake case.
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "Notification": None,  # decided by notificationType
    "Stop": "done",
}
NOTIFICATIONS = {"permission_prompt": "blocked"}
HOOK_TIMEOUT = 10  # seconds (Grok Build's default: 5)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()

NO_LAUNCH = (
    "Grok Build takes hooks only from files (no flag adds them for one run); use "
    "`osf-tmux hooks install --agent grok-build` (a file of its own, "
    "~/.grok/hooks/osf-tmux.json, removed again by uninstall)."
)

HOOKS_FILE = "osf-tmux.json"
# The envelope's event names.
_PAYLOAD_EVENTS: dict[str, str | None] = {
    "user_prompt_submit": "working",
    "pre_tool_use": "working",
    "post_tool_use": "working",
    "notification": None,
    "stop": "done",
}
TURN_END = "end_turn"  # a `stop` with another reason is the session ending


def payload_state(payload: Mapping[str, Any]) -> str | None:
    """The state of Grok Build's envelope (`hookEventName`, no `hook_event_name`)."""
    event = payload.get("hookEventName")
    if not isinstance(event, str) or event not in _PAYLOAD_EVENTS:
        return None
    if event == "stop" and payload.get("reason") != TURN_END:
        return None
    state = _PAYLOAD_EVENTS[event]
    if state is None:
        kind = payload.get("notificationType")
        return NOTIFICATIONS.get(kind) if isinstance(kind, str) else None
    return state


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks

    return [JsonHooks(agent_folder(env, "GROK_HOME", ".grok") / "hooks" / HOOKS_FILE)]
