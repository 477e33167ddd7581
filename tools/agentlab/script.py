"""What the fake model says: agent-neutral scripts that each protocol adapter renders.

A *reply* is one model response (one HTTP request's answer): a list of steps. A *turn* is the
list of replies the model gives for one user prompt: reply 0 answers the prompt, reply N answers
the N-th tool result. The server works out (prompt, N) from the conversation it is sent, so it
keeps no state between requests and a retried request gets the same answer.

Tools are named by kind (bash, read, edit, write, plan, question); each adapter maps a kind to
the agent's own tool name and argument shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    """Answer text, streamed in small pieces so the agent shows a working state for a while."""

    text: str
    chunk: int = 12  # characters per SSE delta
    delay: float = 0.05  # seconds between deltas


@dataclass(frozen=True)
class Thinking:
    text: str
    chunk: int = 16
    delay: float = 0.08


@dataclass(frozen=True)
class Tool:
    """A tool call. `args` uses neutral keys: command, description, path, old, new, content,
    plan, question, header, options (list of (label, description))."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pause:
    """Silence before the next step (the model 'thinking' without output)."""

    seconds: float


Step = Text | Thinking | Tool | Pause
Reply = list[Step]


@dataclass(frozen=True)
class Turn:
    """The replies to one prompt. `key` is a phrase the typed prompt contains."""

    key: str
    replies: list[Reply]


@dataclass(frozen=True)
class Script:
    turns: list[Turn]
    # Said when a turn runs out of replies (e.g. after a rejected tool) or nothing matches.
    fallback: Reply = field(default_factory=lambda: [Text("OK.")])

    def has_turn(self, prompt: str) -> bool:
        low = prompt.lower()
        return any(turn.key.lower() in low for turn in self.turns)

    def reply_for(self, prompt: str, index: int) -> Reply:
        low = prompt.lower()
        for turn in self.turns:
            if turn.key.lower() in low:
                if index < len(turn.replies):
                    return turn.replies[index]
                return self.fallback
        return self.fallback


def side_reply() -> Reply:
    """Answer to requests the agent makes on its own (titles, summaries, checks)."""
    return [Text("Working on the task", chunk=64, delay=0.0)]


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
