"""Kimi Code CLI rules on screens beyond the captures: other widths (60 and 240 columns), drafts
that hold the panels' words, old panels quoted in the transcript, answers ending in a question,
and telling Kimi Code from the older Kimi CLI by its processes.

The layouts are those of the 2.1.0 captures (captures/kimi-code-2.1.0-lab): the transcript printed
from the top; the live area at the bottom (an activity row while a turn runs, the rounded input
box, two footer rows); a panel between two full-width rules takes the input box's place when
the person is asked something (rules/NOTES-kimi-code.md)."""

from __future__ import annotations

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import (
    answer_keys,
    foreground_agent,
    manifest_fixture,
    manifest_of,
    process_table_test,
    screens_test,
)
from tests.rules.harness import stacked as screen
from tests.support.panes import pane_info

WIDTHS = (60, 80, 120, 240)


manifest = manifest_fixture("kimi-code")


def footer(cols: int) -> list[str]:
    context = "context: 1% (90/125k)"
    return [
        " fake-model  …/proj  main   ctrl+o expand | @: mention files",
        " " * max(0, cols - len(context) - 1) + context,
    ]


def input_box(cols: int, draft: str = "") -> list[str]:
    inner = cols - 4
    return [
        " ╭" + "─" * inner + "╮",
        f" │ > {draft:<{inner - 3}}│"[: cols - 1],
        " ╰" + "─" * inner + "╯",
        *footer(cols),
    ]


def rule(cols: int) -> str:
    return " " + "─" * (cols - 2)


def panel(cols: int, body: list[str]) -> list[str]:
    return [rule(cols), *body, rule(cols), *footer(cols)]


APPROVAL = [
    "   ▶ Run this command?",
    "",
    "   cwd: /home/u/proj",
    "   Dangerous: recursive delete",
    "   $ rm -rf build && sleep 2 && echo done",
    "",
    "   ▶ 1. Approve once",
    "     2. Approve for this session",
    "     3. Reject",
    "     4. Reject with feedback",
    "",
    "   ↑/↓ select · 1/2/3/4 choose · ↵ confirm",
]
# Option 4 chosen: its feedback field open, a reason typed.
FEEDBACK = [
    *APPROVAL[:6],
    "     1. Approve once",
    "     2. Approve for this session",
    "     3. Reject",
    "   ▶ 4. Reject with feedback  use the trash instead",
    "   Type feedback · ↵ submit.",
]
QUESTION = [
    "  question",
    "   Database    Submit",
    "",
    "  ? Which database should the app use?",
    "",
    "   → [1] PostgreSQL",
    "         Robust relational DB",
    "     [2] SQLite",
    "         File-based, zero config",
    "     [3] Other",
    "",
    "   ↑↓ select  1-3 / ↵ choose  ←/→/tab switch  esc cancel",
]
REVIEW = [
    "  question",
    "  (✓) Database   Submit",
    "  Review your answer before submit",
    "   Q  Which database should the app use?",
    "   →  PostgreSQL",
    "  Ready to submit your answers?",
    "   → [1] Submit",
    "     [2] Cancel",
    "   ↑↓ select  1/2 choose  ↵ confirm  ←/→/tab switch  esc cancel",
]
# Plan mode's review (ExitPlanMode): the plan in a box in the transcript, the panel asks.
PLAN = [
    " ● Used Write (…/agents/main/plans/superboy-karnak-killer-frost.md) · 6 lines",
    " Current plan",
    "   ┌ plan: superboy-karnak-killer-frost.md ──────────────┐",
    "   │ Plan: --greeting option                              │",
    "   │ 1. Parse arguments with argparse in app.py           │",
    "   └──────────────────────────────────────────────────────┘",
]
PLAN_REVIEW = [
    "   ▶ Ready to build with this plan?",
    "   ▶ 1. Approve",
    "     2. Reject",
    "     3. Revise",
    "   ↑/↓ select · 1/2/3 choose · ↵ confirm",
]
# The plan names its approaches (ExitPlanMode's `options`): Reject and Revise move down.
PLAN_APPROACHES = [
    "   ▶ Ready to build with this plan?",
    "   ▶ 1. argparse (Recommended)",
    "     2. click",
    "     3. Reject",
    "     4. Revise",
    "   ↑/↓ select · 1/2/3/4 choose · ↵ confirm",
]
# 3. Revise chosen: its feedback field open, a revision typed.
PLAN_REVISE = [
    "   ▶ Ready to build with this plan?",
    "     1. Approve",
    "     2. Reject",
    "   ▶ 3. Revise  also add a --name option",
    "   Type feedback · ↵ submit.",
]
TRUST = [
    "  Trust this folder?",
    "  ↑↓ navigate · Enter select · Esc exit",
    "",
    "  /home/u/proj",
    "",
    "  Project-level MCP servers are disabled until you explicitly choose Trust.",
    "",
    "   ❯ Trust this folder",
    "     Enable project MCP servers. Remembered for this folder.",
    "",
    "     Don't trust",
    "     Exit Kimi Code. Asked again next launch.",
    "",
]
TRANSCRIPT = [
    " ✨ clean the build directory",
    "",
    " ● I'll remove the build directory.",
    "",
    " ● Running a command · $ rm -rf build && sleep 2 && echo done",
]
DONE = [
    " ✨ clean the build directory",
    " ● Ran a command · $ rm -rf build && sleep 2 && echo done",
    "   done",
    "   Approved: Running: rm -rf build && sleep 2 && echo done",
    " ● Done: the build directory is gone.",
    "",
]
# An answer that quotes a whole approval panel, its hint row and menu, then asks back.
QUOTED = [
    " ● Kimi Code asks like this before a command runs:",
    "   ▶ 1. Approve once",
    "   ↑/↓ select · 1/2/3/4 choose · ↵ confirm",
    " ─" + "─" * 30,
    "   → [1] PostgreSQL",
    "   ↑↓ select  1-3 / ↵ choose  esc cancel",
    "   Would you like me to run it?",
    "",
]


def cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for cols in WIDTHS:
        rows = 32
        out += [
            (f"idle-{cols}", screen(DONE, input_box(cols), cols, rows), "idle"),
            (f"startup-{cols}", screen([], input_box(cols), cols, rows), "idle"),
            (
                f"draft-panel-words-{cols}",
                screen(DONE, input_box(cols, "▶ 1. Approve once ↑/↓ select · choose"), cols, rows),
                "idle",
            ),
            (f"quoted-panel-{cols}", screen(QUOTED, input_box(cols), cols, rows), "idle"),
            (
                f"working-braille-{cols}",
                screen(
                    TRANSCRIPT,
                    ["  ⠙ Working… · Tip: @: mention files", *input_box(cols)],
                    cols,
                    rows,
                ),
                "working",
            ),
            (
                f"working-moon-{cols}",
                screen(
                    TRANSCRIPT,
                    ["", "  🌔 · Tip: /web: use the Web UI", *input_box(cols)],
                    cols,
                    rows,
                ),
                "working",
            ),
            (
                f"working-bare-spinner-{cols}",
                screen(TRANSCRIPT, ["  ⠼ working...", "", *input_box(cols)], cols, rows),
                "working",
            ),
            (
                f"approval-{cols}",
                screen(TRANSCRIPT, panel(cols, APPROVAL), cols, rows),
                "blocked",
            ),
            (
                f"feedback-{cols}",
                screen(TRANSCRIPT, panel(cols, FEEDBACK), cols, rows),
                "blocked",
            ),
            (
                f"question-{cols}",
                screen(TRANSCRIPT, panel(cols, QUESTION), cols, rows),
                "blocked",
            ),
            (f"review-{cols}", screen(TRANSCRIPT, panel(cols, REVIEW), cols, rows), "blocked"),
            *(
                (f"{name}-{cols}", screen(PLAN, panel(cols, body), cols, rows), "blocked")
                for name, body in (
                    ("plan-review", PLAN_REVIEW),
                    ("plan-approaches", PLAN_APPROACHES),
                    ("plan-revise", PLAN_REVISE),
                )
            ),
            (
                # the review answered: its rows stay in the transcript, the box is back
                f"plan-answered-{cols}",
                screen([*PLAN, *PLAN_REVIEW], input_box(cols), cols, rows),
                "idle",
            ),
            (f"trust-{cols}", screen([], [rule(cols), *TRUST, rule(cols)], cols, rows), "blocked"),
            (
                # the approval panel answered: the transcript keeps its rows, the box is back
                f"approved-{cols}",
                screen([*TRANSCRIPT, *APPROVAL[-6:]], input_box(cols), cols, rows),
                "idle",
            ),
        ]
    return out


CASES = cases()


test_kimi_code_screens = screens_test(CASES)


def test_the_old_kimi_rules_do_not_read_kimi_code_panels() -> None:
    """Why Kimi Code needs rules of its own: Kimi CLI's read its panels as idle."""
    old = manifest_of("kimi")
    for body in (APPROVAL, QUESTION):
        assert classify(screen(TRANSCRIPT, panel(120, body), 120, 32), old).state == "idle"


def test_answer_keys(manifest: Manifest) -> None:
    assert answer_keys(manifest, "yes", "no", "2") == (("1",), ("3",), ("2",))
    assert answer_keys(manifest, "no", rule="question-panel") == (("Escape",),)
    assert answer_keys(manifest, "yes", rule="trust-prompt") == (("Enter",),)


def test_plan_review_has_answers_of_its_own(manifest: Manifest) -> None:
    """The review's menu is not the approval's: its 3 is Revise (a feedback field, not a
    rejection), and with the plan's approaches listed Reject is 3 or 4. Esc rejects on every
    layout; 1 takes the plan (or its first approach)."""
    for body in (PLAN_REVIEW, PLAN_APPROACHES, PLAN_REVISE):
        assert classify(screen(PLAN, panel(120, body), 120, 32), manifest).rule == "plan-review"
    assert answer_keys(manifest, "yes", "no", rule="plan-review") == (("1",), ("Escape",))


# ---- identification ---------------------------------------------------------------------------

PACKAGE = "/usr/local/lib/node_modules/@moonshot-ai/kimi-code/dist/main.mjs"
OLD_VENV = "/home/u/.local/share/uv/tools/kimi-cli"


PROCESSES: list[tuple[list[str], str | None]] = [
    # renamed (process.title): the command line and comm both read `kimi-code`
    (["kimi-code"], "kimi-code"),
    # node with the package's entry point, before the rename
    (["node", PACKAGE], "kimi-code"),
    (["node", "--enable-source-maps", PACKAGE, "--yolo"], "kimi-code"),
    # the native build the official install script puts in ~/.kimi-code/bin
    (["/home/u/.kimi-code/bin/kimi"], "kimi-code"),
    # the older Python Kimi CLI keeps its manifest
    (["Kimi Code"], "kimi"),
    ([f"{OLD_VENV}/bin/python3", f"{OLD_VENV}/bin/kimi"], "kimi"),
    (["vim", "kimi-code"], None),
    (["less", "/home/u/.kimi-code/config.toml"], None),
]

test_kimi_code_processes = process_table_test(PROCESSES)


def test_the_name_kimi_code_means_the_new_program(rules: RuleSet) -> None:
    """`--agent kimi-code` and `@osf-agent kimi-code` took Kimi CLI's rules before."""
    assert rules.get("kimi-code").agent == "kimi-code"
    assert rules.get("kimi").agent == "kimi"


def test_tmux_command_name_after_the_rename() -> None:
    """No readable /proc entry (another user's process): tmux's `#{pane_current_command}`."""
    assert foreground_agent([], pane_info(current_command="kimi-code")) == "kimi-code"
