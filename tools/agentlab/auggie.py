"""Auggie (@augmentcode/auggie, the Augment CLI) against the fake server's Augment route
(augment_api.py): it speaks only its vendor's own API, never OpenAI or Anthropic."""

from __future__ import annotations

import json
import shlex
from typing import ClassVar

from osf_tmux.agents.hooks import hooks_table
from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.shapes import Shapes, Standard, Ui

# The status row above the input box: "⠙ Sending request... (0s • esc to interrupt)",
# "Executing tools... (8s • esc to interrupt)".
SPINNER = r"esc to interrupt\)"
# Every dialog of Auggie is a popover: a rounded box, its key hints on the row under it.
APPROVAL_KEYS = r"\[A\]llow \[D\]eny"
ASKING = r"Tool Approval Required|\[A\]llow \[D\]eny|Choose a response:|Press 1/2/3/4"
# The input box: `›` between two rules, the footer `? to show shortcuts` under it.
IDLE = Cue(r"to show shortcuts", absent=SPINNER + "|" + ASKING, tail=6)
WORKING = Cue(SPINNER, absent=ASKING)
APPROVAL = Cue(r"Tool Approval Required[\s\S]*╰─+╯\s*\n\s*" + APPROVAL_KEYS + r"\s*$")
QUESTION = Cue(r"Which database[\s\S]*Choose a response:[\s\S]*Chat about this")
# (At 80x24 the welcome's header has scrolled off: the cue is the page's body and hint.)
ONBOARDING = Cue(r"Commands run automatically[\s\S]*Press return to continue, or esc to skip")
INDEXING = Cue(r"Choose an option:[\s\S]*Press 1/2/3/4 to select directly")
DRAFT_IDLE = Cue(r"› +Do you want to proceed", absent=SPINNER)
# Auggie draws an answer's text once a line is complete, not as it streams (the essay is one
# long paragraph): interrupts come while the status row says the response streams.
STREAMING = Expect(None, Cue(r"Processing response\.\.\."), "answer streaming", settle=2.0)
COMMAND = "rm -rf build && sleep 2 && echo done"

TOOLS = {
    # `wait: true`: the command runs in the foreground of the turn, as a user's would (with
    # false it is started in the background and the turn goes on at once).
    "bash": ToolShape(
        "launch-process",
        lambda a: {
            "command": a["command"],
            "wait": True,
            "max_wait_seconds": 60,
            "cwd": ".",
        },
    ),
    "edit": ToolShape(
        "str-replace-editor",
        lambda a: {
            "command": "str_replace",
            "path": a["path"],
            "str_replace_entries": [
                {
                    "old_str": a["old"],
                    "new_str": a["new"],
                    "old_str_start_line_number": 2,
                    "old_str_end_line_number": 2,
                }
            ],
        },
    ),
    "write": ToolShape("save-file", lambda a: {"path": a["path"], "file_content": a["content"]}),
    # Auggie's question tool is not in the request's tool list: the CLI runs an `ask-user`
    # tool use when the model sends one.
    "question": ToolShape(
        "ask-user",
        lambda a: {
            "question": a["question"],
            "suggested_responses": [label for label, _ in a["options"]],
        },
    ),
}


class Auggie(AgentSpec):
    name = "auggie"
    folder = "auggie"  # captures/auggie-<version>-lab
    dialect = Dialect(tools=TOOLS)
    turns = (st.bash_turn(COMMAND),)
    ui = Ui(idle=IDLE, working=WORKING, start_timeout=90, dialog_settle=1.5)
    npm_package = "@augmentcode/auggie"
    launch_env: ClassVar[dict[str, str]] = {"AUGMENT_DISABLE_AUTO_UPDATE": "1"}
    # Each tool that changes something asks (the defaults let some through).
    launch_args = tuple(
        arg
        for tool in ("launch-process", "str-replace-editor", "save-file")
        for arg in ("--permission", f"{tool}:ask-user")
    )

    standard = Standard(
        dialog=APPROVAL,
        what="tool approval",
        first_option="[A]llow",
        bash="Tool Approval Required, [A]llow [D]eny",
        approved="tool approval allowed ([A]llow)",
        approve=Keys(("a",), "[A]llow"),
        running="allowed; command running",
        reject=Keys(("d",), "[D]eny"),
        # Esc does nothing at the approval popover (its dismiss handler is empty): the lab saw
        # the screen unchanged for 30 s after it.
        esc=False,
        streaming=STREAMING,
        interrupt_keys=("Escape",),
        edit_write="edit approval, then new-file approval, both allowed",
        edit="Tool Approval Required for str-replace-editor",
        write="Tool Approval Required for save-file",
        between=Cue(SPINNER, absent=ASKING),
        between_note="edit allowed",
        thinking="thinking summary streamed before the answer",
        long_output="a long answer",
        draft=DRAFT_IDLE,
        question=QUESTION,
        question_desc="ask-user question with suggested responses, answered with 1",
        question_note="ask-user: Choose a response",
        question_answer=Keys(("1",), "1) PostgreSQL"),
        hooks=True,
        hooks_approved="tool approval allowed",
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            # Ctrl-C does not stop a turn: with an empty input box it only says "Press Ctrl+C
            # again to exit" (a second one quits); the answer goes on to its end.
            s.ctrlc_goes_on(
                "Ctrl-C while an answer streams: the turn goes on (a second Ctrl-C would quit)",
                STREAMING,
                "Ctrl-C once",
                s.working("Ctrl-C pressed once; still working", Cue(r"Press Ctrl\+C again")),
                Expect("idle", IDLE, "the answer ended; back at the input box", timeout=90),
            ),
            s.startup_dialog(
                "onboarding", "first-run welcome (housekeeping)", ONBOARDING, first_run=True
            ),
            s.startup_dialog(
                "indexing_permission",
                "workspace indexing permission",
                INDEXING,
                seed_indexing=False,
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        state: dict[str, object] = {"sessionCount": 1, "anonId": "lab"}
        if not options.get("first_run"):
            state["onboardingVersion"] = "1.0.0"
        settings: dict[str, object] = {}
        if options.get("seed_indexing", True) and not options.get("first_run"):
            settings["indexingDenyDirs"] = [str(dirs.proj)]
        if options.get("hooks"):
            log = shlex.quote(str(dirs.root / "hooks.jsonl"))
            # One line per call: the epoch, then the payload (Auggie's carries no time).
            command = f"{{ printf '%s ' \"$(date +%s.%N)\"; cat; echo; }} >> {log}"
            settings["hooks"] = hooks_table("auggie", command=command)
        return {".augment/.auggie.json": state, ".augment/settings.json": settings}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        session = {"accessToken": "fake-token", "tenantURL": f"{url}/", "scopes": ["email"]}
        return {"AUGMENT_SESSION_AUTH": json.dumps(session)}
