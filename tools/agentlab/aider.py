"""aider (PyPI aider-chat, in its own venv) against the fake OpenAI chat completions API."""

from __future__ import annotations

from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Type
from tools.agentlab.base import BASE_ENV, AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect
from tools.agentlab.dress import Dress, by_name, switch
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Ui

# aider prints plain lines: the prompt is the last line (`> ` or `whole> `), a question ends
# with `[Yes]: ` and nothing typed. `Waiting for MODEL` shows only until the first token, so
# the end of a turn is taken from the fake server.
PROMPT = r"^[\w-]*> ?$"
IDLE = Cue(PROMPT, tail=1)
# The scanner `Waiting for MODEL` until the first token; without it (`--no-pretty`, and
# NO_COLOR, which turns pretty output off) nothing marks the wait, and the answer streaming is
# the cue: the last row is output, neither an input prompt nor a question.
WORKING = Cue(r"Waiting for|^(?![\w-]*(?: multi)?>)(?!.*\[(?:Yes|No)\]: *$).*\S", tail=1)
QUESTION = Cue(r"\(Y\)es/\(N\)o.*\[(Yes|No)\]: *$", tail=1)
DRAFT_IDLE = Cue(r"^[\w-]*> Do you want to proceed", tail=2)

P_ARCH = "design a friendlier greeting for app.py"
# The editor model of architect mode is sent the architect's answer as its prompt.
ARCH_HANDOFF = "apply the friendlier greeting"

AIDER_TURNS = (
    Turn(
        ARCH_HANDOFF,
        [
            [
                Pause(0.5),
                Tool("edit", st.GREETING),
            ]
        ],
    ),
    Turn(
        P_ARCH,
        [
            [
                Pause(0.5),
                Text(
                    "Plan: apply the friendlier greeting. In app.py, make main() print "
                    "'hello, world' instead of 'hello'. Nothing else needs to change.\n",
                    chunk=8,
                    delay=0.05,
                ),
            ]
        ],
    ),
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
                Tool("edit", st.GREETING),
                Tool(
                    "write",
                    {"path": "NOTES.md", "content": "# Notes\n\n- the greeting now says world"},
                ),
            ]
        ],
    ),
)


def _answer(key: str, note: str) -> list[Action]:
    # One send-keys for the letter and Enter: a typed-but-unsent "y" is a state of its own
    # that no label here is about.
    return [Keys((key, "Enter"), note)]


# The default at the end of a question, `[Yes]: ` or `[No]: `, possibly broken over two rows
# where a narrow pane wraps it (`... (D)on't ask again [Ye` / `s]: `).
DEFAULT_END = r"\[\n?(?:Y\n?e\n?s|N\n?o)\n?\]\n?: *\Z"


def _question(cue: str, note: str, quiet: bool = False) -> Expect:
    return Expect(
        "blocked",
        Cue(cue + r"[^\n]*(?:\n[^\n]*){0,2}?" + DEFAULT_END, tail=3),
        note,
        settle=1.2,
        server_quiet=quiet,
    )


class Aider(AgentSpec):
    name = "aider"
    folder = "aider"
    # aider offers no tools: commands and files are fenced blocks in the answer text.
    dialect = Dialect(tools_in_text=True)
    turns = AIDER_TURNS
    # `Waiting for MODEL` shows only until the first token: the end of a turn is taken from
    # the fake server.
    ui = Ui(
        idle=IDLE,
        working=WORKING,
        place="prompt",
        ready_note="startup finished, input prompt",
        working_note="prompt submitted, waiting for the model",
        start_timeout=90,
        done_settle=1.0,
        done_quiet=True,
    )
    # Its own switches a user sets (`record --dress`): the colours for a light terminal, and
    # its two plain modes: `--no-pretty` (no colours, no Markdown rendering, no spinner) and
    # `--no-fancy-input` (a plain `input()` prompt instead of prompt_toolkit's).
    dresses: ClassVar[dict[str, Dress]] = by_name(
        switch("light", "--light-mode", "colours for a light terminal"),
        switch("nopretty", "--no-pretty", "no colours, no Markdown rendering, no spinner"),
        switch("nofancy", "--no-fancy-input", "a plain input prompt (no prompt_toolkit)"),
    )

    pypi_dist = "aider_chat"
    launch_env: ClassVar[dict[str, str]] = {
        "OPENAI_API_KEY": "sk-agentlab-fake",
        # litellm would fetch its model price list from the internet at start-up.
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    launch_args = (
        "--model",
        "openai/fake",
        "--openai-api-base",
        "{url}/v1",
        "--edit-format",
        "diff",
        "--no-check-update",
        "--no-show-release-notes",
        "--analytics-disable",
        "--no-auto-commits",
        "--map-tokens",
        "0",
        "--no-show-model-warnings",
    )

    def build(self, s: Shapes) -> list[Scenario]:
        run_question = _question(r"\(Y\)es/\(N\)o", "Run shell command? question", quiet=True)
        return [
            s.startup("launch; input prompt ready"),
            s.text(),
            s.sc(
                "bash_yes",
                "'Run shell command?' approved, then 'Add output to the chat?' declined",
                s.start(),
                s.ask(st.P_BASH),
                run_question,
                _answer("y", "approve"),
                _question(r"Add (command )?output to the chat", "add output to the chat? question"),
                _answer("n", "decline"),
                s.done(),
            ),
            s.sc(
                "bash_no",
                "'Run shell command?' declined",
                s.start(),
                s.ask(st.P_BASH),
                run_question,
                _answer("n", "decline"),
                s.done("declined; back at the prompt"),
            ),
            s.sc(
                "edit_write",
                "'Add file to the chat?' (app.py named in the prompt), then an edit "
                "and 'Create new file?', both approved",
                s.start(),
                Type(st.P_EDIT),
                Keys(("Enter",), "submit prompt"),
                _question(
                    r"Add file to the chat\?", "Add file to the chat? question (before any request)"
                ),
                _answer("y", "approve"),
                Expect("working", WORKING, "waiting for the model"),
                _question(r"Create new file\?", "Create new file? question", quiet=True),
                _answer("y", "approve"),
                s.done(),
                chat_files=[],
            ),
            *s.interrupts(keys=("C-c",)),
            *s.answers(
                "reasoning_content streamed before the answer", "a long answer that scrolls"
            ),
            s.draft(DRAFT_IDLE, into="at the prompt", at="at the prompt"),
            s.sc(
                "mention_file",
                "an answer names a file outside the chat: 'Add file to the chat?' "
                "left unanswered after the turn",
                s.start(),
                s.ask(st.P_TEXT),
                Expect(
                    "blocked",
                    Cue(r"Add file to the chat\?.*\[(Yes|No)\]: *$", tail=1),
                    "Add file to the chat? question after the answer",
                    settle=2.5,
                    server_quiet=True,
                ),
                chat_files=[],
            ),
            *self.modes(s, run_question),
            s.startup_dialog(
                "gitignore_question",
                "'Add .aider* to .gitignore?'",
                QUESTION,
                note="gitignore question at start-up",
                gitignore_question=True,
            ),
        ]

    def modes(self, s: Shapes, run_question: Expect) -> list[Scenario]:
        """What users change: --yes-always, /architect and /ask, the (D)on't-ask-again answer."""
        output_question = _question(
            r"Add (command )?output to the chat", "add output to the chat? question"
        )
        return [
            s.sc(
                "dont_ask",
                "'Add command output to the chat?' answered (D)on't ask again; a second command"
                " then asks only 'Run shell command?'",
                s.start(),
                s.ask(st.P_BASH),
                run_question,
                _answer("y", "approve"),
                output_question,
                _answer("d", "don't ask again"),
                s.done(),
                s.ask(st.P_BASH),
                run_question,
                _answer("y", "approve"),
                s.done("second command ran; its output question was not asked"),
            ),
            s.plain(
                "yes_always_edit",
                "--yes-always: 'Add file to the chat?' and 'Create new file?' answered by aider",
                st.P_EDIT,
                chat_files=[],
                args=["--yes-always"],
            ),
            s.plain(
                "yes_always_bash",
                "--yes-always: 'Run shell command?' needs an explicit yes, aider answers no",
                st.P_BASH,
                args=["--yes-always"],
            ),
            s.sc(
                "ask_mode",
                "/ask: one question answered without edits, then /chat-mode ask (ask> prompt)",
                s.start(),
                s.ask("/ask " + st.P_TEXT),
                s.done(),
                Type("/chat-mode ask"),
                Keys(("Enter",), "switch to ask mode"),
                Expect("idle", Cue(r"^ask> ?$", tail=1), "ask> prompt", settle=1.0),
                s.ask(st.P_TEXT),
                s.done("answered in ask mode; ask> prompt"),
            ),
            s.sc(
                "architect",
                "/architect: the plan streams, 'Edit the files?' approved, the editor edits",
                s.start(),
                s.ask("/architect " + P_ARCH),
                _question(r"Edit the files\?", "Edit the files? question", quiet=True),
                _answer("y", "approve"),
                s.done(),
                # 0.86 applies the architect's plan unasked unless told otherwise.
                args=["--no-auto-accept-architect", "--editor-edit-format", "editor-diff"],
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        # Without a git identity aider prints "Update git name with: ..." at start-up.
        return {".gitconfig": "[user]\n\tname = agentlab\n\temail = agentlab@example.invalid\n"}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        return {"PATH": f"{self.binary().parent}:{BASE_ENV['PATH']}"}

    def more_args(self, dirs: RunDirs, options: Options) -> list[str]:
        argv = [] if options.get("gitignore_question") else ["--no-gitignore"]
        # aider asks "Add file to the chat?" whenever a prompt or an answer names a file that
        # is not in the chat; app.py starts in the chat except where that question is the
        # point (edit_write).
        chat_files = options.get("chat_files", ["app.py"])
        assert isinstance(chat_files, list)
        return argv + [str(f) for f in chat_files]
