"""The agents the lab knows: one line per adapter, `name: "module:Class"` (a module of
tools/agentlab). Lines for the agents planned next are here already: until its module exists
an agent is listed as having no adapter, and nothing else changes (see README.md, "Adding an
agent")."""

from __future__ import annotations

import importlib

from tools.agentlab.base import AgentSpec

ADAPTERS: dict[str, str] = {
    "claude": "claude:Claude",
    "codex": "codex:Codex",
    "gemini": "gemini:Gemini",
    "aider": "aider:Aider",
    "pi": "pi:Pi",
    "opencode": "opencode:OpenCode",
    "kilo": "kilo:Kilo",
    "copilot": "copilot:Copilot",
    "cline": "cline:Cline",
    "qwen": "qwen:Qwen",
    "droid": "droid:Droid",
    "grok": "grok:Grok",
    "vibe": "vibe:Vibe",
    "kimi": "kimi:Kimi",
    "auggie": "auggie:Auggie",
    "kimi-code": "kimi_code:KimiCode",
    "grok-build": "grok_build:GrokBuild",
    "amp": "amp:Amp",
}


def _load(name: str, where: str) -> AgentSpec | None:
    """The adapter, or None while its module does not exist. Any other import error (a broken
    adapter, a missing dependency of one) is raised."""
    module, _, cls = where.partition(":")
    full = f"tools.agentlab.{module}"
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name == full:
            return None
        raise
    spec = getattr(mod, cls)()
    if not isinstance(spec, AgentSpec) or spec.name != name:
        raise TypeError(f"{where} is not the AgentSpec of {name!r}")
    return spec


AGENTS: dict[str, AgentSpec] = {
    name: spec for name, where in ADAPTERS.items() if (spec := _load(name, where)) is not None
}
# Named in ADAPTERS, module not written yet.
NOT_WRITTEN: list[str] = [name for name in ADAPTERS if name not in AGENTS]
