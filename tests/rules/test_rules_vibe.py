"""Mistral Vibe rules on screens beyond the captures: other widths (60 and 240 columns), drafts
that hold the boxes' words, answers ending in a question, old boxes quoted in the transcript,
and identification from the pane's foreground processes.

The layouts are those of the 3.0.2 captures (captures/vibe-3.0.2-lab): the transcript from the
top, the spinner row while a turn runs, the input box (a rule carrying the agent's name, the
`>` row, blank rows, a rule) and the footer row; a permission, question or trust box takes the
place of the input box (rules/NOTES-vibe.md). 3.0.3's notice over the spinner row
(captures/vibe-3.0.3-lab) at widths the lab recorded (72, 80, 120) and others."""

from __future__ import annotations

from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import (
    answer_keys,
    foreground_agent,
    manifest_fixture,
    process_table_test,
    screens_test,
)
from tests.rules.harness import stacked as screen
from tests.support.panes import pane_info

WIDTHS = (60, 80, 120, 240)


manifest = manifest_fixture("vibe")


def footer(cols: int) -> str:
    left, right = "~/proj [PID 4304]", "90/200k tokens (0%)"
    return left + " " * max(1, cols - len(left) - len(right)) + right


def input_box(cols: int, *draft: str, agent: str = "accept edits") -> list[str]:
    rows = [f"> {draft[0]}", *draft[1:]] if draft else [">"]
    top = "─" * (cols - len(agent) - 3) + f" {agent} ─"
    return [top, *rows, "", "", "─" * cols, footer(cols)]


def box(body: list[str], cols: int) -> list[str]:
    inner = cols - 2
    rows = (f"│{line:<{inner}}│"[:cols] for line in body)
    return ["┌" + "─" * inner + "┐", *rows, "└" + "─" * inner + "┘"]


def permission(cols: int, tool: str = "bash", what: str = "rm -rf build") -> list[str]:
    body = [
        f" Permission for the file_system.{tool} tool (rm *)",
        f" {what}",
        "",
        "   1. Allow once",
        "   2. Allow for remainder of this session",
        "   3. Always allow",
        "   4. Deny",
        "",
        " ↑↓/jk navigate  Enter select  Esc reject",
    ]
    return [*box(body, cols), footer(cols)]


def question(cols: int) -> list[str]:
    body = [
        " Which database should the app use?",
        "",
        "   1. PostgreSQL - Robust relational DB",
        "   2. SQLite - File-based, zero config",
        "   3. Type your answer...",
        "",
        " ↑↓/jk navigate  Enter select  Esc cancel",
    ]
    return [*box(body, cols), footer(cols)]


def spinner(text: str = "Generating… (1s Esc/Ctrl+C to interrupt)", cell: str = "⠇ ") -> str:
    return f"{cell} {text}"


TURN = ["> clean the build directory", "─" * 40, "", "  I'll remove the build directory.", ""]
DONE = [*TURN, "⏵ Ran rm -rf build && sleep 2 && echo done", "", "  Done.", ""]
ASK_BACK = [
    "> review app.py",
    "",
    "  app.py is small and clear. Would you like me to add a test for main()?",
    "   1. Yes",
    "   2. No",
    "",
]
OLD_BOX = ["> what did the permission box look like?", "", "  It looked like this:"]


def cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for w in WIDTHS:
        out += [
            (f"idle-{w}", screen(DONE, input_box(w), w), "idle"),
            (f"idle-ask-agent-{w}", screen(DONE, input_box(w, agent="ask"), w), "idle"),
            (f"generating-{w}", screen(TURN, [spinner(), *input_box(w)], w), "working"),
            (
                f"generating-one-cell-{w}",
                screen(TURN, [spinner(cell=" ⠼"), *input_box(w)], w),
                "working",
            ),
            (
                f"running-command-{w}",
                screen(
                    [*TURN, "■ Running sleep 3"],
                    [spinner("Running command… (3s Esc/Ctrl+C to interrupt)"), *input_box(w)],
                    w,
                ),
                "working",
            ),
            (
                f"initializing-queued-{w}",
                screen(
                    ["» Queued", *TURN],
                    [
                        spinner("Initializing… (Ctrl+C to cancel last queued message)", "⣠"),
                        *input_box(w),
                    ],
                    w,
                ),
                "working",
            ),
            (
                f"permission-{w}",
                screen(
                    TURN,
                    [spinner("Running command… (0s Esc/Ctrl+C to interrupt)"), *permission(w)],
                    w,
                ),
                "blocked",
            ),
            (
                f"permission-diff-{w}",
                screen(TURN, permission(w, "search_replace", "File: app.py"), w, 30),
                "blocked",
            ),
            (f"question-{w}", screen(TURN, question(w), w), "blocked"),
            (
                f"draft-box-words-{w}",
                screen(
                    DONE,
                    input_box(w, "1. Allow once 4. Deny ↑↓/jk navigate  Enter select  Esc reject"),
                    w,
                ),
                "idle",
            ),
            (
                # a pasted box, edges and all, as the draft's rows: the input box's rules and the
                # footer stay under it
                f"draft-whole-box-{w}",
                screen(DONE, input_box(w, *permission(w)[:-1]), w, 34),
                "idle",
            ),
            (
                f"old-box-quoted-{w}",
                screen([*OLD_BOX, *permission(w)[:-1], ""], input_box(w), w, 34),
                "idle",
            ),
            (f"ask-back-{w}", screen(ASK_BACK, input_box(w), w), "idle"),
            (
                # the spinner's words in the transcript, not above the input box's rule
                f"old-spinner-text-{w}",
                screen([spinner(), *DONE], input_box(w), w),
                "idle",
            ),
        ]
    return out


# 3.0.3's notice (a model whose context window Vibe does not know, an update, ...): rows edged
# `▌` at the pane's bottom right, about 61 columns wide, whose last row is the spinner row's place;
# drawn over whatever is there. Under 80 columns it covers the spinner row's ellipsis.
NOTICE = ["▌", "▌ the context window of local-model is unknown; assuming", "▌ 131072 tokens", "▌"]
NOTICE_WIDTHS = (64, 72, 80, 120, 240)


def under_notice(rows: list[str], cols: int) -> list[str]:
    """The last len(NOTICE) rows of `rows` with the notice drawn over their right part."""
    at = max(0, cols - 61)
    head, tail = rows[: -len(NOTICE)], rows[-len(NOTICE) :]
    return [*head, *(row[:at].ljust(at) + note for row, note in zip(tail, NOTICE, strict=True))]


def notice_cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for w in NOTICE_WIDTHS:
        blank = ["", "", ""]
        out += [
            (
                f"notice-generating-{w}",
                screen(TURN, [*under_notice([*blank, spinner()], w), *input_box(w)], w),
                "working",
            ),
            (
                f"notice-running-two-cells-{w}",
                screen(
                    [*TURN, "■ Running sleep 3"],
                    [
                        *under_notice(
                            [
                                *blank,
                                spinner("Running command… (1s Esc/Ctrl+C to interrupt)", "⠒⠂"),
                            ],
                            w,
                        ),
                        *input_box(w),
                    ],
                    w,
                ),
                "working",
            ),
            (
                f"notice-permission-{w}",
                screen(
                    TURN,
                    [*under_notice([*blank, spinner("Running command… (0s")], w), *permission(w)],
                    w,
                    30,
                ),
                "blocked",
            ),
            # the notice over the transcript's last rows and the blank row above the input box
            (
                f"notice-idle-{w}",
                screen(DONE[:-1], [*under_notice([*DONE[-4:], ""], w), *input_box(w)], w),
                "idle",
            ),
            (
                f"notice-idle-startup-{w}",
                screen([], [*under_notice(["", *blank], w), *input_box(w)], w),
                "idle",
            ),
        ]
    return out


CASES = cases() + notice_cases()


test_vibe_screens = screens_test(CASES)


def test_answer_keys(manifest: Manifest) -> None:
    assert answer_keys(manifest, "yes", "no", "3") == (("1",), ("Escape",), ("3",))


# ---- identification ---------------------------------------------------------------------------

SITE = "/home/u/.local/share/uv/tools/mistral-vibe/lib/python3.13/site-packages"
TUI = [f"{SITE}/vibe/_bin/vibe-rs"]
APP_SERVER = ["vibe-app-server"]  # it names itself (comm and command line)
LAUNCHER = ["/home/u/.local/share/uv/tools/mistral-vibe/bin/python3", "/home/u/.local/bin/vibe"]


PROCESSES: list[tuple[list[str], str | None]] = [
    (TUI, "vibe"),
    (APP_SERVER, "vibe"),
    (LAUNCHER, "vibe"),
    (["vibe", "--agent", "ask"], "vibe"),
    (["vim", "vibe"], None),
    (["less", "notes/vibe.md"], None),
]

test_vibe_processes = process_table_test(PROCESSES)


def test_foreground_tui_then_app_server_is_vibe() -> None:
    # What /proc shows in a pane running `vibe`: vibe-rs leads the group, its child the server.
    assert foreground_agent([TUI, APP_SERVER], pane_info(current_command="vibe-rs")) == "vibe"
