"""Put osf-tmux's hooks into an agent's own settings, and take them out again without a trace:
the commands' way in, by agent id.

Which files and events each agent has is its own module's business (osf_tmux/agents/claude.py,
...); each file kind plans its changes (`json_hooks`, `toml_hooks`, `own_files`), and `changes`
writes them. Our hook runs the endpoint (osf_tmux/agents/report.py).

Installing merges: every other key and every hook of the person's own stays, and installing
twice changes nothing. The file as it was is kept beside it (`*.osf-tmux.bak`); uninstalling
gives those exact bytes back when nothing but our hook changed since, else removes only our
entries. Nothing is written when a file cannot be read as JSON/TOML."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from osf_tmux.agents import HOOKED, json_hooks
from osf_tmux.agents.changes import (
    BACKUP_SUFFIX,
    FileChange,
    HooksError,
    Plan,
    apply,
    backup_path,
    refuse_read_only,
)
from osf_tmux.agents.command import is_our_command, notify_argv, report_command
from osf_tmux.agents.integration import AgentModule, UnknownAgent, agent_module

__all__ = [
    "AGENTS",
    "BACKUP_SUFFIX",
    "FileChange",
    "HooksError",
    "Plan",
    "apply",
    "backup_path",
    "hooks_table",
    "installed_files",
    "is_our_command",
    "launch_argv",
    "notify_argv",
    "plan_install",
    "plan_uninstall",
    "report_command",
]

AGENTS = HOOKED


def _module(agent: str) -> AgentModule:
    try:
        return agent_module(agent)
    except UnknownAgent:
        raise HooksError(f"unknown agent {agent!r} (hooks exist for {', '.join(AGENTS)})") from None


def hooks_table(agent: str, command: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Our entries, in the `{"Event": [{"hooks": [{"type": "command", ...}]}]}` shape the agents
    with JSON hooks share."""
    return json_hooks.hooks_table(_module(agent), command)


def plan_install(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    return _plan(agent, os.environ if env is None else env, install=True)


def plan_uninstall(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    return _plan(agent, os.environ if env is None else env, install=False)


def _plan(agent: str, env: Mapping[str, str], install: bool) -> Plan:
    module = _module(agent)
    plan = Plan()
    for hook_file in module.hook_files(env):
        hook_file.plan(plan, module, install)
    for change in plan.changes:
        refuse_read_only(change.path)
    if install:
        plan.notes.extend(module.INSTALL_NOTES)
    return plan


def installed_files(agent: str, env: Mapping[str, str]) -> list[Path]:
    """The files of `agent` that hold our hooks now."""
    return [f.path for f in _module(agent).hook_files(env) if f.installed()]


def launch_argv(
    agent: str, binary: str, args: list[str], env: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """The command line that starts `agent` with osf-tmux's hooks for this run only, and notes
    for the person; HooksError when the agent has no way to take them without a file."""
    module = _module(agent)
    launch = getattr(module, "launch", None)
    if launch is None:
        raise HooksError(getattr(module, "NO_LAUNCH", f"{module.TITLE} has no launch"))
    launched: tuple[list[str], list[str]] = launch(binary, args, env)
    return launched
