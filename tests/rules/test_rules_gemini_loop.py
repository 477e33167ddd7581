"""rules/gemini.toml on Gemini CLI's loop-detection dialog (LoopDetectionConfirmation, 0.61.0).

Gemini CLI calls it a loop when, within one prompt, the model makes the same tool call five times
in a row or streams the same 50-character chunk of text ten times close together. The first time
it only sends the model a feedback message; the dialog opens when the model loops again. The lab
records both ways in (captures/gemini-cli-0.61.0-lab-loop: loop_keep, loop_disable, loop_chant
at 60x20, 80x24, 120x32, 200x50); the cases below are tmux's snapshots of those captures, and
screens drawn like them for what no snapshot shows (a frame drawn half way, drafts that quote the
dialog, a narrower pane)."""

from __future__ import annotations

import json
import textwrap

import pytest

from osf_tmux.judge.answer import Answer
from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import (
    CAPTURES,
    manifest_fixture,
    snapshot_files,
    snapshots_test,
    state_in_name,
)

LAB = CAPTURES / "gemini-cli-0.61.0-lab-loop"
RULE = "loop-detection-dialog"
QUESTION = (
    "This can happen due to repetitive tool calls or other model behavior. Do you want to keep"
    " loop detection enabled or disable it for this session?"
)
OPTIONS = ["● 1. Keep loop detection enabled (esc)", "  2. Disable loop detection for this session"]


manifest = manifest_fixture("gemini")


SNAPSHOTS = snapshot_files(["*.snapshots/*.txt"], LAB)


test_lab_snapshot = snapshots_test(SNAPSHOTS, blocked_rule=RULE)


def test_every_scenario_and_size_was_recorded() -> None:
    blocked = {p.parent.name for p in SNAPSHOTS if state_in_name(p) == "blocked"}
    want = {
        f"{name}-{size}.snapshots"
        for name in ("loop_keep", "loop_disable", "loop_chant")
        for size in ("60x20", "80x24", "120x32", "200x50")
    }
    assert blocked == want


def dialog(cols: int, drawn: int | None = None) -> list[str]:
    """LoopDetectionConfirmation as Ink lays it out in a `cols`-wide pane: a round box one column
    in, one column of padding, the question word-wrapped; `drawn` keeps only the first rows (a
    frame read before Ink wrote the rest)."""
    inner = cols - 5
    body = [
        "?  A potential loop was detected",
        "",
        *textwrap.wrap(QUESTION, inner),
        "",
        *OPTIONS,
    ]
    rows = [" ╭" + "─" * (cols - 3) + "╮"]
    rows += [" │ " + b.ljust(inner) + " │" for b in body]
    rows.append(" ╰" + "─" * (cols - 3) + "╯")
    return rows if drawn is None else rows[:drawn]


@pytest.mark.parametrize("cols", [60, 80])
def test_the_drawn_dialog_is_the_recorded_one(cols: int) -> None:
    """The helper draws the box exactly as the lab recorded it, so the cases below are real."""
    shot = LAB / f"loop_keep-{cols}x{dict(((60, 20), (80, 24)))[cols]}.snapshots" / "02-blocked.txt"
    rows = shot.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert rows[-len(dialog(cols)) :] == dialog(cols)


def composer(cols: int, text: str = "  Type your message or @path/to/file") -> list[str]:
    """The 0.61 bottom when idle (the lab's 03-idle snapshots)."""
    return [
        " " * (cols - 16) + "? for shortcuts",
        "─" * cols,
        " Shift+Tab to accept edits",
        "▄" * cols,
        f" > {text}",
        "▀" * cols,
        " workspace (/directory)".ljust(cols - 8) + "/model",
        " /tmp/agentlab/gemini/loop_keep/proj".ljust(cols - 8) + "Auto",
    ]


READS = ["✦ Checking app.py again.", "", "  ✓  ReadFile  app.py", ""] * 3
HALTED = textwrap.wrap(
    "ℹ A potential loop was detected. This can happen due to repetitive tool calls or other model"
    " behavior. The request has been halted.",
    80,
    subsequent_indent="  ",
)

CASES: list[tuple[str, int, list[str], str]] = [
    ("dialog-80", 80, [*READS, *dialog(80)], "blocked"),
    ("dialog-60", 60, [*READS, *dialog(60)], "blocked"),
    ("dialog-120", 120, [*READS, *dialog(120)], "blocked"),
    # A read inside Ink's frame: the box drawn down to its title, or to the question.
    ("half-drawn-title", 80, [*READS, *dialog(80, drawn=2)], "blocked"),
    ("half-drawn-question", 60, [*READS, *dialog(60, drawn=6)], "blocked"),
    # Esc: the dialog is gone, an info line says the request was halted, the input box is back.
    ("halted", 80, [*READS, *HALTED, "", *composer(80)], "idle"),
    # A draft quoting the dialog, on the prompt row and on a continuation row (indented by the
    # prompt's width, as Ink draws a multi-line draft).
    (
        "draft-quoting-the-dialog",
        80,
        [*READS, *composer(80, "│ ?  A potential loop was detected ● 1. Keep loop detection")],
        "idle",
    ),
    (
        "multi-line-draft-quoting-the-dialog",
        80,
        [
            *READS,
            *composer(80, "why did you show this?")[:5],
            "   │ ?  A potential loop was detected",
            "   │ ● 1. Keep loop detection enabled (esc)",
            *composer(80)[5:],
        ],
        "idle",
    ),
    # The dialog's rows above an input box: not the live dialog (it replaces the input box).
    ("dialog-above-an-input-box", 80, [*dialog(80), "", *composer(80)], "idle"),
    # 2. Disable: the request is retried, the spinner runs.
    (
        "disabled-and-retried",
        80,
        [
            *READS,
            "ℹ Loop detection has been disabled for this session. Retrying request...",
            "",
            "",
            " ⠋ Thinking... (esc to cancel, 0s)".ljust(64) + "? for shortcuts",
            *composer(80)[1:],
        ],
        "working",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_screen(case: tuple[str, int, list[str], str], manifest: Manifest) -> None:
    name, cols, rows, want = case
    assert all(len(r) <= cols for r in rows), "a row is wider than the pane"
    height = max(20, len(rows))
    text = "\n".join([*rows, *[""] * (height - len(rows))][-height:])
    verdict = classify(Snapshot.from_text(text, cols), manifest)
    assert verdict.state == want, f"{name}: got {verdict.state} by rule {verdict.rule}"
    if want == "blocked":
        assert verdict.rule == RULE


def test_answer_keys(manifest: Manifest) -> None:
    assert manifest.answer_for(RULE) == Answer(("2",), ("Escape",), ("{n}",))


@pytest.mark.parametrize(
    ("scenario", "key", "after"),
    [("loop_disable", "2", "working"), ("loop_keep", "Escape", "idle")],
)
def test_the_answer_keys_did_that_in_the_lab(scenario: str, key: str, after: str) -> None:
    """`yes` (2) made the agent go on, `no` (Esc) left it halted and idle: in every recording,
    the key pressed on the dialog is followed by that state."""
    for labels_path in sorted(LAB.glob(f"{scenario}-*.labels.json")):
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        segments = labels["segments"]
        dialog_at = next(i for i, s in enumerate(segments) if s["state"] == "blocked")
        pressed = [
            e["note"]
            for e in labels["driver_events"]
            if e["event"] == "keys" and e["offset"] >= segments[dialog_at]["offset"]
        ]
        assert pressed and pressed[0].split(" ", 1)[0] == key, labels_path.name
        assert segments[dialog_at + 1]["state"] == after, labels_path.name
