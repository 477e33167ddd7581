"""Claude Code rules (rules/claude.toml) on screens the capture corpus does not cover.

Each case is a plain-text screen laid out the way a given Claude Code version draws it (the
version is named in the case's comment; layouts were recorded by running that version in tmux
against a local fake model server, see rules/NOTES-claude.md). Placeholders keep the lines short:
`{RULE}` is a full-width `─` rule, `{DASH}` a full-width `╌` rule, `{BOXTOP}`/`{BOXBOT}` the
rounded box edges, and a row starting with `|` is a box row padded to the box's width.
Rows under the content are left blank, as on a real pane.
"""

from __future__ import annotations

from tests.rules.harness import manifest_fixture, sketch_test

manifest = manifest_fixture("claude")


# --- start-up dialogs ---------------------------------------------------------------------

# 2.1.332: the trust dialog with an unnumbered menu, the pointer on "No, exit".
TRUST_2_1 = """
{RULE}
 Accessing workspace:

 /home/dev/src/proj

 Quick safety check: Is this a project you created or one you trust? (Like your
 own code, a well-known open source project, or work from your team). If not,
 take a moment to review what's in this folder first.

 Claude Code'll be able to read, edit, and execute files here.

 Security guide

 ❯ No, exit
   Yes, I trust this folder

 Enter to confirm · Esc to cancel
"""

# 2.1.332: custom API key found in the environment (unnumbered, pointer on the second option).
API_KEY_2_1 = """
{RULE}
  Detected a custom API key in your environment

  ANTHROPIC_API_KEY: sk-ant-...0123456789abcdefghij

  Do you want to use this API key?

    Yes
  ❯ No (recommended)

  Enter to confirm · Esc to cancel
"""

# 2.1.332: the one-off nudge to make auto mode the default, cut at 24 rows (no hint row).
AUTO_NUDGE_2_1 = """
 ▐▛███▛█   Claude Code v2.1.332
▝▜██████▀  Opus 5.5 · API Usage Billing
 ▝▝   ▝▝   ~/proj









{RULE}
  Make auto mode your default permission mode?

  Auto mode lets Claude handle permission prompts automatically. Claude checks
  each tool call for risky actions and prompt injection before executing,
  runs the ones it assesses as lower-risk, and blocks the rest.

  ❯ Yes, set auto mode as my default permission mode
    No, keep manual mode
"""

# 2.0.50: trust dialog, numbered menu.
TRUST_2_0 = """

{RULE}
 Do you trust the files in this folder?

 /home/dev/src/proj

 Claude Code may read, write, or execute files contained in this directory.
 This can pose security risks, so only use files from trusted sources.

 Learn more (https://code.claude.com/docs/en/security)

 ❯ 1. Yes, proceed
   2. No, exit

 Enter to confirm · Esc to exit
"""

# 1.0.45: trust dialog inside a rounded box; the API-key dialog answered just before it is
# still drawn above (the main screen is not cleared between the two).
TRUST_1_0 = """
|   2. No (recommended)✔
|
{BOXBOT}
   Enter to confirm ․ Esc to cancel
{BOXTOP}
|
| Do you trust the files in this folder?
|
| /home/dev/src/proj
|
| Claude Code may read files in this folder. Reading untrusted files may lead
| Claude Code to behave in unexpected ways.
|
| With your permission Claude Code may execute files in this folder. Executing
|  untrusted code is unsafe.
|
| https://docs.anthropic.com/s/claude-code-security
|
| ❯ 1. Yes, proceed
|   2. No, exit
|
{BOXBOT}
   Enter to confirm · Esc to exit
"""

# 1.0.45 and 2.0.50: custom API key dialog in a rounded box, hint row under the box.
API_KEY_BOXED = """
{BOXTOP}
|
| Detected a custom API key in your environment
|
| ANTHROPIC_API_KEY: sk-ant-...0123456789abcdefghij
|
| Do you want to use this API key?
|
|   1. Yes
| ❯ 2. No (recommended) ✔
|
{BOXBOT}
   Enter to confirm ․ Esc to cancel
"""

# --- permission dialogs -------------------------------------------------------------------

# 2.1.332 at 80 columns: Bash prompt, option 2 wraps, the pointer moved to option 2.
BASH_2_1_NARROW = """
❯ clean the build directory

● I'll run it.

  Removing build dir
  ⎿  $ rm -rf build && sleep 4 && echo done

{RULE}
 Bash command
 Tip: auto mode handles these prompts for you — choose "switch to auto mode"
 below
 Remove build dir
{DASH}
 rm -rf build && sleep 4 && echo done
{DASH}
 Do you want to proceed?
   1. Yes
 ❯ 2. Yes, and always allow access to /home/dev/src/proj from this
      project
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No

 Esc to cancel
"""

# 2.1.332 at 200x50: the same prompt on a large pane, many blank rows under it.
BASH_2_1_WIDE = """
 ▐▛███▛█   Claude Code v2.1.332
▝▜██████▀  Opus 5.5 · API Usage Billing
 ▝▝   ▝▝   ~/src/proj

❯ run the installer

● I'll run the installer.

● Running installer
  ⎿  $ curl -s https://example.com/install.sh | sh

{RULE}
 Bash command
 Run installer
{DASH}
 curl -s https://example.com/install.sh | sh
{DASH}
 This command requires approval

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for curl -s https://example.com/install.sh and sh commands in ~/p
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No

 Esc to cancel · Tab to amend
"""

# 2.1.332: WebFetch prompt; this dialog has no hint row.
FETCH_2_1 = """
❯ fetch the page

● Fetch(https://example.com/)

{RULE}
 Fetch
 Claude wants to fetch content from example.com
{DASH}
 url: https://example.com/
 prompt: summarise
{DASH}
 Do you want to allow Claude to fetch this content?
 ❯ 1. Yes
   2. Yes, and don't ask again for example.com
   3. No, and tell Claude what to do differently (esc)
"""

# 2.1.332: Write of a new file at 80 columns.
WRITE_2_1 = """
● Write(NOTES.md)

{RULE}
 Create file
 NOTES.md
{DASH}
  1 # Notes
  2
  3 - one
{DASH}
 Do you want to create NOTES.md?
 ❯ 1. Yes
   2. Yes, and switch to accept edits (auto-approve file edits and common file
      commands) for this session (shift+tab)
   3. No

 Esc to cancel · Tab to amend
"""

# 2.1.332: a long Bash command at 80x24 pushes the dialog's top rule off the screen; the
# dashed rules inside the dialog are still there.
BASH_2_1_TALL = """
 for f in src/*.py; do python -m py_compile "$f" && echo "ok $f"; done; for f in
 tests/*.py; do python -m py_compile "$f" && echo "ok $f"; done; python -m pytest
 -q -x --maxfail=1 tests/ && python -m build && twine check dist/* && echo built
{DASH}
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for python -m pytest commands in /home/dev/proj
   3. No

 Esc to cancel · Tab to amend
"""

# 2.1.332: AskUserQuestion with the pointer moved to the entry under the inner rule.
ASK_2_1_LAST = """
❯ set up a database
{RULE}
 ☐ Database

Which database should the app use?

  1. PostgreSQL
     Robust relational DB
  2. SQLite
     File-based
  3. Type something.
{RULE}
❯ 4. Chat about this

Enter to select · ↑/↓ to navigate · ctrl+g to edit in Vim · Esc to cancel
"""

# 2.1.328 at 80x24: plan approval, the dialog indented under a ▔ separator.
PLAN_2_1 = """
❯ plan improvements to app.py

● Here is my plan.

▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔▔

  ──────────────────────────────────────────────────────────────────────────────
   Exit plan mode?

    Claude wants to exit plan mode

    ❯ 1. Yes, and switch to default (ask each time) for this session
      2. No
"""

# 2.0.50: plan approval ("Ready to code?"), the plan between dashed rules.
PLAN_2_0 = """
{RULE}
 Ready to code?

 Here is Claude's plan:
{DASH}
 1. Add a docstring to add()
 2. Add tests
{DASH}

 Would you like to proceed?

 ❯ 1. Yes, and auto-accept edits
   2. Yes, and manually approve edits
   3. No, keep planning

 ctrl-g to edit in Vim · ~/.claude/plans/plan.md
"""

# 2.0.50: Bash prompt whose last option is a free-text answer; hint row "Esc to exit".
BASH_2_0 = """
● Bash(rm -rf build && sleep 4 && echo done)
  ⎿  Running…

{RULE}
 Bash command

   rm -rf build && sleep 4 && echo done
   Remove build dir

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for rm -rf build commands in
   /home/dev/src/proj
  3. Type here to tell Claude what to do differently


 Esc to exit
"""

# 2.0.50: Write prompt, the new file shown in a rounded box above the question.
WRITE_2_0 = """
● Write(NOTES.md)

{RULE}
 Create file
{BOXTOP}
| NOTES.md
|
| # Notes
|
| - one
|
{BOXBOT}
 Do you want to create NOTES.md?
 ❯ 1. Yes
   2. Yes, allow all edits in proj/ during this session (shift+tab)
   3. No, and tell Claude what to do differently (esc)
"""

# 1.0.128: Bash prompt inside a rounded box, no hint row.
BASH_1_0 = """
> clean the build directory

● I'll run it.

● Bash(rm -rf build && sleep 4 && echo done)
  ⎿  Running…

{BOXTOP}
| Bash command
|
|   rm -rf build && sleep 4 && echo done
|   Remove build dir
|
| Do you want to proceed?
| ❯ 1. Yes
|   2. Yes, and don't ask again for rm -rf build commands in
|   /home/dev/src/proj
|   3. No, and tell Claude what to do differently (esc)
{BOXBOT}
"""

# 1.0.128: Write prompt, the file in a box nested in the dialog's box.
WRITE_1_0 = """
● Write(NOTES.md)

{BOXTOP}
| Create file
| ╭────────────────────────────────────────────────────────────────────────────╮
| │ NOTES.md                                                                   │
| │                                                                            │
| │ # Notes                                                                    │
| ╰────────────────────────────────────────────────────────────────────────────╯
| Do you want to create NOTES.md?
| ❯ 1. Yes
|   2. Yes, allow all edits in proj/ during this session (shift+tab)
|   3. No, and tell Claude what to do differently (esc)
|
{BOXBOT}
"""

# 1.0.128: plan approval in a rounded box ("Ready to code?"), the pointer moved to 3.
PLAN_1_0 = """
{BOXTOP}
| Ready to code?
|
| Here is Claude's plan:
| ╭────────────────────────────────────────────────────────────────────────────╮
| │ 1. Add a docstring                                                         │
| │ 2. Add tests                                                               │
| ╰────────────────────────────────────────────────────────────────────────────╯
|
| Would you like to proceed?
|
|   1. Yes, and auto-accept edits
|   2. Yes, and manually approve edits
| ❯ 3. No, keep planning
|
{BOXBOT}
"""


def beside_panel(left: str, panel: list[str], cols: int = 200, split: int = 110) -> str:
    """Rows of `left` with a side panel drawn from column `split` (2.1.x diff view on wide
    panes): every row gets the panel's `│` divider and its text."""
    rows = left.strip("\n").split("\n")
    out = []
    for i, row in enumerate(rows):
        row = row.replace("{RULE}", "─" * split).replace("{DASH}", "╌" * split)
        side = panel[i] if i < len(panel) else ""
        out.append(row.ljust(split)[:split] + "│" + side)
    return "\n".join(out)


DIFF_PANEL = [
    " " * 86 + "✕",
    "1 file changed +1 -1                                   /diff to close  source: Current ▾",
    "",
    "app.py" + " " * 77 + "+1 -1",
    "",
    "─" * 89,
    "app.py" + " " * 74 + "[ ask ]",
    "─" * 89,
    " 1  def main():",
    " 2 -    print('hello')",
    " 2 +    print('hello, world')",
]

# 2.1.332 at 200x50 with the diff side panel open: Write prompt on the left, no clean rule row.
WRITE_SIDE_PANEL = beside_panel(
    """
 ▐▛███▛█   Claude Code v2.1.332
▝▜██████▀  Opus 5.5 · API Usage Billing
 ▝▝   ▝▝   ~/src/proj

❯ add a greeting to app.py and write NOTES.md

● Update(app.py)
  ⎿  Added 1 line, removed 1 line

● Write(NOTES.md)

{RULE}
 Create file
 NOTES.md
{DASH}
  1 # Notes
  2
  3 - the greeting now says world
{DASH}
 Do you want to create NOTES.md?
 ❯ 1. Yes
   2. Yes, and switch to accept edits (auto-approve file edits and common file commands)
      for this session (shift+tab)
   3. No

 Esc to cancel · Tab to amend
""",
    DIFF_PANEL,
)

BLOCKED = {
    "trust-2.1": (TRUST_2_1, 80, 24),
    "api-key-2.1": (API_KEY_2_1, 80, 24),
    "auto-nudge-2.1": (AUTO_NUDGE_2_1, 80, 24),
    "trust-2.0": (TRUST_2_0, 80, 24),
    "trust-1.0-boxed": (TRUST_1_0, 80, 24),
    "api-key-boxed": (API_KEY_BOXED, 80, 24),
    "bash-2.1-80x24-moved": (BASH_2_1_NARROW, 80, 24),
    "bash-2.1-200x50": (BASH_2_1_WIDE, 200, 50),
    "bash-2.1-top-rule-scrolled-off": (BASH_2_1_TALL, 80, 24),
    "fetch-2.1-no-hint": (FETCH_2_1, 80, 24),
    "write-2.1": (WRITE_2_1, 80, 24),
    "ask-2.1-pointer-below-rule": (ASK_2_1_LAST, 80, 24),
    "plan-2.1-80x24": (PLAN_2_1, 80, 24),
    "plan-2.0": (PLAN_2_0, 80, 24),
    "bash-2.0": (BASH_2_0, 80, 24),
    "write-2.0": (WRITE_2_0, 80, 24),
    "bash-1.0-boxed": (BASH_1_0, 80, 24),
    "write-1.0-boxed": (WRITE_1_0, 80, 24),
    "plan-1.0-boxed": (PLAN_1_0, 80, 24),
    "write-2.1-beside-side-panel": (WRITE_SIDE_PANEL, 200, 50),
}


test_blocked = sketch_test(BLOCKED, "blocked")


# --- not blocked: prompt phrases outside a live dialog --------------------------------------

# 2.1.332: a draft typed into the input box that quotes a whole permission prompt.
DRAFT_2_1 = """
 ▐▛███▛█   Claude Code v2.1.332
▝▜██████▀  Opus 5.5 · API Usage Billing
 ▝▝   ▝▝   ~/proj

                                                         ctrl+g to edit in Vim
{RULE}
❯ Do you want to proceed?
  ❯ 1. Yes
    2. No
  Esc to cancel · Tab to amend
{RULE}
  ⏸ manual mode on
"""

# 2.0.50: the same kind of draft; with text in the box the footer drops "? for shortcuts".
DRAFT_2_0 = """
{RULE}
> Do you want to proceed?
  ❯ 1. Yes
    2. No, and tell Claude what to do differently (esc)
  Enter to confirm · Esc to exit
{RULE}
                                                   Thinking on (tab to toggle)
                                                  ctrl-g to edit prompt in Vim
"""

# 1.0.45: the input box is a rounded box; a draft's continuation rows are indented past
# the `> ` prompt, and with text in the box the footer is empty.
DRAFT_1_0_BOXED = """
 ※ Tip: Start with small features or bug fixes, tell Claude to propose a plan,
 and verify its suggested edits

{BOXTOP}
| > Do you want to proceed?
|   ❯ 1. Yes
|     2. No, and tell Claude what to do differently (esc)
{BOXBOT}
"""

# 2.1.328: an answer that ends in a question, idle input box below it.
ANSWER_QUESTION_2_1 = """
❯ refactor the parser

● I split the parser into a lexer and a grammar module. Do you want to proceed
  with the migration of the old call sites? Would you like me to proceed?

  1. Yes, migrate everything now
  2. No, keep the old API for a release

✻ Cogitated for 7s · done 10:05 PM

{RULE}
❯
{RULE}
  ⏸ manual mode on · ? for shortcuts
"""

# 2.1.328: a transcript with prompts already answered (approved, rejected, a question
# answered) above an idle box whose footer shows only the mode.
OLD_PROMPTS_2_1 = """
❯ run the installer

● I'll run the installer.

  Did not run 1 call
  ⎿  $ curl -s https://example.com/install.sh | sh
  ⎿  Interrupted · What should Claude do instead?

● Answered Claude's questions:
  ⎿  · Which database should the app use? → PostgreSQL

{RULE}
❯
{RULE}
  ⏸ manual mode on
"""

# 2.0.50: long output whose last paragraph asks, idle box below (main screen, so the output
# fills the pane).
LONG_2_0 = "\n".join(
    [f"  Line {i}: some explanation text that goes on for a while." for i in range(40)]
    + [
        "",
        "  Do you want to proceed? Would you like me to proceed?",
        "",
        "{RULE}",
        "> ",
        "{RULE}",
        "  ? for shortcuts                                  Thinking on (tab to toggle)",
    ]
)

# No rule on the screen at all (a full-screen view such as the transcript viewer): the
# user's own prompt rows start with ❯ and answers ask questions, but nothing is live.
NO_RULE = """
❯ 1. fix the parser 2. update the docs

● Done with both. Would you like me to proceed with the release notes?

❯ 1. yes please

● Which version number should I use?

  Showing detailed transcript · ctrl+o to toggle
"""

# 2.1.332 idle in plan mode and in auto mode.
PLAN_MODE_IDLE = """
{RULE}
❯
{RULE}
  ⏸ plan mode on (shift+tab to cycle) · ← for agents
"""
AUTO_MODE_IDLE = """
● Sure. Would you like me to proceed with the changes?

✻ Worked for 0s · done 11:41 PM

{RULE}
❯
{RULE}
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

# A draft that mentions the working hint must not read as working (2.1 and 2.0 layouts).
DRAFT_INTERRUPT_2_1 = """
{RULE}
❯ what does esc to interrupt do?
{RULE}
  ⏸ manual mode on
"""
DRAFT_INTERRUPT_2_0 = """
{RULE}
> ✻ Thinking… (esc to interrupt) shows up forever, why?
{RULE}
                                                   Thinking on (tab to toggle)
"""

# 2.1.332 at 200x50, side panel open above a full-width input box holding a draft that
# quotes a dialog; the transcript beside the panel ends in a question.
DRAFT_SIDE_PANEL = (
    beside_panel(
        """
❯ add a greeting to app.py

● Done. Do you want me to proceed with the notes file?
""",
        DIFF_PANEL,
    )
    + """
{RULE}
❯ Do you want to create NOTES.md?
  ❯ 1. Yes
  Esc to cancel · Tab to amend
{RULE}
  ⏸ manual mode on
"""
)

# 2.0.50: slash-command suggestions replace the footer under the input box; no pointer row.
SLASH_2_0 = """
● All done. Would you like me to also add tests?

{RULE}
> /
{RULE}
  /add-dir                           Add a new working directory
  /agents                            Manage agent configurations
  /clear (reset, new)                Clear conversation history and free up
                                     context
  /config (theme)                    Open config panel
  /doctor                            Diagnose and verify your Claude Code
                                     installation and settings
  /exit (quit)                       Exit the REPL
"""

IDLE = {
    "draft-2.1": (DRAFT_2_1, 80, 24),
    "draft-2.0": (DRAFT_2_0, 80, 24),
    "draft-1.0-boxed": (DRAFT_1_0_BOXED, 80, 24),
    "answer-ends-in-question-2.1": (ANSWER_QUESTION_2_1, 120, 32),
    "old-prompts-in-transcript-2.1": (OLD_PROMPTS_2_1, 80, 24),
    "long-output-2.0": (LONG_2_0, 80, 24),
    "no-rule-on-screen": (NO_RULE, 80, 24),
    "plan-mode-idle": (PLAN_MODE_IDLE, 80, 24),
    "auto-mode-idle": (AUTO_MODE_IDLE, 80, 24),
    "draft-mentions-interrupt-2.1": (DRAFT_INTERRUPT_2_1, 80, 24),
    "draft-mentions-interrupt-2.0": (DRAFT_INTERRUPT_2_0, 80, 24),
    "draft-beside-side-panel-2.1": (DRAFT_SIDE_PANEL, 200, 50),
    "slash-suggestions-2.0": (SLASH_2_0, 80, 24),
}


test_idle = sketch_test(IDLE, "idle")


# --- working ------------------------------------------------------------------------------

# 2.1.332 at 80 columns: the hint is in the footer.
WORKING_2_1 = """
❯ bashcmd please

✢ Incubating…

{RULE}
❯
{RULE}
  ⏸ manual mode on · esc to interrupt · ← for agents
"""

# 2.1.x extended thinking with long output above.
THINKING_2_1 = "\n".join(
    [f"  {i}. step of a long explanation that fills the pane" for i in range(30)]
    + [
        "",
        "✻ Thinking… (1m 12s · ↓ 3.2k tokens · thought for 40s)",
        "",
        "{RULE}",
        "❯ ",
        "{RULE}",
        "  ⏸ plan mode on (shift+tab to cycle) · esc to interrupt",
    ]
)

# 2.0.50: the hint is on the spinner row; the footer still says "? for shortcuts".
WORKING_2_0 = """
● Bash(rm -rf build && sleep 4 && echo done)
  ⎿  Running…

✻ Calculating… (esc to interrupt)

{RULE}
>
{RULE}
  ? for shortcuts                                  Thinking on (tab to toggle)
"""

# 1.0.45: spinner row with elapsed time and tokens, rounded input box.
WORKING_1_0 = """
> write the notes

✶ Pondering… (12s · ↑ 340 tokens · esc to interrupt)

{BOXTOP}
| >
{BOXBOT}
  ? for shortcuts
"""

WORKING = {
    "footer-2.1": (WORKING_2_1, 80, 24),
    "thinking-2.1": (THINKING_2_1, 80, 24),
    "spinner-2.0": (WORKING_2_0, 80, 24),
    "spinner-1.0": (WORKING_1_0, 80, 24),
}


test_working = sketch_test(WORKING, "working")
