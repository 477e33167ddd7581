"""Amp rules on screens beyond the lab captures (captures/amp-0.0.1790142911-g7618fb-lab), and
which command lines are Amp.

The layouts are those of the captures: the input box last, its bottom edge a plain rule up to
the directory when idle and the activity at its left while a turn runs; a titled dialog right
above the box with its key hints in its own bottom edge. Re-laid at other widths, with other
activity words and dialog titles, and filled with what a user or the model could put there."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from tests.rules.harness import answer_keys, manifest_fixture, process_tests
from tests.rules.harness import from_bottom as screen
from tests.rules.harness import state_rule as state

manifest = manifest_fixture("amp")

TRANSCRIPT = [
    " ┃ clean the build directory",
    "",
    " I'll remove the build directory.",
    "",
    " ⠭ rm -rf build && \\",
    "     sleep 2 && \\",
    "     echo done",
]


def edge(cols: int, left: str = "", right: str = " /tmp/proj (main) ", title: str = "") -> str:
    """A box edge `cols` wide: `╭`/`╰` corners, `left` after the corner, `right` before the
    closing corner, rules between."""
    if title:
        left = f"─ {title} "
    if left and not left.startswith("─"):
        left = " " + left + " "
    fill = cols - 2 - len(left) - len(right) - 1
    return left + "─" * fill + right + "─"


def input_box(cols: int, activity: str = "", text: str = "") -> list[str]:
    inner = cols - 2
    return [
        "╭" + edge(cols, right=" medium ") + "╮",
        "│" + " " * inner + "│",
        "│ " + text[: inner - 1].ljust(inner - 1) + "│",
        "│" + " " * inner + "│",
        "╰" + edge(cols, left=activity, right=" permissions: on ─ /tmp/proj (main) ") + "╯",
    ]


def dialog(cols: int, title: str, rows: list[str], hints: str) -> list[str]:
    inner = cols - 2
    return [
        "╭" + edge(cols, title=title, right="") + "╮",
        *("│" + (" " + r)[:inner].ljust(inner) + "│" for r in rows),
        "╰" + edge(cols, right=f" {hints} ") + "╯",
    ]


APPROVAL_ROWS = [
    "",
    "Bash:",
    "  rm -rf build && sleep 2 && echo done",
    "",
    "Matches user permissions rule 0: ask shell_command",
    "",
    "‣ Allow Once",
    "  Reject with feedback",
    "  Allow All for This Session",
    "  Allow All for Every Session",
    "",
]
MOVE = "↑/↓/j/k move · Enter select · Esc cancel"


@pytest.mark.parametrize(("cols", "rows"), [(60, 30), (80, 24), (100, 40), (160, 45), (200, 50)])
def test_approval_at_other_sizes(manifest: Manifest, cols: int, rows: int) -> None:
    snap = screen(
        [
            *TRANSCRIPT,
            *dialog(cols, "Approval Required", APPROVAL_ROWS, MOVE),
            *input_box(cols, "∼ Running Tools"),
        ],
        cols,
        rows,
    )
    assert state(snap, manifest) == "blocked:approval-dialog"


def test_guarded_file_dialog(manifest: Manifest) -> None:
    rows = [
        "",
        "edit_file wants to modify a guarded file:",
        "  .env",
        "",
        "Environment Variable Files",
        "",
        "‣ Allow Once",
        "  Always Allow This Path",
        "  Reject",
        "",
    ]
    box = dialog(80, "Guarded File Modification", rows, MOVE)
    snap = screen([*TRANSCRIPT, *box, *input_box(80, "≈ Running To")], 80, 24)
    assert state(snap, manifest) == "blocked:approval-dialog"


@pytest.mark.parametrize("title", ["Approval Required", "Allow Edit", "Confirm MCP Tool"])
def test_approval_with_other_titles_and_selection(manifest: Manifest, title: str) -> None:
    rows = [r.replace("‣ ", "  ") for r in APPROVAL_ROWS]
    rows[8] = "‣ Reject with feedback"
    snap = screen(
        [*TRANSCRIPT, *dialog(100, title, rows, MOVE), *input_box(100, "≈ Running")], 100, 40
    )
    assert state(snap, manifest) == "blocked:approval-dialog"


def test_feedback_box(manifest: Manifest) -> None:
    box = dialog(
        120,
        "Tell Amp what to do differently",
        ["", "> keep the bui", ""],
        "Enter submit · Esc cancel",
    )
    snap = screen([*TRANSCRIPT, *box, *input_box(120, "∼ Running Tools")], 120, 32)
    assert state(snap, manifest) == "blocked:feedback-box"


@pytest.mark.parametrize(
    "activity",
    ["∼ Connecting", "≈ Sending", "≋ Streaming 262 tok", "∼ Running Tools", "≈ Running Too"],
)
@pytest.mark.parametrize("cols", [80, 120, 200])
def test_activity_edge_is_working(manifest: Manifest, activity: str, cols: int) -> None:
    snap = screen([*TRANSCRIPT, " Done.", *input_box(cols, activity)], cols, 24)
    assert state(snap, manifest) == "working:activity-edge"


def test_key_chord_hint_while_streaming_is_working(manifest: Manifest) -> None:
    # One Esc during a turn: a small box over the transcript, not a dialog.
    chord = [
        " Terminals began as teletypes: a keyboard ╭─ Escape then ──────────────────────────╮",
        " a screen, and escape sequences let progr │ Escape Interrupt the active agent turn │",
        " teletypes: a keyboard and a printer join │               Esc cancel               │",
        " escape sequences let programs move the c ╰────────────────────────────────────────╯",
    ]
    snap = screen([*chord, *input_box(120, "≋ Streaming 4.05k tok")], 120, 32)
    assert state(snap, manifest) == "working:activity-edge"


def test_idle_input_box(manifest: Manifest) -> None:
    snap = screen([*TRANSCRIPT, " Done: the build directory is gone.", *input_box(120)], 120, 32)
    assert state(snap, manifest) == "idle:input-box"


def test_answer_quoting_a_dialog_stays_idle(manifest: Manifest) -> None:
    # The model's answer shows what a dialog looks like: it is above the input box, so the
    # dialog's hint edge is not followed by the box's top edge.
    quoted = [
        " The dialog looks like this:",
        *(" " + r for r in dialog(60, "Approval Required", APPROVAL_ROWS, MOVE)),
        " Press Enter to allow.",
    ]
    snap = screen([*quoted, *input_box(120)], 120, 40)
    assert state(snap, manifest) == "idle:input-box"


def test_draft_with_dialog_words_stays_idle(manifest: Manifest) -> None:
    draft = "‣ Allow Once Enter select · Esc cancel ─╯ Space to continue"
    snap = screen([*TRANSCRIPT, " Done.", *input_box(120, text=draft)], 120, 32)
    assert state(snap, manifest) == "idle:input-box"


def test_welcome_page(manifest: Manifest) -> None:
    page = [
        "               ..........",
        "             Battle-Tested Agent Modes",
        "    Medium for everyday work. Ultra for hard problems.",
        "     Low for quick tasks. Switch anytime with Ctrl+S",
        "                      1/5",
        "               Space to continue",
    ]
    assert state(screen(page, 80, 24), manifest) == "blocked:welcome"
    last = [*page[:-2], "            Enter to get started"]
    assert state(screen(last, 80, 24), manifest) == "blocked:welcome"


def test_answer_keys(manifest: Manifest) -> None:
    assert answer_keys(manifest, "yes", "no") == (("Enter",), ("Escape",))
    assert answer_keys(manifest, "yes", rule="approval-dialog") == (("Enter",),)


test_amp_processes, test_not_amp = process_tests(
    "amp",
    [
        ["amp"],
        ["amp", "--mode", "low"],
        ["/root/.cache/osf-agentlab/npm-amp/node_modules/.bin/amp"],
        ["/usr/lib/node_modules/@sourcegraph/amp/node_modules/@ampcode/cli/bin/amp.exe"],
        ["/opt/homebrew/lib/node_modules/@ampcode/cli-darwin-arm64/amp"],
        ["/home/u/.amp/bin/amp", "threads", "continue"],
    ],
    [
        ["/home/u/.cargo/bin/amp", "src/main.rs"],  # the amp text editor
        ["amp", "--no-tui"],  # a runner for remote threads
        ["vim", "amp"],
        ["less", "/usr/lib/node_modules/@sourcegraph/amp/README.md"],
        ["ampl"],
        ["/usr/bin/amplify"],
    ],
)
