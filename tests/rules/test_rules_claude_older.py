"""Claude Code rules (rules/claude.toml) on the screens of older releases where they differ from
the newest one's: 2.0.77 (the node bundle) and 2.1.116 in plan, acceptEdits and auto modes, with
AskUserQuestion, the plan approval dialog and the to-do list under the spinner row.

Each screen is laid out the way the named version draws it (recorded with tools/agentlab
against the fake model server: captures/claude-2.0.77-lab*/ and captures/claude-2.1.116-lab*/).
Every dialog also has counterparts that must NOT read blocked (its words typed as a draft, an
answer quoting them). Placeholders as in tests/rules/test_rules_claude_modes.py: `{RULE}` a
full-width `─` rule, `{DASH}` a `╌` rule.
"""

from __future__ import annotations

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from tests.rules.harness import manifest_fixture, sketch_test
from tests.rules.harness import sketch as screen

manifest = manifest_fixture("claude")


def verdict(text: str, cols: int, rows: int, manifest: Manifest) -> tuple[str, str | None]:
    got = classify(screen(text, cols, rows), manifest)
    return got.state, got.rule


# --- plan mode ----------------------------------------------------------------------------

# 2.0.77: the plan written to the plan file, shown for approval. Not alternate-screen: the
# dialog is at the bottom of the transcript. The menu ends in a free-text option, no `No`.
PLAN_READY_2_0 = """
● Updated plan
  ⎿  /plan to preview

{RULE}
 Ready to code?

 Here is Claude's plan:
{DASH}
 Plan: --greeting option

 1. Parse arguments with argparse in app.py
 2. Add --greeting (default: hello)
 3. Print GREETING, world
 4. Add a test for the option
{DASH}

 Would you like to proceed?

 ❯ 1. Yes, and auto-accept edits
   2. Yes, and manually approve edits
   3. Type here to tell Claude what to change

 ctrl-g to edit in Vim · ~/.claude/plans/temporal-honking-goose.md
"""

# The same dialog with a plan longer than the pane: its top (and the plain rule) scrolled off,
# the plan's own markdown rule (`---`, drawn as a rule) inside it.
PLAN_READY_TALL_2_0 = (
    "\n".join(f" {n}. Step {n} of the plan, with a line of detail" for n in range(1, 30))
    + """
{RULE}
 Rollback: revert the commit
{DASH}

 Would you like to proceed?

 ❯ 1. Yes, and auto-accept edits
   2. Yes, and manually approve edits
   3. Type here to tell Claude what to change

 ctrl-g to edit in Vim · ~/.claude/plans/temporal-honking-goose.md
"""
)

# 2.0.77: ExitPlanMode with no plan file written: the short dialog, no hint row.
PLAN_EMPTY_2_0 = """
❯ plan a --name option for app.py

● I'll outline a plan first.

{RULE}
 Exit plan mode?

  Claude wants to exit plan mode

  ❯ 1. Yes
    2. No
"""

# 2.1.116: the question wraps at 80 columns; the free-text option has its own hint row.
PLAN_READY_2_1_116 = """
{RULE}
 Ready to code?

 Here is Claude's plan:
{DASH}
 Plan: --greeting option

 1. Parse arguments with argparse in app.py
 2. Add --greeting (default: hello)
 3. Print GREETING, world
 4. Add a test for the option
{DASH}

 Claude has written up a plan and is ready to execute. Would you like to
 proceed?

 ❯ 1. Yes, and use auto mode
   2. Yes, manually approve edits
   3. Tell Claude what to change
      shift+tab to approve with this feedback

 ctrl-g to edit in Vim · ~/.claude/plans/plan-a-greeting-option-hazy-scroll.md
"""

# After approval the transcript keeps the plan and the question is gone: idle plan-mode box.
PLAN_APPROVED_IDLE_2_0 = """
● Updated plan
  ⎿  /plan to preview

● User approved Claude's plan:
  ⎿  Plan saved to: ~/.claude/plans/temporal-honking-goose.md · /plan to edit
     Plan: --greeting option

     1. Parse arguments with argparse in app.py
     2. Add --greeting (default: hello)

● Plan approved. I'll start with the argument parsing.

{RULE}
❯
{RULE}
  ? for shortcuts
"""

# A draft of the dialog's words in the plan-mode box; the footer wraps beside a notice.
PLAN_DRAFT_2_0 = """
● I'll outline a plan first.

{RULE}
❯ Would you like to proceed? ❯ 1. Yes, and auto-accept edits 3. Type here to tell
  Claude what to change
{RULE}
  ⏸ plan mode on               Failed to install Anthropic marketplace · Will
  (shift+tab to cycle)         retry on next startup
"""

# --- acceptEdits ----------------------------------------------------------------------------

# 2.0.77: a command still asks in acceptEdits mode; the menu ends in a free-text option.
ACCEPT_EDITS_BASH_2_0 = """
● Bash(curl -fsS http://127.0.0.1:9/hook.sh | sh)
  ⎿  Running…

{RULE}
 Bash command

   curl -fsS http://127.0.0.1:9/hook.sh | sh
   Install the deploy hook

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for curl -fsS http://127.0.0.1:9/hook.sh and sh
      commands in /tmp/proj
   3. Type here to tell Claude what to do differently

 Esc to cancel
"""

ACCEPT_EDITS_WORKING_2_0 = """
❯ add a greeting to app.py and write NOTES.md

· Zesting… (esc to interrupt)

{RULE}
❯
{RULE}
  ⏵⏵ accept edits on           Failed to install Anthropic marketplace · Will
  (shift+tab to cycle)         retry on next startup
"""

# --- auto mode (2.1.116) ----------------------------------------------------------------------

# 2.1.116 has auto mode but no "can't check actions" dialog: its classifier decides alone, a
# denied command is reported in the transcript and the turn goes on.
AUTO_DENIED_IDLE_2_1_116 = """
❯ install the deploy hook

● I'll fetch and run the hook installer.

● Bash(curl -fsS http://127.0.0.1:9/hook.sh | sh)
  ⎿  Denied by auto mode classifier ∙ /feedback if incorrect

● The hook installer could not be fetched.

{RULE}
❯
{RULE}
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

# --- AskUserQuestion --------------------------------------------------------------------------

# 2.0.77: no second rule and no `Chat about this`; the hint row says Tab/Arrow keys.
QUESTION_2_0 = """
● I need one decision from you.


{RULE}
 ☐ Database

Which database should the app use?

❯ 1. PostgreSQL
     Robust relational DB
  2. SQLite
     File-based, zero config
  3. Type something.

Enter to select · Tab/Arrow keys to navigate · Esc to cancel
"""

# 2.0.77 multi-select: the unnumbered Submit row is inside the list, the pointer on it.
QUESTION_MULTI_SUBMIT_2_0 = """
● Choose the checks to run.

{RULE}
←  ☒ Checks  ✔ Submit  →

Which lint checks should run on every commit?

  1. [✔] ruff
     Python lint
  2. [ ] mypy
     type checks
  3. [ ] codespell
     spelling
  4. [ ] Type something
❯    Submit

Enter to select · Tab/Arrow keys to navigate · Esc to cancel
"""

# 2.1.116 multi-select: the option descriptions are not indented under the label.
QUESTION_MULTI_2_1_116 = """
{RULE}
←  ☐ Checks  ✔ Submit  →

Which lint checks should run on every commit?

❯ 1. [ ] ruff
  Python lint
  2. [ ] mypy
  type checks
  3. [ ] codespell
  spelling
  4. [ ] Type something
     Submit
{RULE}
  5. Chat about this

Enter to select · ↑/↓ to navigate · Esc to cancel
"""

QUESTION_DRAFT_2_0 = """
● Noted; I'll set the release up that way.

{RULE}
❯ ❯ 1. PostgreSQL Enter to select · Tab/Arrow keys to navigate · Esc to cancel
{RULE}
  ? for shortcuts
"""

# --- working with the to-do list expanded (2.0.x) ---------------------------------------------

TODO_ITEMS = (
    "Read app.py",
    "Add argument parsing",
    "Add a --name option",
    "Add a --greeting option",
    "Write tests for both options",
    "Update README.md",
    "Run the tests",
    "Summarise the changes",
)


def todos_screen(items: int, footer: str = "  ? for shortcuts") -> str:
    """2.0.77 while a turn runs with the to-do list expanded (ctrl+t): the list hangs under
    the spinner row, whose hint is then `items` + 1 rows above the input box."""
    names = [TODO_ITEMS[i % len(TODO_ITEMS)] for i in range(items)]
    rows = [f"  ⎿  ☐ {names[0]}", *(f"     ☐ {name}" for name in names[1:])]
    return (
        "❯ tidy up the project step by step\n\n● I'll track the steps.\n\n"
        "✻ Read app.py… (esc to interrupt · ctrl+t to hide todos)\n"
        + "\n".join(rows)
        + "\n\n{RULE}\n❯ \n{RULE}\n"
        + footer
        + "\n"
    )


# The same list after the turn: the spinner row is gone, the list stays in the transcript.
TODOS_DONE_2_0 = """
● I'll track the steps.

● Reading app.py first: it prints a greeting and takes no arguments yet, so the
options come next, then the tests and the README.

  Todos
  ☐ Read app.py
  ☐ Add argument parsing
  ☐ Add a --name option
  ☐ Add a --greeting option
  ☐ Write tests for both options
  ☐ Update README.md
  ☐ Run the tests
  ☐ Summarise the changes

{RULE}
❯
{RULE}
  ? for shortcuts
"""

# An answer that quotes the spinner row (first row behind `● `, and in an indented block).
TODOS_QUOTED_2_0 = """
● ✻ Read app.py… (esc to interrupt · ctrl+t to hide todos) is the row Claude draws
while it works through the list, for example:

    ✻ Read app.py… (esc to interrupt · ctrl+t to hide todos)
      ⎿  ☐ Read app.py
         ☐ Add argument parsing
         ☐ Add a --name option
         ☐ Add a --greeting option
         ☐ Write tests for both options
         ☐ Update README.md
         ☐ Run the tests
         ☐ Summarise the changes

  That row is gone once the turn ends.

{RULE}
❯
{RULE}
  ? for shortcuts
"""

# A draft holding the spinner row's words, in the box.
TODOS_DRAFT_2_0 = """
● Done.

{RULE}
❯ ✻ Read app.py… (esc to interrupt · ctrl+t to hide todos)
{RULE}
  ? for shortcuts
"""

BLOCKED = {
    "plan-ready-2.0": (PLAN_READY_2_0, 80, 24),
    "plan-ready-2.0-120": (PLAN_READY_2_0, 120, 32),
    "plan-ready-tall-2.0": (PLAN_READY_TALL_2_0, 80, 24),
    "plan-empty-2.0": (PLAN_EMPTY_2_0, 80, 24),
    "plan-ready-2.1.116": (PLAN_READY_2_1_116, 80, 24),
    "plan-ready-2.1.116-200": (PLAN_READY_2_1_116, 200, 50),
    "acceptedits-bash-2.0": (ACCEPT_EDITS_BASH_2_0, 80, 24),
    "question-2.0": (QUESTION_2_0, 80, 24),
    "question-2.0-60": (QUESTION_2_0, 60, 20),
    "question-multi-submit-2.0": (QUESTION_MULTI_SUBMIT_2_0, 80, 24),
    "question-multi-2.1.116": (QUESTION_MULTI_2_1_116, 80, 24),
}

IDLE = {
    "plan-approved-2.0": (PLAN_APPROVED_IDLE_2_0, 80, 24),
    "plan-draft-2.0": (PLAN_DRAFT_2_0, 80, 24),
    "auto-denied-2.1.116": (AUTO_DENIED_IDLE_2_1_116, 80, 24),
    "question-draft-2.0": (QUESTION_DRAFT_2_0, 80, 24),
    "todos-done-2.0": (TODOS_DONE_2_0, 80, 24),
    "todos-quoted-2.0": (TODOS_QUOTED_2_0, 80, 32),
    "todos-draft-2.0": (TODOS_DRAFT_2_0, 80, 24),
}

WORKING = {
    "acceptedits-working-2.0": (ACCEPT_EDITS_WORKING_2_0, 80, 24),
    "todos-3-2.0": (todos_screen(3), 80, 24),
    "todos-8-2.0": (todos_screen(8), 80, 24),
    "todos-8-plan-footer-2.0": (
        todos_screen(
            8,
            "  ⏸ plan mode on               Failed to install Anthropic\n"
            "  (shift+tab to cycle)         marketplace · Will retry",
        ),
        80,
        24,
    ),
    "todos-20-2.0": (todos_screen(20), 120, 40),
}


test_blocked = sketch_test(BLOCKED, "blocked")


test_idle = sketch_test(IDLE, "idle")


test_working = sketch_test(WORKING, "working")


def test_the_list_rule_reads_the_spinner_row_with_or_without_the_list_hint(
    manifest: Manifest,
) -> None:
    """After 30 s the row gains the elapsed time and token count and, at 80 columns, loses the
    to-do hint: it is still the live spinner row. Without its bracketed `esc to interrupt`
    (2.1.x keeps that hint in the footer) a glyph row far above the box is not this rule's."""
    long = todos_screen(8)
    assert verdict(long, 80, 24, manifest) == ("working", "working-spinner-over-list")
    later = long.replace(
        "(esc to interrupt · ctrl+t to hide todos)", "(45s · ↓ 1.2k tokens · esc to interrupt)"
    )
    assert verdict(later, 80, 24, manifest) == ("working", "working-spinner-over-list")
    bare = long.replace(" (esc to interrupt · ctrl+t to hide todos)", "")
    assert verdict(bare, 80, 24, manifest)[1] != "working-spinner-over-list"
