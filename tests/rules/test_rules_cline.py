"""Cline CLI rules on screens beyond the captures: other widths (60 and 240 columns), drafts
that hold the dialogs' words, answers ending in a question, old prompts quoted in the
transcript, and identification from the pane's foreground processes.

The layouts are those of the 3.0.65 captures (captures/cline-3.0.65-lab): the transcript from
the top, the input box (`❯` between two rules) and the three footer rows at the bottom; the
approval and question panels replace the input box (rules/NOTES-cline.md)."""

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


manifest = manifest_fixture("cline")


def footer(cols: int, mode: str = "○ Plan ● Act (Tab)") -> list[str]:
    left = " fake-model (50) $0.00"
    pad = max(1, cols - len(left) - len(mode) - 1)
    return [left + " " * pad + mode, " proj (main)", " Auto-approve all disabled (Shift+Tab)"]


def input_box(cols: int, *draft: str) -> list[str]:
    rows = [f"❯ {draft[0]}", *(f"  {d}" for d in draft[1:])] if draft else ["❯ Ask anything..."]
    return ["─" * cols, *rows, "─" * cols, "", *footer(cols)]


def approval(*detail: str) -> list[str]:
    return [
        " Cline needs permission",
        "",
        " Approve tool call?",
        "",
        " run_commands",
        "",
        *(f"   {d}" for d in detail),
        "",
        "  [y] Approve   [n] Deny",
        "",
        "",
    ]


def question(selected: int = 0) -> list[str]:
    options = ["PostgreSQL", "SQLite", "Type a response..."]
    rows = [f" {'>' if i == selected else ' '} {o}" for i, o in enumerate(options)]
    return [" Cline is asking a question", "", " Which database should the app use?", "", *rows]


PROMO = [
    "                                Try ClinePass",
    "",
    "                                ClinePass is a $9.99/month subscription plan to get",
    "                                than paying API costs directly.",
    "                             U                                                            u",
    "                                https://app.cline.bot/dashboard/subscription?",
    " " * 26 + "────" + " " * 60 + "────",
    "                          ❯ Wh   Open ClinePass",
    " " * 26 + "────" + " " * 60 + "────",
    "                                Press Enter to open, any other key to close",
    "                           fak                                                            ab)",
    "                           proj (main)",
    "                           Auto-approve all disabled (Shift+Tab)",
]

# 80x24: the panel overlaps the footer, whose first cells stay beside the button and the hint.
PROMO_80 = [
    "            Try ClinePass",
    "",
    "            ClinePass is a $9.99/month subscription plan to get",
    "      ────  than paying API costs directly.                           ────",
    "      ❯ Wh",
    "      ────  https://app.cline.bot/dashboard/subscription?             ────",
    "",
    "       fak   Open ClinePass                                           ab)",
    "       pro",
    "       Aut  Press Enter to open, any other key to close",
    "",
    "",
]
NOTICE_QUOTED = [
    " ❯ what did the start-up notice say?",
    "",
    " * It said:",
    "     Open ClinePass",
    "     Press Enter to open, any other key to close",
    "",
]

TURN = [" ❯ clean the build directory", "", " * I'll remove the build directory.", ""]
OLD_PROMPT = [
    " ❯ what does the approval look like?",
    "",
    " * It looks like this:",
    "   Cline needs permission",
    "",
    "   Approve tool call?",
    "",
    "  [y] Approve   [n] Deny",
    "",
    "   Cline is asking a question",
    "   > PostgreSQL",
    "   Press Enter to open, any other key to close",
    "",
]
ASK_BACK = [
    " ❯ review app.py",
    "",
    " * app.py is small and clear. Would you like me to add a test for main()?",
    "   1. Yes",
    "   2. No",
    "",
]


def cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for w in WIDTHS:
        out += [
            (f"idle-{w}", screen(TURN, input_box(w), w), "idle"),
            (
                f"thinking-{w}",
                screen([*TURN, " ⠇ Thinking... (esc to cancel)"], input_box(w), w),
                "working",
            ),
            (
                f"tool-running-{w}",
                screen([*TURN, " ⠹ run_commands(sleep 3; echo ok)"], input_box(w), w),
                "working",
            ),
            (
                f"approval-{w}",
                screen(TURN, [*approval("$ rm -rf build"), *footer(w)], w),
                "blocked",
            ),
            (
                # the edit's approval comes up under a Thinking row still spinning
                f"approval-under-spinner-{w}",
                screen(
                    [*TURN, " ⠴ Thinking... (esc to cancel)"],
                    [*approval("/tmp/proj/app.py"), *footer(w)],
                    w,
                ),
                "blocked",
            ),
            (
                f"approval-long-command-{w}",
                screen([], [*approval(*(f"$ step {i}" for i in range(8))), *footer(w)], w, 32),
                "blocked",
            ),
            (f"question-{w}", screen(TURN, [*question(), "", *footer(w)], w), "blocked"),
            (
                f"question-response-row-{w}",
                screen(TURN, [*question(2), "", *footer(w)], w),
                "blocked",
            ),
            (
                f"draft-approval-words-{w}",
                screen(
                    TURN,
                    input_box(w, "Cline needs permission Approve tool call? [y] Approve [n] Deny"),
                    w,
                ),
                "idle",
            ),
            (
                f"draft-dialog-rows-{w}",
                screen(
                    TURN,
                    input_box(
                        w,
                        "Cline needs permission",
                        "Approve tool call?",
                        "[y] Approve   [n] Deny",
                        "Cline is asking a question",
                        "> PostgreSQL",
                        "⠇ Thinking... (esc to cancel)",
                    ),
                    w,
                    32,
                ),
                "idle",
            ),
            (f"old-prompts-quoted-{w}", screen(OLD_PROMPT, input_box(w), w, 32), "idle"),
            (f"ask-back-{w}", screen(ASK_BACK, input_box(w), w), "idle"),
            (
                f"plan-mode-idle-{w}",
                screen(TURN, [*input_box(w)[:-3], *footer(w, "● Plan ○ Act (Tab)")], w),
                "idle",
            ),
        ]
    out.append(("promo-120", screen([], PROMO, 120), "blocked"))
    out.append(("promo-80", screen([], PROMO_80, 80), "blocked"))
    for w in (60, 240):
        out.append((f"notice-quoted-{w}", screen(NOTICE_QUOTED, input_box(w), w), "idle"))
    wide = [" " * 60 + line for line in PROMO]
    out.append(("promo-240", screen([], wide, 240, 50), "blocked"))
    return out


CASES = cases()


test_cline_screens = screens_test(CASES)


def test_answer_keys(manifest: Manifest) -> None:
    assert answer_keys(manifest, "yes", "no", "2") == (("y",), ("n",), ("2",))


# ---- identification ---------------------------------------------------------------------------

PREFIX = "/home/u/.npm-global/lib/node_modules"
WRAPPER = ["node", f"{PREFIX}/cline/bin/cline", "--auto-approve", "false"]
NPM_BIN = ["node", "/srv/proj/node_modules/.bin/cline"]
BINARY = [f"{PREFIX}/cline/bin/.cline", "--auto-approve", "false"]
HUB = [f"{PREFIX}/cline/bin/.cline", "--cline-hub-daemon", "--cwd", "/p", "--port", "25463"]


PROCESSES: list[tuple[list[str], str | None]] = [
    (WRAPPER, "cline"),
    (NPM_BIN, "cline"),
    (BINARY, "cline"),
    (["cline", "-p"], "cline"),
    (HUB, None),
    (["node", f"{PREFIX}/cline/bin/cline", "--cline-hub-daemon"], None),
    (["cline", "--cline-hub-daemon"], None),
    (["vim", "cline"], None),
    (["less", "notes/cline"], None),
]

test_cline_processes = process_table_test(PROCESSES)


def test_foreground_wrapper_then_binary_is_cline() -> None:
    # What /proc shows in a pane running `cline`: the node wrapper leads the group, the binary
    # is its child (the hub daemon is in a session of its own and is not listed).
    assert foreground_agent([WRAPPER, BINARY], pane_info(current_command="node")) == "cline"


def test_pane_held_only_by_the_hub_daemon_is_not_cline() -> None:
    # tmux names the pane's command `.cline` (or `cline`): the bare name must not undo the
    # daemon's exclusion.
    for name in (".cline", "cline"):
        assert foreground_agent([HUB], pane_info(current_command=name)) is None
    # without a process list (no /proc, no ps), tmux's name is all there is
    assert foreground_agent([], pane_info(current_command="cline")) == "cline"
