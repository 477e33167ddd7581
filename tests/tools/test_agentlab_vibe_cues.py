"""The lab's cues for Mistral Vibe on 3.0.3's screens: the notice it shows after start-up (the
fake model's context window is unknown) sits on the spinner row's right end and, in a pane
narrower than about 110 columns, covers the interrupt hint the cues waited for (under 80, the
activity's ellipsis too). The screens are tmux's own views of the lab's recordings
(captures/vibe-3.0.3-lab/*.snapshots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.agentlab.refine import cue_matches
from tools.agentlab.vibe import IDLE, WORKING

SNAPSHOTS = Path(__file__).resolve().parents[2] / "captures" / "vibe-3.0.3-lab"


def snapshot(name: str) -> str:
    return (SNAPSHOTS / name).read_text()


@pytest.mark.parametrize(
    "name",
    [
        "text-80x24.snapshots/01-working.txt",  # `⠋  Generating… (0s ▌`
        "bash_yes-80x24.snapshots/01-working.txt",
        "text-72x20.snapshots/01-working.txt",  # `⠋  Generati▌`: the ellipsis covered too
        "bash_yes-120x32.snapshots/01-working.txt",  # the hint whole, the notice beside it
    ],
)
def test_a_turn_under_the_notice_is_working_not_idle(name: str) -> None:
    screen = snapshot(name)
    assert "▌ the context window" in screen
    assert cue_matches(WORKING, screen)
    assert not cue_matches(IDLE, screen)


@pytest.mark.parametrize(
    "name", ["text-80x24.snapshots/00-idle.txt", "text-80x24.snapshots/02-idle.txt"]
)
def test_the_notice_over_an_idle_input_box_is_idle(name: str) -> None:
    screen = snapshot(name)
    assert "▌ the context window" in screen
    assert cue_matches(IDLE, screen)
    assert not cue_matches(WORKING, screen)


def test_a_transcript_row_with_an_ellipsis_under_a_bar_is_not_the_spinner() -> None:
    # A quoted answer row ending at the notice's edge, no spinner cell at its start.
    screen = "\n".join(
        [
            "  Loading the config…                                ▌",
            "─" * 80,
            ">",
            "─" * 80,
            "~/proj                                fake[off] · 90/202k tokens (0%)",
        ]
    )
    assert not cue_matches(WORKING, screen)
    assert cue_matches(IDLE, screen)
