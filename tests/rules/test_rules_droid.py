"""Droid rules on screens beyond the lab captures (captures/droid-0.225.2-lab).

The layouts are those of the 0.225.2 captures (the input box between full-width rounded corners,
the mode row above it and the help row under it; approval boxes the same width, the key hint
row last), re-laid at other widths and filled with what a user or the model could put there.
Identification from the processes of a real run (`droid` and its `droid exec` child)."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from tests.rules.harness import from_top as screen
from tests.rules.harness import manifest_fixture, process_tests
from tests.rules.harness import state_rule as state

manifest = manifest_fixture("droid")


def box(body: list[str], cols: int, indent: int = 0) -> list[str]:
    """A rounded box `cols - indent` wide, one space of padding, rows cut at its width."""
    pad = " " * indent
    inner = cols - indent - 4
    rows = [b[:inner] for b in body]
    return (
        [pad + "╭" + "─" * (cols - indent - 2) + "╮"]
        + [pad + "│ " + b.ljust(inner) + " │" for b in rows]
        + [pad + "╰" + "─" * (cols - indent - 2) + "╯"]
    )


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    out = [text]
    while len(out[-1]) > width:
        cut = out[-1].rfind(" ", 0, width)
        out[-1:] = [out[-1][:cut], indent + out[-1][cut + 1 :]]
    return out


def input_area(cols: int, text: str = "", spinner: str | None = None) -> list[str]:
    mode = " Auto (Off) · all actions require approval"
    model = "Fake Model"
    live = ["", spinner, ""] if spinner else [""]
    return [
        *live,
        (mode + " " * max(1, cols - len(mode) - len(model)) + model)[:cols],
        *box(["> " + text] if len(text) < cols - 6 else wrap("> " + text, cols - 6, "  "), cols),
        "[⏱ 4s] ? for help",
    ]


TRANSCRIPT = [
    "   clean the build directory",
    "",
    "⛬  I'll remove the build directory.",
    "",
    "   Execute rm -rf build && sleep 2 && echo done",
]
CHOICES = [
    " Yes, allow",
    " Yes, and always allow low impact commands (file edits and read-only commands)",
    " No, cancel",
]
HINT = "  ↑↓ navigate   Enter select   Esc cancel   Alt/Option+E to inspect approval details"


def approval(cols: int) -> list[str]:
    body: list[str] = []
    for choice in CHOICES:
        body += wrap(choice, cols - 4, "   ")
    return [
        "",
        "  Command to approve · low risk",
        "  ↳ rm -rf build && sleep 2 && echo done",
        "  Why this needs approval: Remove the build directory",
        *box(body, cols),
        *wrap(HINT, cols, "  "),
    ]


@pytest.mark.parametrize(("cols", "rows"), [(60, 20), (80, 24), (120, 32), (240, 60)])
def test_command_approval_at_any_width(cols: int, rows: int, manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, *approval(cols)], cols, rows)
    assert state(snap, manifest) == "blocked:approval"


def test_edit_approval_with_its_diff(manifest: Manifest) -> None:
    diff = box(["  1    1   def main():", "  2            print('hello')"], 100)
    lines = ["   Edit app.py", "Edit app.py: (+1 added, -1 removed)", "", *diff, ""]
    hint = "  ↑↓ navigate   Enter select   Esc cancel   Ctrl+O expand diff"
    snap = screen([*TRANSCRIPT, *lines, *box(CHOICES, 100), hint], 100, 40)
    assert state(snap, manifest) == "blocked:approval"


def spec_review(cols: int) -> list[str]:
    options = [
        "1. Proceed with the proposal",
        "2. Proceed with comment",
        "3. Proceed and handoff to a new session (1% context savings)",
        "4. Manually edit spec (xdg-open via system default)",
        "5. No and explain why",
    ]
    return [
        '   Propose Specification "--name option"',
        "   " + "─" * (cols - 6),
        "   Plan: --name option",
        "   1. Parse arguments with argparse in app.py",
        "   2. Add --name (default: world)",
        "   " + "─" * (cols - 6),
        *box(options, cols, indent=1),
        "   ↑↓ navigate   1-5 select   Enter select   Tab reasoning   Esc cancel",
    ]


@pytest.mark.parametrize("cols", [80, 240])
def test_spec_review(cols: int, manifest: Manifest) -> None:
    snap = screen(["   plan a --name option for app.py", "", *spec_review(cols)], cols, 40)
    assert state(snap, manifest) == "blocked:selection-dialog"


def test_ask_user_question(manifest: Manifest) -> None:
    lines = [
        "⛬  I need one decision from you.",
        "",
        "   Ask User",
        "   Which database should the app use?",
        "   1. PostgreSQL",
        "   2. SQLite",
        "   Or type your own answer...",
        "",
        "   ↑/↓ Navigate • Space/Enter/1–9 Select • ESC stop agent",
    ]
    assert state(screen(lines, 60, 20), manifest) == "blocked:question"


def test_trust_dialog_and_login(manifest: Manifest) -> None:
    trust = [
        *box(["Trust this folder?", "", "/home/u/proj"], 80),
        "",
        "> 1. Trust this folder",
        "  2. Exit without trusting",
        "",
        "Enter to confirm · Esc to exit",
    ]
    assert state(screen(trust, 80, 24), manifest) == "blocked:start-dialog"
    login = [
        *box(["Welcome to Factory CLI"], 80),
        "",
        "Please login with your Factory account to continue.",
        "",
        "> Login",
        "  Exit",
    ]
    assert state(screen(login, 80, 24), manifest) == "blocked:start-dialog"


@pytest.mark.parametrize("cols", [60, 120, 240])
@pytest.mark.parametrize(
    "spinner",
    [
        " ⡄ Thinking...  (Press ESC to stop)",
        " ⢰ Executing...  (Press ESC to stop)",
        " ⠇ Waiting for tool confirmation...  (Press ESC to stop)",
        " ⠰ Cancelling tools...  (Please wait)",
    ],
)
def test_spinner_row_is_working(cols: int, spinner: str, manifest: Manifest) -> None:
    area = input_area(cols, "Enter to steer · Ctrl+Enter to queue", spinner=spinner)
    assert state(screen([*TRANSCRIPT, *area], cols, 30), manifest) == "working:spinner"


DRAFT = (
    "Command to approve · low risk Yes, allow No, cancel ↑↓ navigate Enter select Esc cancel "
    "1. Proceed with the proposal Or type your own answer... (Press ESC to stop)"
)


@pytest.mark.parametrize("cols", [60, 240])
def test_draft_with_the_prompts_words_is_idle(cols: int, manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, *input_area(cols, DRAFT)], cols, 30)
    assert state(snap, manifest) == "idle:None"


def test_multiline_draft_shaped_like_the_approval_box_is_idle(manifest: Manifest) -> None:
    # Rows typed with Shift+Enter that copy the box and its hint row: the input box's own
    # bottom edge and the help row follow them.
    draft = box(["> │  Yes, allow", "  │  No, cancel", "  ╰───╯", "  ↑↓ navigate Enter select"], 80)
    mode = " Auto (Off) · all actions require approval"
    snap = screen([*TRANSCRIPT, "", mode, *draft, "? for help"], 80, 24)
    assert state(snap, manifest) == "idle:None"


def test_answer_ending_in_a_question_is_idle(manifest: Manifest) -> None:
    answer = [
        "⛬  app.py is small and clear. Two options:",
        "   1. Add a --name option",
        "   2. Add a test",
        "   Would you like me to add a command-line option for the name?",
    ]
    snap = screen([*TRANSCRIPT, "", *answer, *input_area(120)], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_transcript_quoting_an_old_approval_above_an_idle_box(manifest: Manifest) -> None:
    quoted = ["⛬  You were asked:", *approval(120)]
    snap = screen([*TRANSCRIPT, *quoted, *input_area(120)], 120, 40)
    assert state(snap, manifest) == "idle:None"


TAKEN = [
    ["/home/u/.local/bin/droid"],
    ["droid"],
    ["droid", "exec", "--input-format", "stream-jsonrpc", "--output-format", "stream-jsonrpc"],
    ["/root/.cache/osf-agentlab/npm-droid/node_modules/@factory/cli-linux-x64/bin/droid"],
    ["node", "/usr/lib/node_modules/@factory/cli/bin/droid"],
]
NOT_TAKEN = [
    ["vim", "notes/droid"],
    ["node", "/home/u/projects/droid-game/index.js"],
    ["python3", "-m", "droid_tools"],
    ["droid", "daemon", "--port", "37643"],
]

test_identified_from_its_processes, test_not_taken_for_droid = process_tests(
    "droid", TAKEN, NOT_TAKEN
)
