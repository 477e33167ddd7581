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
