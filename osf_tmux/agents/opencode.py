"""OpenCode: a plugin file of ours in its global plugins folder
(`$XDG_CONFIG_HOME/opencode/plugins/osf-tmux.js`, default `~/.config/opencode`), or for one run
named in `$OPENCODE_CONFIG_CONTENT`. Its screen: rules/opencode.toml.

The plugin is shared by the OpenCode family (OpenCode, Kilo CLI: osf_tmux/agents/kilo.py). These
agents have no hook commands in their settings; they load JavaScript plugins from a `plugins/`
folder of their config directory at start-up, and call them with their events. Ours is a file
of its own there (`osf-tmux.js`, from the template `opencode_plugin.js` beside this module), so
installing edits no file of the person's (own_files.OwnFile). For one run only, `launch` writes
it under osf-tmux's own state folder and names it in the config the agent reads from its
environment (`OPENCODE_CONFIG_CONTENT`, `KILO_CONFIG_CONTENT`)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from osf_tmux.agents.changes import Agent, HookFile

NAME = "opencode"
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
FILE_NAME = "osf-tmux.js"
TEMPLATE = "opencode_plugin.js"  # beside this module
MARKER = b"// osf-tmux:"


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_data

    return plugin_files(agent_data(__name__), APP, env)


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.changes import agent_data

    return launch_with_plugin(agent_data(__name__), CONFIG_CONTENT, binary, args, env)


# ---- the family's plugin -----------------------------------------------------------------------


def plugin_source(agent: Agent, report: list[str] | None = None) -> bytes:
    """The plugin for `agent`, with its endpoint command (`report`, default: ours) and its
    event table filled in."""
    import json

    from osf_tmux.agents.command import notify_argv
    from osf_tmux.agents.own_files import fill

    return fill(
        TEMPLATE,
        {
            "__TITLE__": agent.TITLE,
            "__AGENT__": agent.NAME,
            "__REPORT__": json.dumps(report or notify_argv(agent.NAME)),
            "__EVENTS__": json.dumps(dict(agent.EVENTS), sort_keys=True),
            "__STATUSES__": json.dumps(dict(agent.NOTIFICATIONS), sort_keys=True),
            "__TIMEOUT_MS__": str(int(agent.HOOK_TIMEOUT)),
        },
    )


def plugin_files(agent: Agent, app: str, env: Mapping[str, str]) -> list[HookFile]:
    """Our plugin in the `plugins` folder of the agent's config directory (`app`)."""
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.own_files import OwnFile

    path = agent_folder(env, "XDG_CONFIG_HOME", ".config") / app / "plugins" / FILE_NAME
    source = plugin_source(agent)
    return [OwnFile(path, source, MARKER, "plugin", "move it away to install", with_command=True)]


def config_content(variable: str, plugin: Path, env: Mapping[str, str]) -> str:
    """The agent's inline config (`variable`) with our plugin added to its `plugin` list: the
    person's own inline config, if any, is kept; one that is not a JSON object is refused."""
    import json
    from typing import Any

    from osf_tmux.agents.changes import HooksError

    own = env.get(variable, "").strip()
    data: dict[str, Any] = {}
    if own:
        try:
            parsed = json.loads(own)
        except ValueError as exc:
            raise HooksError(
                f"${variable} is not valid JSON ({exc}); osf-tmux adds its plugin there, so "
                "fix it or use `osf-tmux hooks install` instead"
            ) from None
        if not isinstance(parsed, dict) or not isinstance(parsed.get("plugin", []), list):
            raise HooksError(f"${variable} does not hold a JSON object with a plugin list")
        data = parsed
    url = plugin.resolve().as_uri()
    plugins = [p for p in data.get("plugin", []) if p != url]
    return json.dumps({**data, "plugin": [*plugins, url]}, separators=(",", ":"))


def launch_with_plugin(
    agent: Agent, variable: str, binary: str, args: list[str], env: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """`env VARIABLE=... AGENT ARGS`: the agent with our plugin for this run, written where a
    launched agent can load it: osf-tmux's own state folder, private, never their config."""
    from osf_tmux.agents.changes import own_state
    from osf_tmux.agents.own_files import write_copy

    path = own_state(env) / "plugins" / agent.NAME / FILE_NAME
    content = config_content(variable, write_copy(path, plugin_source(agent)), env)
    return ["env", f"{variable}={content}", binary, *args], []
