"""rules/aider.toml on what users change: questions wrapped by a narrow pane (also inside the
default, `[Ye` / `s]:`), the `(D)on't ask again` and `(A)ll/(S)kip all` variants, --yes-always
(no question drawn), /architect (`Edit the files?`) and /ask (`ask>` prompt).

Layouts from the 0.86.2 lab captures (captures/aider-0.86.2-lab-narrow, -lab-configs) and from
aider's io.py confirm_ask (the options string and the default it appends); cases marked
"variant" are built from those to try widths and words no capture shows."""

from __future__ import annotations

from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture, screens_test
from tests.rules.harness import typed as screen

manifest = manifest_fixture("aider")


def wrap(line: str, cols: int) -> str:
    """prompt_toolkit breaks a prompt longer than the pane at the pane width, anywhere."""
    return "\n".join(line[i : i + cols] for i in range(0, len(line), cols))


RUN = "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: "
OUTPUT = "Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: "
BEFORE = """
diff> clean the build directory

I'll remove the build directory:

rm -rf build && echo done

Tokens: 2.4k sent, 20 received.

rm -rf build && echo done
"""
RAN = BEFORE + RUN + "y\n\nRunning rm -rf build && echo done\ndone\n"

CASES: list[tuple[str, Snapshot, str]] = [
    # bash_yes-64x20 / dont_ask-64x20 (lab): the output question breaks inside its default.
    ("output-question-64-cols-Ye-s", screen(RAN + wrap(OUTPUT.rstrip(), 64), 64, 20), "blocked"),
    # variant: every other place the same question can break at widths 60..70.
    *[
        (
            f"output-question-{cols}-cols",
            screen(RAN + wrap(OUTPUT.rstrip(), cols), cols, 24),
            "blocked",
        )
        for cols in range(60, 68)
    ],
    # variant: the shell question at 40..56 columns (breaks in the options or the default).
    *[
        (
            f"run-question-{cols}-cols",
            screen(BEFORE + wrap(RUN.rstrip(), cols), cols, 24),
            "blocked",
        )
        for cols in (40, 44, 48, 50, 52, 54, 56)
    ],
    # variant: a long question over three rows at 30 columns.
    (
        "add-url-question-30-cols",
        screen(
            "https://example.com/docs\n"
            + wrap("Add URL to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:", 30),
            30,
            12,
        ),
        "blocked",
    ),
    # The answered question in the scrollback, output going on: working.
    ("output-question-answered", screen(RAN + wrap(OUTPUT + "d", 64) + "\n", 64, 24), "working"),
    # The wrapped question answered, the next prompt drawn: idle.
    (
        "output-question-answered-prompt",
        screen(RAN + wrap(OUTPUT + "n", 64) + "\n" + "─" * 64 + "\napp.py\ndiff>", 64, 30),
        "idle",
    ),
    # A draft at the input prompt that ends like a wrapped default: every row of the input
    # starts with the prompt.
    (
        "draft-ending-like-wrapped-default",
        screen("─" * 40 + "\napp.py\ndiff> Run it? (Y)es/(N)o/(D)on't ask [Ye\ndiff> s]:", 40, 10),
        "idle",
    ),
    # Answer text that streams `[Ye` at a row end, then more text: working.
    (
        "answer-text-with-bracket",
        screen(BEFORE + "The prompt then reads (Y)es/(N)o [Ye\ns] and waits for you.", 40, 24),
        "working",
    ),
    # --- architect (architect-80x24 lab capture) ----------------------------------------------
    (
        "architect-edit-the-files",
        screen(
            """
app.py
diff> /architect design a friendlier greeting for app.py

Plan: apply the friendlier greeting. In app.py, make main() print 'hello, world'
instead of 'hello'. Nothing else needs to change.


Tokens: 207 sent, 32 received.
Edit the files? (Y)es/(N)o [Yes]:""",
            80,
            24,
        ),
        "blocked",
    ),
    # variant: the same at 30 columns (breaks inside the options and the default).
    (
        "architect-edit-the-files-30-cols",
        screen(wrap("Edit the files? (Y)es/(N)o [Yes]:", 30), 30, 8),
        "blocked",
    ),
    # The architect prompt itself (chat mode architect): idle.
    ("architect-prompt", screen("─" * 80 + "\napp.py\narchitect>", 80, 10), "idle"),
    # --- ask mode (ask_mode lab capture) ------------------------------------------------------
    ("ask-prompt", screen("─" * 80 + "\napp.py\nask>", 80, 10), "idle"),
    ("ask-prompt-draft", screen("─" * 80 + "\napp.py\nask> why is it [Yes]:", 80, 10), "idle"),
    # --- --yes-always: aider answers itself and prints no question ----------------------------
    (
        "yes-always-running",
        screen(
            """
diff> add a greeting to app.py and write NOTES.md

Here is the greeting, and a new notes file.

app.py""",
            80,
            24,
        ),
        "working",
    ),
]


test_screen = screens_test(CASES)
