"""Gemini CLI (node bundle from npm) against the fake Gemini API (GOOGLE_GEMINI_BASE_URL)."""

from __future__ import annotations

import shutil
import subprocess
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Sleep, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dress import Dress
from tools.agentlab.gemini_family import (
    NO_REPORTS,
    family_ui,
    security,
    trusted,
    ui_block,
    ui_dresses,
)
from tools.agentlab.script import Pause, Text, Thinking, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard

SPINNER = r"esc to cancel, \d+s|\(esc to cancel"
IDLE = Cue(
    r"Type your message",
    absent=SPINNER + r"|Allow execution|Apply this change|"
    r"Waiting for user confirmation",
)
WORKING = Cue(SPINNER)
APPROVAL = Cue(r"Allow execution|Apply this change\?|Allow once")
DRAFT_IDLE = Cue(r"> +Do you want to proceed", absent=SPINNER)
APPROVE = Keys(("Enter",), "1. Allow once")
# The question with its menu: a read that has drawn the question but not yet the options (a
# frame split between two pipe-pane reads, seen at 200x50 on a loaded machine) is not a dialog
# anyone can answer yet.
TRUST = Cue(r"(?s)(?:Do you trust the files in this folder|Do you trust this folder).*Trust folder")

# Loop detection (LoopDetectionService in the bundle): within one prompt, the 5th identical tool
# call in a row, or a 50-character chunk of streamed text seen 10 times close together, is a
# loop. The first time, Gemini CLI only sends the model a feedback message ("System: Potential
# loop detected. Details: Repeated tool call: ... / Repeating content detected: ..."); the dialog
# opens when the model loops again after it (the second detection of the prompt).
LOOP_DIALOG = Cue(r"A potential loop was detected", absent=SPINNER)
P_LOOP = "keep checking app.py until it changes"
P_CHANT = "tell me when the build is ready"
LOOP_READ = [Text("Checking app.py again.", chunk=8, delay=0.05), Tool("read", {"path": "app.py"})]
CHANT = Text(
    "Still waiting for the build to finish, checking once more. " * 14, chunk=12, delay=0.03
)

REWIND_LIST = Cue(r"Use Enter to select a message|Select a conversation point", absent=SPINNER)
REWIND_CONFIRM = Cue(r"Confirm Rewind")

# Gemini redraws its whole live area every spinner tick (50-100 KB/s), so its turns are kept
# shorter than the shared ones to keep each capture at a few hundred KB.
GEMINI_TURNS = (
    Turn(
        st.P_BASH,
        [
            [
                Text("I'll remove the build directory."),
                Tool(
                    "bash",
                    {
                        "command": "rm -rf build && sleep 1 && echo done",
                        "description": "Remove the build directory",
                    },
                ),
            ],
            [Text("Done: the build directory is gone.")],
        ],
    ),
    Turn(
        st.P_EDIT,
        [
            [
                Text("I'll update app.py."),
                Tool("edit", {**st.GREETING, "description": "greet the world"}),
            ],
            [
                Text("Now the notes file."),
                Tool("write", st.NOTES),
            ],
            [Text("Updated app.py and created NOTES.md.")],
        ],
    ),
    Turn(
        st.P_THINK,
        [
            [
                Thinking(
                    "**Weighing app.py** It has one function that prints a greeting; splitting "
                    "formatting from printing would make it testable.",
                    chunk=16,
                    delay=0.1,
                ),
                Text("I would split building the greeting from printing it, so it can be tested."),
            ]
        ],
    ),
    # Five identical read_file calls (read-only: no approval dialog in between), then the same
    # call again in answer to Gemini CLI's loop feedback: the second detection opens the dialog.
    # After "Disable loop detection" the request is retried and the model gives up.
    Turn(P_LOOP, [LOOP_READ] * 5 + [[Text("app.py has not changed.")]]),
    # The same sentence over and over (no list, heading or code fence: those reset the count),
    # and again in answer to the feedback.
    Turn(P_CHANT, [[CHANT]]),
    Turn("repeating content detected", [[CHANT]]),
    Turn(
        "repeated tool call: read_file",
        [
            [Tool("read", {"path": "app.py"})],
            [Text("app.py still prints hello; I stopped checking it.", chunk=8, delay=0.05)],
        ],
    ),
    Turn(
        st.P_TEXT,
        [
            [
                Pause(0.3),
                Text(
                    "This project is a tiny Python demo: `app.py` defines `main()`, which prints a "
                    "greeting. There are no tests yet.",
                    chunk=16,
                    delay=0.05,
                ),
            ]
        ],
    ),
)


class Gemini(AgentSpec):
    name = "gemini"
    folder = "gemini-cli"
    turns = GEMINI_TURNS
    # Its settings a user can turn on, as `--dress NAME`.
    dresses: ClassVar[dict[str, Dress]] = ui_dresses("Default Light")
    # A pause before Enter: an Enter that follows typed text too closely was sometimes taken
    # as part of a paste and did not submit (seen at 200x50). Turns are kept shorter than
    # Claude's (see GEMINI_TURNS).
    ui = family_ui(IDLE, WORKING, submit_pause=1.2)
    standard = Standard(
        dialog=APPROVAL,
        what="shell confirmation",
        first_option="1. Allow once",
        approved="shell confirmation approved (Allow once)",
        bash="shell confirmation",
        edit="edit confirmation (replace)",
        write="new-file confirmation (write_file)",
        draft=DRAFT_IDLE,
        startup="launch with the workspace trusted; input box ready",
        thinking="thought parts streamed before the answer",
        trust=TRUST,
    )

    # One of the first three agents: install.sh puts it in the shared prefix `npm/`.
    npm_dir = "npm"
    npm_package = "@google/gemini-cli"
    npm_entry = "bundle/gemini.js"
    launch_env: ClassVar[dict[str, str]] = {
        "GEMINI_API_KEY": "agentlab-fake-key",
        "GOOGLE_GEMINI_BASE_URL": "{url}",
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }

    def command(self) -> list[str]:
        return [shutil.which("node") or "/usr/bin/node", str(self.binary())]

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [*self.approval_modes(s), *self.loop_scenarios(s)]

    def approval_modes(self, s: Shapes) -> list[Scenario]:
        """What users change: YOLO and auto-edit approval modes, /rewind (checkpoints)."""
        auto_edit = ["--approval-mode", "auto_edit"]
        return [
            s.plain(
                "yolo_bash",
                "--yolo: the shell command runs without a confirmation",
                st.P_BASH,
                args=["--yolo"],
            ),
            s.plain(
                "auto_edit_write",
                "--approval-mode auto_edit: the edit and the new file go through unasked",
                st.P_EDIT,
                args=auto_edit,
            ),
            s.bash_turn(
                "auto_edit_bash",
                "--approval-mode auto_edit: a shell command still asks; approved",
                s.blocked(APPROVAL, "shell confirmation (auto-edit mode)"),
                APPROVE,
                args=auto_edit,
            ),
            s.sc(
                "rewind",
                "auto-edited turn, then /rewind: the message list, then Confirm Rewind,"
                " cancelled with Esc",
                s.start(),
                s.ask(st.P_EDIT),
                s.done(),
                Type("/rewind"),
                Sleep(0.7),
                Keys(("Enter",), "open /rewind"),
                Expect("blocked", REWIND_LIST, "rewind: pick a message", settle=1.5),
                # The list starts on "Stay at current position", under the messages.
                Keys(("Up",), "move to the prompt"),
                Sleep(0.5),
                Keys(("Enter",), "pick the message"),
                s.blocked(REWIND_CONFIRM, "Confirm Rewind dialog"),
                Keys(("Escape",), "do nothing (esc)"),
                Expect(
                    "blocked",
                    Cue(r"Use Enter to select a message", absent=r"Confirm Rewind"),
                    "back at the rewind list",
                    settle=1.2,
                ),
                Keys(("Escape",), "close the list (esc)"),
                s.back("rewind cancelled; back at the input box"),
                args=auto_edit,
            ),
        ]

    def loop_scenarios(self, s: Shapes) -> list[Scenario]:
        """The loop-detection dialog, answered both ways."""
        dialog = s.blocked(LOOP_DIALOG, "loop detection dialog (repeated identical tool calls)")
        return [
            s.sc(
                "loop_keep",
                "the model repeats one read_file call: loop detection dialog; Esc keeps loop"
                " detection enabled and halts the request",
                s.start(),
                s.ask(P_LOOP),
                dialog,
                Keys(("Escape",), "keep loop detection enabled (esc)"),
                s.back("request halted; back at the input box"),
            ),
            s.dialog_turn(
                "loop_disable",
                "the model repeats one read_file call: loop detection dialog; 2 disables loop"
                " detection for the session and the request is retried",
                P_LOOP,
                dialog,
                Keys(("2",), "2. Disable loop detection for this session"),
                s.working("loop detection disabled; request retried"),
            ),
            s.sc(
                "loop_chant",
                "the model streams the same sentence over and over: loop detection dialog; Esc"
                " keeps loop detection enabled and halts the request",
                s.start(),
                s.ask(P_CHANT),
                s.blocked(LOOP_DIALOG, "loop detection dialog (repeated text)"),
                Keys(("Escape",), "keep loop detection enabled (esc)"),
                s.back("request halted; back at the input box"),
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        general = {"disableAutoUpdate": True, "disableUpdateNag": True}
        settings = {
            **security("gemini-api-key", options),
            "general": general,
            **NO_REPORTS,
            **ui_block(options),
        }
        return {".gemini/settings.json": settings}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        return {"GEMINI_CLI_TRUST_WORKSPACE": "true"} if trusted(options) else {}

    def installed(self) -> bool:
        return (
            self.binary().exists()
            and subprocess.run(["node", "--version"], capture_output=True).returncode == 0
        )
