"""GitHub Copilot CLI: our hooks in a file of our own, `osf-tmux.json`, in its user hooks folder
(`$COPILOT_HOME/hooks/`, default `~/.copilot/hooks/`), which it loads beside the person's own
files there; `--plugin-dir` with a plugin of ours adds them for one run. Its screen:
rules/copilot.toml.

The events are configured under their PascalCase names: Copilot then sends the payload in the
format that carries `hook_event_name` (the camelCase names `userPromptSubmitted`, `agentStop`,
... get payloads without it). Measured against 1.0.102 (rules/NOTES-copilot.md):
- `permissionRequest` is not used: it fires before the permission service decides, so also for
  a call that a rule or an earlier "don't ask again" lets through without a dialog. The
  `permission_prompt` notification fires only when the dialog is drawn.
- Rejecting a dialog with Esc and interrupting a turn fire nothing; `Stop` fires when a turn
  ends (also after a rejection with feedback, when the model answers it)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile

TITLE = "GitHub Copilot CLI"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "Notification": None,  # decided by notification_type
    "Stop": "done",
}
# shell_completed, agent_completed, agent_idle: background shells and subagents, not the turn.
NOTIFICATIONS = {"permission_prompt": "blocked", "elicitation_dialog": "blocked"}
HOOK_TIMEOUT = 10  # seconds (`timeoutSec`)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()

HOOKS_FILE = "osf-tmux.json"
PLUGIN_NAME = "osf-tmux"


def home(env: Mapping[str, str]) -> str:
    import os

    return env.get("COPILOT_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".copilot"
    )


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.copilot_hooks import CopilotHooksFile

    return [CopilotHooksFile(Path(home(env)) / "hooks" / HOOKS_FILE)]


def plugin_dir(env: Mapping[str, str]) -> str:
    """Where `launch` keeps the plugin it hands to `--plugin-dir`: osf-tmux's own state folder,
    nothing of the person's."""
    import os

    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "osf-tmux", "copilot-plugin")


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from pathlib import Path

    from osf_tmux.agents.copilot_hooks import write_plugin

    folder = Path(plugin_dir(env))
    write_plugin(folder)
    return [binary, "--plugin-dir", str(folder), *args], []
