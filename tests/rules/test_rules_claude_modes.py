"""Claude Code rules (rules/claude.toml) on the screens of its permission modes and their
dialogs: bypass (`--dangerously-skip-permissions`), acceptEdits, auto, AskUserQuestion with tabs
and multi-select, MCP tools, and dialogs beside the wide-pane side panel.

Each screen is laid out the way the named version draws it (recorded with tools/agentlab against
the fake model server; the captures are in captures/claude-2.1.332-lab-*/ and
captures/claude-2.0.77-lab-bypass/). Every dialog also has its counterparts that must NOT read
blocked: its words typed as a draft into the input box, and an answer that quotes them, at the
narrow and the wide sizes. Placeholders: `{RULE}` a full-width `─` rule, `{DASH}` a `╌` rule,
`{BOXTOP}`/`{BOXBOT}` rounded box edges, a row starting with `|` a box row padded to the box.
`{PANEL}` at the end of a row pads it to the left part's width and adds the side panel's `│`
column (the panel's own text is left out: it never holds a dialog).
"""

from __future__ import annotations

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from tests.rules.harness import manifest_fixture, sketch_test
from tests.rules.harness import sketch as screen

manifest = manifest_fixture("claude")


def verdict_of(text: str, cols: int, rows: int, manifest: Manifest) -> str:
    return classify(screen(text, cols, rows), manifest).state


BANNER = """
 ▐▛███▛█   Claude Code v2.1.332
▝▜██████▀  Opus 5.5 · API Usage Billing
 ▝▝   ▝▝   ~/proj
"""

# --- bypass permissions ---------------------------------------------------------------------

# 2.1.332 --dangerously-skip-permissions: the warning at start-up, under a rule, unnumbered.
BYPASS_WARNING_2_1 = """
{RULE}
  WARNING: Claude Code running in Bypass Permissions mode

  In Bypass Permissions mode, Claude Code will not ask for your approval before
  running potentially dangerous commands.
  This mode should only be used in a sandboxed container/VM that has restricted
  internet access and can easily be restored if damaged.

  By proceeding, you accept all responsibility for actions taken while running
  in Bypass Permissions mode.

  https://code.claude.com/docs/en/security

  ❯ No, exit
    Yes, I accept

  Enter to confirm · Esc to cancel
"""

# 2.0.77: the same warning in a rounded box, numbered, no question mark; the key hint is the
# bottom row, right under the box.
BYPASS_WARNING_2_0 = """
{BOXTOP}
|
| WARNING: Claude Code running in Bypass Permissions mode
|
| In Bypass Permissions mode, Claude Code will not ask for your approval
| before running potentially dangerous commands.
| This mode should only be used in a sandboxed container/VM that has
| restricted internet access and can easily be restored if damaged.
|
| By proceeding, you accept all responsibility for actions taken while
|  in Bypass Permissions mode.
|
| https://code.claude.com/docs/en/security
|
| ❯ 1. No, exit
|   2. Yes, I accept
|
{BOXBOT}
   Enter to confirm · Esc to exit
"""

BYPASS_IDLE_2_1 = (
    BANNER
    + """




{RULE}
❯
{RULE}
  ⏵⏵ bypass permissions on (shift+tab to cycle) · ← for agents
"""
)

BYPASS_WORKING_2_1 = """
❯ clean the build directory

● I'll remove the build directory.

● Bash(rm -rf build && sleep 2 && echo done)
  ⎿  Running…

· Cerebrating… (4s · ↓ 40 tokens)
{RULE}
❯
{RULE}
  ⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt · ← for agents
"""

# 2.0.77 in bypass mode: the hint is on the spinner row, the footer shows the mode.
BYPASS_WORKING_2_0 = """
● Bash(rm -rf build && sleep 2 && echo done)
  ⎿  Running…

✻ Catapulting… (esc to interrupt)

{RULE}
❯
{RULE}
  ⏵⏵ bypass permissions on (shift+tab to cycle)
"""

# The warning's words typed into the box (2.0.x: the rule above the box is the last but one).
BYPASS_DRAFT = """
{RULE}
❯ WARNING: Claude Code running in Bypass Permissions mode ❯ No, exit Yes, I accept
  Enter to confirm · Esc to cancel
{RULE}
  ⏵⏵ bypass permissions on (shift+tab to cycle)
"""

# --- acceptEdits ----------------------------------------------------------------------------

ACCEPT_EDITS_IDLE = """
● Updated app.py and created NOTES.md.

✻ Baked for 5s · done 6:21 PM

{RULE}
❯
{RULE}
  ⏵⏵ accept edits on (shift+tab to cycle)
"""

ACCEPT_EDITS_WORKING = """
● Let me read app.py first.

● Read(app.py)

✢ Mustering… (2s · ↓ 20 tokens)
{RULE}
❯
{RULE}
  ⏵⏵ accept edits on (shift+tab to cycle) · esc to interrupt · ← for agents
"""

# acceptEdits still asks for commands outside its list: an unnumbered-free ordinary dialog.
ACCEPT_EDITS_BASH = """
● I'll fetch and run the hook installer.

{RULE}
 Bash command
 Install the deploy hook
{DASH}
 curl -fsS http://127.0.0.1:9/hook.sh | sh
{DASH}

 Do you want to proceed?
 ❯ 1. Yes
   2. No

 Esc to cancel · Tab to amend
"""

# --- auto mode --------------------------------------------------------------------------------

AUTO_CHECK_BODY = """
● I'll fetch and run the hook installer.

  Installing the deploy hook
  ⎿  $ curl -fsS http://127.0.0.1:9/hook.sh | sh

{RULE}
  Auto mode can't check actions in this session

  Auto mode's safety check runs on the server. Your requests go through
  127.0.0.1:34315, and the check isn't getting through.

  You can stay in auto mode and approve each action that needs the check
  yourself.

  Or you can leave for accept edits mode, which has no safety check, and auto
  mode stays off. These then run without asking: file edits and commands such
  as rm and mv in your working folders, some tools, such as subagents and
  scheduled tasks, and anything allowed by rules that auto mode set aside,
  such as Bash(*). This turn stops, so its waiting actions don't run, but
  background tasks go on. Claude goes on at your next message, or sooner.

  To get the check back, ask whoever runs your gateway to pass it through: htt
  ps://code.claude.com/docs/en/permission-modes#server-side-classifier-review
"""

# 2.1.332 at 80 columns: the key hint wraps onto two rows.
AUTO_CHECK_80 = (
    AUTO_CHECK_BODY
    + """
  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and
  stop · Esc to cancel
"""
)

# 2.1.332 at 240 columns: one hint row.
_SERVER = (
    "  Auto mode's safety check runs on the server. Your requests go through "
    "127.0.0.1:34957, and the check isn't getting through."
)
_LEAVE = (
    "  Or you can leave for accept edits mode, which has no safety check, and auto mode "
    "stays off. These then run without asking: file edits and commands such as rm and mv in "
    "your working folders."
)
_HINT = (
    "  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop"
    " · Esc to cancel"
)
AUTO_CHECK_240 = "\n".join(
    [
        BANNER,
        "❯ install the deploy hook",
        "",
        "● I'll fetch and run the hook installer.",
        "",
        "  Installing the deploy hook",
        "  ⎿  $ curl -fsS http://127.0.0.1:9/hook.sh | sh",
        "",
        "{RULE}",
        "  Auto mode can't check actions in this session",
        "",
        _SERVER,
        "",
        "  You can stay in auto mode and approve each action that needs the check yourself.",
        "",
        _LEAVE,
        "",
        "  To get the check back, ask whoever runs your gateway to pass it through: "
        "https://code.claude.com/docs/en/permission-modes#server-side-classifier-review",
        "",
        _HINT,
    ]
)

# 2.1.332 at 64x20: taller than the pane; cut at the bottom, the hint row is off screen.
AUTO_CHECK_64x20 = """
● Installing the deploy hook
  ⎿  $ curl -fsS http://127.0.0.1:9/hook.sh | sh

────────────────────────────────────────────────────────────────
  Auto mode can't check actions in this session

  Auto mode's safety check runs on the server. Your requests
  go through 127.0.0.1:34957, and the check isn't getting
  through.

  You can stay in auto mode and approve each action that needs
  the check yourself.

  Or you can leave for accept edits mode, which has no safety
  check, and auto mode stays off. These then run without
  asking: file edits and commands such as rm and mv in your
  working folders, some tools, such as subagents and scheduled
  tasks, and anything allowed by rules that auto mode set
  aside, such as Bash(*). This turn stops, so its waiting
  actions don't run, but background tasks go on. Claude goes
"""

# After "stay in auto mode": the command's own prompt, with an unnumbered No/Yes menu.
AUTO_APPROVAL = """
● Auto mode can't check actions in this session. Its safety check runs
  on the server, and your requests go through 127.0.0.1:34315, which
  doesn't pass it through. Actions that need the check now ask for your
  approval.

{RULE}
 Bash command
 Install the deploy hook
{DASH}
 curl -fsS http://127.0.0.1:9/hook.sh | sh
{DASH}
 │ Auto mode can't check actions in this session, so this one needs your
 │ approval

 Do you want to proceed?
 ❯ No
   Yes

 Esc to cancel · Tab to amend
"""

# Back at the prompt: the notice stays in the transcript, above the input box.
AUTO_NOTICE_IN_TRANSCRIPT = """
● Auto mode can't check actions in this session. Its safety check runs
  on the server, and your requests go through 127.0.0.1:34315, which
  doesn't pass it through.
  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and
  stop · Esc to cancel

● The hook installer could not be fetched.

{RULE}
❯
{RULE}
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

# The notice's words as a draft, in a short pane where the box fills the screen's bottom.
AUTO_DRAFT_64x20 = """
● Done.

────────────────────────────────────────────────────────────────
❯ Auto mode can't check actions in this session Enter to stay
  in auto mode · shift+Tab to leave for accept edits mode and
  stop · Esc to cancel
────────────────────────────────────────────────────────────────
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

# A short pane whose last rule is the input box's top rule while a turn runs (the box was
# pushed to the bottom row): the answer quoting the notice is above that rule.
AUTO_ANSWER_QUOTES = """
● The dialog said:
  Auto mode can't check actions in this session
  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and
  stop · Esc to cancel

✻ Cooked for 3s

{RULE}
❯
{RULE}
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

AUTO_IDLE = """
● Done: the build directory is gone.

✻ Cooked for 5s · done 6:21 PM

{RULE}
❯
{RULE}
  ⏵⏵ auto mode on (shift+tab to cycle)
"""

# --- AskUserQuestion ---------------------------------------------------------------------------

# 2.1.332: two questions: tabs on top, `Tab/Arrow keys to navigate` in the hint.
QUESTION_TABS = """
● Two decisions first.

{RULE}
←  ☐ Branch  ☐ Versioning  ✔ Submit  →

Which branch should releases come from?

❯ 1. main
     The default branch
  2. release
     A branch of its own
  3. Type something.
{RULE}
  4. Chat about this

Enter to select · Tab/Arrow keys to navigate · Esc to cancel
"""

# The review tab: a numbered menu, no hint row.
QUESTION_REVIEW = """
{RULE}
←  ☒ Branch  ☒ Versioning  ✔ Submit  →

Review your answers

 ● Which branch should releases come from?
   → main
 ● How should versions be numbered?
   → SemVer

❯ 1. Submit answers
  2. Cancel
"""

# Multi-select with the pointer on the unnumbered Submit row, above the last rule.
QUESTION_MULTI_SUBMIT = """
Which lint checks should run on every commit?

  1. [✔] ruff
         Python lint
  2. [ ] mypy
         type checks
  3. [ ] codespell
         spelling
  4. [ ] Type something
❯    Submit
{RULE}
  5. Chat about this

Enter to select · ↑/↓ to navigate · ctrl+g to edit in Vim · Esc to cancel
"""

# Pointer on the entry below the rule.
QUESTION_POINTER_BELOW = """
Which branch should releases come from?

  1. main
     The default branch
  2. release
     A branch of its own
  3. Type something.
{RULE}
❯ 4. Chat about this

Enter to select · Tab/Arrow keys to navigate · ctrl+g to edit in Vim · Esc to cancel
"""

QUESTION_DRAFT = """
● Noted; I'll set the release up that way.

{RULE}
❯ ☐ Branch ❯ 1. main Enter to select · Tab/Arrow keys to navigate · Esc to cancel
{RULE}
  ⏸ manual mode on
"""

QUESTION_ANSWER_QUOTES = """
● The question dialog's hint row reads:

  ❯ 1. main
  Enter to select · Tab/Arrow keys to navigate · Esc to cancel

  Would you like me to change it?

{RULE}
❯
{RULE}
  ⏸ manual mode on · ? for shortcuts
"""

# --- MCP ----------------------------------------------------------------------------------------

# 2.1.332: a tool of the lab's stdio MCP server (tools/agentlab/mcp_server.py --tools deploy).
MCP_TOOL = """
● I'll use the lab deploy tool.

● Calling lab…

{RULE}
 Tool use
 lab — Deploy Tool: (MCP)
{DASH}
 target: "staging"
{DASH}
 About the lab — Deploy Tool:
 │ Deploy the project to a named target (the lab's stand-in: nothing runs).

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for lab — Deploy commands in /tmp/proj
   3. No

 Esc to cancel · Tab to amend
"""

# 2.1.332: a project server in .mcp.json not yet approved: no question mark.
MCP_PROJECT = """
{RULE}
  New MCP server found in this project: lab

  MCP servers may execute code or access system resources. All tool calls
  require approval. Learn more in the MCP documentation.

    Use this MCP server
    Use this and all future MCP servers in this project
  ❯ Continue without using this MCP server

  Enter to confirm · Esc to reject
"""

# An Allow/Deny choice without a question mark or a key hint (the program's network request
# and askPerson dialogs): pointer menu whose options allow and deny.
ALLOW_DENY = """
● Bash(curl -s https://example.com)

{RULE}
 Network request outside of the sandbox
 Host: example.com

 ❯ 1. Allow
   2. Allow all connections to example.com
   3. Deny
"""

ALLOW_DENY_DRAFT = """
{RULE}
❯ 1. Allow 2. Deny
{RULE}
  ⏸ manual mode on
"""

# --- wide panes: the side panel ------------------------------------------------------------------

WIDE_WRITE = """
● Now the notes file.{PANEL}
{PANEL}
● Write(NOTES.md){PANEL}
{PANEL}
{RULE}{PANEL}
 Create file{PANEL}
 NOTES.md{PANEL}
{DASH}{PANEL}
  1 # Notes{PANEL}
{DASH}{PANEL}
 Do you want to create NOTES.md?{PANEL}
 ❯ 1. Yes{PANEL}
   2. Yes, and switch to accept edits for this session (shift+tab){PANEL}
   3. No{PANEL}
{PANEL}
 Esc to cancel · Tab to amend{PANEL}
"""

WIDE_QUESTION = """
● Two decisions first.{PANEL}
{PANEL}
{RULE}{PANEL}
←  ☐ Branch  ☐ Versioning  ✔ Submit  →{PANEL}
{PANEL}
Which branch should releases come from?{PANEL}
{PANEL}
❯ 1. main{PANEL}
     The default branch{PANEL}
  2. release{PANEL}
  3. Type something.{PANEL}
{RULE}{PANEL}
  4. Chat about this{PANEL}
{PANEL}
Enter to select · Tab/Arrow keys to navigate · Esc to cancel{PANEL}
"""

WIDE_MCP = """
● I'll use the lab deploy tool.{PANEL}
{PANEL}
{RULE}{PANEL}
 Tool use{PANEL}
 lab — Deploy Tool: (MCP){PANEL}
{DASH}{PANEL}
 target: "staging"{PANEL}
{DASH}{PANEL}
 Do you want to proceed?{PANEL}
 ❯ 1. Yes{PANEL}
   2. Yes, and don't ask again for lab — Deploy commands{PANEL}
   3. No{PANEL}
{PANEL}
 Esc to cancel · Tab to amend{PANEL}
"""

# Beside the panel, the input box spans the whole width: a draft of dialog words stays idle.
WIDE_DRAFT = """
● Done.{PANEL}
{PANEL}
{RULE}
❯ Do you want to proceed? ❯ 1. Yes Esc to cancel · Tab to amend
{RULE}
  ⏸ manual mode on
"""

# The review tab beside the panel: no hint row, the menu is the dialog's bottom element.
WIDE_REVIEW = """
● Two decisions first.{PANEL}
{PANEL}
{RULE}{PANEL}
←  ☒ Branch  ☒ Versioning  ✔ Submit  →{PANEL}
{PANEL}
Review your answers{PANEL}
{PANEL}
 ● Which branch should releases come from?{PANEL}
   → main{PANEL}
 ● How should versions be numbered?{PANEL}
   → SemVer{PANEL}
{PANEL}
❯ 1. Submit answers{PANEL}
  2. Cancel{PANEL}
{PANEL}
"""

# Idle beside the panel: the transcript quotes a numbered pointer row and a question, but the
# input box's two clean full-width rules are on screen.
WIDE_IDLE_QUOTES = """
● The review tab showed:{PANEL}
 ● Which branch should releases come from?{PANEL}
❯ 1. Submit answers{PANEL}
  2. Cancel{PANEL}
{PANEL}
{RULE}
❯
{RULE}
  ⏸ manual mode on · ? for shortcuts
"""

BLOCKED = {
    "bypass-warning-2.1": (BYPASS_WARNING_2_1, 80, 24),
    "bypass-warning-2.1-60": (BYPASS_WARNING_2_1, 60, 24),
    "bypass-warning-2.1-240": (BYPASS_WARNING_2_1, 240, 60),
    "bypass-warning-2.0": (BYPASS_WARNING_2_0, 80, 24),
    "bypass-warning-2.0-60": (BYPASS_WARNING_2_0, 60, 24),
    "acceptedits-bash": (ACCEPT_EDITS_BASH, 80, 24),
    "auto-check-80": (AUTO_CHECK_80, 80, 24),
    "auto-check-240": (AUTO_CHECK_240, 240, 60),
    "auto-check-64x20": (AUTO_CHECK_64x20, 64, 20),
    "auto-approval": (AUTO_APPROVAL, 80, 24),
    "auto-approval-60": (AUTO_APPROVAL, 60, 24),
    "question-tabs": (QUESTION_TABS, 80, 24),
    "question-tabs-60": (QUESTION_TABS, 60, 20),
    "question-review": (QUESTION_REVIEW, 80, 24),
    "question-multi-submit": (QUESTION_MULTI_SUBMIT, 80, 24),
    "question-pointer-below": (QUESTION_POINTER_BELOW, 80, 24),
    "mcp-tool": (MCP_TOOL, 80, 24),
    "mcp-tool-60": (MCP_TOOL, 60, 24),
    "mcp-tool-240": (MCP_TOOL, 240, 60),
    "mcp-project": (MCP_PROJECT, 80, 24),
    "allow-deny": (ALLOW_DENY, 80, 24),
    "allow-deny-240": (ALLOW_DENY, 240, 60),
    "wide-write": (WIDE_WRITE, 240, 60),
    "wide-question": (WIDE_QUESTION, 240, 60),
    "wide-mcp": (WIDE_MCP, 240, 60),
    "wide-review": (WIDE_REVIEW, 240, 60),
}

IDLE = {
    "bypass-idle-2.1": (BYPASS_IDLE_2_1, 80, 24),
    "bypass-draft": (BYPASS_DRAFT, 80, 24),
    "bypass-draft-60": (BYPASS_DRAFT, 60, 20),
    "acceptedits-idle": (ACCEPT_EDITS_IDLE, 80, 24),
    "auto-idle": (AUTO_IDLE, 80, 24),
    "auto-notice-in-transcript": (AUTO_NOTICE_IN_TRANSCRIPT, 80, 24),
    "auto-notice-in-transcript-240": (AUTO_NOTICE_IN_TRANSCRIPT, 240, 60),
    "auto-draft-64x20": (AUTO_DRAFT_64x20, 64, 20),
    "auto-answer-quotes": (AUTO_ANSWER_QUOTES, 80, 24),
    "auto-answer-quotes-60": (AUTO_ANSWER_QUOTES, 60, 20),
    "question-draft": (QUESTION_DRAFT, 80, 24),
    "question-draft-240": (QUESTION_DRAFT, 240, 60),
    "question-answer-quotes": (QUESTION_ANSWER_QUOTES, 80, 24),
    "allow-deny-draft": (ALLOW_DENY_DRAFT, 80, 24),
    "wide-draft": (WIDE_DRAFT, 240, 60),
    "wide-idle-quotes": (WIDE_IDLE_QUOTES, 240, 60),
}

WORKING = {
    "bypass-working-2.1": (BYPASS_WORKING_2_1, 80, 24),
    "bypass-working-2.0": (BYPASS_WORKING_2_0, 80, 24),
    "acceptedits-working": (ACCEPT_EDITS_WORKING, 80, 24),
}


test_blocked = sketch_test(BLOCKED, "blocked")


test_idle = sketch_test(IDLE, "idle")


test_working = sketch_test(WORKING, "working")


def test_cut_dialog_needs_the_pane_filled(manifest: Manifest) -> None:
    """The taller-than-the-pane rule rests on the dialog reaching the last row: the same rows
    in a taller pane (blank rows under them, no hint row) are not enough."""
    assert verdict_of(AUTO_CHECK_64x20, 64, 20, manifest) == "blocked"
    assert verdict_of(AUTO_CHECK_64x20, 64, 30, manifest) == "idle"


def test_key_hint_dialog_needs_its_hint_at_the_bottom(manifest: Manifest) -> None:
    """The key-hint rule wants the hint as the screen's bottom element: with the input box
    drawn under it (the hint is then a quote in the transcript) it does not hold."""
    assert verdict_of(AUTO_CHECK_80, 80, 24, manifest) == "blocked"
    boxed = AUTO_CHECK_80 + "{RULE}\n❯ \n{RULE}\n  ⏵⏵ auto mode on (shift+tab to cycle)\n"
    assert verdict_of(boxed, 80, 40, manifest) == "idle"
