"""Model-side stories shared by the agents: what the fake model answers to each typed prompt.

Each prompt below contains its turn's key, so the server finds the turn from the conversation.
Texts are short but streamed slowly enough that a working state lasts a second or more."""

from __future__ import annotations

from tools.agentlab.script import Pause, Text, Thinking, Tool, Turn

PROJECT_FILES = {
    "app.py": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n",
    "README.md": "# demo\n\nA tiny demo project.\n",
    "build/out.txt": "artifact\n",
}

P_TEXT = "explain this project"
P_BASH = "clean the build directory"
P_ESSAY = "write a long essay about terminals"
P_EDIT = "add a greeting to app.py and write NOTES.md"
P_PLAN = "plan a --name option for app.py"
P_QUESTION = "set up a database"
P_LONG = "list every terminal escape you know"
P_THINK = "think hard about the structure of app.py"
P_ASKBACK = "review app.py"
# Typed but never sent: prompt phrases in the input box must not read as a prompt.
DRAFT = "Do you want to proceed? 1. Yes 2. No (y/n) Allow execution? Esc to cancel"

TEXT = Turn(
    P_TEXT,
    [
        [
            Pause(0.6),
            Text(
                "This project is a tiny Python demo. `app.py` defines `main()`, which prints a "
                "greeting, and runs it when the file is executed as a script. The README describes "
                "it in one line. There are no tests and no dependencies yet, so the quickest "
                "improvements would be a test for `main()` and a `pyproject.toml`.",
                chunk=10,
                delay=0.06,
            ),
        ]
    ],
)

# Qwen Code refuses `sleep N; ...`: an adapter can script another command of the same length.
BASH_COMMAND = "rm -rf build && sleep 2 && echo done"


def bash_turn(command: str = BASH_COMMAND) -> Turn:
    """The command turn: text, the shell call, then the answer to its result."""
    return Turn(
        P_BASH,
        [
            [
                Text("I'll remove the build directory."),
                Tool("bash", {"command": command, "description": "Remove the build directory"}),
            ],
            [Pause(0.5), Text("Done: the build directory is gone.", chunk=6, delay=0.06)],
        ],
    )


BASH = bash_turn()

# A command long enough to be interrupted while it runs (bash_interrupt): not in ALL_TURNS, the
# agents that play it list it in their own `turns`.
P_SLOW = "run the slow check"


def slow_turn(description: str = "Run the slow check") -> Turn:
    """Text, a 20 s command, then the answer to its result."""
    return Turn(
        P_SLOW,
        [
            [
                Text("Running the slow check."),
                Tool("bash", {"command": "sleep 20; echo done", "description": description}),
            ],
            [Pause(0.3), Text("The slow check finished.", chunk=6, delay=0.06)],
        ],
    )


SLOW = slow_turn()

_ESSAY = (
    "Terminals began as teletypes: a keyboard and a printer joined by a serial line. "
    "Video terminals replaced paper with a screen, and escape sequences let programs "
    "move the cursor, clear lines and change colours. "
) * 12
ESSAY = Turn(P_ESSAY, [[Pause(0.3), Text(_ESSAY, chunk=6, delay=0.08)]])

# The two file changes of the edit turns (neutral tool arguments): the greeting, the notes file.
GREETING = {"path": "app.py", "old": "    print('hello')", "new": "    print('hello, world')"}
NOTES = {"path": "NOTES.md", "content": "# Notes\n\n- the greeting now says world\n"}

EDIT_WRITE = Turn(
    P_EDIT,
    [
        [Text("Let me read app.py first."), Tool("read", {"path": "app.py"})],
        [
            Pause(0.5),
            Tool("edit", {**GREETING, "description": "greet the world"}),
        ],
        [
            Pause(0.8),
            Text("Now the notes file."),
            Tool("write", NOTES),
        ],
        [Pause(0.8), Text("Updated app.py and created NOTES.md.", chunk=6, delay=0.06)],
    ],
)

PLAN = Turn(
    P_PLAN,
    [
        [
            Text("I'll outline a plan first."),
            Tool(
                "plan",
                {
                    "plan": "## Plan: --name option\n\n1. Parse arguments with argparse in "
                    "app.py\n2. Add `--name` (default: world)\n3. Print "
                    "`hello, NAME`\n4. Add a test for the option"
                },
            ),
        ],
        [
            Pause(0.8),
            Text("Plan approved. I'll start with the argument parsing.", chunk=6, delay=0.06),
        ],
    ],
)

QUESTION = Turn(
    P_QUESTION,
    [
        [
            Text("I need one decision from you."),
            Tool(
                "question",
                {
                    "question": "Which database should the app use?",
                    "header": "Database",
                    "options": [
                        ("PostgreSQL", "Robust relational DB"),
                        ("SQLite", "File-based, zero config"),
                    ],
                },
            ),
        ],
        [Pause(0.8), Text("Good choice. I'll set it up that way.", chunk=6, delay=0.06)],
    ],
)

_LONG = "".join(
    f"{i}. `ESC [ {i} m` sets graphic rendition attribute number {i}.\n" for i in range(1, 91)
)
LONG = Turn(P_LONG, [[Pause(0.3), Text("Here is the list:\n\n" + _LONG, chunk=90, delay=0.03)]])

THINK = Turn(
    P_THINK,
    [
        [
            Thinking(
                "The user wants a careful look at app.py. It has one function, main, that prints a "
                "greeting, plus the usual __main__ guard. Things to weigh: testability (print is "
                "hard to test; returning the string helps), configuration (a name argument), and "
                "packaging (no pyproject yet). The smallest useful change is to split formatting "
                "from printing.",
                chunk=10,
                delay=0.1,
            ),
            Text(
                "app.py is fine for its size. I would split building the greeting from printing "
                "it, so it can be tested.",
                chunk=8,
                delay=0.05,
            ),
        ]
    ],
)

ASKBACK = Turn(
    P_ASKBACK,
    [
        [
            Pause(0.4),
            Text(
                "app.py is small and clear: `main()` prints a greeting and the `__main__` guard "
                "runs it.\n\nWould you like me to add a command-line option for the name?",
                chunk=8,
                delay=0.05,
            ),
        ]
    ],
)

ALL_TURNS = [TEXT, BASH, ESSAY, EDIT_WRITE, PLAN, QUESTION, LONG, THINK, ASKBACK]
