"""The plugin file through which the OpenCode family (OpenCode, Kilo CLI) reports to osf-tmux.

These agents have no hook commands in their settings; they load JavaScript plugins from a
`plugins/` folder of their config directory at start-up, and call them with their events. Ours
is a file of its own there (`osf-tmux.js`, from the template `opencode_plugin.js` beside this
module), so installing edits no file of the person's: install writes it, uninstall deletes it,
and a file of that name that is not ours is refused, never overwritten. For one run only,
`launch` writes it under osf-tmux's own state folder and names it in the config the agent reads
from its environment (`OPENCODE_CONFIG_CONTENT`, `KILO_CONFIG_CONTENT`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.hooks import (
    FileChange,
    HooksError,
    Plan,
    is_our_command,
    notify_argv,
    read_bytes,
)
from osf_tmux.agents.integration import agent_module

TEMPLATE = Path(__file__).with_name("opencode_plugin.js")
FILE_NAME = "osf-tmux.js"
MARKER = b"// osf-tmux:"


def plugin_source(agent: str, report: list[str] | None = None) -> bytes:
    """The plugin for `agent`, with its endpoint command (`report`, default: ours) and its
    event table filled in."""
    module = agent_module(agent)
    fills = {
        "__TITLE__": module.TITLE,
        "__AGENT__": agent,
        "__REPORT__": json.dumps(report or notify_argv(agent)),
        "__EVENTS__": json.dumps(dict(module.EVENTS), sort_keys=True),
        "__STATUSES__": json.dumps(dict(module.NOTIFICATIONS), sort_keys=True),
        "__TIMEOUT_MS__": str(int(module.HOOK_TIMEOUT)),
    }
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, value in fills.items():
        text = text.replace(key, value)
    return text.encode("utf-8")


def is_ours(raw: bytes) -> bool:
    return raw.startswith(MARKER) and is_our_command(raw.decode("utf-8", "replace"))


def config_home(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".config"
    )
    return Path(base)


@dataclass(frozen=True)
class PluginFile:
    """Our plugin file in the agent's plugins folder."""

    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        before = read_bytes(self.path)
        if before is not None and not is_ours(before):
            if install:
                raise HooksError(
                    f"{self.path} exists and is not osf-tmux's plugin; nothing was changed "
                    "(move it away to install)"
                )
            return  # not ours: uninstall leaves it alone
        if not install:
            if before is not None:
                plan.changes.append(FileChange(self.path, before, None))
            return
        wanted = plugin_source(agent)
        if before != wanted:
            # Replacing an older plugin of ours keeps no backup: nothing in it is the person's.
            plan.changes.append(FileChange(self.path, None, wanted))

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        return raw is not None and is_ours(raw)


def launch_plugin(agent: str, env: Mapping[str, str]) -> Path:
    """Write the plugin where a launched agent can load it: osf-tmux's own state folder,
    private to the person, never their config."""
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    folder = Path(base) / "osf-tmux" / "plugins" / agent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / FILE_NAME
    source = plugin_source(agent)
    if read_bytes(path) != source:
        tmp = path.with_name(f".{FILE_NAME}.{os.getpid()}")
        tmp.write_bytes(source)
        tmp.chmod(0o600)
        os.replace(tmp, path)
    return path


def config_content(variable: str, plugin: Path, env: Mapping[str, str]) -> str:
    """The agent's inline config (`variable`) with our plugin added to its `plugin` list: the
    person's own inline config, if any, is kept; one that is not a JSON object is refused."""
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


def launch_argv(
    agent: str, variable: str, binary: str, args: list[str], env: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """`env VARIABLE=... AGENT ARGS`: the agent with our plugin for this run."""
    content = config_content(variable, launch_plugin(agent, env), env)
    return ["env", f"{variable}={content}", binary, *args], []
