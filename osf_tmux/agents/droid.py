"""Droid (Factory CLI): our hooks in `~/.factory/hooks.json` (`$FACTORY_HOME_OVERRIDE/.factory`
when set), whose top level is the hooks object itself (`{"Event": [{"matcher", "hooks": [...]}]}`,
no `hooks` key around it): json_hooks.TopLevelJsonHooks. `launch` hands it a
runtime settings file of ours instead (`--settings FILE`, this process only). Its screen:
rules/droid.toml.

What each event means, read off the 0.225.2 bundle and seen in the lab (NOTES-droid.md):
- `Notification` with `notification_type` `permission_prompt` ("Factory CLI needs permission to
  execute N tool(s)") fires only when an approval is asked for (not for a tool that runs without
  one), `elicitation_dialog` when AskUser puts questions to the user, `idle_prompt` ("Agent
  stopped by user and is waiting for input") after an interrupt.
- `Stop` when a turn ends; `UserPromptSubmit`, `PreToolUse` while it works.
Droid has no event of its own for a permission request besides that notification."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from osf_tmux.agents.changes import HookFile

NAME = "droid"
TITLE = "Droid"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "Notification": None,  # decided by notification_type
    "Stop": "done",
}
NOTIFICATIONS = {
    "permission_prompt": "blocked",
    "elicitation_dialog": "blocked",
    "idle_prompt": "idle",
}
HOOK_TIMEOUT = 10  # seconds (Droid's default: 60)
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES: tuple[str, ...] = ()

HOOKS_FILE = "hooks.json"
LEGACY_FOLDER = "hooks"  # `~/.factory/hooks/hooks.json`, read while hooks.json does not exist


def factory_dir(env: Mapping[str, str]) -> str:
    import os

    home = env.get("FACTORY_HOME_OVERRIDE") or env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".factory")


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.json_hooks import TopLevelJsonHooks

    folder = Path(factory_dir(env))
    root = folder / HOOKS_FILE
    legacy = folder / LEGACY_FOLDER / HOOKS_FILE
    # Droid reads the legacy file only while hooks.json does not exist: creating hooks.json then
    # would hide every hook of the person's, so ours go where Droid looks.
    target = legacy if not root.exists() and legacy.exists() else root
    return [TopLevelJsonHooks(target, settings=folder / "settings.json")]


def runtime_settings(env: Mapping[str, str]) -> Path:
    """Where `launch` keeps the settings file it hands to `--settings`: osf-tmux's own state
    folder, nothing of the person's."""
    from osf_tmux.agents.changes import own_state

    return own_state(env) / "droid-settings.json"


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.changes import HooksError, agent_data, write_private
    from osf_tmux.agents.json_hooks import dump, hooks_table

    installed = [f for f in hook_files(env) if f.installed()]
    if installed:
        return [binary, *args], [f"{installed[0].path} holds our hooks: Droid runs them itself"]
    if any(a == "--settings" or a.startswith("--settings=") for a in args):
        raise HooksError(
            "you pass --settings yourself, and Droid takes one runtime settings file: use "
            "`osf-tmux hooks install --agent droid` instead (it merges into "
            "~/.factory/hooks.json and can be uninstalled)."
        )
    # `--settings FILE` merges a settings file for this process only; its hooks run beside the
    # person's own (hooks.json and settings.json), measured with 0.225.2.
    path = runtime_settings(env)
    write_private(path, dump({"hooks": hooks_table(agent_data(__name__))}))
    return [binary, "--settings", str(path), *args], []
