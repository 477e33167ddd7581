"""The lab's label refinement for a turn's end that no cue shows (tools/agentlab/refine.py,
`still`): Claude Code 2.1.116 with a status line and no title draws an idle-looking input box
while its answer is still being drawn above it; the label goes to the read that drew the last
change above the box's last rule, not to the first read that matched the idle cue, and a status
line redrawn under the box afterwards does not move it."""

from __future__ import annotations

from typing import Any

from tools.agentlab.refine import refine_offsets

COLS, ROWS = 40, 8
RULE = "─" * COLS


def frame(answer: list[str], status: str) -> bytes:
    rows = [*answer, RULE, "❯ ", RULE, status]
    rows = rows[-ROWS:]
    body = "\r\n".join(rows)
    return b"\x1b[H\x1b[2J" + body.encode()


def test_the_end_of_a_turn_is_its_last_change_above_the_box() -> None:
    frames = [
        frame(["● Here:"], "main"),
        frame(["● Here:", "1. a"], "main"),
        frame(["● Here:", "1. a", "2. b"], "main"),
        frame(["● Here:", "1. a", "2. b"], "main  ● high"),  # the status line, later
    ]
    data = b"".join(frames)
    bounds = []
    total = 0
    for f in frames:
        total += len(f)
        bounds.append(total)
    segment: dict[str, Any] = {
        "offset": bounds[0],
        "offset_polled": bounds[-1],
        "t": 1.0,
        "state": "idle",
        "cue": r"\bmain\b",
        "absent": None,
        "tail": 4,
    }
    plain = dict(segment)
    refine_offsets(data, COLS, ROWS, [plain], [], bounds)
    assert plain["offset"] == bounds[0]  # the first read that shows the cue

    still = {**segment, "still": 1.0}
    refine_offsets(data, COLS, ROWS, [still], [], bounds)
    assert still["offset"] == bounds[2]


def test_claude_permission_cues_wait_for_the_half_drawn_frame() -> None:
    """2.1.x draws a dialog top down over the old input box: a read can end with the menu
    drawn and the old box's `esc to interrupt` footer still under it (recorded in
    claude-2.1.332-lab-ascii/bash_no). That frame is working; the label starts at the next."""
    from tools.agentlab.claude import BASH_PROMPT, EDIT_PROMPT, WRITE_PROMPT
    from tools.agentlab.refine import cue_matches

    rule = "─" * 60
    menu = [
        " ❯ 1. Yes",
        "   2. Yes, and always allow access to build/ from this project",
        "   3. No",
    ]
    for question, cue in (
        ("Do you want to proceed?", BASH_PROMPT),
        ("Do you want to make this edit to app.py?", EDIT_PROMPT),
        ("Do you want to create notes.md?", WRITE_PROMPT),
    ):
        dialog = [rule, " Bash command", "", f" {question}", *menu]
        half = "\n".join([*dialog, rule, "  ⏸ manual mode on · esc to interrupt · ← for agents"])
        whole = "\n".join([*dialog, "", " Esc to cancel · Tab to amend"])
        assert not cue_matches(cue, half)
        assert cue_matches(cue, whole)
