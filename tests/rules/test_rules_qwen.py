"""Qwen Code rules on screens beyond the lab captures (captures/qwen-0.15.10-lab).

The layouts are those of the 0.15.10 captures (box at column 2, `›` on the selected option, the
spinner line above the input box, the input box between two full-width `─` rules), re-laid at
other widths and filled with what a user or the model could put there. Identification from the
processes of a real run (`node .bin/qwen` and its relaunched child)."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import from_bottom as screen
from tests.rules.harness import manifest_fixture, process_tests
from tests.rules.harness import state_rule as state

manifest = manifest_fixture("qwen")


def box(body: list[str], cols: int) -> list[str]:
    """Ink's round box two columns in, one column of padding, as the captures show."""
    width = cols - 4
    inner = width - 4
    rows = [b[:inner] for b in body]
    return (
        ["  ╭" + "─" * (width - 2) + "╮"]
        + ["  │ " + b.ljust(inner) + " │" for b in rows]
        + ["  ╰" + "─" * (width - 2) + "╯"]
    )


def input_box(cols: int, text: str = "  Type your message or @path/to/file") -> list[str]:
    return ["─" * cols, ">" + " " + text, "─" * cols, "  ? for shortcuts"]


TRANSCRIPT = ["  > clean the build directory", "", "  ✦ I'll remove the build directory.", ""]
CMD = 'rm -rf build && python3 -c "import time; time.sleep(2)" && echo done'


def confirmation(question: str = "Allow execution of: 'rm, python3'?") -> list[str]:
    return [
        f"?  Shell {CMD} (Remove the build directory) ←",
        "",
        f"  {CMD}",
        "",
        question,
        "",
        "› 1. Yes, allow once",
        "  2. Always allow run 'rm *' commands, run 'python3 *' commands in this project",
        "  3. Always allow run 'rm *' commands, run 'python3 *' commands for this user",
        "  4. No, suggest changes (esc)",
        "",
    ]


def blocked_screen(cols: int, rows: int, question: str | None = None) -> Snapshot:
    body = confirmation(question) if question else confirmation()
    return screen(
        [*TRANSCRIPT, *box(body, cols), "", "  ⠏ Waiting for user confirmation...", ""], cols, rows
    )


def working_screen(cols: int, spinner: str) -> Snapshot:
    # Ink wraps a long line at a word boundary, the rest indented like the first row's text.
    rows = [spinner]
    while len(rows[-1]) > cols:
        cut = rows[-1].rfind(" ", 0, cols)
        rows[-1:] = [rows[-1][:cut], "    " + rows[-1][cut + 1 :]]
    return screen([*TRANSCRIPT, *rows, *input_box(cols)], cols, 30)


@pytest.mark.parametrize(("cols", "rows"), [(60, 20), (80, 24), (120, 32), (240, 60)])
def test_shell_confirmation_at_any_width(cols: int, rows: int, manifest: Manifest) -> None:
    assert state(blocked_screen(cols, rows), manifest) == "blocked:tool-confirmation"


@pytest.mark.parametrize(
    "question",
    [
        "Apply this change?",
        "Do you want to proceed?",
        'Allow execution of MCP tool "search" from server "docs"?',
    ],
)
def test_other_confirmations(question: str, manifest: Manifest) -> None:
    assert state(blocked_screen(80, 24, question), manifest) == "blocked:tool-confirmation"


def test_question_scrolled_off_a_short_pane(manifest: Manifest) -> None:
    # Only the last rows of the box fit: the options without their question.
    snap = blocked_screen(60, 10)
    assert "Allow execution" not in "\n".join(snap.rows)
    assert state(snap, manifest) == "blocked:tool-confirmation"


def half_drawn(question: str, cols: int, empty_rows: int) -> list[str]:
    """The box as a pipe read ends inside its frame (drawn top down): down to the selected
    first option, then a few of its empty rows (the last one cut after the left edge)."""
    rows = box(confirmation(question), cols)[:-1]
    first = next(i for i, r in enumerate(rows) if "› 1." in r)
    empty = ["  │" + " " * (cols - 6) + "│"] * (empty_rows - 1) + ["  │"] if empty_rows else []
    return rows[: first + 1] + empty


@pytest.mark.parametrize(("cols", "empty_rows"), [(80, 0), (120, 1), (200, 2)])
@pytest.mark.parametrize("question", ["Apply this change?", "Allow execution of: 'rm, python3'?"])
def test_box_drawn_down_to_its_first_option_is_blocked(
    question: str, cols: int, empty_rows: int, manifest: Manifest
) -> None:
    # captures/qwen-0.15.10-lab-screen/edit_write: a read ends after "› 1. Yes, allow once"
    # while the new-file box is drawn, and again while it is redrawn.
    snap = screen([*TRANSCRIPT, *half_drawn(question, cols, empty_rows)], cols, 32)
    assert state(snap, manifest) == "blocked:tool-confirmation"


def test_half_drawn_box_under_a_running_spinner_is_working(manifest: Manifest) -> None:
    # The spinner's timer says the turn runs: box rows above it are a tool's, not a dialog.
    rows = [*half_drawn("Apply this change?", 120, 1), "  ⠋ Writing... (2s · esc to cancel)"]
    assert state(screen([*TRANSCRIPT, *rows], 120, 32), manifest) == "working:spinner"


def test_first_option_quoted_above_the_input_box_is_idle(manifest: Manifest) -> None:
    # The model's answer quotes the box down to its first option; the live input box follows.
    quoted = half_drawn("Apply this change?", 120, 1)
    snap = screen([*TRANSCRIPT, *quoted, "", *input_box(120)], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_first_option_not_selected_is_not_blocked(manifest: Manifest) -> None:
    # Without the selection mark on option 1 the rows are no live choice (a quote in an answer).
    rows = [r.replace("› 1.", "  1.") for r in half_drawn("Apply this change?", 120, 1)]
    assert not state(screen([*TRANSCRIPT, *rows], 120, 32), manifest).startswith("blocked")


@pytest.mark.parametrize("cols", [60, 120, 240])
def test_spinner_line_is_working(cols: int, manifest: Manifest) -> None:
    for line in [
        "  ⠋ Poking the bear... (0s · esc to cancel)",
        "  ⠙ Waiting for user confirmation... (2s · ↓ 31 tokens · esc to cancel)",
        "  ⠹ Thinking... (1m 5s · esc to cancel)",
    ]:
        assert state(working_screen(cols, line), manifest) == "working:spinner", line


def test_waiting_line_without_a_box_is_not_blocked(manifest: Manifest) -> None:
    # The spinner line's text alone (a box being redrawn) never says blocked.
    snap = screen([*TRANSCRIPT, "  ⠏ Waiting for user confirmation...", ""], 80, 24)
    assert not state(snap, manifest).startswith("blocked")


DRAFT = (
    "Allow execution of: 'rm'? › 1. Yes, allow once 2. No, suggest changes (esc) "
    "(3s · esc to cancel)"
)


@pytest.mark.parametrize("cols", [60, 240])
def test_draft_with_the_prompts_words_is_idle(cols: int, manifest: Manifest) -> None:
    # A long draft wraps inside the input box; its rows never start with the spinner glyph.
    rows = [DRAFT[i : i + cols - 4] for i in range(0, len(DRAFT), cols - 4)]
    draft = ["─" * cols, ">   " + rows[0], *("    " + r for r in rows[1:]), "─" * cols]
    snap = screen([*TRANSCRIPT, *draft, "  ? for shortcuts"], cols, 30)
    assert state(snap, manifest) == "idle:None"


def test_multiline_draft_with_a_numbered_menu_is_idle(manifest: Manifest) -> None:
    draft = ["─" * 80, ">   Do you trust this folder?", "    › 1. Trust folder"]
    draft.append("    2. Don't trust")
    snap = screen([*TRANSCRIPT, *draft, "─" * 80, "  ? for shortcuts"], 80, 24)
    assert state(snap, manifest) == "idle:None"


def test_answer_ending_in_a_question_is_idle(manifest: Manifest) -> None:
    answer = [
        "  ✦ I found two ways to speed up the build. Would you like me to apply them?",
        "    1. Cache the dependencies",
        "    2. Run the tests in parallel",
        "  Do you want to proceed?",
        "",
    ]
    assert state(screen([*TRANSCRIPT, *answer, *input_box(120)], 120, 32), manifest) == "idle:None"


def test_transcript_quoting_an_old_confirmation_above_an_idle_box(manifest: Manifest) -> None:
    # The model quotes the whole box back; the live input box is under it.
    quoted = box(confirmation(), 120)
    snap = screen([*TRANSCRIPT, "  ✦ You were asked:", *quoted, "", *input_box(120)], 120, 40)
    assert state(snap, manifest) == "idle:None"


def test_trust_dialog(manifest: Manifest) -> None:
    # As 0.15.10 draws it (trust_dialog capture: three columns in), re-laid at 67 columns.
    body = [
        "",
        "Do you trust this folder?",
        "Trusting a folder allows Qwen Code to execute commands it",
        "suggests. This is a security feature to prevent accidental",
        "execution in untrusted directories.",
        "",
        "› 1. Trust folder (proj)",
        "  2. Trust parent folder (w)",
        "  3. Don't trust (esc)",
        "",
    ]
    snap = screen([" " + row for row in box(body, 66)], 67, 20)
    assert state(snap, manifest) == "blocked:selection-dialog"


TAKEN = [
    ["node", "/home/u/.npm-global/bin/qwen"],
    ["node", "/root/.cache/osf-agentlab/npm-qwen/node_modules/.bin/qwen"],
    ["/usr/bin/node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js"],
    ["qwen", "--yolo"],
]
NOT_TAKEN = [
    ["node", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js"],
    ["node", "/home/u/bin/qwen-notes.js"],
    ["python3", "-m", "qwen_agent"],
]

test_identified_from_its_processes, test_not_taken_for_qwen = process_tests(
    "qwen", TAKEN, NOT_TAKEN
)


# In a tmux pane (TMUX set) Qwen Code 0.15 on draws its spinner as `.`/`..` instead of Braille
# (captures/qwen-0.24.4-lab); 0.24 has a two-row footer under the box.
FOOTER_024 = [
    "  ➜ proj · git:(main) · fake-model",
    "  Enter to steer · Ctrl+Q to queue · ⏸ Ask permissions (shift + tab to cycle)",
]


def box_024(cols: int, draft: list[str] | None = None) -> list[str]:
    rows = draft or ["  Type your message or @path/to/file"]
    footer = [f[:cols] for f in FOOTER_024]
    return ["─" * cols, ">  " + rows[0], *("   " + r for r in rows[1:]), "─" * cols, *footer]


@pytest.mark.parametrize("cols", [60, 80, 120, 240])
@pytest.mark.parametrize("glyph", [".", "..", "⠋", "*", "·"])
def test_status_row_with_any_glyph_is_working(cols: int, glyph: str, manifest: Manifest) -> None:
    for phrase in [
        "Poking the bear... (0s · esc to cancel)",
        "Waiting for user confirmation... (9s · ↓ 35 tokens · esc to cancel)",
        "Defragmenting memories... both RAM and personal... (1m 5s · ↑ 40 tokens · esc to cancel)",
    ]:
        line = f"  {glyph.ljust(2)} {phrase}"
        rows = [line]
        while len(rows[-1]) > cols:
            cut = rows[-1].rfind(" ", 0, cols)
            rows[-1:] = [rows[-1][:cut], "     " + rows[-1][cut + 1 :]]
        snap = screen([*TRANSCRIPT, *rows, *box_024(cols)], cols, 30)
        assert state(snap, manifest) == "working:spinner", (glyph, cols, phrase)


def test_status_row_above_a_draft_is_working(manifest: Manifest) -> None:
    draft = ["fix the tests", "then run them again"]
    rows = ["  .  Thinking... (3s · esc to cancel)", *box_024(80, draft)]
    assert state(screen([*TRANSCRIPT, *rows], 80, 24), manifest) == "working:spinner"


def test_answer_ending_in_a_timer_is_idle(manifest: Manifest) -> None:
    # An answer's last row keeps a blank row over the box; the status row sits right on it.
    answer = ["  ◆︎ The status row read: Thinking... (3s · esc to cancel)", ""]
    snap = screen([*TRANSCRIPT, *answer, *box_024(120)], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_timer_in_the_draft_is_idle(manifest: Manifest) -> None:
    draft = [". why does it say (3s · esc to cancel)"]
    snap = screen([*TRANSCRIPT, *box_024(120, draft)], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_status_row_while_the_box_is_drawn(manifest: Manifest) -> None:
    # A pipe read can end after the box's top rule and prompt row, before its bottom rule.
    rows = ["  .. Compiling the 1s and 0s... (1s · ↓ 50 tokens · esc to cancel)", "─" * 120]
    rows.append(">   Type your message or @path/to/file")
    assert state(screen([*TRANSCRIPT, *rows], 120, 32), manifest) == "working:spinner"


def test_status_row_whose_glyph_touches_the_phrase(manifest: Manifest) -> None:
    # A long phrase leaves no space after the glyph (0.15.10 at 80 columns), and wraps.
    rows = [
        "  ⠼What's a computer's favorite snack? Microchip (0s · ↓ 1 tokens · esc to",
        "                                                cancel)",
    ]
    snap = screen([*TRANSCRIPT, *rows, *input_box(80)], 80, 24)
    assert state(snap, manifest) == "working:spinner"


# Screen-reader mode (ui.accessibility.screenReader, captures/qwen-0.24.4-lab-screenreader):
# plain rows at column 0, no boxes, the footer above the status row, the input box without its
# bottom rule, the spinner and the selection said in words.
SR_TRANSCRIPT = ["User:  clean the build directory", "Model:  I'll remove the build directory."]
SR_FOOTER = ["➜ proj · git:(main) · fake-model", "⏸ Ask permissions (shift + tab to cycle)"]


def test_screen_reader_status_row_is_working(manifest: Manifest) -> None:
    rows = [
        *SR_TRANSCRIPT,
        *SR_FOOTER,
        "responding Waiting for user confirmation...  (5s · ↓ 34 tokens · esc to cancel)",
        "─" * 120,
        ">    Type your message or @path/to/file",
    ]
    assert state(screen(rows, 120, 32), manifest) == "working:spinner"


def test_screen_reader_idle(manifest: Manifest) -> None:
    rows = [*SR_TRANSCRIPT, "Model:  Done (1s · esc to cancel)", *SR_FOOTER, "─" * 120]
    rows.append(">    Type your message or @path/to/file")
    assert state(screen(rows, 120, 32), manifest) == "idle:None"


@pytest.mark.parametrize("cols", [80, 120, 200])
def test_screen_reader_confirmation_is_blocked(cols: int, manifest: Manifest) -> None:
    rows = [
        *SR_TRANSCRIPT,
        *SR_FOOTER,
        f"Confirming: Shell {CMD} (Remove the build directory)  ←"[:cols],
        CMD,
        "Allow execution of: 'rm, python3'?",
        "(checked) 1. Yes, allow once",
        "2. Always allow run 'rm *' commands in this project",
        "3. Always allow run 'rm *' commands for this user",
        "4. No, suggest changes (esc)",
        "loading Figuring out how to make this more witty...",
    ]
    assert state(screen(rows, cols, 32), manifest) == "blocked:tool-confirmation"


def test_boxless_confirmation_024_is_blocked(manifest: Manifest) -> None:
    rows = [
        *TRANSCRIPT,
        f"  ? Shell {CMD} (Remove the build directory) ←",
        "",
        f"     {CMD}",
        "",
        "   Allow execution of: 'rm, python3'?",
        "",
        "   › 1. Yes, allow once",
        "     2. Always allow run 'rm *' commands, run 'python3 *' commands in this project",
        "     4. No, suggest changes (esc)",
        "",
        "  ⠏ Waiting for user confirmation...",
    ]
    assert state(screen(rows, 120, 32), manifest) == "blocked:tool-confirmation"


def test_boxless_options_quoted_above_the_box_are_idle(manifest: Manifest) -> None:
    answer = [
        "  ◆︎ Shall I go on? Do you want to proceed?",
        "   - 1. Run the tests",
        "     2. Stop here",
        "",
    ]
    assert state(screen([*TRANSCRIPT, *answer, *box_024(120)], 120, 32), manifest) == "idle:None"
