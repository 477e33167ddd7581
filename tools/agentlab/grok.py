"""Grok CLI (`@vibe-kit/grok-cli`, an Ink app run by node as npm's `.bin/grok`) against the fake
server's OpenAI chat completions (`GROK_BASE_URL`)."""

from __future__ import annotations

from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Sleep, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.shapes import Shapes, Standard, Ui

# The input box (a round box, "│ ❯ Ask me anything... │") and the mode footer under it
# ("⏸ auto-edit: off (shift + tab)  ≋ fake-model") are the last rows; a turn shows the spinner
# row above the box ("\ Optimizing... (1s · ↑ 791 tokens · esc to interrupt)"). A confirmation
# replaces box and footer: the tool row, "Do you want to proceed with this operation?", four
# options and the key hint row.
SPINNER = r"esc to interrupt\)"
HINT_ROW = r"↑↓ navigate • Enter select • Esc cancel"
IDLE = Cue(
    r"│ ❯[^\n]*│\n *╰─+╯\n[^\n]*auto-edit: (?:off|on)", absent=SPINNER + "|" + HINT_ROW, tail=5
)
WORKING = Cue(SPINNER, absent=HINT_ROW, tail=8)
CONFIRM = Cue(
    r"(?s)Do you want to proceed with this operation\?.*1\. Yes.*4\. No, with feedback.*" + HINT_ROW
)
FEEDBACK = Cue(r"Type your feedback and press Enter, or press Escape to go back")
DRAFT_IDLE = Cue(r"│ ❯ Do you want to proceed", absent=SPINNER)


def _keys(*keys: str, note: str) -> list[Action]:
    """Keys one by one: Ink reads an arrow and an Enter that arrive in one read as one unknown
    sequence, and the dialog ignores it."""
    out: list[Action] = []
    for key in keys:
        if out:
            out.append(Sleep(0.3))
        out.append(Keys((key,), f"{note}: {key}"))
    return out


class Grok(AgentSpec):
    name = "grok"
    folder = "grok"  # captures/grok-<version>-lab
    turns = (st.SLOW,)
    ui = Ui(
        idle=IDLE,
        working=WORKING,
        submit_pause=0.5,
        done_quiet=True,
    )

    # `grok --version` prints a hard-coded 1.0.1: the package's version is read.
    npm_package = "@vibe-kit/grok-cli"
    launch_env: ClassVar[dict[str, str]] = {
        "GROK_API_KEY": "sk-agentlab-fake",
        "GROK_BASE_URL": "{url}/v1",
        "GROK_MODEL": "fake-model",
    }

    standard = Standard(
        dialog=CONFIRM,
        what="confirmation",
        first_option="1. Yes (selected)",
        bash="Do you want to proceed with this operation?",
        approved="confirmation answered with 1. Yes",
        reject=None,  # bash_no is its own: the keys go one by one
        slow=Expect("working", Cue(r"Executing", absent=HINT_ROW), "command running", settle=1.5),
        interrupt_keys=("Escape",),
        edit_write="an edit of app.py and a new NOTES.md, each approved with 1. Yes",
        between=Cue(SPINNER, absent=HINT_ROW),
        draft=DRAFT_IDLE,
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            s.sc(
                "bash_no",
                "confirmation rejected by choosing 3. No",
                s.start(),
                s.ask(st.P_BASH),
                s.blocked(CONFIRM, "Do you want to proceed with this operation?"),
                # No digit keys: the highlight moves with the arrows (wrapping).
                _keys("Down", "Down", "Enter", note="3. No"),
                s.done("rejected with No; back at the input box"),
            ),
            s.sc(
                "bash_feedback",
                "confirmation answered with 4. No, with feedback, the feedback typed and sent",
                s.start(),
                s.ask(st.P_BASH),
                s.blocked(CONFIRM, "Do you want to proceed with this operation?"),
                _keys("Up", "Enter", note="4. No, with feedback (Up wraps to it)"),
                s.blocked(FEEDBACK, "the feedback field of the rejection"),
                Type("keep the build directory", "feedback"),
                Sleep(0.5),
                Keys(("Enter",), "send the feedback"),
                s.done("rejected with feedback; back at the input box"),
            ),
            s.mode_cycle(
                "mode_switch",
                "shift+tab turns auto-edit on and off again (idle throughout)",
                [
                    ("auto-edit on", Cue(r"auto-edit: on", tail=2), "auto-edit on, idle"),
                    ("auto-edit off", Cue(r"auto-edit: off", tail=2), "auto-edit off, idle"),
                ],
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        return {
            ".grok/user-settings.json": {
                "baseURL": f"{url}/v1",
                "defaultModel": "fake-model",
                "models": ["fake-model"],
                "apiKey": "sk-agentlab-fake",
                "settingsVersion": 2,
            }
        }
