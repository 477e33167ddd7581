"""rules/codex.toml on screens we have no capture of.

Each case is a plain-text screen with the state it must get. The layouts are rebuilt from the
real 0.169.0 captures (captures/codex-0.169.0/*.snapshots) and, for other versions and dialogs,
from the program text of the released binaries and the layouts in Codex's own rendering tests;
each case says where its layout comes from. The captures' own snapshots are checked too."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import CAPTURES, manifest_fixture, snapshots_test

SNAPSHOTS = CAPTURES / "codex-0.169.0"

SPIN = "⠹ Fix the build | project"  # window title while a turn runs (newer versions)

# The 0.169.0 footer under the composer (two rows), as in every capture snapshot.
FOOTER_169 = [
    "",
    "  GPT-5.5 default · /home/dev/project",
    "  ← for agents · ? for shortcuts",
]
HEADER_169 = ["", "  >_ OpenAI Codex (v0.169.0)", "     /home/dev/project", "", ""]


@dataclass(frozen=True)
class Case:
    name: str
    rows: tuple[str, ...]
    height: int
    cols: int
    want: str
    title: str = ""


def screen(top: list[str], bottom: list[str], height: int) -> tuple[str, ...]:
    """`top` rows from the first row, `bottom` rows ending on the last row, blanks between."""
    gap = height - len(top) - len(bottom)
    assert gap >= 0, "layout taller than the screen"
    return tuple([*top, *([""] * gap), *bottom])


def case(
    name: str,
    top: list[str],
    bottom: list[str],
    want: str,
    *,
    size: tuple[int, int] = (120, 32),
    title: str = "",
) -> Case:
    cols, height = size
    rows = screen(top, bottom, height)
    assert all(len(r) <= cols for r in rows), f"{name}: a row is wider than {cols}"
    return Case(name, rows, height, cols, want, title)


CASES = [
    # --- approvals (blocked) -----------------------------------------------------------------
    # 0.169.0 shell approval (shell_approve 03-blocked) redrawn at 80x24: the second option
    # wraps, the transcript above keeps the user's prompt with the same `› ` marker.
    case(
        "approval-exec-80x24",
        [
            "",
            "  >_ OpenAI Codex (v0.169.0)",
            "",
            "› Run the build",
            "",
            "• I will run the build.",
            "",
            "• Running npm run build -- --verbose",
        ],
        [
            "  Would you like to run the following command?",
            "",
            "  Environment: local",
            "",
            "  Reason: Do you want to run this command?",
            "",
            "  $ npm run build -- --verbose",
            "",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for commands that start with `npm run build` (p)",
            "  3. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ],
        "blocked",
        size=(80, 24),
        title="[ ! ] Action Required | Fix the build | project",
    ),
    # Same overlay, title already back to the spinner (it does so while the panel stays open).
    case(
        "approval-edit-200x50-spinner-title",
        [
            *HEADER_169,
            "› Change hello to hello world in notes.txt",
            "",
            "",
            "• Edited notes.txt (+1 -1)",
            "    1 -hello",
            "    1 +hello world",
        ],
        [
            "  Would you like to make the following edits?",
            "",
            "  Description: Apply proposed file edits",
            "  Destination: /home/dev/project/notes.txt",
            "",
            "",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for these files (a)",
            "  3. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ],
        "blocked",
        size=(200, 50),
        title=SPIN,
    ),
    # Clipped overlay on a 40-column pane (Codex's clipping render test): the question and
    # the hint are cut at the right edge.
    case(
        "approval-clipped-40x10",
        [],
        [
            "  Would you like to run the following",
            "",
            "  [… 42 lines] ctrl+g view all",
            "",
            "› 1. Yes, proceed (y)",
            "  2. No, and tell Codex what to do",
            "     differently (esc)",
            "",
            "  Press enter to confirm or esc to cance",
        ],
        "blocked",
        size=(40, 10),
    ),
    # Permission request overlay (newer versions; layout from Codex's overlay render test).
    case(
        "approval-permissions",
        [*HEADER_169, "› Fetch the schema", ""],
        [
            "  Would you like to grant these permissions?",
            "",
            "  Reason: need workspace access",
            "",
            "  Permission rule: network; read `/tmp/readme.txt`; write `/tmp/out.txt`",
            "",
            "› 1. Yes, grant these permissions for this turn (y)",
            "  2. Yes, grant these permissions for this session (a)",
            "  3. No, continue without permissions (d)",
            "",
            "  Press enter to confirm or esc to cancel",
        ],
        "blocked",
    ),
    # Selection moved to option 2: no `› ` on option 1.
    case(
        "approval-second-option-selected",
        [*HEADER_169],
        [
            "  Would you like to run the following command?",
            "",
            "  $ rm -rf build",
            "",
            "  1. Yes, proceed (y)",
            "› 2. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ],
        "blocked",
    ),
    # 0.2x-0.40 approval widget (user_approval_widget: `▌` bar, title, button row,
    # description); text from the 0.20.0 / 0.40.0 binaries.
    case(
        "approval-legacy-buttons-0.40",
        [
            "",
            ">_ You are using OpenAI Codex in ~/project",
            "",
            "user",
            "Run the tests",
            "",
            "codex",
            "I will run the test suite.",
        ],
        [
            "? Codex wants to run cargo test --workspace",
            "",
            "▌Allow command?",
            "▌ Yes   Always   No, provide feedback",
            "▌ Approve and run the command",
        ],
        "blocked",
        size=(80, 24),
    ),
    case(
        "approval-legacy-buttons-patch-0.20",
        ["", ">_ You are using OpenAI Codex in ~/project"],
        ["▌Apply changes?", "▌ Yes   No   No, end turn", "▌ Approve and apply the changes"],
        "blocked",
        size=(80, 24),
    ),
    # TypeScript/Ink CLI 0.1.25xxxxxx (dist/cli.js): `Allow command?` and its select list.
    case(
        "approval-ink-0.1",
        [
            "╭──────────────────────────────────────────────╮",
            "│ ● OpenAI Codex (research preview) v0.1        │",
            "╰──────────────────────────────────────────────╯",
            "",
            "user",
            "run the tests",
        ],
        [
            "Shell Command",
            "$ npm test",
            "",
            "Allow command?",
            "  ❯ Yes (y)",
            "    Explain this command (x)",
            "    Edit or give feedback (e)",
            "    Switch approval mode (s)",
            "    No, and keep going (n)",
            "    No, and stop for now (esc)",
        ],
        "blocked",
        size=(80, 24),
    ),
    # Ink CLI: an answer quoting the approval list above the live input box is not a prompt.
    case(
        "ink-answer-quoting-approval-0.1",
        ["user", "what will you ask me before running commands?", "", "codex"],
        [
            "I will show:",
            "Allow command?",
            "  ❯ Yes (y)",
            "    No, and keep going (n)",
            "    No, and stop for now (esc)",
            "╭──────────────────────────────────────────────╮",
            "│ send a message                               │",
            "╰──────────────────────────────────────────────╯",
            '  ctrl+c to exit | "/" to see commands | enter to send',
        ],
        "idle",
        size=(80, 24),
    ),
    # Ink CLI while thinking (dist/cli.js: `Thinking`, `press Esc twice to interrupt`).
    case(
        "ink-thinking-0.1",
        ["user", "run the tests", ""],
        [
            "╭──────────────────────────────────────────────╮",
            "│ ⠹  Thinking...                               │",
            "│ press Esc twice to interrupt                 │",
            "╰──────────────────────────────────────────────╯",
        ],
        "working",
        size=(80, 24),
    ),
    # --- questions (blocked) -----------------------------------------------------------------
    # request_user_input (Codex's render tests): its footer says `esc to interrupt`.
    case(
        "question-options",
        [*HEADER_169, "› Plan the migration", ""],
        [
            "  Question 1/2 (1 unanswered)",
            "  Choose an option.",
            "",
            "    1. Option 1  First choice.",
            "  › 2. Option 2  Second choice.",
            "    3. Option 3  Third choice.",
            "",
            "  tab to add notes | enter to submit answer",
            "  ctrl + p prev | ctrl + n next | esc to interrupt",
        ],
        "blocked",
        title=SPIN,
    ),
    case(
        "question-freeform-80x24",
        ["", "  >_ OpenAI Codex", ""],
        [
            "  Question 1/1 (1 unanswered)",
            "  Goal",
            "  Share details.",
            "",
            "  › Type your answer (optional)",
            "",
            "",
            "  Enter to submit answer | Esc to interrupt",
        ],
        "blocked",
        size=(80, 24),
    ),
    # --- start-up dialogs (blocked) ----------------------------------------------------------
    # Trust dialog 0.2x-0.6x (strings of 0.20.0/0.63.0; layout from Codex's trust render test).
    case(
        "trust-git-repo-0.63",
        [
            "",
            "  >_ Welcome to Codex, OpenAI's command-line coding agent",
            "",
            "> You are running Codex in /home/dev/project",
            "",
            "  Since this folder is version controlled, you may wish to allow Codex",
            "  to work in this folder without asking for approval.",
            "",
            "› 1. Yes, allow Codex to work in this folder without asking for approval",
            "  2. No, ask me to approve edits and commands",
            "",
            "  Press enter to continue",
        ],
        [],
        "blocked",
        size=(80, 24),
    ),
    # Trust dialog 0.8x-0.16x (strings of 0.100.0/0.130.0, trust_directory.rs layout).
    case(
        "trust-contents-0.130",
        [
            "> You are in /home/dev/project",
            "",
            "  Do you trust the contents of this directory? Working with untrusted contents comes",
            "  with higher risk of prompt injection.",
            "",
            "› 1. Yes, continue",
            "  2. No, quit",
            "",
            "  Press enter to continue",
        ],
        [],
        "blocked",
        size=(200, 50),
    ),
    # Trust dialog 0.171 as the real program draws it (codex-0.171.0-lab/trust_dialog-80x24):
    # whole screen, a compact key-hint row last, no `Press enter to continue`.
    case(
        "trust-folder-0.171",
        [
            "",
            "  Folder access",
            "  /tmp/agentlab/codex/trust_dialog/proj",
            "",
            "  Trust this folder? Codex can read, edit, and run files here, subject to your",
            "  permission settings. Folder settings can run code automatically, even",
            "  without a model request. Continue only if you trust these files. Your trust",
            "  decision will be saved.",
            "",
            "› 1. Trust and continue",
            "  2. Back to Agent Command Center",
            "",
            "  enter continue · esc back",
        ],
        [],
        "blocked",
        size=(80, 24),
    ),
    # The same screen in 0.158 (a public note's screen dump): `2. Quit`, `esc quit`, at 120x32.
    case(
        "trust-folder-0.158-esc-quit",
        [
            "",
            "  You are in /home/dev/project",
            "",
            "  Trust this folder? Codex can read, edit, and run files here, subject to your"
            " permission settings. Folder settings",
            "  can run code automatically, even without a model request. Continue only if you trust"
            " these files. Your trust",
            "  decision will be saved.",
            "",
            "› 1. Trust and continue",
            "  2. Quit",
            "",
            "  enter continue · esc quit",
        ],
        [],
        "blocked",
    ),
    # Start-up nudge to a newer model, 0.171 (codex-0.171.0-lab/model_nudge-200x50), with the
    # second option selected after an arrow key.
    case(
        "model-nudge-0.171-200x50",
        [
            "",
            "  Meet GPT-6 Sol",
            "",
            "  Our latest Sol is more intelligent and more efficient so your usage limits go"
            " further. This model is a great daily driver for complex tasks, especially coding.",
            "",
            "  1. Try new model",
            "› 2. Use existing model",
            "",
            "  enter/esc confirm · ^c quit",
        ],
        [],
        "blocked",
        size=(200, 50),
    ),
    # The trust screen's words typed into the composer: the footer stays the last row.
    case(
        "draft-with-startup-hints-0.171",
        [*HEADER_169],
        [
            "› 1. Trust and continue 2. Quit enter continue · esc quit",
            *FOOTER_169,
        ],
        "idle",
        size=(80, 24),
    ),
    # An answer that quotes the trust screen and ends with a question, then the composer.
    case(
        "answer-quotes-startup-screen",
        [*HEADER_169, "› What does the folder prompt look like?", ""],
        [
            "• It shows two options:",
            "",
            "  › 1. Trust and continue",
            "    2. Quit",
            "",
            "  enter continue · esc quit",
            "",
            "  Would you like me to add that to the README?",
            "",
            "› Ask Codex to do anything",
            *FOOTER_169,
        ],
        "idle",
    ),
    # A picker the human opened, in the compact-hint style: no `continue`, no `quit`.
    case(
        "picker-compact-hint-is-not-blocked",
        [*HEADER_169],
        [
            "  Select Model",
            "",
            "› 1. gpt-6-sol (current)",
            "  2. gpt-6-luna",
            "",
            "  enter confirm · esc back",
        ],
        "idle",
        size=(80, 24),
    ),
    # Sign-in step (onboarding/auth strings of 0.20.0 .. 0.171.0).
    case(
        "sign-in-choice",
        [
            "",
            "  >_ Welcome to Codex, OpenAI's command-line coding agent",
            "",
            "  Sign in with ChatGPT to use Codex as part of your paid plan",
            "  or connect an API key for usage-based billing",
            "",
            "› 1. Sign in with ChatGPT",
            "     Usage included with Plus, Pro, and Team plans",
            "  2. Provide your own API key",
            "     Pay for what you use",
            "",
            "  Press Enter to continue",
        ],
        [],
        "blocked",
        size=(80, 24),
    ),
    case(
        "sign-in-browser-wait",
        [
            "",
            "  >_ Welcome to Codex, OpenAI's command-line coding agent",
            "",
            "  Finish signing in via your browser",
            "",
            "  If the link doesn't open automatically, open the following link to authenticate:",
            "",
            "  https://auth.openai.com/oauth/authorize?client_id=app_x&state=abc",
            "",
            "  Press Esc to cancel",
        ],
        [],
        "blocked",
        size=(120, 32),
    ),
    # `Before you start` (approval-mode onboarding after sign-in, 0.2x-0.6x strings).
    case(
        "onboarding-before-you-start",
        [
            "  ✓ Signed in with your ChatGPT account",
            "",
            "  Before you start:",
            "",
            "  Decide how much autonomy you want to grant Codex",
            "",
            "  For more details see the Codex docs",
            "",
            "  Press Enter to continue",
        ],
        [],
        "blocked",
        size=(80, 24),
    ),
    # --- working -----------------------------------------------------------------------------
    # 0.169.0 working screen (text 02-working) at 80x24, reasoning header instead of Working.
    case(
        "working-reasoning-header-80x24",
        ["", "  >_ OpenAI Codex (v0.169.0)", "", "› Explain the failing test", ""],
        [
            "• Investigating rendering code (1m 03s • esc to interrupt)",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER_169,
        ],
        "working",
        size=(80, 24),
        title=SPIN,
    ),
    # Codex's own vt100 render test: `Esc` capitalised, a draft in the composer.
    case(
        "working-capital-esc-with-draft",
        [
            "• I'm going to search the repo for where it is rendered.",
            "",
            "• Explored",
            "  └ Search Change Approved",
            "    Read diff_render.rs",
        ],
        [
            "  Investigating rendering code (0s • Esc to interrupt)",
            "",
            "",
            "› Summarize recent commits",
            "",
            "  ? for shortcuts",
        ],
        "working",
        size=(80, 24),
    ),
    # 0.20.0 status row (`Ctrl C to interrupt`, binary strings).
    case(
        "working-ctrl-c-0.20",
        ["", ">_ You are using OpenAI Codex in ~/project", "", "user", "Run the tests"],
        [
            "Working (12s • Ctrl C to interrupt)",
            "",
            "▌ Ask Codex to do anything",
            "",
            "⏎ send   Ctrl+J newline   Ctrl+C quit",
        ],
        "working",
        size=(80, 24),
    ),
    # Status row without the interrupt hint, trusted only with the title spinner.
    case(
        "working-no-hint-spinner-title",
        [*HEADER_169, "› Run the build", ""],
        ["• Working (4s)", "", "", "› Ask Codex to do anything", *FOOTER_169],
        "working",
        title=SPIN,
    ),
    case(
        "no-hint-row-without-spinner-is-idle",
        [*HEADER_169, "› Run the build", "", "• Ran the build (4s)", ""],
        ["• Done (4s)", "", "", "› Ask Codex to do anything", *FOOTER_169],
        "idle",
        title="Fix the build | project",
    ),
    # A draft typed while a turn runs: still working, the draft is not a prompt.
    case(
        "working-with-draft-quoting-approval",
        [*HEADER_169, "› Run the build", ""],
        [
            "• Working (7s • esc to interrupt)",
            "",
            "",
            "› Would you like to run the following command? yes please",
            *FOOTER_169,
        ],
        "working",
        title=SPIN,
    ),
    # --- idle --------------------------------------------------------------------------------
    # A draft with approval phrases in the composer (0.169.0 idle layout): not blocked.
    case(
        "draft-with-approval-question",
        [*HEADER_169],
        ["› Would you like to run the following command?", *FOOTER_169],
        "idle",
    ),
    # A multi-line draft that pastes a whole overlay: the composer footer still ends the screen.
    case(
        "draft-pasting-whole-overlay-80x24",
        ["", "  >_ OpenAI Codex (v0.169.0)", ""],
        [
            "› Would you like to run the following command?",
            "  $ make",
            "  1. Yes, proceed (y)",
            "  2. No, and tell Codex what to do differently (esc)",
            "  Press enter to confirm or esc to cancel",
            *FOOTER_169,
        ],
        "idle",
        size=(80, 24),
    ),
    # Footer hidden while typing (Codex's composer render test keeps only the context line).
    case(
        "draft-footer-hidden-while-typing",
        [*HEADER_169],
        [
            "› Would you like to make the following edits? Press enter to continue",
            "",
            "  100% context left",
        ],
        "idle",
    ),
    # An answer ending in a question: an ordinary finished turn (text 04-end layout, 80x24).
    case(
        "answer-ends-with-question-80x24",
        [
            "",
            "  >_ OpenAI Codex (v0.169.0)",
            "",
            "› Fix the flaky test",
            "",
            "• I found the race in tests/test_queue.py: the consumer starts before the",
            "  producer has registered its handler. I moved the registration first.",
            "",
            "  Would you like me to run the full test suite now?",
            "",
            "  Worked for 41s • 10:02",
        ],
        ["› Ask Codex to do anything", *FOOTER_169],
        "idle",
        size=(80, 24),
    ),
    # An answer quoting the approval question and its options, then the composer.
    case(
        "answer-quotes-approval-text",
        [
            *HEADER_169,
            "› What does the approval prompt look like?",
            "",
            "• It reads: Would you like to run the following command?",
            "",
            "  1. Yes, proceed (y)",
            "  2. No, and tell Codex what to do differently (esc)",
            "  Press enter to confirm or esc to cancel",
            "",
            "  Worked for 3s • 10:02",
        ],
        ["› Ask Codex to do anything", *FOOTER_169],
        "idle",
    ),
    # An old approved approval in the transcript above an idle composer (shell 07-end).
    case(
        "old-approval-in-transcript",
        [
            *HEADER_169,
            "› Run the build",
            "",
            "• I will run the build.",
            "",
            "✔ You approved codex to run sleep 4; echo build-ok this time",
            "",
            "• Ran sleep 4; echo build-ok",
            "  └ build-ok",
            "",
            "• The build finished: build-ok.",
            "",
            "  Worked for 11s • 22:08",
        ],
        ["› Ask Codex to do anything", *FOOTER_169],
        "idle",
    ),
    # A rejected approval and the interrupted turn (history texts of 0.63.0 .. 0.171.0).
    case(
        "rejected-approval-interrupted-80x24",
        [
            "",
            "  >_ OpenAI Codex (v0.169.0)",
            "",
            "› Clean the build dir",
            "",
            "✗ You canceled the request to run rm -rf build",
            "",
            "■ Conversation interrupted - tell the model what to do differently. Something",
            "went wrong? Hit `/feedback` to report the issue.",
        ],
        ["› Ask Codex to do anything", *FOOTER_169],
        "idle",
        size=(80, 24),
    ),
    # Long output filling a 200x50 pane: the prompt scrolled away, composer at the bottom.
    case(
        "long-output-200x50",
        [f"  line {i}: Press enter to continue, then 1. Yes, proceed (y)" for i in range(44)],
        ["› Ask Codex to do anything", *FOOTER_169],
        "idle",
        size=(200, 50),
    ),
    # A user-opened picker (/model) ends with `esc to go back`: the human is already there.
    case(
        "model-picker-is-not-blocked",
        [*HEADER_169],
        [
            "  Select Model and Effort",
            "",
            "› 1. gpt-5.5 (current)",
            "  2. gpt-5.5-mini",
            "",
            "  Press enter to confirm or esc to go back",
        ],
        "idle",
    ),
    # Start-up `loading` screen with the composer (every capture's 01-idle).
    case(
        "startup-loading",
        ["", "  >_ OpenAI Codex (v0.169.0)", "     loading"],
        ["› Ask Codex to do anything", "", "  ? for shortcuts"],
        "idle",
    ),
]


manifest = manifest_fixture("codex")


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_synthetic_screen(c: Case, manifest: Manifest) -> None:
    snap = Snapshot.from_text("\n".join(c.rows), c.cols, title=c.title)
    assert snap.lines == c.height
    verdict = classify(snap, manifest)
    assert verdict.state == c.want, f"{c.name}: got {verdict.state} by rule {verdict.rule}"


# every snapshot, the `end` and `zz-final` ones too (the turn over: idle)
SNAPSHOT_FILES = sorted(SNAPSHOTS.glob("*.snapshots/*.txt"))


# tmux's own view of each labelled point (no title in these files)
test_capture_snapshots = snapshots_test(SNAPSHOT_FILES, cols=120, default="idle")


def test_snapshots_present() -> None:
    assert len(SNAPSHOT_FILES) >= 20
