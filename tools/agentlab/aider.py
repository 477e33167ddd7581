"""aider (PyPI aider-chat, in its own venv) against the fake OpenAI chat completions API."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Type
from tools.agentlab.base import (
    BASE_ENV,
    AgentSpec,
    RunDirs,
    Scenario,
    answer_turns,
    lab_home,
    scenario_maker,
)
from tools.agentlab.dialect import Dialect
from tools.agentlab.script import Pause, Script, Text, Tool, Turn

# aider prints plain lines: the prompt is the last line (`> ` or `whole> `), a question ends
# with `[Yes]: ` and nothing typed. `Waiting for MODEL` shows only until the first token, so
# the end of a turn is taken from the fake server.
PROMPT = r"^[\w-]*> ?$"
IDLE = Cue(PROMPT, tail=1)
WORKING = Cue(r"Waiting for")
QUESTION = Cue(r"\(Y\)es/\(N\)o.*\[(Yes|No)\]: *$", tail=1)
DRAFT_IDLE = Cue(r"^[\w-]*> Do you want to proceed", tail=2)

AIDER_TURNS = [
    Turn(
        st.P_BASH,
        [
            [
                Pause(0.5),
                Text("I'll remove the build directory:\n"),
                Tool("bash", {"command": "rm -rf build && echo done"}),
            ]
        ],
    ),
    Turn(
        st.P_EDIT,
        [
            [
                Pause(0.5),
                Text("Here is the greeting, and a new notes file.\n"),
                Tool(
                    "edit",
                    {
                        "path": "app.py",
                        "old": "    print('hello')",
                        "new": "    print('hello, world')",
                    },
                ),
                Tool(
                    "write",
                    {"path": "NOTES.md", "content": "# Notes\n\n- the greeting now says world"},
                ),
            ]
        ],
    ),
]


def _start() -> list[Action]:
    return [Expect("idle", IDLE, "startup finished, input prompt", timeout=90, settle=0.8)]


def _ask(prompt: str) -> list[Action]:
    return [
        Type(prompt),
        Keys(("Enter",), "submit prompt"),
        Expect("working", WORKING, "prompt submitted, waiting for the model"),
    ]


def _done(note: str = "turn finished, back at the prompt") -> Expect:
    return Expect("idle", IDLE, note, settle=1.0, server_quiet=True)


def _answer(key: str, note: str) -> list[Action]:
    # One send-keys for the letter and Enter: a typed-but-unsent "y" is a state of its own
    # that no label here is about.
    return [Keys((key, "Enter"), note)]


def _scenarios() -> list[Scenario]:
    script = Script(AIDER_TURNS + st.ALL_TURNS)

    sc = scenario_maker(script)

    return [
        sc("startup", "launch; input prompt ready", _start()),
        sc("text", "a streamed text answer", _start(), _ask(st.P_TEXT), _done()),
        sc(
            "bash_yes",
            "'Run shell command?' approved, then 'Add output to the chat?' declined",
            _start(),
            _ask(st.P_BASH),
            Expect(
                "blocked", QUESTION, "Run shell command? question", settle=1.2, server_quiet=True
            ),
            _answer("y", "approve"),
            Expect(
                "blocked",
                Cue(r"Add (command )?output to the chat.*\[(Yes|No)\]: *$", tail=1),
                "add output to the chat? question",
                settle=1.2,
            ),
            _answer("n", "decline"),
            _done(),
        ),
        sc(
            "bash_no",
            "'Run shell command?' declined",
            _start(),
            _ask(st.P_BASH),
            Expect(
                "blocked", QUESTION, "Run shell command? question", settle=1.2, server_quiet=True
            ),
            _answer("n", "decline"),
            _done("declined; back at the prompt"),
        ),
        sc(
            "edit_write",
            "'Add file to the chat?' (app.py named in the prompt), then an edit "
            "and 'Create new file?', both approved",
            _start(),
            Type(st.P_EDIT),
            Keys(("Enter",), "submit prompt"),
            Expect(
                "blocked",
                Cue(r"Add file to the chat\?.*\[(Yes|No)\]: *$", tail=1),
                "Add file to the chat? question (before any request)",
                settle=1.2,
            ),
            _answer("y", "approve"),
            Expect("working", WORKING, "waiting for the model"),
            Expect(
                "blocked",
                Cue(r"Create new file\?.*\[(Yes|No)\]: *$", tail=1),
                "Create new file? question",
                settle=1.2,
                server_quiet=True,
            ),
            _answer("y", "approve"),
            _done(),
            chat_files=[],
        ),
        sc(
            "interrupt_ctrlc",
            "long streamed answer interrupted with Ctrl-C",
            _start(),
            _ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.5),
            Keys(("C-c",), "interrupt with Ctrl-C"),
            Expect("idle", IDLE, "interrupted; back at the prompt", settle=1.0),
        ),
        *answer_turns(
            sc,
            _start,
            _ask,
            _done,
            "reasoning_content streamed before the answer",
            "a long answer that scrolls",
        ),
        sc(
            "draft",
            "prompt phrases typed at the prompt, never sent (idle)",
            _start(),
            Type(st.DRAFT, "draft with prompt phrases, not sent"),
            Expect("idle", DRAFT_IDLE, "draft at the prompt; still idle", settle=2.0),
        ),
        sc(
            "mention_file",
            "an answer names a file outside the chat: 'Add file to the chat?' "
            "left unanswered after the turn",
            _start(),
            _ask(st.P_TEXT),
            Expect(
                "blocked",
                Cue(r"Add file to the chat\?.*\[(Yes|No)\]: *$", tail=1),
                "Add file to the chat? question after the answer",
                settle=2.5,
                server_quiet=True,
            ),
            chat_files=[],
        ),
        sc(
            "gitignore_question",
            "start-up: 'Add .aider* to .gitignore?' left unanswered",
            Expect("blocked", QUESTION, "gitignore question at start-up", timeout=90, settle=2.5),
            gitignore_question=True,
        ),
    ]


class Aider(AgentSpec):
    name = "aider"
    folder = "aider"
    # aider offers no tools: commands and files are fenced blocks in the answer text.
    dialect = Dialect(tools_in_text=True)

    def binary(self) -> Path:
        return lab_home() / "aider-venv" / "bin" / "aider"

    @functools.cache  # noqa: B019 - one spec object per process; the version never changes
    def version(self) -> str:
        py = self.binary().parent / "python"
        out = subprocess.run(
            [str(py), "-c", "import aider; print(aider.__version__)"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        return out.stdout.strip() or "unknown"

    def scenarios(self) -> dict[str, Scenario]:
        return {s.name: s for s in _scenarios()}

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        self.write_files(dirs, scenario.files)
        self.git_init(dirs)
        # Without a git identity aider prints "Update git name with: ..." at start-up.
        (dirs.home / ".gitconfig").write_text(
            "[user]\n\tname = agentlab\n\temail = agentlab@example.invalid\n"
        )
        env = {
            **BASE_ENV,
            "HOME": str(dirs.home),
            "OPENAI_API_KEY": "sk-agentlab-fake",
            # litellm would fetch its model price list from the internet at start-up.
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PATH": f"{self.binary().parent}:{BASE_ENV['PATH']}",
        }
        argv = [
            str(self.binary()),
            "--model",
            "openai/fake",
            "--openai-api-base",
            f"{url}/v1",
            "--edit-format",
            "diff",
            "--no-check-update",
            "--no-show-release-notes",
            "--analytics-disable",
            "--no-auto-commits",
            "--map-tokens",
            "0",
            "--no-show-model-warnings",
        ]
        if not scenario.options.get("gitignore_question"):
            argv.append("--no-gitignore")
        # aider asks "Add file to the chat?" whenever a prompt or an answer names a file that
        # is not in the chat; app.py starts in the chat except where that question is the
        # point (edit_write).
        chat_files = scenario.options.get("chat_files", ["app.py"])
        assert isinstance(chat_files, list)
        argv += [str(f) for f in chat_files]
        return argv, env
