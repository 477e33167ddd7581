"""OpenCode: a plugin file of ours in its global plugins folder
(`$XDG_CONFIG_HOME/opencode/plugins/osf-tmux.js`, default `~/.config/opencode`), or for one run
named in `$OPENCODE_CONFIG_CONTENT`; its format is osf_tmux/agents/opencode_plugin.py's. Its
screen: rules/opencode.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.hooks import HookFile

TITLE = "OpenCode"
# The plugin's events (bus events and plugin hooks, as OpenCode names them) and what each says.
EVENTS: dict[str, str | None] = {
    "chat.message": "working",  # a prompt was sent
    "session.status": None,  # by the status type: STATUSES below
    "tool.execute.before": "working",
    "tool.execute.after": "working",
    "permission.asked": "blocked",  # the permission prompt is up
    "permission.replied": "working",  # allowed or rejected; a rejection ends in session.idle
    "question.asked": "blocked",  # the question tool's dialog (also plan_exit's)
    "question.replied": "working",
    "question.rejected": "working",
    "session.idle": "done",  # the turn ended (also after an interrupt)
}
# session.status types; `idle` is left to session.idle, which follows it.
NOTIFICATIONS = {"busy": "working", "retry": "working"}
HOOK_TIMEOUT = 2000  # ms before the plugin kills a wedged endpoint
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES = (
    "OpenCode loads plugins when it starts: sessions already running report nothing until "
    "restarted. `opencode --pure` runs without plugins.",
)

APP = "opencode"  # its folder under XDG_CONFIG_HOME
CONFIG_CONTENT = "OPENCODE_CONFIG_CONTENT"  # inline config from the environment


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.opencode_plugin import FILE_NAME, PluginFile, config_home

    return [PluginFile(config_home(env) / APP / "plugins" / FILE_NAME)]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.opencode_plugin import launch_argv

    return launch_argv("opencode", CONFIG_CONTENT, binary, args, env)
