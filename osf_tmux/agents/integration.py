"""What one agent's module provides, and finding it by name.

An agent module is plain data plus functions, cheap to import (the hook endpoint imports it on
every hook call): the events, and where our hooks go. `hooks` and the CLI work only through
this interface, so no shared function branches on an agent's name."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, cast

from osf_tmux.agents import HOOKED

if TYPE_CHECKING:
    from osf_tmux.agents.hooks import HookFile


class AgentModule(Protocol):
    TITLE: str  # the agent's name for people ("Claude Code")
    # hook event -> the state it reports; None: `NOTIFICATIONS` decides by the payload's
    # `notification_type`. Events not listed are ignored.
    EVENTS: Mapping[str, str | None]
    NOTIFICATIONS: Mapping[str, str]
    HOOK_TIMEOUT: int  # how long the agent waits for our hook, in the agent's own unit
    HOOK_EXTRA: Mapping[str, object]  # further keys of each hook entry (e.g. Gemini's "name")
    INSTALL_NOTES: tuple[str, ...]  # said after `hooks install`

    def hook_files(self, env: Mapping[str, str]) -> list[HookFile]:
        """The settings files our hooks go into."""
        ...

    def launch(
        self, binary: str, args: list[str], env: Mapping[str, str]
    ) -> tuple[list[str], list[str]]:
        """The argv that starts the agent with our hooks for this run only, and notes; raises
        HooksError when the agent has no way to take them without a file. argv[0] is the
        program run: `binary`, or `env` when the agent takes them from its environment."""
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
