"""Droid (Factory's `@factory/cli`: the native `droid` of `@factory/cli-linux-x64`) in airgap mode
against the fake server's OpenAI chat completions, as a custom `generic-chat-completion-api`
model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from osf_tmux.agents.hooks import hooks_table
from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario, timed_hook
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.dress import Dress
from tools.agentlab.shapes import Shapes, Standard, Ui

# The input box is pinned at the bottom: the mode row above it ("Auto (Off) · all actions require
# approval ... Fake Model"), the box, and a help row under it ("? for help", "[⏱ 12s] ? for
# help"). A turn shows a braille spinner row above the mode row ("⡄ Thinking...  (Press ESC to
# stop)", "Executing...", after an interrupt "⠰ Cancelling tools...  (Please wait)" until the
# tool has stopped), and the input box's placeholder becomes "Enter to steer". Approvals replace
# the mode row and the input box with a question, a box of choices and a key hint row; in spec
# mode the box's top edge reads "╭── Spec ──╮".
STOP_HINT = r"^ [⠀-⣿] \S[^\n]*\((?:Press ESC to stop|Please wait)\)"
HINT_ROW = r"↑↓ navigate .*Enter select|↑/↓ Navigate • .*Select"
IDLE = Cue(r"│ >[^\n]*│\n╰─+╯\n[^\n]*\? for help", absent=STOP_HINT + "|" + HINT_ROW, tail=6)
WORKING = Cue(STOP_HINT, absent=HINT_ROW, tail=8)
# "Command to approve · low risk / ↳ cmd / Why this needs approval: ..." above the box of choices
APPROVAL = Cue(r"(?s)Command to approve.*Yes, allow.*No, cancel.*navigate .*Enter select")
EDIT_APPROVAL = Cue(r"(?s)(?:Edit|Create) .*Yes, allow.*No, cancel.*navigate .*Enter select")
TRUST = Cue(r"(?s)Trust this folder\?.*1\. Trust this folder.*Enter to confirm")
QUESTION = Cue(
    r"(?s)Which database should the app use\?.*SQLite.*Or type your own answer.*Navigate"
)
SPEC = Cue(r"(?s)Propose Specification.*Proceed with the proposal.*No and explain why.*navigate")
AUTONOMY = Cue(r"(?s)Proceed with Manual Approvals.*Proceed with High autonomy.*navigate")
SPEC_IDLE = Cue(r"Spec", absent=STOP_HINT + "|" + HINT_ROW, tail=6)
DRAFT_IDLE = Cue(r"│ > Do you want to proceed", absent=STOP_HINT)

EXECUTING = Expect("working", Cue(r"Executing", absent=HINT_ROW), "command running", settle=1.5)
STREAMING = Expect(None, Cue(r"Streaming\.\.\."), "answer streaming (not shown yet)", settle=3.0)


def _questionnaire(a: dict[str, Any]) -> dict[str, Any]:
    """AskUser takes one plain-text questionnaire: `[question]`, `[topic]`, `[option]` lines."""
    options = "".join(f"[option] {label}\n" for label, _ in a["options"])
    return {
        "questionnaire": f"1. [question] {a['question']}\n[topic] {a.get('header', 'Choice')}\n"
        + options
    }


class Droid(AgentSpec):
    name = "droid"
    folder = "droid"  # captures/droid-<version>-lab
    turns = (st.SLOW,)
    dialect = Dialect(tools={"question": ToolShape("AskUser", _questionnaire)})
    ui = Ui(
        idle=IDLE,
        working=WORKING,
        start_timeout=90,
        submit_pause=0.5,
        done_quiet=True,
    )
    # Its own settings as `--dress NAME`: the light theme (settings.json `theme`, the
    # built-in `factory-light`; the default `auto` follows the terminal's background).
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", "theme factory-light", options={"theme": "factory-light"}),
    }
    npm_package = "@factory/cli-linux-x64"  # the native binary, not the node wrapper
    npm_entry = "bin/droid"
    launch_env: ClassVar[dict[str, str]] = {
        "FACTORY_AIRGAP_ENABLED": "true",
        "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false",
    }

    standard = Standard(
        dialog=APPROVAL,
        what="command approval",
        first_option="Yes, allow",
        bash="Command to approve",
        approved="command approval answered with Yes, allow",
        reject=Keys(("Up", "Enter"), "No, cancel (the last choice)"),
        startup="launch in a trusted folder; input box ready",
        slow=EXECUTING,
        # Droid shows an answer only once it is complete (the spinner row reads "Streaming..."
        # meanwhile): the interrupt waits for that row, then a while.
        streaming=STREAMING,
        interrupt_keys=("Escape",),
        edit_dialog=EDIT_APPROVAL,
        edit="edit approval",
        write="new-file approval",
        edit_write="an edit of app.py and a new NOTES.md, each approved",
        between=Cue(STOP_HINT, absent=HINT_ROW),
        question=QUESTION,
        question_desc="AskUser questionnaire answered with its first option",
        question_note="AskUser questionnaire",
        question_answer=Keys(("Enter",), "pick the first option"),
        question_after=None,
        draft=DRAFT_IDLE,
        trust=TRUST,
        hooks=True,
        hooks_approved="command approval answered",
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            s.ctrlc_goes_on(
                "Ctrl-C while the answer streams only warns (press again to exit): still "
                "working; Esc then interrupts",
                STREAMING,
                "Ctrl-C once",
                Expect(
                    "working",
                    Cue(r"Press Ctrl\+C again to exit(?s:.*)" + STOP_HINT),
                    "the exit warning; the turn goes on",
                    settle=1.5,
                ),
            ),
            s.dialog_turn(
                "plan",
                "Spec mode (shift+tab): the plan of ExitSpecMode approved",
                st.P_PLAN,
                s.blocked(SPEC, "spec approval"),
                Keys(("Enter",), "1. Proceed with the proposal"),
                [
                    s.blocked(AUTONOMY, "second stage: the autonomy to proceed with"),
                    Keys(("Enter",), "1. Proceed with Manual Approvals"),
                ],
                start=[
                    *s.start(),
                    Keys(("BTab",), "shift+tab: Spec mode"),
                    Expect("idle", SPEC_IDLE, "Spec mode, idle", settle=1.0),
                ],
            ),
            s.hooks_bash(
                "",
                s.blocked(APPROVAL, "Command to approve"),
                Keys(("Enter",), "Yes, allow"),
                name="hooks_launch",
                desc="as hooks_bash, the hooks given for this run only (`--settings FILE`)",
                hooks="settings",
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        settings: dict[str, object] = {
            "customModels": [
                {
                    "model": "fake-model",
                    "id": "custom:Fake-Model-0",
                    "index": 0,
                    "baseUrl": f"{url}/v1",
                    "apiKey": "sk-agentlab-fake",
                    "displayName": "Fake Model",
                    "maxOutputTokens": 4096,
                    "noImageSupport": True,
                    "provider": "generic-chat-completion-api",
                }
            ],
            "sessionDefaultSettings": {"model": "custom:Fake-Model-0"},
            "logoAnimation": "off",
        }
        if options.get("theme"):
            settings["theme"] = options["theme"]
        if options.get("seed_trust", True):
            settings["trustedFolders"] = {str(dirs.proj): {"trustedAt": "2026-01-01T00:00:00.000Z"}}
        files: Files = {".factory/settings.json": settings}
        if options.get("hooks"):
            table = hooks_table("droid", command=timed_hook(dirs.root / "hooks.jsonl"))
            if options["hooks"] == "settings":
                # `--settings FILE`: a runtime settings file for this process only.
                files[str(runtime_settings(dirs))] = {"hooks": table}
            else:
                files[".factory/hooks.json"] = table
        return files

    def more_args(self, dirs: RunDirs, options: Options) -> list[str]:
        return (
            ["--settings", str(runtime_settings(dirs))]
            if options.get("hooks") == "settings"
            else []
        )


def runtime_settings(dirs: RunDirs) -> Path:
    return dirs.root / "runtime-settings.json"
