"""Claude Code: the native binary from the npm platform package, against the fake Messages API."""

from __future__ import annotations

import functools
import json
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
    approval_turns,
    lab_home,
    scenario_maker,
)
from tools.agentlab.script import Script

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


def _start() -> list[Action]:
    return [Expect("idle", IDLE, "startup finished, empty prompt box", timeout=60, settle=0.8)]


def _ask(prompt: str) -> list[Action]:
    return [
        Type(prompt),
        Keys(("Enter",), "submit prompt"),
        Expect("working", WORKING, "prompt submitted, agent working"),
    ]


def _done(note: str = "turn finished, back at the prompt") -> list[Action]:
    return [Expect("idle", IDLE, note, settle=1.2)]


def _blocked(cue: Cue, note: str) -> Expect:
    # Held 1.5 s: long enough that the capture shows the dialog's redraws while it waits.
    return Expect("blocked", cue, note, settle=1.5)


def _scenarios() -> list[Scenario]:
    script = Script(st.ALL_TURNS)

    sc = scenario_maker(script)

    plan_start = Expect("idle", IDLE, "startup finished in plan mode", timeout=60, settle=0.8)
    return [
        sc("startup", "launch with dialogs pre-answered; idle input box", _start()),
        sc("text", "a slowly streamed text answer", _start(), _ask(st.P_TEXT), _done()),
        *approval_turns(
            sc,
            _start,
            _ask,
            _done,
            what="Bash permission prompt",
            approved="Bash permission prompt approved with option 1",
            dialog=_blocked(BASH_PROMPT, "Bash permission prompt"),
            first_option="select 1. Yes",
            working=Expect("working", WORKING, "approved; command running"),
            back="prompt",
        ),
        sc(
            "interrupt_esc",
            "long streamed answer interrupted with Esc",
            _start(),
            _ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.5),
            Keys(("Escape",), "interrupt with Esc"),
            _done("interrupted; back at the prompt"),
        ),
        sc(
            "interrupt_ctrlc",
            "long streamed answer interrupted with Ctrl-C",
            _start(),
            _ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.5),
            Keys(("C-c",), "interrupt with Ctrl-C"),
            _done("interrupted; back at the prompt"),
        ),
        sc(
            "edit_write",
            "Read, then an Edit prompt and a Write (new file) prompt, both approved",
            _start(),
            _ask(st.P_EDIT),
            _blocked(EDIT_PROMPT, "Edit permission prompt"),
            Keys(("Enter",), "select 1. Yes"),
            Expect("working", WORKING, "edit approved; agent working"),
            _blocked(WRITE_PROMPT, "Write (create file) permission prompt"),
            Keys(("Enter",), "select 1. Yes"),
            Expect("working", WORKING, "write approved; agent working"),
            _done(),
        ),
        sc(
            "plan",
            "plan mode (--permission-mode plan): ExitPlanMode approval",
            plan_start,
            _ask(st.P_PLAN),
            _blocked(PLAN_PROMPT, "ExitPlanMode: plan approval dialog"),
            Keys(("Enter",), "accept option 1"),
            Expect("working", WORKING, "plan approved; agent working"),
            _done(),
            permission_mode="plan",
        ),
        sc(
            "question",
            "AskUserQuestion dialog answered with the first option",
            _start(),
            _ask(st.P_QUESTION),
            _blocked(QUESTION_PROMPT, "AskUserQuestion dialog"),
            Keys(("Enter",), "select the first option"),
            Expect("working", WORKING, "answered; agent working"),
            _done(),
        ),
        *answer_turns(
            sc,
            _start,
            _ask,
            _done,
            "a thinking block streamed before the answer",
            "a long answer that scrolls the transcript",
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
            "start-up: trust-folder dialog left unanswered",
            Expect(
                "blocked", TRUST_PROMPT, "trust-folder dialog at start-up", timeout=60, settle=2.5
            ),
            seed_trust=False,
        ),
        sc(
            "apikey_dialog",
            "start-up: custom API key dialog left unanswered",
            Expect(
                "blocked",
                APIKEY_PROMPT,
                "custom API key dialog at start-up",
                timeout=60,
                settle=2.5,
            ),
            seed_apikey=False,
        ),
        sc(
            "dialogs_answered",
            "start-up: trust dialog, then API key dialog, both answered",
            Expect(
                "blocked", TRUST_PROMPT, "trust-folder dialog at start-up", timeout=60, settle=1.5
            ),
            Keys(("Down",), "move to 'Yes, I trust this folder'"),
            Keys(("Enter",), "confirm trust"),
            Expect("blocked", APIKEY_PROMPT, "custom API key dialog", settle=1.5),
            Keys(("Up",), "move to 'Yes'"),
            Keys(("Enter",), "use the API key"),
            _start(),
            seed_trust=False,
            seed_apikey=False,
        ),
    ]


class Claude(AgentSpec):
    name = "claude"
    folder = "claude"

    def binary(self) -> Path:
        modules = lab_home() / "npm" / "node_modules" / "@anthropic-ai"
        # The native binary lives in the platform package; the wrapper's postinstall (which
        # would copy it into claude-code/bin) may not have run.
        for candidate in sorted(modules.glob("claude-code-linux-*/claude")):
            return candidate
        return modules / "claude-code" / "bin" / "claude.exe"

    @functools.cache  # noqa: B019 - one spec object per process; the version never changes
    def version(self) -> str:
        out = subprocess.run(
            [str(self.binary()), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**BASE_ENV, "HOME": "/tmp"},
        )
        return out.stdout.split()[0] if out.stdout.strip() else "unknown"

    def scenarios(self) -> dict[str, Scenario]:
        return {s.name: s for s in _scenarios()}

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        self.write_files(dirs, scenario.files)
        self.git_init(dirs)
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
        env = {
            **BASE_ENV,
            "HOME": str(dirs.home),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        argv = [str(self.binary())]
        mode = opts.get("permission_mode")
        if mode:
            argv += ["--permission-mode", str(mode)]
        return argv, env
