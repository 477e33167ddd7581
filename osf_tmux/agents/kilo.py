"""Kilo CLI, an OpenCode fork: the same plugin events and file as OpenCode (osf_tmux/agents/
opencode.py), in Kilo's config folder (`$XDG_CONFIG_HOME/kilo/plugins/osf-tmux.js`, default
`~/.config/kilo`) or for one run named in `$KILO_CONFIG_CONTENT`. Its screen: rules/kilo.toml."""

from __future__ import annotations

from osf_tmux.agents.opencode import EVENTS, HOOK_EXTRA, HOOK_TIMEOUT, NOTIFICATIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from osf_tmux.agents.changes import HookFile

__all__ = ["EVENTS", "HOOK_EXTRA", "HOOK_TIMEOUT", "NOTIFICATIONS"]

NAME = "kilo"
TITLE = "Kilo CLI"
INSTALL_NOTES = (
    "Kilo loads plugins when it starts: sessions already running report nothing until "
    "restarted. `kilo --pure` runs without plugins.",
)

APP = "kilo"
CONFIG_CONTENT = "KILO_CONFIG_CONTENT"


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_data
    from osf_tmux.agents.opencode import plugin_files

    return plugin_files(agent_data(__name__), APP, env)


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.changes import agent_data
    from osf_tmux.agents.opencode import launch_with_plugin

    return launch_with_plugin(agent_data(__name__), CONFIG_CONTENT, binary, args, env)
