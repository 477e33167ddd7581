"""The agents the lab knows, by name."""

from __future__ import annotations

from tools.agentlab.aider import Aider
from tools.agentlab.base import AgentSpec
from tools.agentlab.claude import Claude
from tools.agentlab.codex import Codex
from tools.agentlab.gemini import Gemini
from tools.agentlab.kilo import Kilo
from tools.agentlab.opencode import OpenCode

AGENTS: dict[str, AgentSpec] = {
    "claude": Claude(),
    "codex": Codex(),
    "gemini": Gemini(),
    "aider": Aider(),
    "opencode": OpenCode(),
    "kilo": Kilo(),
}
