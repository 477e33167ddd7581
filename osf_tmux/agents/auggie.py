"""Auggie (the Augment CLI): its hooks in `~/.augment/settings.json`, in the Claude-style `hooks`
shape (`{"Event": [{"matcher": ..., "hooks": [{"type": "command", "command", "timeout"}]}]}`;
read from the CLI's own validator: events PreToolUse, PostToolUse, Stop, SessionStart,
SessionEnd, Notification, PromptSubmit; `timeout` in milliseconds). It has no permission event:
the tool-approval popover is drawn without a hook call, so `blocked` comes from the screen
(rules/auggie.toml). Auggie runs these hooks only when Augment's server turns them on for the
account (the `enableHooks` feature flag of its `get-models` answer; off by default in 0.36.0):
without it the installed hooks stay silent and the screen decides alone. Its
`--augment-cache-dir` moves the whole cache, sessions and login included, so there is no launch
with hooks for one run."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile

NAME = "auggie"
TITLE = "Auggie"
EVENTS: dict[str, str | None] = {
    "PromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "Notification": None,  # decided by notification_type
    "Stop": "done",
}
# No notification type of the CLI means "waiting for approval" (the lab saw none while the
# approval popover was up); one that ever did would map to blocked here.
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 10_000  # Auggie counts milliseconds for command hooks
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = (
    "Auggie has no permission hook: its approval popover is read from the screen.",
    "Auggie runs hooks only where Augment enables them for the account (its `/hooks` command "
    "lists them then); otherwise they stay silent.",
)
NO_LAUNCH = (
    "Auggie takes hooks only from its settings file; use `osf-tmux hooks install --agent "
    "auggie` (it merges into ~/.augment/settings.json and can be uninstalled)."
)


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks

    return [JsonHooks(agent_folder(env, None, ".augment") / "settings.json")]
