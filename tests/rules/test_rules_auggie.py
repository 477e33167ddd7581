"""Auggie rules on screens beyond the lab captures (captures/auggie-0.36.0-lab).

The layouts are those of the 0.36.0 captures (the popover's rounded box from column 0 across
the pane, its key-hint row under it; the status row above the input box; the input box between
two full-width `─` rules with the footer under it), re-laid at other widths and filled with what
a user or the model could put there. Identification from the processes of a real run
(`node …/.bin/auggie`)."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import from_bottom, manifest_fixture, process_tests
from tests.rules.harness import state_rule as state

WIDTHS = [60, 80, 120, 200, 240]


manifest = manifest_fixture("auggie")


def screen(lines: list[str], cols: int, rows: int = 30) -> Snapshot:
    """`lines` as the bottom of the pane, blank rows under them as Auggie leaves."""
    return from_bottom(lines, cols, rows)


def box(body: list[str], cols: int) -> list[str]:
    """The popover's rounded box: the full pane width, two columns of padding, a blank row above
    and under the body, as the captures show."""
    inner = cols - 4
    rows = ["", *(b[:inner] for b in body), ""]
    return (
        ["╭" + "─" * (cols - 2) + "╮"]
        + ["│  " + r.ljust(inner - 1) + "│" for r in rows]
        + ["╰" + "─" * (cols - 2) + "╯"]
    )


def input_box(cols: int, text: str = "", footer: str = " ? to show shortcuts") -> list[str]:
    return ["─" * cols, "› " + text, "─" * cols, footer]


TRANSCRIPT = ["› clean the build directory", "", "● I'll remove the build directory.", ""]
CMD = "rm -rf build && sleep 2 && echo done"


def approval(cols: int, what: str = f"Terminal: {CMD}") -> list[str]:
    return [
        *TRANSCRIPT,
        f"● Terminal - {CMD}"[:cols],
        *box(["Tool Approval Required", "", what[: cols - 6]], cols),
        " [A]llow [D]eny",
        "",
    ]


QUESTION = [
    "Which database should the app use?",
    "",
    "Choose a response:",
    "▸ 1) PostgreSQL",
    "  2) SQLite",
    "  3) Type custom answer",
    "  ─────",
    "  4) Chat about this",
]
QUESTION_KEYS = " [↑↓] Navigate • [Enter] Select • [Esc] Decline"


@pytest.mark.parametrize("cols", WIDTHS)
def test_tool_approval_at_any_width(cols: int, manifest: Manifest) -> None:
    assert state(screen(approval(cols), cols), manifest) == "blocked:tool-approval"


@pytest.mark.parametrize(
    "what", ["Edit file: app.py", "Save file: NOTES.md", "Terminal: python3 -m pytest -q"]
)
def test_other_tools_ask_the_same_way(what: str, manifest: Manifest) -> None:
    assert state(screen(approval(80, what), 80), manifest) == "blocked:tool-approval"


def test_approval_in_a_short_pane(manifest: Manifest) -> None:
    # 60x10: the transcript is gone, the box and its hint row are what is left.
    snap = screen(approval(60), 60, 10)
    assert "clean the build" not in "\n".join(snap.rows)
    assert state(snap, manifest) == "blocked:tool-approval"


@pytest.mark.parametrize("cols", WIDTHS)
def test_question_popover_at_any_width(cols: int, manifest: Manifest) -> None:
    lines = [*TRANSCRIPT, "● Ask user - Which database?", *box(QUESTION, cols), QUESTION_KEYS]
    assert state(screen(lines, cols), manifest) == "blocked:question-popover"


def test_several_questions_end_in_cancel(manifest: Manifest) -> None:
    body = ["Ask User (1 of 2)", "", *QUESTION]
    keys = " [←→] Prev/Next • [Enter] Confirm • [Esc] Cancel"
    snap = screen([*TRANSCRIPT, *box(body, 100), keys], 100)
    assert state(snap, manifest) == "blocked:question-popover"


def test_indexing_permission(manifest: Manifest) -> None:
    lines = [
        " Choose an option:",
        "",
        "     [1] Always index this workspace - Unlock full workspace understanding",
        "",
        "     [2] Never index this workspace - Use basic assistance only",
        "",
        "     [3] Index this workspace for this session",
        "",
        "     [4] Skip indexing for this session",
        "",
        "",
        " [↑↓] Navigate • [Enter] Confirm",
        "",
        " Press 1/2/3/4 to select directly • Esc to skip",
    ]
    assert state(screen(lines, 80), manifest) == "blocked:indexing-permission"


@pytest.mark.parametrize(
    ("action", "hint"),
    [
        ("Continue", "Press return to continue, or esc to skip"),
        ("Login to continue", "Press return to open your browser"),
    ],
)
def test_start_screens(action: str, hint: str, manifest: Manifest) -> None:
    lines = ["   and using MCP servers from providers you trust.", "", "", f" → {action}", ""]
    snap = screen([*lines, f"   {hint}", "", "", ""], 80, 24)
    assert state(snap, manifest) == "blocked:start-screen"


@pytest.mark.parametrize("cols", [60, 120, 240])
@pytest.mark.parametrize(
    "status",
    [
        " ⠋ Sending request... (0s • esc to interrupt)",
        " ⠞ Executing tools... (8s • esc to interrupt)",
        " ⠙ Processing response... (1m 5s • esc to interrupt • /queue to manage)",
    ],
)
def test_status_row_is_working(cols: int, status: str, manifest: Manifest) -> None:
    # Ink wraps a long row at a space, the rest under the text after the spinner.
    rows = [status]
    while len(rows[-1]) > cols:
        cut = rows[-1].rfind(" ", 0, cols)
        rows[-1:] = [rows[-1][:cut], "   " + rows[-1][cut + 1 :]]
    snap = screen([*TRANSCRIPT, *rows, *input_box(cols)], cols)
    assert state(snap, manifest) == "working:status-row"


DRAFT = "Tool Approval Required [A]llow [D]eny ▸ 1) Yes (3s • esc to interrupt) → Continue"


@pytest.mark.parametrize("cols", [60, 240])
def test_draft_with_the_prompts_words_is_idle(cols: int, manifest: Manifest) -> None:
    rows = [DRAFT[i : i + cols - 2] for i in range(0, len(DRAFT), cols - 2)]
    draft = ["─" * cols, "› " + rows[0], *("  " + r for r in rows[1:]), "─" * cols]
    footer = " Ctrl+P to enhance prompt, Ctrl+S to stash prompt"
    snap = screen([*TRANSCRIPT, *draft, footer], cols)
    assert state(snap, manifest) == "idle:input-footer"


def test_draft_typed_as_a_box_is_idle(manifest: Manifest) -> None:
    # A pasted popover inside the input box: its rows are followed by the box's rule and footer.
    pasted = ["─" * 80, "› ╭──────────╮", "  │ Tool Approval Required │", "  ╰──────────╯"]
    snap = screen([*TRANSCRIPT, *pasted, "  [A]llow [D]eny", "─" * 80, " ? to show shortcuts"], 80)
    assert state(snap, manifest) == "idle:input-footer"


def test_answer_ending_in_a_question_is_idle(manifest: Manifest) -> None:
    answer = [
        "● app.py is small and clear. Which would you like?",
        "  1) Add a command-line option",
        "  2) Add a test",
        "",
        "  Would you like me to add a command-line option for the name?",
        "",
    ]
    snap = screen([*TRANSCRIPT, *answer, *input_box(120)], 120, 32)
    assert state(snap, manifest) == "idle:input-footer"


def test_transcript_quoting_an_old_approval_above_an_idle_box(manifest: Manifest) -> None:
    quoted = [*box(["Tool Approval Required", "", f"Terminal: {CMD}"], 120), " [A]llow [D]eny"]
    snap = screen([*TRANSCRIPT, "● You were asked:", *quoted, "", *input_box(120)], 120, 40)
    assert state(snap, manifest) == "idle:input-footer"


def test_transcript_quoting_an_old_question_above_a_working_box(manifest: Manifest) -> None:
    quoted = [*box(QUESTION, 100), QUESTION_KEYS]
    status = " ⠋ Sending request... (2s • esc to interrupt)"
    snap = screen([*TRANSCRIPT, *quoted, "", status, *input_box(100)], 100, 40)
    assert state(snap, manifest) == "working:status-row"


TAKEN = [
    ["node", "/root/.cache/osf-agentlab/npm-auggie/node_modules/.bin/auggie"],
    ["node", "/usr/local/bin/auggie", "--permission", "launch-process:ask-user"],
    ["/usr/bin/node", "/usr/lib/node_modules/@augmentcode/auggie/augment.mjs"],
    ["auggie"],
]
NOT_TAKEN = [
    ["node", "/home/u/bin/auggie-notes.js"],
    ["node", "/usr/lib/node_modules/@augmentcode/auggie/scripts/postinstall.mjs"],
    ["python3", "-m", "auggie"],
    ["less", "notes/auggie"],
]

test_identified_from_its_processes, test_not_taken_for_auggie = process_tests(
    "auggie", TAKEN, NOT_TAKEN
)


def test_answer_keys(manifest: Manifest) -> None:
    answer = manifest.answer
    assert answer is not None
    assert answer.yes == ("a",) and answer.no == ("d",)
