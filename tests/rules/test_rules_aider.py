"""aider rules on screens we have no capture of.

Each screen is laid out after the real 0.86.2 snapshots (captures/aider-0.86.2/*.snapshots) and
the program text of aider's io.py (confirm_ask, get_input) across versions; see
rules/NOTES-aider.md. Where a screen departs from a capture, the comment says what changed."""

from __future__ import annotations

from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture, screens_test
from tests.rules.harness import typed as screen

manifest = manifest_fixture("aider")


RULE = "─" * 80
RULE120 = "─" * 120

# Start of every 0.86.2 capture, re-wrapped for 80 columns.
BANNER80 = f"""
Aider v0.86.2
Model: openai/gpt-4o with diff edit format
Git repo: .git with 12 files
Repo-map: using 4096 tokens, auto refresh
{RULE}"""

CASES: list[tuple[str, Snapshot, str]] = [
    # 03-blocked of shell_approve, verbatim (120x32).
    (
        "capture-shell-confirm-120x32",
        screen(
            f"""
Aider v0.86.2
Model: openai/fake with diff edit format
Git repo: .git with 2 files
Repo-map: disabled
{RULE120}
diff> Run the build

I will run the build:


sleep 4; echo build-ok



Tokens: 2.3k sent, 19 received.

sleep 4; echo build-ok
Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]:""",
            120,
            32,
        ),
        "blocked",
    ),
    # Add-file confirmation with a group (A)ll/(S)kip all (confirm_ask with group), 80x24.
    (
        "add-file-group-80x24",
        screen(
            f"""{BANNER80}
diff> fix the parser in utils

To fix this I need to see src/parser.py and src/lexer.py.
Tokens: 3.1k sent, 41 received.
src/parser.py
Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:""",
            80,
            24,
        ),
        "blocked",
    ),
    # A question longer than the pane wraps (prompt_toolkit breaks at the width): the options
    # and the default land on the second row. Question text from aider/main.py.
    (
        "wrapped-question-60x24",
        screen(
            """
Aider v0.86.2
Model: openai/gpt-4o with diff edit format
No git repo found, create one to track aider's changes (reco
mmended)? (Y)es/(N)o [Yes]:""",
            60,
            24,
        ),
        "blocked",
    ),
    # Same, wrapped right after the question mark: only options + default on the last row.
    (
        "wrapped-after-question-70x24",
        screen(
            """
Aider v0.86.2
Allow edits to file that has not been added to the chat?
src/very/long/path/to/the/module/that/the/model/wants/edit.py
Allow edits to file that has not been added to the chat? (Y)es
/(N)o [Yes]:""",
            70,
            24,
        ),
        "blocked",
    ),
    # Architect mode asks before handing the plan to the editor; 200x50.
    (
        "architect-edit-files-200x50",
        screen(
            f"""
Aider v0.86.2
Model: openai/o3 with architect edit format, editor model: openai/gpt-4.1 with editor-diff
edit format
{"─" * 200}
architect> make the cache thread safe

Wrap the dict in a lock and guard both get and set with it.

Tokens: 5.0k sent, 120 received.
Edit the files? (Y)es/(N)o [Yes]:""",
            200,
            50,
        ),
        "blocked",
    ),
    # An invalid answer: aider complains and asks again (io.py confirm_ask loop).
    (
        "asked-again-after-invalid-answer",
        screen(
            f"""{BANNER80}
diff> /run make test
Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: maybe
Please answer with one of: yes, no, skip, all, don't
Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:""",
            80,
            24,
        ),
        "blocked",
    ),
    # A default of "no" ([No]:), as confirm_ask prints for default="n".
    (
        "default-no",
        screen(
            f"""{BANNER80}
diff> go on
Try to proceed anyway? (Y)es/(N)o [No]:""",
            80,
            24,
        ),
        "blocked",
    ),
    # aider < 0.55 pre-filled the default answer: "Question? y", cursor right after the y.
    (
        "old-prefilled-confirm",
        screen(
            """
Aider v0.40.0
Model: gpt-4o with diff edit format
> add a --verbose flag

src/cli.py
Add these files to the chat? y""",
            80,
            24,
        ),
        "blocked",
    ),
    # The same old prompt once answered: aider moved on to the next line (cursor below).
    (
        "old-prefilled-confirm-answered",
        screen(
            """
Aider v0.40.0
Model: gpt-4o with diff edit format
> add a --verbose flag

src/cli.py
Add these files to the chat? y""",
            80,
            24,
            cursor="below",
        ),
        "working",
    ),
    # Answered prompts stay in the scrollback above the idle prompt (07-idle of shell_approve).
    (
        "answered-prompts-then-idle",
        screen(
            f"""{BANNER80}
diff> Run the build
sleep 4; echo build-ok
Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y
Running sleep 4; echo build-ok
build-ok
Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n
{RULE}
diff>""",
            80,
            24,
            cursor="end",
        ),
        "idle",
    ),
    # The answer just typed, Enter not yet processed (shell_approve @8205): not waiting any more.
    (
        "typed-answer-on-last-row",
        screen(
            f"""{BANNER80}
diff> Run the build
Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y""",
            80,
            24,
        ),
        "working",
    ),
    # An unsent draft at the input prompt that contains a whole confirm line.
    (
        "draft-with-confirm-phrases",
        screen(
            f"""{BANNER80}
diff> Allow execution of ls? (Y)es/(N)o [Yes]:""",
            80,
            24,
        ),
        "idle",
    ),
    # The same draft, long enough to soft-wrap: prompt_toolkit repeats the prompt on the
    # continuation row (get_input's prompt_continuation).
    (
        "wrapped-draft-with-confirm-phrases",
        screen(
            f"""{BANNER80}
diff> when you ask "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]:" I
diff> want (Y)es/(N)o [Yes]:""",
            80,
            24,
        ),
        "idle",
    ),
    # An answer that ends with a question to the user is an ordinary answer.
    (
        "answer-ending-in-question",
        screen(
            f"""{BANNER80}
diff> why is the build slow?

The build recompiles every module because the cache key includes the timestamp.
Would you like me to change the cache key to use file hashes instead?

Tokens: 2.9k sent, 60 received.
{RULE}
diff>""",
            80,
            24,
            cursor="end",
        ),
        "idle",
    ),
    # Other edit formats and multi-line mode (get_input's prompt prefix), cursor on the prompt.
    ("ask-prompt", screen(f"{BANNER80}\nask>", 80, 24), "idle"),
    ("plain-prompt", screen(f"{BANNER80}\n>", 80, 24), "idle"),
    (
        "multiline-draft",
        screen(f"{BANNER80}\ndiff multi> first line\ndiff multi> second line", 80, 24),
        "idle",
    ),
    # Completion menu under the prompt while typing "/a" (cursor stays on the prompt row).
    (
        "completion-menu",
        screen(
            f"""{BANNER80}
diff> /a
       /add        /architect  /ask""",
            80,
            24,
            cursor=(8, 5),
        ),
        "idle",
    ),
    # Spinner before the first token (02-working), and its ASCII form.
    (
        "waiting-spinner",
        screen(f"{BANNER80}\ndiff> Explain\n\n█░         Waiting for openai/gpt-4o", 80, 24),
        "working",
    ),
    (
        "waiting-spinner-ascii",
        screen(f"{BANNER80}\ndiff> Explain\n\n    =#     Waiting for openai/gpt-4o", 80, 24),
        "working",
    ),
    # A message just sent: the prompt row has text and the cursor went below it.
    (
        "just-submitted",
        screen(f"{BANNER80}\ndiff> Explain what this project does", 80, 24, cursor="below"),
        "working",
    ),
    # Long streamed answer filling the pane, last row mid-sentence.
    (
        "streaming-long-answer",
        screen(
            "\n".join(f"line {i} of a long answer that keeps streaming in" for i in range(23))
            + "\nand the model is still",
            80,
            24,
        ),
        "working",
    ),
    # A shell command aider runs after approval prints its output.
    (
        "running-command",
        screen(
            f"""{BANNER80}
diff> Run the build
Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y
Running make -j4
cc -c main.c""",
            80,
            24,
        ),
        "working",
    ),
]


test_aider_screens = screens_test(CASES)
