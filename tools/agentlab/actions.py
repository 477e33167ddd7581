"""What the driver does in a scenario, as data: wait for a cue (and label it), type, press keys."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cue:
    """Regexes over the `capture-pane -p` text. `absent` must not match at the same time."""

    pattern: str
    absent: str | None = None
    # Only the bottom `tail` non-blank rows are searched (0 = whole screen). Cues like a footer
    # must not be found in the transcript above.
    tail: int = 0
    # The pane title (OSC 0/2) must / must not match: some agents (Codex) show their working
    # spinner only in the title at times.
    title: str | None = None
    title_absent: str | None = None


@dataclass(frozen=True)
class Expect:
    """Wait until `cue` shows; record a segment of `state` there unless `state` is None."""

    state: str | None
    cue: Cue
    note: str
    timeout: float = 30.0
    settle: float = 0.0  # keep still this long after the cue, so the state lasts in the capture
    # Also require the fake server to have finished answering: for agents whose screen has no
    # reliable working cue while text streams, the end of the turn is known from the server.
    server_quiet: bool = False
    # Also require the pane's text to have stayed the same this long (seconds): the end of a
    # turn on a screen that shows no working cue while the answer is still being drawn (Claude
    # Code 2.1.116 with a status line and no window title). The label then goes to the read
    # that drew the last change (refine.py), not to the first read that showed the cue.
    still: float = 0.0


@dataclass(frozen=True)
class Type:
    """Type literal text (no Enter)."""

    text: str
    note: str = ""


@dataclass(frozen=True)
class Keys:
    """tmux key names (Enter, Escape, C-c, Down, BTab, ...)."""

    keys: tuple[str, ...]
    note: str


@dataclass(frozen=True)
class PickOption:
    """Press the digit of the numbered option whose label matches `label` (e.g. `No\\b`):
    option numbers differ between versions and dialogs, so they are read off the screen."""

    label: str
    note: str


@dataclass(frozen=True)
class Sleep:
    seconds: float


Action = Expect | Type | Keys | PickOption | Sleep


def flatten(steps: tuple[Action | list[Action], ...] | list[Action | list[Action]]) -> list[Action]:
    """Scenarios are written as a mix of single actions and reusable lists of them."""
    out: list[Action] = []
    for step in steps:
        if isinstance(step, list):
            out.extend(step)
        else:
            out.append(step)
    return out
