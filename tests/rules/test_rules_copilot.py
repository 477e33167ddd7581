"""GitHub Copilot CLI rules (rules/copilot.toml) on screens the captures do not cover, and the
pane identification of its processes.

Screens are laid out the way Copilot CLI 1.0.102 draws them, as seen by running it in tmux at
40 to 240 columns against a local fake model server (rules/NOTES-copilot.md): the transcript,
then either the input box (context row, rule, `❯` prompt row, rule, footer row) or a dialog
that replaced it. Helpers build each part at any width, so the same layouts are checked at 60,
80, 120 and 240 columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.process import foreground_commands
from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import from_bottom, manifest_fixture
from tests.support.panes import pane_info

WIDTHS = (60, 80, 120, 240)
IDLE_FOOTER = "← open sidebar · Interactive · Manual Approval · / commands · ? help · tab next tab"
SCROLLBAR = "┃"


manifest = manifest_fixture("copilot")


# --- building screens ---------------------------------------------------------------------


def transcript(cols: int, rows: list[str]) -> list[str]:
    """Transcript rows with the scrollbar Copilot draws in the last column."""
    return [r[: cols - 2].ljust(cols - 1) + SCROLLBAR for r in rows]


def footer(text: str, cols: int, model: str = "fake-model") -> str:
    """The footer row: `text` on the left, the model right when both fit (Copilot drops the
    model first on a narrow pane; the cases give the shorter texts it shows there)."""
    left = " " + text
    if len(left) + 1 + len(model) > cols:
        return left[:cols]
    return left.ljust(cols - len(model)) + model


def input_box(cols: int, draft: list[str] | None = None, foot: str = IDLE_FOOTER) -> list[str]:
    rule = "─" * cols
    lines = draft or [""]
    prompt = ["❯ " + lines[0], *("  " + line for line in lines[1:])]
    return [" ~/src/proj [⎇ main]", rule, *prompt, rule, footer(foot, cols)]


def wrap(text: str, width: int) -> list[str]:
    """Word-wrap `text` to `width` cells; continuation rows get one space of indent, as the
    menu rows of a narrow dialog do."""
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = " " + word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return out


def dialog_box(
    cols: int,
    title: str,
    content: list[str],
    question: str | None,
    options: list[str],
    pointer: int = 1,
    hint: str = "↑/↓ to navigate · enter to select · esc to cancel",
    prefix: str = "",
) -> list[str]:
    """A rounded-box dialog (permission, trust, plan) spanning the pane's width, optionally
    right of a sidebar column `prefix` (which ends in `│`)."""
    width = cols - len(prefix)
    inner = width - 4

    def row(text: str) -> str:
        return prefix + "│ " + text[:inner].ljust(inner) + " │"

    rows = [prefix + "╭" + "─" * (width - 2) + "╮", row(title), row("─" * inner)]
    rows += [row(c) for c in content]
    if question is not None:
        rows += [row(""), row(question)]
    rows.append(row(""))
    for n, option in enumerate(options, start=1):
        pieces = wrap(f"{n}. {option}", inner - 2)
        # Ink lets the pointer's box shrink when the option beside it wraps: `❯1. Accept …`
        mark = ("❯ " if len(pieces) == 1 else "❯") if n == pointer else "  "
        for i, piece in enumerate(pieces):
            rows.append(row((mark if i == 0 else "  ") + piece))
    rows.append(row(""))
    rows += [row(piece) for piece in wrap(hint, inner)]
    rows.append(prefix + "╰" + "─" * (width - 2) + "╯")
    return rows


def command_box(cols: int, command: str) -> list[str]:
    inner = cols - 8
    return [
        "╭" + "─" * (inner + 2) + "╮",
        "│ " + command[:inner].ljust(inner) + " │",
        "╰" + "─" * (inner + 2) + "╯",
    ]


BASH_OPTIONS = [
    "Yes",
    "Yes, and don't ask again for `rm` and `sleep` in this repo (/home/dev/src/proj)",
    "No, and tell Copilot what to do differently (Esc to stop)",
]
TRUST_OPTIONS = ["Yes", "Yes, and remember this folder for future sessions", "No (Esc)"]
PLAN_OPTIONS = [
    "Accept plan and continue in Autopilot execution mode (recommended)",
    "Accept plan and continue in Interactive execution mode (Manual Approval for this "
    "session; future defaults unchanged)",
    "Exit to Interactive execution mode without running the plan (Manual Approval for this "
    "session; future defaults unchanged)",
    "Suggest changes",
]
HISTORY = [
    " ● No copilot-instructions.md found. Run /init to generate.",
    "",
    " ❯ clean the build directory                                  15:38",
    "",
    " ● I'll remove the build directory.",
    "",
    " $ Shell Remove the build directory",
    "   rm -rf build && sleep 2 && echo done",
    "",
]


def bash_dialog(cols: int, pointer: int = 1, prefix: str = "") -> list[str]:
    width = cols - len(prefix)
    return dialog_box(
        cols,
        "Remove the build directory",
        command_box(width, "rm -rf build && sleep 2 && echo done"),
        "Do you want to run this command?",
        BASH_OPTIONS,
        pointer=pointer,
        prefix=prefix,
    )


def elicitation(cols: int, prefix: str = "") -> list[str]:
    rule = prefix + "─" * (cols - len(prefix))
    body = [
        " Copilot needs information.",
        " Which database should the app use?",
        "",
        " Database:",
        " ❯ PostgreSQL",
        "   SQLite",
        "   Other (type your answer)",
        "",
        " ↑/↓ select · enter accept · ctrl+d decline · esc cancel",
    ]
    return [rule, *(prefix + b for b in body), rule]


def model_picker(cols: int) -> list[str]:
    inner_rule = " " + "─" * (cols - 2)
    return [
        "─" * cols,
        "",
        " Session only. Auto chooses a model.",
        "   New models",
        " ❯ fake-model ✓",
        "",
        inner_rule,
        " ❯  Search models…",
        inner_rule,
        " ↑/↓ to navigate · shift+tab group: recommended · enter to select · esc to cancel",
    ]


def screen(rows: list[str], cols: int, height: int) -> Snapshot:
    """A `cols` x `height` pane showing the last `height` of `rows` (blank rows above)."""
    return from_bottom(rows, cols, height, cut=True, alt_screen=True)


@dataclass(frozen=True)
class Case:
    name: str
    build: object  # (cols) -> rows
    want: str
    height: int = 24
    min_cols: int = 0  # the sidebar leaves a usable main area only on wide panes


def _state(manifest: Manifest, rows: list[str], cols: int, height: int) -> tuple[str, str | None]:
    verdict = classify(screen(rows, cols, height), manifest)
    return verdict.state, verdict.rule


CASES = [
    # --- blocked ------------------------------------------------------------------------------
    Case(
        "bash-permission",
        lambda c: transcript(c, HISTORY) + bash_dialog(c),
        "blocked",
    ),
    Case(
        "bash-permission-pointer-on-no",
        lambda c: transcript(c, HISTORY) + bash_dialog(c, pointer=3),
        "blocked",
    ),
    Case(
        "trust-dialog-at-start-up",
        lambda c: (
            transcript(c, HISTORY[:2])
            + dialog_box(
                c,
                "Confirm folder trust",
                [
                    "/home/dev/src/proj",
                    "",
                    "Copilot can read files in this folder and, with your permission, edit them or "
                    "run code and shell commands.",
                ],
                "Do you trust the files in this folder?",
                TRUST_OPTIONS,
            )
        ),
        "blocked",
    ),
    Case(
        # no question mark anywhere: the plan review is recognised by its shape alone
        "plan-review",
        lambda c: (
            transcript(c, HISTORY[:4])
            + dialog_box(c, "Plan Ready for Review", ["Add a --name option"], None, PLAN_OPTIONS)
        ),
        "blocked",
        height=30,
    ),
    Case(
        # a diff taller than the pane: only the box's lower part is on screen
        "edit-dialog-taller-than-the-pane",
        lambda c: dialog_box(
            c,
            "Edit file",
            ["app.py +30 -1", "/home/dev/src/proj", ""]
            + [f"{i:<5} + print('line {i}')" for i in range(1, 31)],
            "Do you want to edit /home/dev/src/proj/app.py?",
            ["Yes", "Yes, and don't ask again for file operations in this repo", BASH_OPTIONS[2]],
        ),
        "blocked",
    ),
    Case(
        "dialog-beside-the-open-sidebar",
        lambda c: (
            [("  ○  clean the build directory").ljust(40)[:40] + "│" for _ in range(4)]
            + bash_dialog(c, prefix=" " * 40 + "│")
        ),
        "blocked",
        min_cols=120,
    ),
    Case(
        "ask-user-form",
        lambda c: (
            transcript(c, [*HISTORY[:5], " ○ Asking user Waiting for response", ""])
            + elicitation(c)
        ),
        "blocked",
    ),
    Case(
        "ask-user-form-beside-the-open-sidebar",
        lambda c: [" " * 40 + "│" for _ in range(3)] + elicitation(c, prefix=" " * 40 + "│"),
        "blocked",
        min_cols=120,
    ),
    # --- working ------------------------------------------------------------------------------
    Case(
        "working-streaming",
        lambda c: transcript(c, HISTORY) + input_box(c, foot="◉ Working · 252 B esc esc interrupt"),
        "working",
    ),
    Case(
        "working-before-the-answer",
        lambda c: transcript(c, HISTORY) + input_box(c, foot="◎ Working esc esc edit prompt"),
        "working",
    ),
    Case(
        "working-after-one-esc",
        lambda c: (
            transcript(c, HISTORY) + input_box(c, foot="● Working · 432 B esc again to interrupt")
        ),
        "working",
    ),
    Case(
        "working-with-the-models-intent",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(c, foot="○ Reading app.py · 1.2 KB esc esc interrupt")
        ),
        "working",
    ),
    Case(
        "working-with-a-draft-typed-meanwhile",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(c, ["also check the tests"], foot="∙ Executing esc esc interrupt")
        ),
        "working",
    ),
    Case(
        # Plan and Autopilot mode put the mode before the dot
        "working-in-plan-mode",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(
                c,
                # below 80 columns the mode label goes (seen live at 40 and 60)
                foot=("Plan · Manual Approval · " if c >= 80 else "") + "○ Working · 144 B esc esc "
                "interrupt",
            )
        ),
        "working",
    ),
    Case(
        "cancelling",
        lambda c: transcript(c, HISTORY) + input_box(c, foot="◉ Cancelling"),
        "working",
    ),
    # --- idle ---------------------------------------------------------------------------------
    Case("idle", lambda c: transcript(c, HISTORY) + input_box(c), "idle"),
    Case(
        "draft-with-the-prompts-words",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(
                c,
                [
                    "Do you want to run this command? ❯ 1. Yes 2. No ↑/↓ to navigate · enter to "
                    "select · esc to cancel · esc esc interrupt · Copilot needs information."
                ],
                foot="Interactive · Manual Approval · @ files · # issues",
            )
        ),
        "idle",
    ),
    Case(
        # a whole dialog pasted into the input box, box edges and all
        "draft-holding-a-pasted-dialog",
        lambda c: (
            transcript(c, HISTORY[:3])
            + input_box(
                c,
                [r.strip() for r in bash_dialog(60)]
                + ["────────────────", "Copilot needs information.", "↑/↓ select · enter accept"],
                foot="Interactive · Manual Approval · @ files · # issues",
            )
        ),
        "idle",
        height=40,
    ),
    Case(
        "draft-after-one-esc",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(c, ["Do you want to run this command?"], foot="esc again to clear input")
        ),
        "idle",
    ),
    Case(
        "answer-ending-in-a-question",
        lambda c: (
            transcript(
                c,
                [
                    *HISTORY[:3],
                    " ● app.py is small and clear: main() prints a greeting.",
                    "",
                    "   Would you like me to add a command-line option for the name?",
                    "   1. Yes",
                    "   2. No",
                    "",
                ],
            )
            + input_box(c)
        ),
        "idle",
    ),
    Case(
        # an answer that quotes an old dialog, box and menu, above the live idle input box
        "transcript-quoting-an-old-dialog",
        lambda c: (
            transcript(c, [*HISTORY[:3], *[r.strip() for r in bash_dialog(70)], ""]) + input_box(c)
        ),
        "idle",
        height=40,
    ),
    Case(
        "rejected-tool-back-at-the-prompt",
        lambda c: (
            transcript(
                c,
                [
                    *HISTORY[:6],
                    " ✗ Shell Remove the build directory Operation aborted by user",
                    "   rm -rf build && sleep 2 && echo done",
                    "",
                    " ● Operation cancelled by user",
                    "",
                ],
            )
            + input_box(c)
        ),
        "idle",
    ),
    Case(
        # a picker the person opened (/model): no box edge at the bottom, no numbered pointer
        "model-picker",
        lambda c: transcript(c, HISTORY[:4]) + model_picker(c),
        "idle",
    ),
    Case(
        "plan-mode-idle",
        lambda c: (
            transcript(c, HISTORY)
            + input_box(c, foot="← open sidebar · Plan · Manual Approval · / commands · ? help")
        ),
        "idle",
    ),
]


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_screen(c: Case, cols: int, manifest: Manifest) -> None:
    if cols < c.min_cols:
        pytest.skip(f"{c.name} needs {c.min_cols} columns")
    rows = c.build(cols)  # type: ignore[operator]
    state, rule = _state(manifest, rows, cols, c.height)
    assert state == c.want, f"{c.name} at {cols} columns: got {state} by rule {rule}"


# --- --screen-reader (1.0.102, captures/copilot-1.0.102-lab-screenreader) --------------------

SR_PROMPT = "Start of Prompt Indicator"


def sr_input_box(cols: int, foot: str = IDLE_FOOTER, draft: str | None = None) -> list[str]:
    """The input box in screen-reader mode: the prompt row says what it is, no `❯`."""
    rule = "─" * cols
    return [" ~/src/proj [⎇ main]", rule, draft or SR_PROMPT, rule, footer(foot, cols)]


def sr_dialog(cols: int, selected: int = 1) -> list[str]:
    """A permission dialog without its box: the current option said in words, the others
    numbered, the navigation hint as the last row (wrapped on a narrow pane)."""
    options = [
        f"Current selection: {n}. {o}" if n == selected else f"  {n}. {o}"
        for n, o in enumerate(BASH_OPTIONS, start=1)
    ]
    hint = wrap("↑/↓ to navigate · enter to select · esc to cancel", cols)
    return [
        "Remove the build directory",
        *command_box(cols, "rm -rf build && sleep 2 && echo done"),
        "Do you want to run this command?",
        *(piece for o in options for piece in wrap(o, cols)),
        *hint,
    ]


SR_CASES = [
    Case("sr-idle", lambda c: transcript(c, HISTORY) + sr_input_box(c), "idle"),
    Case(
        "sr-working",
        lambda c: transcript(c, HISTORY) + sr_input_box(c, " Working esc esc edit prompt"),
        "working",
    ),
    Case(
        "sr-working-after-one-esc",
        lambda c: transcript(c, HISTORY) + sr_input_box(c, " Working esc again to interrupt"),
        "working",
    ),
    Case(
        "sr-working-plan-mode",
        lambda c: (
            transcript(c, HISTORY)
            + sr_input_box(c, "Plan · Manual Approval · Working · 144 B esc esc interrupt")
        ),
        "working",
    ),
    Case("sr-permission", lambda c: transcript(c, HISTORY) + sr_dialog(c), "blocked"),
    Case("sr-permission-on-no", lambda c: transcript(c, HISTORY) + sr_dialog(c, 3), "blocked"),
    # the dialog's words typed or quoted in the input box: the footer is still the last row
    Case(
        "sr-draft-quoting-the-dialog",
        lambda c: (
            transcript(c, ["Current selection: 1. Yes", "  2. No"])
            + sr_input_box(c, draft="↑/↓ to navigate · enter to select · esc to cancel")
        ),
        "idle",
    ),
    # the idle footer after one Esc with a draft: no interrupt hint
    Case(
        "sr-esc-once-with-draft",
        lambda c: transcript(c, HISTORY) + sr_input_box(c, "esc again to clear input", "fix it"),
        "idle",
    ),
]


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("c", SR_CASES, ids=[c.name for c in SR_CASES])
def test_screen_reader_mode(c: Case, cols: int, manifest: Manifest) -> None:
    rows = c.build(cols)  # type: ignore[operator]
    state, rule = _state(manifest, rows, cols, c.height)
    assert state == c.want, f"{c.name} at {cols} columns: got {state} by rule {rule}"


# --- 0.0.3xx (late 2025), laid out after screens others published of it ---------------------

OLD_FOOTER = " Ctrl+c Exit · Ctrl+r Expand recent"


def old_input_box(cols: int, draft: str = "", spinner: str | None = None) -> list[str]:
    rule = " " + "─" * (cols - 2)
    rows = [f" {spinner}", ""] if spinner else []
    prompt = " > " + (draft or " Enter @ to mention files or / for commands")
    context = " ~/src/proj[⎇ main]".ljust(cols - 24) + "claude-sonnet-4.5 (1x)"
    return [*rows, context, rule, prompt, rule, OLD_FOOTER]


def old_dialog(cols: int) -> list[str]:
    """The 0.0.3xx box: indented one column, the older hint row."""
    box = dialog_box(
        cols - 1,
        "Zeige laufende Container:",
        command_box(cols - 1, "docker ps"),
        "Do you want to run this command?",
        ["Yes", "Yes, and approve `docker` for the rest of the running session",
         "No, and tell Copilot what to do differently (Esc)"],
        hint="Confirm with number keys or ↑↓ keys and Enter, Cancel with Esc",
    )  # fmt: skip
    return [" " + r for r in box]


OLD_HISTORY = [" > check the containers", "", " ● I'll look at the running containers first.", ""]
OLD_CASES = [
    Case("old-idle", lambda c: OLD_HISTORY + old_input_box(c), "idle"),
    Case("old-permission", lambda c: OLD_HISTORY + old_dialog(c), "blocked"),
    Case(
        # An answer's last row (`● …`) stands where 0.0.3xx drew its activity line
        # (`◉ Thinking (Esc to cancel)`, above the input box): no rule reads that line.
        "old-draft-and-answer-with-the-words",
        lambda c: [
            *OLD_HISTORY[:2],
            " ● Press the key when it asks (Esc to cancel)",
            "",
            *old_input_box(c, draft="◉ Thinking (Esc to cancel) Confirm with number keys"),
        ],
        "idle",
    ),
]


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("c", OLD_CASES, ids=[c.name for c in OLD_CASES])
def test_older_layout(c: Case, cols: int, manifest: Manifest) -> None:
    rows = c.build(cols)  # type: ignore[operator]
    state, rule = _state(manifest, rows, cols, c.height)
    assert state == c.want, f"{c.name} at {cols} columns: got {state} by rule {rule}"


# --- 1.0.4x (mid-2026): ask_user's Question box, the activity row above the input box ------
# Laid out as 1.0.43 draws them (captures/copilot-1.0.43-lab), with either hint row: 1.0.43's
# and the lower-case one of later releases.

FOOTER_1_0_4X = "/ commands · ? help"
ASKING = [" ❯ set up a database", "", " ● I need one decision from you.", "",
          " ○ Asking user Which database should the app use?", ""]  # fmt: skip
CHOICES = ["PostgreSQL (Recommended)", "SQLite", "Other (type your answer)"]


def question_box(cols: int, hint: str) -> list[str]:
    return dialog_box(
        cols, "Question", [], "Which database should the app use?", CHOICES, hint=hint
    )


def box_1_0_4x(cols: int, spinner: str | None = None, above: list[str] | None = None) -> list[str]:
    """The input box of 1.0.4x: the activity row (if any) sits right on the context row."""
    rule = "─" * cols
    foot = FOOTER_1_0_4X + (" · ctrl+q enqueue" if spinner else "")
    rows = [*(above or []), *([spinner] if spinner else [])]
    return [*rows, " ~/src/proj [⎇ main]", rule, "❯ ", rule, footer(foot, cols)]


CASES_1_0_4X = [
    Case(
        "question-box-1.0.43",
        lambda c: ASKING + question_box(c, "↑↓ to select · Enter to confirm · Esc to cancel"),
        "blocked",
    ),
    Case(
        "question-box-later-hint",
        lambda c: ASKING + question_box(c, "↑/↓ to select · enter to confirm · esc to cancel"),
        "blocked",
    ),
    Case(
        "working-row", lambda c: ASKING[:4] + box_1_0_4x(c, "● Thinking (Esc to cancel)"), "working"
    ),
    Case(
        "working-row-streamed",
        lambda c: ASKING[:4] + box_1_0_4x(c, "◉ Thinking (Esc to cancel · 162 B)"),
        "working",
    ),
    Case("idle", lambda c: ASKING[:4] + box_1_0_4x(c), "idle"),
    Case(
        # an answer that ends with the hint's words: a blank row parts it from the input box
        "idle-answer-with-the-words",
        lambda c: (
            ASKING[:2] + box_1_0_4x(c, above=[" ● Press Esc when it asks (Esc to cancel)", ""])
        ),
        "idle",
    ),
    Case(
        # the Question box quoted in a draft: the input box is still the bottom element
        "idle-draft-with-the-question",
        lambda c: (
            ASKING[:4]
            + input_box(
                c,
                [
                    "│ ❯ 1. PostgreSQL (Recommended)",
                    "│ ↑/↓ to select · enter to confirm · esc to cancel │",
                ],
            )
        ),
        "idle",
    ),
]


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("c", CASES_1_0_4X, ids=[c.name for c in CASES_1_0_4X])
def test_layout_1_0_4x(c: Case, cols: int, manifest: Manifest) -> None:
    rows = c.build(cols)  # type: ignore[operator]
    state, rule = _state(manifest, rows, cols, c.height)
    assert state == c.want, f"{c.name} at {cols} columns: got {state} by rule {rule}"


def test_idle_1_0_4x_footer_is_recognised(manifest: Manifest) -> None:
    """The drift canary counts idle screens no rule names: the 1.0.4x footer is named."""
    assert _state(manifest, ASKING[:4] + box_1_0_4x(80), 80, 24) == ("idle", "idle-footer")


def test_hint_row_wrapped_at_40_columns(manifest: Manifest) -> None:
    """Below ~45 columns the dialog's hint row wraps onto a second row (seen live at 40)."""
    rows = transcript(40, HISTORY) + bash_dialog(40)
    assert rows[-3].strip("│ ").startswith("↑/↓ to navigate")
    assert rows[-2].strip("│ ") == "esc to cancel"
    assert _state(manifest, rows, 40, 16)[0] == "blocked"
    idle = transcript(40, HISTORY) + input_box(40, foot="Interactive · Manual  · / c")
    assert _state(manifest, idle, 40, 16)[0] == "idle"


def test_a_dialog_needs_its_menu(manifest: Manifest) -> None:
    """The box edge and hint row alone (an informational box) are not a question."""
    rows = dialog_box(80, "Shortcuts", ["ctrl+c  cancel", "esc esc  interrupt"], None, [])
    assert _state(manifest, transcript(80, HISTORY) + rows, 80, 24)[0] == "idle"


# --- identification -------------------------------------------------------------------------


def fake_proc(tmp_path: Path, procs: list[tuple[int, int, int, str, list[str]]]) -> Path:
    """A /proc with the pane's shell (pid 100) and (pid, ppid, pgrp, comm, argv) entries; the
    first entry's group holds the terminal's foreground."""
    proc = tmp_path / "proc"
    procs = [*procs, (100, 1, 100, "bash", ["-bash"])]
    children: dict[int, list[int]] = {}
    for pid, ppid, _pgrp, _comm, _argv in procs:
        children.setdefault(ppid, []).append(pid)
    fg = procs[0][2]
    for pid, ppid, pgrp, comm, argv in procs:
        d = proc / str(pid)
        (d / "task" / str(pid)).mkdir(parents=True)
        (d / "stat").write_text(f"{pid} ({comm}) S {ppid} {pgrp} {pgrp} 34817 {fg} 4194560 0\n")
        (d / "comm").write_text(comm + "\n")
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (d / "task" / str(pid) / "children").write_text(
            " ".join(str(c) for c in children.get(pid, []))
        )
    return proc


NPM = "/home/dev/.npm-global/lib/node_modules"
PLATFORM = f"{NPM}/@github/copilot-linux-x64/copilot"


def identified(rules: RuleSet, proc: Path, current_command: str) -> str | None:
    found = manifest_for(
        rules,
        pane_info(pid=100, current_command=current_command),
        lambda pid: foreground_commands(pid, proc),
        0.0,
        30.0,
    )
    return found.agent if found else None


def test_npm_install_node_loader_with_native_child(rules: RuleSet, tmp_path: Path) -> None:
    """As measured: the pane's shell, then `node …/bin/copilot` leading the foreground group,
    its child the platform binary (comm `MainThread`)."""
    proc = fake_proc(
        tmp_path,
        [
            (200, 100, 200, "node", ["node", "/home/dev/.npm-global/bin/copilot"]),
            (201, 200, 200, "MainThread", [PLATFORM]),
        ],
    )
    assert identified(rules, proc, "node") == "copilot"


def test_loader_started_by_path_and_the_native_binary_alone(rules: RuleSet, tmp_path: Path) -> None:
    proc = fake_proc(
        tmp_path, [(300, 100, 300, "node", ["node", f"{NPM}/@github/copilot/npm-loader.js"])]
    )
    assert identified(rules, proc, "node") == "copilot"
    native = fake_proc(tmp_path / "n", [(400, 100, 400, "MainThread", ["copilot", "--resume"])])
    assert identified(rules, native, "MainThread") == "copilot"
    platform = fake_proc(tmp_path / "p", [(500, 100, 500, "MainThread", [PLATFORM])])
    assert identified(rules, platform, "MainThread") == "copilot"


def test_unrelated_processes_are_not_copilot(rules: RuleSet, tmp_path: Path) -> None:
    for i, argv in enumerate(
        [
            ["vim", "notes/copilot.md"],
            ["node", "/srv/app/server.js", "--name", "copilot"],
            ["python3", "-m", "copilot_tools"],
            ["gh", "copilot-review"],
        ]
    ):
        proc = fake_proc(tmp_path / str(i), [(600, 100, 600, argv[0], argv)])
        assert identified(rules, proc, argv[0]) is None, argv
