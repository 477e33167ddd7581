"""Claude Code: the native binary from the npm platform package, against the fake Messages API."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import (
    AgentSpec,
    RunDirs,
    Scenario,
    command_version,
    lab_home,
    package_version,
)
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.script import Pause, Text, Tool, Turn
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
# A dialog is labelled once its menu is drawn down to the `N. No` option: a pipe read can end
# inside the frame that draws it (seen at 200x50 and under a status line), and a question
# without its menu is not yet a dialog anyone saw.
_MENU = r"\n(?:.*\n)*?\s*❯ 1\. .*\n(?:.*\n)*?\s*(?:❯ )?\d\. No\b"
BASH_PROMPT = Cue(r"Do you want to proceed\?" + _MENU)
EDIT_PROMPT = Cue(r"Do you want to make this edit to.*" + _MENU)
WRITE_PROMPT = Cue(r"Do you want to create.*" + _MENU)
PLAN_PROMPT = Cue(r"Would you like to proceed\?|Exit plan mode\?|Ready to code")
QUESTION_PROMPT = Cue(r"Enter to select")
TRUST_PROMPT = Cue(r"trust this folder")
APIKEY_PROMPT = Cue(r"Do you want to use this API key\?")
DRAFT_IDLE = Cue(r"(?s)Do you want to proceed\?.*(\? for shortcuts|manual mode on)", tail=4)
# With a custom statusLine (settings.json) the script's output takes the footer's place under
# the input box: `esc to interrupt` and `? for shortcuts` are never drawn. The lab's status
# lines all end their last row with the git branch `main`; the spinner row above the box
# (`✻ Verb… (12s · ↓ 1.2k tokens)`) is then the only working cue, and it is not drawn while
# answer text streams (2.1.116 on): turns end when the fake server is quiet as well.
# The turn is over when Claude Code's own marks all say so: no spinner row, and the title's
# first cell back at rest (it spins, `⠂`/`⠐` or `◐`/`◑`, until the turn ends; the final frame
# can come a write before the title does).
TITLE_SPINNING = r"^[\u2800-\u28ff◐◑◒◓] "
# The spinner row by its glyphs (the program's frame list): a start-up banner row such as
# `│ /…/proj │` fits the looser SPINNER above.
SPINNER_ROW = r"^[·✢*✶✻✽✳] \S+…"
STATUS_IDLE = Cue(
    r"\bmain\b.*$",
    absent=r"esc to interrupt|Esc to cancel|Enter to confirm|Enter to select|" + SPINNER_ROW,
    tail=8,
    title_absent=TITLE_SPINNING,
)
STATUS_WORKING = Cue(SPINNER_ROW, tail=8)
STATUS_DRAFT_IDLE = Cue(r"(?s)Do you want to proceed\?.*\bmain\b", tail=5)

# The status line scripts the lab writes (python3 reading the JSON Claude Code pipes in), as
# users write them: one row; two rows; colours and prompt glyphs.
_STATUS_HEAD = """#!/usr/bin/python3
import json, os, sys
try:
    data = json.load(sys.stdin)
except ValueError:
    data = {}
model = (data.get("model") or {}).get("display_name") or "model"
cwd = (data.get("workspace") or {}).get("current_dir") or data.get("cwd") or os.getcwd()
folder = os.path.basename(cwd)
cost = (data.get("cost") or {}).get("total_cost_usd") or 0
"""
STATUS_SCRIPTS = {
    "one": _STATUS_HEAD + 'print(f"[{model}] {folder} | ${cost:.2f} | main")\n',
    "two": _STATUS_HEAD
    + 'print(f"{folder} ({model})")\n'
    + 'print(f"${cost:.2f} spent · branch main")\n',
    "color": _STATUS_HEAD
    + 'print(f"\\033[1;32m➜\\033[0m \\033[36m{folder}\\033[0m '
    + '\\033[2m[{model}]\\033[0m git:(\\033[31mmain\\033[0m)")\n',
}

# Background work (issue #17): a Bash command started with run_in_background, and subagents
# started in the background. The subagents' own requests carry their prompt, which the
# `survey` turn answers slowly, so they stay busy after the main turn has ended.
P_BG_SHELL = "start the slow build in the background"
P_SUBAGENTS = "survey the project with two background agents"
BG_SECONDS = 12
BG_SHELL = Turn(
    P_BG_SHELL,
    [
        [
            Text("I'll start the build in the background."),
            Tool(
                "bg_bash",
                {"command": f"sleep {BG_SECONDS} && echo built", "description": "Slow build"},
            ),
        ],
        [Pause(0.3), Text("The build runs in the background; I'll check when it is done.")],
    ],
)
SUBAGENTS = Turn(
    P_SUBAGENTS,
    [
        [
            Text("Starting two agents."),
            Tool("subagent", {"description": "Survey app.py", "prompt": "survey app.py"}),
            Tool("subagent", {"description": "Survey README", "prompt": "survey README.md"}),
        ],
        [Pause(0.3), Text("Both agents are working in the background.")],
    ],
)
SURVEY = Turn("survey ", [[Pause(BG_SECONDS / 2), Text("A small file with one function.")]])
# The finished-turn line says so (`✻ Sautéed for 4s · done 7:01 PM · 1 shell still running`),
# the title is at rest, the footer has no interrupt hint.
BG_SHELL_RUNNING = Cue(r"\bshells? still running", absent=r"esc to interrupt|^\S \S+…", tail=10)
# The line in the finished-turn line's place while background agents run; the title spins.
BG_AGENTS_WAITING = Cue(r"^\S Waiting for \d+ background agents? to finish", tail=14)

TRUST_ANSWERED = Expect(
    "blocked", TRUST_PROMPT, "trust-folder dialog at start-up", timeout=60, settle=1.5
)


DEFAULT_UI = Ui(
    idle=IDLE, working=WORKING, place="prompt", ready_note="startup finished, empty prompt box"
)
STATUS_UI = Ui(
    idle=STATUS_IDLE,
    working=STATUS_WORKING,
    place="prompt",
    ready_note="startup finished, empty prompt box over the custom status line",
    done_quiet=True,
)

# Vim mode (2.1.332): the footer starts with `-- INSERT --` / `-- NORMAL --` and, as with a
# status line, never says `esc to interrupt`: the spinner row and the title tell working.
VIM_UI = Ui(
    idle=Cue(
        r"-- (INSERT|NORMAL) --",
        absent=r"esc to interrupt|Esc to cancel|Enter to confirm|Enter to select|" + SPINNER_ROW,
        tail=8,
        title_absent=TITLE_SPINNING,
    ),
    working=STATUS_WORKING,
    place="prompt",
    ready_note="startup finished, empty prompt box in vim mode",
    done_quiet=True,
)


class Claude(AgentSpec):
    name = "claude"
    folder = "claude"
    ui = DEFAULT_UI
    turns = (BG_SHELL, SUBAGENTS, SURVEY)
    dialect = Dialect(
        tools={
            "bg_bash": ToolShape(
                "Bash",
                lambda a: {
                    "command": a["command"],
                    "description": a["description"],
                    "run_in_background": True,
                },
            ),
            "subagent": ToolShape(
                "Agent",
                lambda a: {
                    "description": a["description"],
                    "prompt": a["prompt"],
                    "subagent_type": "general-purpose",
                    "run_in_background": True,
                },
            ),
        }
    )
    configs: ClassVar[dict[str, tuple[str, dict[str, object]]]] = {
        "statusline1": ("custom statusLine command, one row", {"statusline": "one"}),
        "statusline2": ("custom statusLine command, two rows", {"statusline": "two"}),
        "statusline-color": (
            "custom statusLine command, one row with ANSI colours and a ➜ glyph",
            {"statusline": "color"},
        ),
        "bypass": (
            "--dangerously-skip-permissions (bypass permissions mode)",
            {"bypass": True},
        ),
        "bypass-statusline1": (
            "--dangerously-skip-permissions with the one-row custom statusLine",
            {"bypass": True, "statusline": "one"},
        ),
        "vim": ("vim editor mode (/vim: editorMode vim)", {"vim": True}),
        "theme-light": ("light theme", {"theme": "light"}),
        "theme-dark": ("dark theme", {"theme": "dark"}),
        "theme-light-daltonized": (
            "light theme for colour-blind users",
            {"theme": "light-daltonized"},
        ),
        "theme-dark-daltonized": (
            "dark theme for colour-blind users",
            {"theme": "dark-daltonized"},
        ),
    }
    # A release other than the default install (`record --agent-version`, or the
    # OSF_LAB_CLAUDE_VERSION variable): install.sh's CLAUDE_VERSIONS puts it in npm-claude-<VER>.
    pinned: str | None = os.environ.get("OSF_LAB_CLAUDE_VERSION") or None

    def use_version(self, version: str) -> None:
        prefix = lab_home() / f"npm-claude-{version}"
        if not prefix.is_dir():
            raise SystemExit(
                f"claude {version} is not installed in {prefix}: run "
                f"`CLAUDE_VERSIONS={version} tools/agentlab/install.sh claude`"
            )
        self.pinned = version
        self.__dict__.pop("_version", None)

    def version_pinned(self) -> bool:
        return self.pinned is not None

    def use_config(self, options: dict[str, object]) -> None:
        if options.get("statusline"):
            self.ui = STATUS_UI
        elif options.get("vim"):
            self.ui = VIM_UI
        else:
            self.ui = DEFAULT_UI

    def binary(self) -> Path:
        prefix = lab_home() / (f"npm-claude-{self.pinned}" if self.pinned else "npm")
        modules = prefix / "node_modules" / "@anthropic-ai"
        # The native binary lives in the platform package; the wrapper's postinstall (which
        # would copy it into claude-code/bin) may not have run. Releases before ~2.1.100 ship
        # a node bundle, cli.js, instead.
        for candidate in sorted(modules.glob("claude-code-linux-*/claude")):
            return candidate
        bundle = modules / "claude-code" / "cli.js"
        if bundle.exists():
            return bundle
        return modules / "claude-code" / "bin" / "claude.exe"

    def argv0(self) -> list[str]:
        binary = self.binary()
        return ["/usr/bin/node", str(binary)] if binary.suffix == ".js" else [str(binary)]

    def read_version(self) -> str:
        binary = self.binary()
        if binary.suffix == ".js":
            return package_version(binary.with_name("package.json"))
        return command_version([str(binary), "--version"])

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
            s.draft(STATUS_DRAFT_IDLE if self.ui is STATUS_UI else DRAFT_IDLE),
            s.sc(
                "bg_shell",
                "a Bash command started in the background: the turn ends while it runs (idle), "
                "Claude resumes by itself when it exits (working), then idle",
                s.start(),
                s.ask(P_BG_SHELL),
                Expect(
                    "idle",
                    BG_SHELL_RUNNING,
                    "turn over, `1 shell still running`: the human may type",
                    timeout=30,
                    settle=1.0,
                ),
                Expect(
                    "working",
                    self.ui.working,
                    "the background command exited; Claude resumes on its own",
                    timeout=BG_SECONDS + 30,
                ),
                s.done(),
            ),
            s.sc(
                "bg_agents",
                "two subagents started in the background: Claude waits for them (working), "
                "resumes when they finish, then idle",
                s.start(),
                s.ask(P_SUBAGENTS),
                Expect(
                    "working",
                    BG_AGENTS_WAITING,
                    "turn text done; `Waiting for 2 background agents to finish`",
                    timeout=40,
                    settle=1.0,
                ),
                Expect(
                    "working",
                    self.ui.working,
                    "the agents finished; Claude resumes on its own",
                    timeout=BG_SECONDS + 30,
                ),
                s.done(),
            ),
            # Only with --config bypass*: the command runs without a permission prompt.
            s.sc(
                "bash_run",
                "a command run without a prompt (bypass permissions mode)",
                s.start(),
                s.ask(st.P_BASH),
                s.working("command running, no permission prompt"),
                s.done(),
            ),
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
        settings_dir = dirs.home / ".claude"
        settings_dir.mkdir(exist_ok=True)
        # Without defaultMode "default" auto mode is the default and ordinary commands never
        # prompt, which is not what these scenarios are about.
        settings: dict[str, object] = {
            "permissions": {"defaultMode": "default"},
            "skipAutoPermissionPrompt": True,
        }
        status = opts.get("statusline")
        if status:
            script = settings_dir / "statusline.py"
            script.write_text(STATUS_SCRIPTS[str(status)])
            script.chmod(0o755)
            settings["statusLine"] = {"type": "command", "command": str(script)}
        if opts.get("theme"):
            state["theme"] = opts["theme"]
        if opts.get("vim"):
            state["editorMode"] = "vim"
        if opts.get("bypass"):
            # The bypass warning at start-up is claude-modes' subject; here it is pre-accepted.
            settings["skipDangerousModePermissionPrompt"] = True
            state["bypassPermissionsModeAccepted"] = True
        (dirs.home / ".claude.json").write_text(json.dumps(state, indent=1))
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
        argv = self.argv0()
        if opts.get("bypass"):
            argv.append("--dangerously-skip-permissions")
            # Claude Code refuses bypass mode as root outside a sandbox it knows of; the lab's
            # throwaway HOME and project are one (the lab may run as root in a container).
            env["IS_SANDBOX"] = "1"
        mode = opts.get("permission_mode")
        if mode:
            argv += ["--permission-mode", str(mode)]
        return argv, env
