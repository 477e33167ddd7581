"""The agents the lab knows, by name."""

from __future__ import annotations

from tools.agentlab.aider import Aider
from tools.agentlab.base import AgentSpec
from tools.agentlab.claude import Claude
from tools.agentlab.codex import Codex
from tools.agentlab.copilot import Copilot
from tools.agentlab.gemini import Gemini

AGENTS: dict[str, AgentSpec] = {
    "claude": Claude(),
    "codex": Codex(),
    "gemini": Gemini(),
    "aider": Aider(),
    "copilot": Copilot(),
}
