"""Claude Code: the native binary from the npm platform package, against the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, RunDirs, Scenario, command_version, lab_home
from tools.agentlab.shapes import Shapes, Ui

API_KEY = "sk-ant-api03-agentlab-fake-key-0123456789abcdefghij"

# The footer tells idle from working; dialogs replace the input box and footer altogether.
# Between two model requests the footer can lose `esc to interrupt` while the spinner line
# (`✶ Dilly-dallying… (1s · ↓ 40 tokens)`) still shows above the input box: that is working,
# so the spinner is checked too (bottom 6 rows: spinner, effort, rule, input, rule, footer).
SPINNER = r"^\S \S+…"
IDLE = Cue(
    r"\? for shortcuts|shift\+tab to cycle|manual mode on|plan mode on|accept edits on",
    absent=r"esc to interrupt|Esc to cancel|Enter to confirm|Enter to select|" + SPINNER,
    tail=6,
)
WORKING = Cue(r"esc to interrupt", tail=2)
BASH_PROMPT = Cue(r"Do you want to proceed\?")
EDIT_PROMPT = Cue(r"Do you want to make this edit to")
WRITE_PROMPT = Cue(r"Do you want to create")
PLAN_PROMPT = Cue(r"Would you like to proceed\?|Exit plan mode\?|Ready to code")
QUESTION_PROMPT = Cue(r"Enter to select")
TRUST_PROMPT = Cue(r"trust this folder")
APIKEY_PROMPT = Cue(r"Do you want to use this API key\?")
DRAFT_IDLE = Cue(r"(?s)Do you want to proceed\?.*(\? for shortcuts|manual mode on)", tail=4)
TRUST_ANSWERED = Expect(
    "blocked", TRUST_PROMPT, "trust-folder dialog at start-up", timeout=60, settle=1.5
)


class Claude(AgentSpec):
    name = "claude"
    folder = "claude"
    ui = Ui(
        idle=IDLE, working=WORKING, place="prompt", ready_note="startup finished, empty prompt box"
    )

    def binary(self) -> Path:
        modules = lab_home() / "npm" / "node_modules" / "@anthropic-ai"
        # The native binary lives in the platform package; the wrapper's postinstall (which
        # would copy it into claude-code/bin) may not have run.
        for candidate in sorted(modules.glob("claude-code-linux-*/claude")):
            return candidate
        return modules / "claude-code" / "bin" / "claude.exe"

    def read_version(self) -> str:
        return command_version([str(self.binary()), "--version"])

    def build(self, s: Shapes) -> list[Scenario]:
        return [
            s.startup("launch with dialogs pre-answered; idle input box"),
            s.text("a slowly streamed text answer"),
            *s.approvals(
                what="Bash permission prompt",
                approved="Bash permission prompt approved with option 1",
                dialog=s.blocked(BASH_PROMPT, "Bash permission prompt"),
                first_option="select 1. Yes",
                working=s.working("approved; command running"),
            ),
            *s.interrupts(),
            s.edit_write(
                "Read, then an Edit prompt and a Write (new file) prompt, both approved",
                edit=s.blocked(EDIT_PROMPT, "Edit permission prompt"),
                approve=Keys(("Enter",), "select 1. Yes"),
                between=s.working("edit approved; agent working"),
                write=s.blocked(WRITE_PROMPT, "Write (create file) permission prompt"),
                after=s.working("write approved; agent working"),
            ),
            s.dialog_turn(
                "plan",
                "plan mode (--permission-mode plan): ExitPlanMode approval",
                st.P_PLAN,
                s.blocked(PLAN_PROMPT, "ExitPlanMode: plan approval dialog"),
                Keys(("Enter",), "accept option 1"),
                s.working("plan approved; agent working"),
                start=Expect("idle", IDLE, "startup finished in plan mode", timeout=60, settle=0.8),
                permission_mode="plan",
            ),
            s.dialog_turn(
                "question",
                "AskUserQuestion dialog answered with the first option",
                st.P_QUESTION,
                s.blocked(QUESTION_PROMPT, "AskUserQuestion dialog"),
                Keys(("Enter",), "select the first option"),
                s.working("answered; agent working"),
            ),
            *s.answers(
                "a thinking block streamed before the answer",
                "a long answer that scrolls the transcript",
            ),
            s.draft(DRAFT_IDLE),
            s.startup_dialog("trust_dialog", "trust-folder dialog", TRUST_PROMPT, seed_trust=False),
            s.startup_dialog(
                "apikey_dialog", "custom API key dialog", APIKEY_PROMPT, seed_apikey=False
            ),
            s.sc(
                "dialogs_answered",
                "start-up: trust dialog, then API key dialog, both answered",
                TRUST_ANSWERED,
                Keys(("Down",), "move to 'Yes, I trust this folder'"),
                Keys(("Enter",), "confirm trust"),
                Expect("blocked", APIKEY_PROMPT, "custom API key dialog", settle=1.5),
                Keys(("Up",), "move to 'Yes'"),
                Keys(("Enter",), "use the API key"),
                s.start(),
                seed_trust=False,
                seed_apikey=False,
            ),
        ]

    def launch(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        opts = scenario.options
        state: dict[str, object] = {
            "hasCompletedOnboarding": True,
            "numStartups": 5,
            "hasSeenAutoDefaultNudge": True,
            "hasResetAutoModeOptInForDefaultOffer": True,
            "projects": {
                str(dirs.proj): {
                    "hasTrustDialogAccepted": bool(opts.get("seed_trust", True)),
                    "allowedTools": [],
                }
            },
        }
        if opts.get("seed_apikey", True):
            # Claude Code remembers an approved key by its last 20 characters.
            state["customApiKeyResponses"] = {"approved": [API_KEY[-20:]], "rejected": []}
        (dirs.home / ".claude.json").write_text(json.dumps(state, indent=1))
        settings_dir = dirs.home / ".claude"
        settings_dir.mkdir(exist_ok=True)
        # Without defaultMode "default" auto mode is the default and ordinary commands never
        # prompt, which is not what these scenarios are about.
        settings = {"permissions": {"defaultMode": "default"}, "skipAutoPermissionPrompt": True}
        (settings_dir / "settings.json").write_text(json.dumps(settings, indent=1))
        env = self.env(
            dirs,
            ANTHROPIC_BASE_URL=url,
            ANTHROPIC_API_KEY=API_KEY,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
        )
        argv = [str(self.binary())]
        mode = opts.get("permission_mode")
        if mode:
            argv += ["--permission-mode", str(mode)]
        return argv, env
