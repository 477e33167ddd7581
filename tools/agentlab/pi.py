"""Pi (`@mariozechner/pi-coding-agent`, node) against the fake chat completions API.

Pi asks nothing by itself: the lab installs an extension of its own (`pi_lab_extension.ts`)
that gates commands, edits and new files with Pi's extension dialogs (select, confirm, input,
editor) and offers a `question` tool drawn as a component of its own, as people's approval
extensions do. Its screen: rules/pi.toml, rules/NOTES-pi.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dress import Dress, by_name
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard, Ui

EXTENSION = Path(__file__).with_name("pi_lab_extension.ts")

# The loader row above the input box: a braille spinner and its words.
LOADER = r"(?m)^ [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S"
# Any dialog an extension puts up ends in a key hint row.
HINTS = r"↑↓ navigate|submit  |navigate •"
# The footer's stats row (context use, then the model) right under the input box.
IDLE = Cue(r"\d%/\d+k \(auto\)", absent=LOADER + "|" + HINTS, tail=8)
# Working: the loader without a dialog under it (the loader keeps spinning while a tool call
# waits for a dialog's answer).
WORKING = Cue(LOADER, absent=HINTS)
RUN_ASK = Cue(r"Run this command\?")
EDIT_ASK = Cue(r"^ Edit \S*app\.py\?")
CREATE_ASK = Cue(r"^ Create \S*NOTES\.md\?")
WHY_ASK = Cue(r"^ Why not\?")
CONTENT_EDITOR = Cue(r"^ Content of \S*NOTES\.md$")
QUESTION = Cue(r"^ Which database should the app use\?")
CWD_GONE = Cue(r"cwd from session file does not exist")
DRAFT_IDLE = Cue(r"Do you want to proceed\?", absent=LOADER)
RUNNING = Cue(r"Elapsed \d")

STEER = "also look at the tests"
P_NOTES = "write the notes file"
# A command that runs long enough to be interrupted, and a turn with a new file only.
PI_TURNS = (
    st.slow_turn("slow check"),
    Turn(
        P_NOTES,
        [
            [
                Text("I'll write the notes file."),
                Tool("write", st.NOTES),
            ],
            [Pause(0.3), Text("NOTES.md is written.", chunk=6, delay=0.06)],
        ],
    ),
)
# The session `session_cwd` resumes: it was started in a folder that is gone.
GONE = "gone-project"


def down(n: int, note: str) -> Keys:
    return Keys(("Down",) * n + ("Enter",), note)


class Pi(AgentSpec):
    name = "pi"
    folder = "pi"
    turns = PI_TURNS
    ui = Ui(idle=IDLE, working=WORKING)
    # Its own settings (`record --dress`, docs/settings.md "UI & Display"): the built-in light
    # theme, and the start-up header hidden (`quietStartup`). Pi has no screen-reader or
    # reduced-motion setting.
    dresses: ClassVar[dict[str, Dress]] = by_name(
        Dress("light", 'theme "light" (built-in)', options={"pi_settings": {"theme": "light"}}),
        Dress(
            "quiet",
            "quietStartup: no start-up header",
            options={"pi_settings": {"quietStartup": True}},
        ),
    )
    npm_package = "@mariozechner/pi-coding-agent"
    launch_env: ClassVar[dict[str, str]] = {
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        models = {
            "providers": {
                "fake": {
                    "baseUrl": f"{url}/v1",
                    "api": "openai-completions",
                    "apiKey": "agentlab-fake-key",
                    "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                    "models": [{"id": "fake-model", "name": "Fake Model", "reasoning": False}],
                }
            }
        }
        settings = {
            "defaultProvider": "fake",
            "defaultModel": "fake-model",
            "enableInstallTelemetry": False,
            # the "What's new" notes of a first start after an update
            "lastChangelogVersion": self.version(),
        }
        settings.update(options.get("pi_settings", {}))  # type: ignore[call-overload]
        files: Files = {
            ".pi/agent/models.json": models,
            ".pi/agent/settings.json": settings,
            ".pi/agent/extensions/lab-gate.ts": EXTENSION.read_text(),
        }
        if options.get("gone_session"):
            files[str(gone_session(dirs))] = _gone_session(dirs)
        return files

    def more_args(self, dirs: RunDirs, options: Options) -> list[str]:
        return ["--session", str(gone_session(dirs))] if options.get("gone_session") else []

    standard = Standard(
        dialog=RUN_ASK,
        what="the gate's command select",
        first_option="Yes",
        bash="an extension's select before the command",
        approved="the gate's command select approved (Yes)",
        reject=down(3, "choose No"),
        startup="launch; input box ready (the lab's gate extension loaded)",
        slow=Expect("working", RUNNING, "the command runs (Elapsed)", settle=1.5),
        interrupt_keys=("Escape",),
        edit_write="the edit confirmed (ctx.ui.confirm), then the new file allowed (ctx.ui.select)",
        edit_dialog=EDIT_ASK,
        edit="an extension's confirm before the edit",
        write_dialog=CREATE_ASK,
        write="an extension's select before the new file",
        between=WORKING,
        question=QUESTION,
        question_desc="the model asks through an extension's question tool (ctx.ui.custom)",
        question_note="an extension's own question component",
        question_answer=Keys(("Down", "Enter"), "choose SQLite"),
        question_after="answered; the model goes on",
        thinking="thinking streamed before the answer",
        draft=DRAFT_IDLE,
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            s.dialog_turn(
                "bash_why",
                "command refused with a reason typed into the gate's text field (ctx.ui.input)",
                st.P_BASH,
                s.blocked(RUN_ASK, "an extension's select before the command"),
                down(2, "choose No, and tell Pi why"),
                [
                    s.blocked(WHY_ASK, "an extension's text field: why not?"),
                    Type("not on this branch", "the reason"),
                    Keys(("Enter",), "submit the reason"),
                ],
            ),
            s.ctrlc_goes_on(
                "Ctrl-C while the answer streams only clears the input box (a draft typed "
                "meanwhile): still working; Esc then interrupts",
                [
                    Expect(None, Cue("Terminals began"), "answer streaming", settle=1.0),
                    Type(STEER, "a draft typed while it works"),
                    Expect(
                        "working",
                        Cue(LOADER + "(?s:.*)" + STEER, absent=HINTS),
                        "a draft in the input box while it works",
                    ),
                ],
                "Ctrl-C",
                Expect(
                    "working",
                    Cue(LOADER, absent=STEER + "|" + HINTS),
                    "Ctrl-C cleared the draft; the answer streams on",
                    settle=2.0,
                ),
            ),
            s.dialog_turn(
                "write_editor",
                "the new file's content edited first in the gate's editor (ctx.ui.editor)",
                P_NOTES,
                s.blocked(CREATE_ASK, "an extension's select before the new file"),
                down(1, "choose Edit the content first"),
                [
                    s.blocked(CONTENT_EDITOR, "an extension's editor with the content"),
                    Keys(("Enter",), "submit the content as it is"),
                ],
            ),
            s.startup_dialog(
                "session_cwd",
                "Pi's own question: the resumed session's folder is gone",
                CWD_GONE,
                gone_session=True,
            ),
        ]


def gone_session(dirs: RunDirs) -> Path:
    """Where the session of `session_cwd` is kept: in the run directory."""
    return dirs.root / "old-session.jsonl"


def _gone_session(dirs: RunDirs) -> str:
    """A session file whose folder no longer exists (a project moved or deleted)."""
    header = {
        "type": "session",
        "version": 3,
        "id": "01a2323f-509d-711e-8748-00000000a1ab",
        "timestamp": "2026-11-30T10:00:00.000Z",
        "cwd": str(dirs.root / GONE),
    }
    message = {
        "type": "message",
        "id": "a1ab0001",
        "parentId": None,
        "timestamp": "2026-11-30T10:00:01.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": st.P_TEXT}],
            "timestamp": 1796000000000,
        },
    }
    return json.dumps(header) + "\n" + json.dumps(message) + "\n"
