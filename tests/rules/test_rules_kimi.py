"""Kimi CLI rules on screens beyond the captures: other widths (60 and 240 columns), drafts
that hold the panels' words, answers ending in a question, old panels quoted in the transcript,
and identification from the pane's foreground processes.

The layouts are those of the 1.51.0 captures (captures/kimi-1.51.0-lab): the transcript printed
from the top, the live area (a spinner row while the agent works), the `── input ──` header,
the text area, a rule and two footer rows; a panel (approval, question) takes the place of the
header and text area (rules/NOTES-kimi.md)."""

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


manifest = manifest_fixture("kimi")


def footer(cols: int) -> list[str]:
    context = "context: 0.1% (120/128k)"
    return [
        "─" * cols,
        "agent (fake-model ○)  ~/proj  main  @: mention files | ctrl-x: toggle mode",
        " " * max(0, cols - len(context)) + context,
    ]


def input_box(cols: int, *draft: str, plan: bool = False) -> list[str]:
    header = "╌╌ input · plan " + "╌" * (cols - 16) if plan else "── input " + "─" * (cols - 9)
    rows = [f" {d}" for d in draft] or [" "]
    return [header, *rows, "", "", *footer(cols)]


def panel(title: str, body: list[str], cols: int) -> list[str]:
    inner = cols - 2
    top = f"╭─ {title} " + "─" * (cols - len(title) - 5) + "╮"
    return [top, *(f"│{line:<{inner}}│"[:cols] for line in body), "╰" + "─" * inner + "╯"]


def approval(cols: int, command: str = "rm -rf build && sleep 2 && echo done") -> list[str]:
    body = [
        "  Shell is requesting approval to run command:",
        "",
        f"  {command}",
        "",
        " → [1] Approve once",
        "   [2] Approve for this session",
        "   [3] Reject",
        "   [4] Reject, tell the model what to do instead",
        "",
        "   ▲/▼ select  1/2/3/4 choose  ↵ confirm",
    ]
    return [*panel("approval", body, cols), *footer(cols)]


def question(cols: int, selected: int = 1) -> list[str]:
    options = [("PostgreSQL", "Robust relational DB"), ("SQLite", "File-based"), ("Other", "")]
    body = [" ? Which database should the app use?", ""]
    for i, (label, desc) in enumerate(options, 1):
        body.append(f" {'→' if i == selected else ' '} [{i}] {label}")
        if desc:
            body.append(f"       {desc}")
    return [*panel("question", body, cols), *footer(cols)]


TURN = ["✨ clean the build directory", "", "• I'll remove the build directory.", ""]
DONE = [*TURN, "• Used Shell (rm -rf build && sleep 2 && echo done)", "", "• Done.", ""]
ASK_BACK = [
    "✨ review app.py",
    "",
    "• app.py is small and clear. Would you like me to add a test for main()?",
    "  [1] Yes",
    "  [2] No",
    "",
]
# An answer quoting a whole approval panel, as it was on screen, above a live input box.
OLD_PANEL = ["✨ what did the approval look like?", "", "• It looked like this:"]


def cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for w in WIDTHS:
        quoted = OLD_PANEL + approval(w)[:-3]
        out += [
            (f"idle-{w}", screen(DONE, input_box(w), w), "idle"),
            (f"idle-plan-mode-{w}", screen(DONE, input_box(w, plan=True), w), "idle"),
            (f"waiting-moon-{w}", screen([*TURN, "🌒", ""], input_box(w), w), "working"),
            (
                f"composing-{w}",
                screen([*TURN, "⠏ Composing... 2s · 40 tokens", ""], input_box(w), w),
                "working",
            ),
            (
                f"thinking-preview-{w}",
                screen(
                    [*TURN, "⠼ Thinking... 3s · 84 tokens", "The user wants a careful look", ""],
                    input_box(w),
                    w,
                ),
                "working",
            ),
            (
                f"tool-running-{w}",
                screen([*TURN, "⠦ Using Shell (sleep 3; echo ok)", ""], input_box(w), w),
                "working",
            ),
            (
                f"queued-while-working-{w}",
                screen(
                    [*TURN, "⠦ Using Shell (sleep 3; echo ok)", ""],
                    ["── input · 1 queued " + "─" * (w - 20), " ", "", *footer(w)],
                    w,
                ),
                "working",
            ),
            (
                f"approval-{w}",
                screen([*TURN, "⠙ Using Shell (rm -rf build)"], approval(w), w),
                "blocked",
            ),
            (
                # drawn again after an erase: the footer comes last, up to 0.5 s later
                f"approval-footer-not-drawn-yet-{w}",
                screen([*TURN, "⠙ Using Shell (rm -rf build)"], approval(w)[:-3], w),
                "blocked",
            ),
            (f"question-{w}", screen(TURN, question(w), w, 28), "blocked"),
            (f"question-other-{w}", screen(TURN, question(w, 3), w, 28), "blocked"),
            (
                f"draft-approval-words-{w}",
                screen(
                    DONE,
                    input_box(w, "[1] Approve once ▲/▼ select 1/2/3/4 choose ↵ confirm ? Ok"),
                    w,
                ),
                "idle",
            ),
            (
                # a pasted panel, edges and all, in the text area: the header above it stays
                f"draft-whole-panel-{w}",
                screen(DONE, input_box(w, *approval(w)[:-3]), w, 32),
                "idle",
            ),
            (f"old-panel-quoted-{w}", screen(quoted, input_box(w), w, 40), "idle"),
            (f"ask-back-{w}", screen(ASK_BACK, input_box(w), w), "idle"),
            (
                # a transcript row starting like the spinner, far above the input header
                f"old-spinner-text-{w}",
                screen(["⠏ Composing... 2s", *[f"• line {i}" for i in range(12)]], input_box(w), w),
                "idle",
            ),
        ]
    return out


CASES = cases()


test_kimi_screens = screens_test(CASES)


def test_answer_keys(manifest: Manifest) -> None:
    assert answer_keys(manifest, "yes", "no", "2") == (("1",), ("3",), ("2",))
    # the question panel refuses with Esc: its digits pick options
    assert answer_keys(manifest, "no", rule="question-panel") == (("Escape",),)


# ---- identification ---------------------------------------------------------------------------

VENV = "/home/u/.local/share/uv/tools/kimi-cli"
RENAMED = ["Kimi Code"]  # /proc/PID/cmdline after setproctitle (comm is `Kimi Code` too)
SCRIPT = [f"{VENV}/bin/python3", f"{VENV}/bin/kimi"]


PROCESSES: list[tuple[list[str], str | None]] = [
    (RENAMED, "kimi"),
    (SCRIPT, "kimi"),
    (["kimi", "--yolo"], "kimi"),
    (["python3", f"{VENV}/lib/python3.13/site-packages/kimi_cli/__main__.py"], "kimi"),
    (["vim", "kimi"], None),
    (["less", "notes/kimi.md"], None),
    (["Kimi"], None),
]

test_kimi_processes = process_table_test(PROCESSES)


def test_foreground_renamed_process_is_kimi() -> None:
    # What /proc shows in a pane running `kimi`: one process, renamed.
    assert foreground_agent([RENAMED], pane_info(current_command="Kimi Code")) == "kimi"
