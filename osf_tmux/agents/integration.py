"""What one agent's module provides, and finding it by name.

An agent module is plain data plus functions, cheap to import (the hook endpoint imports it on
every hook call): its events, where our hooks go and of which kind (`json_hooks`, `toml_hooks`,
`own_files`), and how to launch it with them. `hooks` and the CLI work only through this
interface, so no shared function branches on an agent's name."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, cast

from osf_tmux.agents import HOOKED
from osf_tmux.agents.changes import Agent

if TYPE_CHECKING:
    from osf_tmux.agents.changes import HookFile


class AgentModule(Agent, Protocol):
    """An agent's module: its data (`Agent`), and either `launch(binary, args, env)` (the argv
    that starts the agent with our hooks for this run only, and notes; argv[0] is the program
    run: `binary`, or `env` when the agent takes them from its environment) or `NO_LAUNCH`, why
    there is none."""

    def hook_files(self, env: Mapping[str, str]) -> list[HookFile]:
        """The files (or folders) our hooks go into."""
        ...


class UnknownAgent(KeyError):
    pass


def agent_module(name: str) -> AgentModule:
    if name not in HOOKED:
        raise UnknownAgent(name)
    return cast(AgentModule, importlib.import_module(f"osf_tmux.agents.{module_name(name)}"))


def module_name(agent: str) -> str:
    """The module of an agent id: ids may hold a hyphen (`grok-build`), modules cannot."""
    return agent.replace("-", "_")
