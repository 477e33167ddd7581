"""Grok CLI rules on screens beyond the lab captures (captures/grok-0.0.34-lab).

The layouts are those of the 0.0.34 captures and of its Ink components (confirmation-dialog,
loading-spinner, chat-input): the input box two columns in between rounded corners, the mode
footer under it; the confirmation replacing both, its hint row last. Re-laid at other widths
and filled with what a user or the model could put there."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from tests.rules.harness import from_top as screen
from tests.rules.harness import manifest_fixture, process_tests
from tests.rules.harness import state_rule as state

manifest = manifest_fixture("grok")


def box(body: list[str], cols: int) -> list[str]:
    inner = cols - 8
    return (
        ["  ╭" + "─" * (cols - 6) + "╮"]
        + ["  │ " + b[:inner].ljust(inner) + " │" for b in body]
        + ["  ╰" + "─" * (cols - 6) + "╯"]
    )


def input_area(
    cols: int, text: str = "Ask me anything...", spinner: str | None = None
) -> list[str]:
    rows = [text[i : i + cols - 10] for i in range(0, max(len(text), 1), cols - 10)]
    body = ["❯ " + rows[0], *("  " + r for r in rows[1:])]
    live = ["", spinner] if spinner else []
    return [*live, "", *box(body, cols), "", "  ⏸ auto-edit: off (shift + tab)  ≋ fake-model"]


TRANSCRIPT = ["  > clean the build directory", "", "  ⏺ I'll remove the build directory.", ""]
OPTIONS = ["1. Yes", "2. Yes, and don't ask again this session", "3. No", "4. No, with feedback"]


def confirmation() -> list[str]:
    return [
        "  ⏺ Run bash command(rm -rf build && sleep 2 && echo done)",
        "    ⎿ Requesting user confirmation",
        "    ⎿ Command: rm -rf build && sleep 2 && echo done",
        "        No changes detected.",
        "",
        "  Do you want to proceed with this operation?",
        "",
        *("   " + o for o in OPTIONS),
        "",
        "  ↑↓ navigate • Enter select • Esc cancel",
    ]


@pytest.mark.parametrize(("cols", "rows"), [(60, 20), (80, 24), (120, 32), (240, 60)])
def test_confirmation_at_any_width(cols: int, rows: int, manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, *confirmation()], cols, rows)
    assert state(snap, manifest) == "blocked:confirmation"


def test_feedback_field(manifest: Manifest) -> None:
    field = [
        "  Type your feedback and press Enter, or press Escape to go back.",
        "",
        *box(["❯ keep the build directory█"], 80),
    ]
    snap = screen([*TRANSCRIPT, "  ⏺ Run bash command(rm -rf build)", "", *field], 80, 24)
    assert state(snap, manifest) == "blocked:feedback"
    rule = next(r for r in manifest.rules if r.id == "feedback")
    assert rule.answer is not None and rule.answer.no == ("Escape", "Escape")


@pytest.mark.parametrize("cols", [60, 120, 240])
@pytest.mark.parametrize(
    "spinner",
    [
        "  \\ Optimizing... (1s · ↑ 791 tokens · esc to interrupt)",
        "  | Decrypting... (10s · ↑ 793 tokens · esc to interrupt)",
        "  - Thinking... (0s · ↑ 0 tokens · esc to interrupt)",
        "  / Bootstrapping... (125s · ↑ 1.2k tokens · esc to interrupt)",
    ],
)
def test_spinner_row_is_working(cols: int, spinner: str, manifest: Manifest) -> None:
    rows = [spinner]
    while len(rows[-1]) > cols:
        cut = rows[-1].rfind(" ", 0, cols)
        rows[-1:] = [rows[-1][:cut], rows[-1][cut + 1 :]]
    snap = screen([*TRANSCRIPT, "", *rows, *input_area(cols)], cols, 30)
    assert state(snap, manifest) == "working:spinner"


DRAFT = (
    "Do you want to proceed with this operation? 1. Yes 2. No ↑↓ navigate • Enter select • "
    "Esc cancel - Thinking... (1s · ↑ 3 tokens · esc to interrupt)"
)


@pytest.mark.parametrize("cols", [60, 240])
def test_draft_with_the_prompts_words_is_idle(cols: int, manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, *input_area(cols, DRAFT)], cols, 30)
    assert state(snap, manifest) == "idle:None"


def test_answer_ending_in_a_question_is_idle(manifest: Manifest) -> None:
    answer = [
        "  ⏺ app.py is small and clear. Do you want to proceed with this operation?",
        "",
        "   1. Add a --name option",
        "   2. Add a test",
        "",
        "  Would you like me to add a command-line option for the name?",
    ]
    snap = screen([*TRANSCRIPT, *answer, *input_area(120)], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_transcript_quoting_an_old_confirmation_above_an_idle_box(manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, *confirmation(), *input_area(120)], 120, 40)
    assert state(snap, manifest) == "idle:None"


TAKEN = [
    ["node", "/root/.cache/osf-agentlab/npm-grok/node_modules/.bin/grok"],
    ["node", "/usr/local/bin/grok"],
    ["node", "/usr/lib/node_modules/@vibe-kit/grok-cli/dist/index.js"],
]
NOT_TAKEN = [
    ["node", "/home/u/projects/grok-notes/index.js"],
    ["python3", "grok.py"],
    ["node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js"],
    # A process named `grok` is xAI's Grok Build (tests/rules/test_rules_grok_build.py).
    ["grok", "-d", "/tmp/proj"],
    [
        "/root/.cache/osf-agentlab/grok-build-venv/lib/python3.13/site-packages/grok_cli_bin/bin/grok"
    ],
]

test_identified_from_its_processes, test_not_taken_for_grok = process_tests(
    "grok", TAKEN, NOT_TAKEN
)


def test_feedback_field_garbled_while_typing(manifest: Manifest) -> None:
    # As the 120x32 capture shows it mid-typing: a letter on the box's bottom edge, one under it.
    rows = box(["❯ k"], 80)
    rows[-1] = rows[-1][:6] + "e" + rows[-1][7:]
    field = [
        "   Type your feedback and press Enter, or press Escape to go back.",
        "",
        *rows,
        "    e",
    ]
    snap = screen([*TRANSCRIPT, *field], 80, 24)
    assert state(snap, manifest) == "blocked:feedback"


def test_draft_of_the_feedback_words_is_idle(manifest: Manifest) -> None:
    text = "Type your feedback and press Enter, or press Escape to go back."
    snap = screen([*TRANSCRIPT, text, *input_area(80, text)], 80, 24)
    assert state(snap, manifest) == "idle:None"
