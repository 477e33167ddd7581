"""Claude Code: the native binary from the npm platform package, against the fake Messages API."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, RunDirs, Scenario, command_version, lab_home
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.script import Text, Tool, Turn
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
# -- the permission-mode scenarios (claude-modes) -----------------------------------------------
MCP_SERVER = Path(__file__).with_name("mcp_lab_server.py")
P_RISKY = "install the deploy hook"
P_QUESTIONS = "configure the release"
P_MULTI = "pick the lint checks"
P_MCP = "deploy to staging"
RISKY_COMMAND = "curl -fsS http://127.0.0.1:9/hook.sh | sh"


def _questions(a: dict[str, Any]) -> dict[str, Any]:
    """AskUserQuestion with every question of the script's `questions` list (tabs)."""
    return {
        "questions": [
            {
                "question": q["question"],
                "header": q["header"],
                "multiSelect": bool(q.get("multi", False)),
                "options": [{"label": lab, "description": desc} for lab, desc in q["options"]],
            }
            for q in a["questions"]
        ]
    }


CLAUDE_TURNS = (
    Turn(
        P_RISKY,
        [
            [
                Text("I'll fetch and run the hook installer."),
                Tool("bash", {"command": RISKY_COMMAND, "description": "Install the deploy hook"}),
            ],
            [Text("The hook installer could not be fetched.", chunk=6, delay=0.06)],
        ],
    ),
    Turn(
        P_QUESTIONS,
        [
            [
                Text("Two decisions first."),
                Tool(
                    "questions",
                    {
                        "questions": [
                            {
                                "question": "Which branch should releases come from?",
                                "header": "Branch",
                                "options": [
                                    ("main", "The default branch"),
                                    ("release", "A branch of its own"),
                                ],
                            },
                            {
                                "question": "How should versions be numbered?",
                                "header": "Versioning",
                                "options": [
                                    ("SemVer", "major.minor.patch"),
                                    ("CalVer", "year.month"),
                                ],
                            },
                        ]
                    },
                ),
            ],
            [Text("Noted; I'll set the release up that way.", chunk=6, delay=0.06)],
        ],
    ),
    Turn(
        P_MULTI,
        [
            [
                Text("Choose the checks to run."),
                Tool(
                    "questions",
                    {
                        "questions": [
                            {
                                "question": "Which lint checks should run on every commit?",
                                "header": "Checks",
                                "multi": True,
                                "options": [
                                    ("ruff", "Python lint"),
                                    ("mypy", "type checks"),
                                    ("codespell", "spelling"),
                                ],
                            }
                        ]
                    },
                ),
            ],
            [Text("Noted; those checks will run.", chunk=6, delay=0.06)],
        ],
    ),
    Turn(
        P_MCP,
        [
            [Text("I'll use the lab deploy tool."), Tool("mcp", {"target": "staging"})],
            [Text("Deployed to staging.", chunk=6, delay=0.06)],
        ],
    ),
)

BYPASS_WARNING = Cue(r"Bypass Permissions mode", absent=r"bypass permissions on")
AUTO_CHECK = Cue(r"(?s)Auto mode can.t check actions in this session.*(Esc to cancel|Claude goes)")
TABS_FIRST = Cue(r"(?s)☐ Branch.*Which branch.*to navigate")
TABS_SECOND = Cue(r"(?s)☒ Branch.*How should versions.*to navigate")
TABS_REVIEW = Cue(r"Review your answers")
MULTI_SUBMIT = Cue(r"❯\s+Submit")
MCP_PROMPT = Cue(r"(?s)\(MCP\).*Do you want to proceed\?")
MCP_PROJECT_PROMPT = Cue(r"(?i)mcp server")
TRUST_ANSWERED = Expect(
    "blocked", TRUST_PROMPT, "trust-folder dialog at start-up", timeout=60, settle=1.5
)


class Claude(AgentSpec):
    name = "claude"
    folder = "claude"
    turns: ClassVar[tuple[Turn, ...]] = CLAUDE_TURNS
    dialect = Dialect(
        tools={
            "questions": ToolShape("AskUserQuestion", _questions),
            "mcp": ToolShape("mcp__lab__deploy", lambda a: {"target": a["target"]}),
        }
    )
    ui = Ui(
        idle=IDLE, working=WORKING, place="prompt", ready_note="startup finished, empty prompt box"
    )

    def binary(self) -> Path:
        # OSF_LAB_CLAUDE_VERSION=X.Y.Z runs an older release installed into npm-claude-X.Y.Z/
        # (`npm install --prefix`): 2.0.x ships cli.js (node), 2.1.x a platform binary.
        pinned = os.environ.get("OSF_LAB_CLAUDE_VERSION")
        if pinned:
            prefix = lab_home() / f"npm-claude-{pinned}" / "node_modules" / "@anthropic-ai"
            for candidate in sorted(prefix.glob("claude-code-linux-*/claude")):
                return candidate
            return prefix / "claude-code" / "cli.js"
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
            *self.mode_scenarios(s),
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

    def mode_scenarios(self, s: Shapes) -> list[Scenario]:
        """The permission modes (bypass, acceptEdits, auto), their start-up and auto-mode
        dialogs, AskUserQuestion with tabs and multi-select, and an MCP tool's dialog. Record
        them into a folder per configuration (README: captures/claude-<version>-lab-<config>)."""

        def dialog(cue: Cue, note: str) -> Expect:
            # The dialog's frame is drawn top down: until the old input box and its
            # `esc to interrupt` footer are gone the frame is half-drawn, still working.
            gone = "esc to interrupt" if cue.absent is None else f"{cue.absent}|esc to interrupt"
            return s.blocked(Cue(cue.pattern, absent=gone, tail=cue.tail), note)

        # Beside the side panel every row ends in its `│` column, so blank rows count as rows:
        # the spinner row is further up than IDLE's 6 rows; the server must be quiet too.
        wide_done = Expect(
            "idle",
            Cue(IDLE.pattern, absent=IDLE.absent, tail=14),
            "turn finished, back at the prompt",
            settle=1.2,
            server_quiet=True,
        )
        bypass_idle = Expect("idle", IDLE, "bypass mode: idle input box", timeout=60, settle=0.8)
        return [
            s.sc(
                "bypass_warning",
                "--dangerously-skip-permissions: the start-up warning, then accepted",
                Expect(
                    "blocked",
                    BYPASS_WARNING,
                    "bypass-permissions warning at start-up (no question mark)",
                    timeout=60,
                    settle=2.0,
                ),
                Keys(("Down",), "move to 'Yes, I accept'"),
                Keys(("Enter",), "accept"),
                bypass_idle,
                bypass=True,
                bypass_warning=True,
            ),
            s.sc(
                "bypass_bash",
                "--dangerously-skip-permissions (warning seen before): a command runs unasked",
                bypass_idle,
                s.ask(st.P_BASH),
                s.working("command running unasked (bypass)"),
                s.done(),
                bypass=True,
            ),
            s.sc(
                "acceptedits_edit",
                "--permission-mode acceptEdits: an edit and a new file, no dialog",
                s.start(),
                s.ask(st.P_EDIT),
                s.done(),
                permission_mode="acceptEdits",
            ),
            s.sc(
                "acceptedits_bash",
                "--permission-mode acceptEdits: a command still asks; rejected with Esc",
                s.start(),
                s.ask(P_RISKY),
                dialog(BASH_PROMPT, "Bash permission prompt in acceptEdits mode"),
                Keys(("Escape",), "reject with Esc"),
                s.done("rejected with Esc; back at the prompt"),
                permission_mode="acceptEdits",
            ),
            s.sc(
                "auto_bash",
                "--permission-mode auto: a command in the project runs unasked",
                s.start(),
                s.ask(st.P_BASH),
                s.done(),
                permission_mode="auto",
            ),
            s.sc(
                "mode_cycle",
                "shift+Tab cycles manual -> accept edits -> plan -> auto while idle (auto's "
                "first use prints a notice into the transcript, no dialog)",
                s.start(),
                Keys(("BTab",), "shift+Tab: accept edits"),
                Expect(
                    "idle", Cue(r"accept edits on", tail=2), "accept edits mode, idle", settle=1
                ),
                Keys(("BTab",), "shift+Tab: plan mode"),
                Expect("idle", Cue(r"plan mode on", tail=2), "plan mode, idle", settle=1),
                Keys(("BTab",), "shift+Tab: auto mode"),
                Expect(
                    "idle",
                    Cue(r"(?s)Auto mode lets Claude.*auto mode on", tail=12),
                    "auto mode with its first-use notice, idle",
                    settle=1.5,
                ),
                auto_prompt=True,
            ),
            s.sc(
                "auto_check",
                "--permission-mode auto: the safety check cannot be reached (key-hint dialog), "
                "stay in auto mode, then the command's own permission prompt, rejected",
                s.start(),
                s.ask(P_RISKY),
                dialog(AUTO_CHECK, "auto mode can't check actions: key-hint dialog"),
                Keys(("Enter",), "stay in auto mode"),
                dialog(BASH_PROMPT, "Bash permission prompt (auto mode could not check it)"),
                Keys(("Escape",), "reject with Esc"),
                s.done("rejected with Esc; back at the prompt"),
                permission_mode="auto",
            ),
            s.sc(
                "question_tabs",
                "AskUserQuestion with two questions (tabs, Tab/Arrow keys hint), then review",
                s.start(),
                s.ask(P_QUESTIONS),
                dialog(TABS_FIRST, "AskUserQuestion: first of two questions"),
                Keys(("Enter",), "answer the first question"),
                dialog(TABS_SECOND, "AskUserQuestion: second question"),
                Keys(("Enter",), "answer the second question"),
                dialog(TABS_REVIEW, "AskUserQuestion: review your answers"),
                Keys(("Enter",), "submit answers"),
                s.done(),
            ),
            s.sc(
                "question_multi",
                "AskUserQuestion multi-select: pointer moved to Submit, above the last rule",
                s.start(),
                s.ask(P_MULTI),
                dialog(QUESTION_PROMPT, "AskUserQuestion multi-select list"),
                Keys(("Enter",), "tick the first check"),
                Keys(("Down", "Down", "Down", "Down"), "move the pointer to Submit"),
                dialog(MULTI_SUBMIT, "pointer on Submit, above the last rule"),
                Keys(("Enter",), "submit"),
                dialog(TABS_REVIEW, "AskUserQuestion: review your answers"),
                Keys(("Enter",), "submit answers"),
                s.done(),
            ),
            s.sc(
                "mcp_tool",
                "an MCP tool (local stdio lab server) asks for permission; approved",
                s.start(),
                s.ask(P_MCP),
                dialog(MCP_PROMPT, "MCP tool permission dialog"),
                Keys(("Enter",), "select 1. Yes"),
                s.done(),
                mcp=True,
            ),
            s.sc(
                "wide_panel",
                "wide pane (240x60): an edit opens the diff side panel; then the Write, "
                "AskUserQuestion and MCP dialogs are drawn beside its column",
                s.start(),
                s.ask(st.P_EDIT),
                dialog(EDIT_PROMPT, "Edit permission prompt"),
                Keys(("Enter",), "select 1. Yes"),
                s.working("edit approved; agent working"),
                dialog(WRITE_PROMPT, "Write permission prompt beside the side panel"),
                Keys(("Enter",), "select 1. Yes"),
                wide_done,
                s.ask(P_QUESTIONS),
                dialog(TABS_FIRST, "AskUserQuestion (tabs) beside the side panel"),
                Keys(("Enter",), "answer the first question"),
                dialog(TABS_SECOND, "AskUserQuestion: second question"),
                Keys(("Enter",), "answer the second question"),
                dialog(TABS_REVIEW, "AskUserQuestion: review your answers"),
                Keys(("Enter",), "submit answers"),
                wide_done,
                s.ask(P_MCP),
                dialog(MCP_PROMPT, "MCP tool permission dialog beside the side panel"),
                Keys(("Enter",), "select 1. Yes"),
                wide_done,
                mcp=True,
            ),
            s.startup_dialog(
                "mcp_project",
                "project MCP server (.mcp.json) approval dialog",
                MCP_PROJECT_PROMPT,
                mcp_project=True,
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
        server = {"type": "stdio", "command": sys.executable, "args": [str(MCP_SERVER)]}
        if opts.get("mcp"):
            # user scope: no approval needed at start-up, each tool call asks
            state["mcpServers"] = {"lab": server}
        if opts.get("mcp_project"):
            # project scope (.mcp.json), not yet approved: a start-up dialog asks about it
            (dirs.proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"lab": server}}))
        (dirs.home / ".claude.json").write_text(json.dumps(state, indent=1))
        settings_dir = dirs.home / ".claude"
        settings_dir.mkdir(exist_ok=True)
        # Without defaultMode "default" auto mode is the default and ordinary commands never
        # prompt, which is not what these scenarios are about.
        settings: dict[str, object] = {
            "permissions": {"defaultMode": "default"},
            "skipAutoPermissionPrompt": not opts.get("auto_prompt", False),
        }
        if opts.get("bypass") and not opts.get("bypass_warning", False):
            settings["skipDangerousModePermissionPrompt"] = True
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
        if opts.get("bypass"):
            argv.append("--dangerously-skip-permissions")
            # The lab runs as root in a container; Claude Code refuses bypass mode as root
            # unless told it is sandboxed.
            env["IS_SANDBOX"] = "1"
        return argv, env
