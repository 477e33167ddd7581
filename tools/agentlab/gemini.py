"""Gemini CLI (node bundle from npm) against the fake Gemini API (GOOGLE_GEMINI_BASE_URL)."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Sleep, Type
from tools.agentlab.base import (
    BASE_ENV,
    AgentSpec,
    RunDirs,
    Scenario,
    answer_turns,
    approval_turns,
    lab_home,
    scenario_maker,
)
from tools.agentlab.script import Pause, Script, Text, Thinking, Tool, Turn

SPINNER = r"esc to cancel, \d+s|\(esc to cancel"
IDLE = Cue(
    r"Type your message",
    absent=SPINNER + r"|Allow execution|Apply this change|"
    r"Waiting for user confirmation",
)
WORKING = Cue(SPINNER)
APPROVAL = Cue(r"Allow execution|Apply this change\?|Allow once")
TRUST = Cue(r"Do you trust the files in this folder|Do you trust this folder|Trust folder")
DRAFT_IDLE = Cue(r"> +Do you want to proceed", absent=SPINNER)

# Gemini redraws its whole live area every spinner tick (50-100 KB/s), so its turns are kept
# shorter than the shared ones to keep each capture at a few hundred KB.
GEMINI_TURNS = [
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
                Tool(
                    "edit",
                    {
                        "path": "app.py",
                        "old": "    print('hello')",
                        "new": "    print('hello, world')",
                        "description": "greet the world",
                    },
                ),
            ],
            [
                Text("Now the notes file."),
                Tool(
                    "write",
                    {"path": "NOTES.md", "content": "# Notes\n\n- the greeting now says world\n"},
                ),
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
]


def _start() -> list[Action]:
    return [Expect("idle", IDLE, "startup finished, input box ready", timeout=60, settle=0.8)]


def _ask(prompt: str) -> list[Action]:
    # A pause before Enter: an Enter that follows typed text too closely was sometimes taken
    # as part of a paste and did not submit (seen at 200x50).
    return [
        Type(prompt),
        Sleep(0.7),
        Keys(("Enter",), "submit prompt"),
        Expect("working", WORKING, "prompt submitted, agent working"),
    ]


def _done(note: str = "turn finished, back at the input box") -> Expect:
    return Expect("idle", IDLE, note, settle=1.0, server_quiet=True)


def _scenarios() -> list[Scenario]:
    script = Script(GEMINI_TURNS + st.ALL_TURNS)

    sc = scenario_maker(script)

    return [
        sc("startup", "launch with the workspace trusted; input box ready", _start()),
        sc("text", "a streamed text answer", _start(), _ask(st.P_TEXT), _done()),
        *approval_turns(
            sc,
            _start,
            _ask,
            _done,
            what="shell confirmation",
            approved="shell confirmation approved (Allow once)",
            dialog=Expect("blocked", APPROVAL, "shell confirmation", settle=1.2),
            first_option="1. Allow once",
            working=Expect("working", WORKING, "approved; command running"),
            back="input box",
        ),
        sc(
            "interrupt_esc",
            "long streamed answer interrupted with Esc",
            _start(),
            _ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.0),
            Keys(("Escape",), "interrupt with Esc"),
            Expect("idle", IDLE, "interrupted; back at the input box", settle=1.0),
        ),
        sc(
            "interrupt_ctrlc",
            "long streamed answer interrupted with Ctrl-C",
            _start(),
            _ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.0),
            Keys(("C-c",), "interrupt with Ctrl-C"),
            Expect("idle", IDLE, "interrupted; back at the input box", settle=1.0),
        ),
        sc(
            "edit_write",
            "edit confirmation, then new-file confirmation, both approved",
            _start(),
            _ask(st.P_EDIT),
            Expect("blocked", APPROVAL, "edit confirmation (replace)", settle=1.2),
            Keys(("Enter",), "1. Allow once"),
            Expect("working", Cue(SPINNER, absent=APPROVAL.pattern), "edit approved"),
            Expect("blocked", APPROVAL, "new-file confirmation (write_file)", settle=1.2),
            Keys(("Enter",), "1. Allow once"),
            _done(),
        ),
        *answer_turns(
            sc,
            _start,
            _ask,
            _done,
            "thought parts streamed before the answer",
            "a long answer that scrolls",
        ),
        sc(
            "draft",
            "prompt phrases typed into the input box, never sent (idle)",
            _start(),
            Type(st.DRAFT, "draft with prompt phrases, not sent"),
            Expect("idle", DRAFT_IDLE, "draft in the input box; still idle", settle=2.0),
        ),
        sc(
            "trust_dialog",
            "start-up: folder trust dialog left unanswered",
            Expect("blocked", TRUST, "folder trust dialog at start-up", timeout=60, settle=2.5),
            seed_trust=False,
        ),
    ]


class Gemini(AgentSpec):
    name = "gemini"
    folder = "gemini-cli"

    def binary(self) -> Path:
        return (
            lab_home() / "npm" / "node_modules" / "@google" / "gemini-cli" / "bundle" / "gemini.js"
        )

    @functools.cache  # noqa: B019 - one spec object per process; the version never changes
    def version(self) -> str:
        pkg = self.binary().parent.parent / "package.json"
        try:
            return str(json.loads(pkg.read_text())["version"])
        except (OSError, ValueError, KeyError):
            return "unknown"

    def scenarios(self) -> dict[str, Scenario]:
        return {s.name: s for s in _scenarios()}

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        self.write_files(dirs, scenario.files)
        self.git_init(dirs)
        gem = dirs.home / ".gemini"
        gem.mkdir()
        trusted = bool(scenario.options.get("seed_trust", True))
        settings = {
            "security": {
                "auth": {"selectedType": "gemini-api-key"},
                "folderTrust": {"enabled": not trusted},
            },
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        (gem / "settings.json").write_text(json.dumps(settings, indent=1))
        env = {
            **BASE_ENV,
            "HOME": str(dirs.home),
            "GEMINI_API_KEY": "agentlab-fake-key",
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        if trusted:
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        node = shutil.which("node") or "/usr/bin/node"
        return [node, str(self.binary())], env

    def installed(self) -> bool:
        return (
            self.binary().exists()
            and subprocess.run(["node", "--version"], capture_output=True).returncode == 0
        )
