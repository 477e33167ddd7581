"""Cline CLI (`cline` on npm: a node wrapper that runs the Bun-compiled `bin/.cline`) against the
fake server's OpenAI chat completions, as the `openai-compatible` provider."""

from __future__ import annotations

from typing import ClassVar

from tools.agentlab.actions import Cue, Keys
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.dress import Dress
from tools.agentlab.shapes import Shapes, Standard, Ui

# The input box is pinned at the bottom between two rules, the footer (model, mode, auto-approve)
# under it; the transcript grows down from the top, and what works is drawn at its end: a
# braille spinner row ("⠇ Thinking... (esc to cancel)", "⠹ run_commands(...)"). The approval
# replaces the input box.
# While an answer streams the spinner takes the place of its bullet on the message's first
# visible row, which may start with a scrollbar cell ("▄⠙ Here is the list:").
SPINNER = r"^.?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S"
ASK = r"Cline needs permission|Approve tool call\?|\[y\] Approve|Cline is asking a question"
IDLE = Cue(
    r"❯ [^\n]*(?:\n[^\n─]*)*\n *─{8,}\n[^\n]*(?:○ Plan ● Act|● Plan ○ Act)",
    absent=SPINNER + "|" + ASK,
)
WORKING = Cue(SPINNER + r"|esc to cancel", absent=ASK)
APPROVAL = Cue(r"Approve tool call\?[\s\S]*\[y\] Approve +\[n\] Deny")
QUESTION = Cue(r"Cline is asking a question[\s\S]*Type a response")
PROMO = Cue(r"Try ClinePass[\s\S]*Press Enter to open, any other key to close")
DRAFT_IDLE = Cue(r"❯ Do you want to proceed", absent=SPINNER)


class Cline(AgentSpec):
    name = "cline"
    folder = "cline"
    # ask_question {question, options: [str]}: the options' labels only.
    dialect = Dialect(
        tools={
            "question": ToolShape(
                "ask_question",
                lambda a: {
                    "question": a["question"],
                    "options": [o[0] if isinstance(o, (list, tuple)) else o for o in a["options"]],
                },
            )
        }
    )
    ui = Ui(
        idle=IDLE,
        working=WORKING,
        ready_note="startup finished, input box ready",
        done_quiet=True,
    )
    # Its own setting (`record --dress`): `tuiTheme` in the global settings
    # (`~/.cline/data/settings/global-settings.json`, what /theme writes): "light" is Cline
    # Light. Without it the TUI follows the terminal's background (an OSC 11 query). No
    # screen-reader or reduced-motion setting.
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", 'tuiTheme "light" (Cline Light)', options={"tui_theme": "light"})
    }
    npm_package = "cline"
    launch_args = ("--auto-approve", "false")

    standard = Standard(
        dialog=APPROVAL,
        what="tool approval ([y] Approve / [n] Deny)",
        first_option="press y",
        bash="Cline needs permission: Approve tool call?",
        approved="tool approval for run_commands approved with y",
        approve=Keys(("y",), "press y (Approve)"),
        reject=Keys(("n",), "press n (Deny)"),
        startup="launch (promo notice switched off); input box ready",
        # Ctrl-C quits Cline altogether, also mid-turn (it prints a session summary).
        interrupt_keys=("Escape",),
        edit_write="an edit of app.py and a new NOTES.md, each approved with y",
        edit="tool approval for the edit",
        write="tool approval for the new file",
        between=WORKING,
        between_note="edit approved; agent working",
        question=QUESTION,
        question_desc="ask_question dialog answered with option 1",
        question_note="Cline is asking a question: options and a response field",
        question_answer=Keys(("1",), "press 1 (first option)"),
        thinking="a reasoning block streamed before the answer",
        long_output="a long answer that scrolls the transcript",
        draft=DRAFT_IDLE,
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            s.startup_dialog(
                "promo_popup",
                "'Try ClinePass' notice (Enter opens, any other key closes)",
                PROMO,
                promo=True,
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        # What `cline auth -p openai -k ... -m ... -b URL` writes.
        provider = {
            "provider": "openai-compatible",
            "apiKey": "sk-fake",
            "model": "fake-model",
            "baseUrl": f"{url}/v1",
        }
        providers = {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {
                "openai-compatible": {
                    "settings": provider,
                    "updatedAt": "2026-12-01T13:16:05.322Z",
                    "tokenSource": "manual",
                }
            },
        }
        files: Files = {".cline/data/settings/providers.json": providers}
        theme = options.get("tui_theme")
        if theme:
            files[".cline/data/settings/global-settings.json"] = {"tuiTheme": theme}
        return files

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        return {} if options.get("promo") else {"CLINE_DISABLE_CLINE_PASS_NOTICE": "1"}
