"""Pi rules (rules/pi.toml) on screens the captures do not cover: other widths (44, 60 and 240
columns), every dialog an extension can put up, Pi's own pickers, drafts and transcripts that
quote a dialog.

Each case is a plain-text screen laid out the way Pi 0.73.1 draws it (seen in tmux against a
local fake model server, and read from its components: rules/NOTES-pi.md). `{RULE}` is a
full-width `─` rule. `▮` marks where the terminal's cursor is (Pi hides it, but moves it: into
the draft while the input box has the focus, into a dialog's text field); it is not part of the
row. Pi draws from the top of the screen, so rows under the footer are blank until the
transcript fills the pane; a case longer than the pane keeps its last rows, as a scrolled pane.
"""

from __future__ import annotations

import pytest

from osf_tmux.judge.classify import classify, same_verdict
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import agent_of, manifest_fixture, read, sketch_test

CURSOR = "▮"


manifest = manifest_fixture("pi")


def screen(text: str, cols: int = 80, rows: int = 24) -> Snapshot:
    lines = [raw.replace("{RULE}", "─" * cols) for raw in text.strip("\n").split("\n")]
    lines = [line if CURSOR in line else line[:cols] for line in lines][-rows:]
    lines += [""] * (rows - len(lines))
    cursor = (0, rows - 1)
    for y, line in enumerate(lines):
        if CURSOR in line:
            cursor = (line.index(CURSOR), y)
            lines[y] = line.replace(CURSOR, "")[:cols]
    return Snapshot(cols=cols, rows=tuple(r.rstrip() for r in lines), cursor=cursor)


def footer(cols: int, stats: str = "↑200 ↓40 0.1%/128k (auto)") -> str:
    model = "fake-model"
    return "~/src/proj (main)\n" + stats + " " * max(2, cols - len(stats) - len(model)) + model


# --- blocked ------------------------------------------------------------------------------


def confirm_while_working(cols: int, cursor_on: str = "spinner") -> str:
    """An approval gate's `ctx.ui.confirm` on the bash tool, while the turn's loader spins. Pi
    leaves the hidden cursor where it last wrote: the spinner row, mostly."""
    spin = "▮" if cursor_on == "spinner" else ""
    yes = "▮" if cursor_on == "option" else ""
    stats = "▮" if cursor_on == "footer" else ""
    return f"""
 run the check


 Running a command.


 $ sleep 3; echo ok


 ⠙ Working...{spin}

{{RULE}}

 Run this command?
 sleep 3; echo ok

 → Yes{yes}
   No

 ↑↓ navigate  enter select  escape/ctrl+c cancel

{{RULE}}
{footer(cols)}{stats}
"""


@pytest.mark.parametrize("cols", [60, 80, 120, 240])
@pytest.mark.parametrize("cursor_on", ["spinner", "option", "footer"])
def test_confirm_dialog_at_any_width(cols: int, cursor_on: str, manifest: Manifest) -> None:
    snap = screen(confirm_while_working(cols, cursor_on), cols=cols, rows=24)
    assert read(snap, manifest) == ("blocked", "select-dialog")


BLOCKED: dict[str, tuple[str, int, int]] = {
    # A select of three, the pointer moved to the second option (the cursor stays on it).
    "select_three_options": (
        """
 All done.

 ⠼ Working...

{RULE}

 Write NOTES.md?

   Allow
 → Allow always▮
   Deny

 ↑↓ navigate  enter select  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑300 ↓60 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    # 44 columns: the hint row wraps after `escape/ctrl+c`; a select from a command (no loader).
    "select_narrow_wrapped_hint": (
        """
 Operation aborted

────────────────────────────────────────────

 Pick a colour (29s)

 → Red
   Green
   Blue

 ↑↓ navigate  enter select  escape/ctrl+c
 cancel

────────────────────────────────────────────
~/src/proj (main)
↑600 ↓120 0.1%/128k (auto)        fake-model▮
""",
        44,
        24,
    ),
    # Key bindings of the person's own (keybindings.json): the hint follows them.
    "select_rebound_keys": (
        """
 ⠦ Working...

{RULE}

 ⚠️ Dangerous command:

   rm -rf build

 Allow?

 → Yes
   No

 ↑↓ navigate  enter/tab select  escape cancel

{RULE}
~/src/proj (main)
0.0%/128k (auto)                                                      fake-model▮
""",
        80,
        24,
    ),
    # Pi's own start-up question (its own screen, no footer): `pi -c` for a session whose
    # folder is gone. The cursor ends after the bottom rule it drew last.
    "startup_session_cwd": (
        """

 cwd from session file does not exist
 /tmp/gone/proj

 continue in current cwd
 /home/dev

 → Continue
   Cancel

 ↑↓ navigate  enter select  escape/ctrl+c cancel

────────────────────────────────────────────────────────────────────────────────▮
""".replace("\n\n cwd", "\n" + "─" * 80 + "\n\n cwd", 1),
        80,
        24,
    ),
    # A command too long for the pane: the dialog's top rule has scrolled away.
    "tall_dialog_top_rule_gone": (
        "\n".join(f" line {i} of a long heredoc" for i in range(30))
        + """

 → Yes
   No

 ↑↓ navigate  enter select  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑100 ↓20 0.1%/128k (auto)                                             fake-model▮
""",
        80,
        24,
    ),
    # An extension status row under the footer (ctx.ui.setStatus).
    "select_with_status_row": (
        """
 ⠋ Working...

{RULE}

 Allow bash?

   sleep 3; echo ok

 → Yes
   No

 ↑↓ navigate  enter select  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑100 ↓20 0.1%/128k (auto)                                             fake-model
gate: asking▮
""",
        80,
        24,
    ),
    # ctx.ui.input: the cursor is in its text field.
    "input_dialog": (
        """
 got Bob

{RULE}

 Your name?

> Al▮

 enter submit  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    "input_dialog_empty_240": (
        """
 got Bob

{RULE}

 Reason for the rejection?

>▮

 enter submit  escape/ctrl+c cancel

{RULE}
"""
        + footer(240),
        240,
        50,
    ),
    # ctx.ui.editor: a second editor (two more rules) inside the dialog.
    "editor_dialog": (
        """
 got undefined

{RULE}

 Edit the message

{RULE}
prefilled▮
{RULE}

 enter submit  shift+enter newline  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    # The question tool of Pi's examples (ctx.ui.custom): its own rules and `> 1.` pointer.
    "question_component": (
        """
 ⠧ Working...

{RULE}
 Which database should the app use?

> 1. PostgreSQL
     Robust relational DB
  2. SQLite
  3. Type something.

 ↑↓ navigate • Enter to select • Esc to cancel
{RULE}
~/src/proj (main)
↑100 ↓20 0.1%/128k (auto)                                             fake-model▮
""",
        80,
        24,
    ),
    "questionnaire_tabs_60": (
        """
 ⠧ Working...

{RULE}
 ← □ Database  □ Port  ✓ Submit →

 Which database?

  1. PostgreSQL
> 2. SQLite

 Tab/←→ navigate • ↑↓ select • Enter confirm • Esc cancel
{RULE}
"""
        + footer(60)
        + "▮",
        60,
        24,
    ),
}


test_blocked = sketch_test(BLOCKED, "blocked", screen=screen)


# --- idle ---------------------------------------------------------------------------------

DIALOG_COPY = """ Run this command?
 sleep 3; echo ok

 → Yes
   No

 ↑↓ navigate  enter select  escape/ctrl+c cancel"""

IDLE: dict[str, tuple[str, int, int]] = {
    "after_an_answer": (
        """
 $ sleep 3; echo ok

 ok

 Took 8.0s


 All done, the command printed ok.

{RULE}
▮
{RULE}
~/src/proj (main)
↑200 ↓40 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    # An answer that ends in a question: the input box is still the bottom element.
    "ask_back": (
        """
 app.py is small and clear: main() prints a greeting and the __main__ guard runs it.

 Would you like me to add a command-line option for the name? → Yes / No

{RULE}
▮
{RULE}
"""
        + footer(60),
        60,
        24,
    ),
    # A draft with the dialog's words on one wrapped row (cursor at its end).
    "draft_with_the_words": (
        """
 All done, the command printed ok.

{RULE}
Run this command? → Yes  No ↑↓ navigate  enter select  escape/ctrl+c cancel and
do you want to proceed? 1. Yes 2. No (y/n) enter submit  escape/ctrl+c cancel▮
{RULE}
~/src/proj (main)
↑800 ↓160 0.1%/128k (auto)                                            fake-model
""",
        80,
        24,
    ),
    # A copy of a dialog pasted into the draft: the cursor is on its last row...
    "draft_pasted_dialog": (
        "\n All done.\n\n{RULE}\n" + DIALOG_COPY + "▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    # ... or on the empty row after it, when the paste ended with a newline.
    "draft_pasted_dialog_newline": (
        "\n All done.\n\n{RULE}\n" + DIALOG_COPY + "\n▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    "draft_pasted_input_dialog": (
        "\n All done.\n\n{RULE}\n Your name?\n\n> Al\n\n enter submit  escape/ctrl+c cancel▮"
        "\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    "draft_pasted_question": (
        "\n All done.\n\n{RULE}\n Which database?\n\n> 1. PostgreSQL\n  2. SQLite\n\n"
        " ↑↓ navigate • Enter to select • Esc to cancel\n▮\n{RULE}\n" + footer(240),
        240,
        50,
    ),
    # The transcript quotes an old dialog right above a live, empty input box.
    "transcript_quotes_a_dialog": (
        "\n Earlier Pi showed this:\n\n" + DIALOG_COPY + "\n\n{RULE}\n▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    "transcript_quotes_a_question_240": (
        """
 The question tool draws:

> 1. PostgreSQL
  2. SQLite

 ↑↓ navigate • Enter to select • Esc to cancel

{RULE}
▮
{RULE}
"""
        + footer(240),
        240,
        50,
    ),
    # Pickers the person opens: idle (the pointer is at the left edge, no `↑↓ navigate`).
    "model_picker": (
        """
 All done.

{RULE}

Only showing models from configured providers. Use /login to add providers.

>▮

→ fake-model [fake] ✓

  Model Name: Fake Model

{RULE}
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    "settings_picker": (
        """
{RULE}
>▮

→ Auto-compact            true
  Auto-resize images      true
  Block images            false
  (1/21)

  Automatically compact context when it gets too large

  Type to search · Enter/Space to change · Esc to cancel
{RULE}
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    "login_picker": (
        """
 All done.

{RULE}

 Select authentication method:

 → Use a subscription
   Use an API key

 ↑↓ navigate  enter select  escape/ctrl+c cancel

{RULE}
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model▮
""",
        80,
        24,
    ),
    # The command completion list under the input box.
    "slash_completion": (
        """
 All done.

{RULE}
/ask▮
{RULE}
→ ask         [u] input test
~/src/proj (main)
↑400 ↓80 0.1%/128k (auto)                                             fake-model
""",
        80,
        24,
    ),
    # A `!` command that finished: its box has rules of its own, above the input box.
    "bash_box_finished": (
        """
{RULE}
 $ sleep 3; echo hi

 hi
{RULE}

{RULE}
▮
{RULE}
"""
        + footer(120),
        120,
        32,
    ),
    "empty_screen_startup": (
        """
 pi v0.73.1
 escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more

[Extensions]
  osf-tmux.ts


{RULE}
▮
{RULE}
~/src/proj (main)
0.0%/128k (auto)                                                      fake-model
""",
        80,
        24,
    ),
}


test_idle = sketch_test(IDLE, "idle", screen=screen)


# --- working ------------------------------------------------------------------------------

WORKING: dict[str, tuple[str, int, int]] = {
    "streaming": (
        """
 Line 37 of a long answer about terminals.
 Line 38 of a long answer about terminals.

 ⠴ Working...

{RULE}
▮
{RULE}
~/src/proj (main)
↑600 ↓120 0.1%/128k (auto)                                            fake-model
""",
        80,
        24,
    ),
    # A draft typed while the turn runs (a steering message to be).
    "streaming_with_a_draft_60": (
        """
 Line 38 of a long answer about terminals.

 ⠸ Working...

{RULE}
also check the tests, and Do you want to proceed?
→ Yes▮
{RULE}
"""
        + footer(60),
        60,
        24,
    ),
    "tool_running_240": (
        """
 $ sleep 3; echo ok

 Elapsed 6.9s


 ⠏ Working...

{RULE}
▮
{RULE}
"""
        + footer(240),
        240,
        50,
    ),
    # A `!` command of the person's: the loader is inside its box.
    "bang_command": (
        """
{RULE}
 $ sleep 3; echo hi

 ⠹ Running... (escape/ctrl+c to cancel)
{RULE}

{RULE}
▮
{RULE}
"""
        + footer(120),
        120,
        32,
    ),
    "compacting": (
        "\n All done.\n\n ⠙ Compacting context... (escape to cancel)\n\n{RULE}\n▮\n{RULE}\n"
        + footer(80),
        80,
        24,
    ),
    # An extension's own words and indicator (ctx.ui.setWorkingMessage / setWorkingIndicator).
    "custom_message": (
        "\n All done.\n\n ⠋ Thinking very hard\n\n{RULE}\n▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    "custom_indicator": (
        "\n All done.\n\n ● Working...\n\n{RULE}\n▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
    "after_reload": (
        "\n All done.\n\n ⠋ Working... (escape to interrupt)\n\n{RULE}\n▮\n{RULE}\n" + footer(80),
        80,
        24,
    ),
}


test_working = sketch_test(WORKING, "working", "working-loader", screen=screen)


def test_the_cursor_tells_a_dialog_from_its_pasted_copy(manifest: Manifest) -> None:
    """The same rows: a dialog (the cursor on its option) and a draft (the cursor at its end)."""
    text = "\n All done.\n\n{RULE}\n\n" + DIALOG_COPY + "\n\n{RULE}\n" + footer(80)
    on_option = screen(text.replace(" → Yes", " → Yes▮"))
    at_the_end = screen(text.replace("cancel\n", "cancel▮\n"))
    assert on_option.rows == at_the_end.rows
    assert read(on_option, manifest)[0] == "blocked"
    assert read(at_the_end, manifest)[0] == "idle"


# --- identification -----------------------------------------------------------------------

PACKAGE = "@mariozechner/pi-coding-agent"


@pytest.mark.parametrize(
    ("argv", "found"),
    [
        (["pi"], True),  # Pi's process title, once it runs
        (["/usr/bin/node", f"/usr/lib/node_modules/{PACKAGE}/dist/cli.js"], True),
        (["node", "/home/dev/proj/node_modules/.bin/pi", "-c"], True),
        (["node", f"/home/dev/.npm/_npx/1a2b/node_modules/{PACKAGE}/dist/cli.js"], True),
        (["vim", "pi.toml"], False),
        (["python3", "-m", "pi"], False),
        (["node", "/srv/pi/server.js"], False),
        (["pip", "install", "pi"], False),
    ],
)
def test_identification(argv: list[str], found: bool) -> None:
    assert (agent_of(argv) == "pi") is found


def test_answer_keys(manifest: Manifest) -> None:
    assert manifest.answer is not None
    yes = manifest.answer.keys("yes")
    assert yes is not None and yes[-1] == "Enter" and set(yes[:-1]) == {"Up"}
    assert manifest.answer.keys("no") == ("Escape",)
    assert manifest.answer.keys("2") is None  # Pi's options have no numbers


def test_a_ticking_loader_keeps_the_verdict_without_classifying(manifest: Manifest) -> None:
    """Every pattern stays within one row, so a frame that only turns the spinner (Pi's loader
    ticks every 80 ms) is not classified again (10 spinning panes: ~0.85 % of a core, not more)."""
    text, cols, rows = WORKING["streaming"]
    before = screen(text, cols, rows)
    after = screen(text.replace("⠴ Working", "⠦ Working"), cols, rows)
    assert before.rows != after.rows
    assert same_verdict(before, after, manifest)
    assert classify(after, manifest) == classify(before, manifest)
    # the loader gone (the turn ended): classified again
    done = screen(text.replace(" ⠴ Working...", ""), cols, rows)
    assert not same_verdict(before, done, manifest)
    assert read(done, manifest)[0] == "idle"
