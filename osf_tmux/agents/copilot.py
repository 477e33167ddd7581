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

    from osf_tmux.agents.changes import HookFile

NAME = "copilot"
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
# The plugin `launch` hands to `--plugin-dir` (a manifest naming its hook file): rewritten on
# every launch, so it always runs this osf-tmux, in osf-tmux's own state folder.
PLUGIN_FOLDER = "copilot-plugin"
PLUGIN_NAME = "osf-tmux"
PLUGIN_DESCRIPTION = "Reports each turn's state to osf-tmux (tmux status of AI agents)."


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import OwnJsonHooks

    return [OwnJsonHooks(agent_folder(env, "COPILOT_HOME", ".copilot") / "hooks" / HOOKS_FILE)]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux import __version__
    from osf_tmux.agents.changes import agent_data, own_state, write_private
    from osf_tmux.agents.json_hooks import dump, flat_document

    folder = own_state(env) / PLUGIN_FOLDER
    manifest = {
        "name": PLUGIN_NAME,
        "description": PLUGIN_DESCRIPTION,
        "version": __version__,
        "hooks": "hooks.json",
    }
    what = f"the plugin in {folder}"
    write_private(folder / "plugin.json", dump(manifest), what)
    write_private(folder / "hooks.json", dump(flat_document(agent_data(__name__))), what)
    return [binary, "--plugin-dir", str(folder), *args], []
