"""Claude Code: the native binary from the npm platform package, against the fake Messages API."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Sleep
from tools.agentlab.base import (
    AgentSpec,
    Executable,
    Files,
    Options,
    RunDirs,
    Scenario,
    command_version,
    lab_home,
    package_version,
)
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.dress import Dress, by_name
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard, Ui

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
# 2.0.x ends its menus with a free-text option instead (`3. Type here to tell Claude what to do
# differently`), the 2.1.1xx plan dialog with `3. Tell Claude what to change`.
_MENU = r"\n(?:.*\n)*?\s*❯ 1\. .*\n(?:.*\n)*?\s*(?:❯ )?\d\. (?:No\b|Type here|Tell Claude)"
# 2.1.x draws a dialog top down over the old input box: a read can end with the menu drawn and
# the old box's `esc to interrupt` footer still under it (seen with LANG=C, the `ascii` dress).
# That frame is half-drawn and still working (NOTES-claude.md); the label waits for the footer
# to go, as mode_scenarios' dialogs do.
_HALF_DRAWN = "esc to interrupt"
BASH_PROMPT = Cue(r"Do you want to proceed\?" + _MENU, absent=_HALF_DRAWN)
EDIT_PROMPT = Cue(r"Do you want to make this edit to.*" + _MENU, absent=_HALF_DRAWN)
WRITE_PROMPT = Cue(r"Do you want to create.*" + _MENU, absent=_HALF_DRAWN)
PLAN_PROMPT = Cue(r"Would you like to proceed\?|Exit plan mode\?|Ready to code")
QUESTION_PROMPT = Cue(r"Enter to select")
TRUST_PROMPT = Cue(r"trust this folder")
APIKEY_PROMPT = Cue(r"Do you want to use this API key\?")
DRAFT_IDLE = Cue(r"(?s)Do you want to proceed\?.*(\? for shortcuts|manual mode on)", tail=4)
# -- the permission-mode scenarios (claude-modes) -----------------------------------------------
MCP_SERVER = Path(__file__).with_name("mcp_server.py")
P_RISKY = "install the deploy hook"
P_QUESTIONS = "configure the release"
P_MULTI = "pick the lint checks"
P_MCP = "deploy to staging"
RISKY_COMMAND = "curl -fsS http://127.0.0.1:9/hook.sh | sh"
# Plan mode as users see it: the plan is written to the plan file plan mode names (2.0 on), then
# ExitPlanMode shows it for approval (`Ready to code?` / `Here is Claude's plan:` in 2.0.x).
# Without the file the dialog is the short `Exit plan mode?` one (the `plan` scenario).
# A to-do list (TodoWrite) hangs under the spinner row while the turn runs: in 2.0.x the
# spinner row, whose hint is the working sign there, is then many rows above the input box.
P_TODOS = "tidy up the project step by step"
TODO_ITEMS = (
    "Read app.py",
    "Add argument parsing",
    "Add a --name option",
    "Add a --greeting option",
    "Write tests for both options",
    "Update README.md",
    "Run the tests",
    "Summarise the changes",
)
P_PLAN_FILE = "plan a --greeting option for app.py"
PLAN_TEXT = (
    "# Plan: --greeting option\n\n1. Parse arguments with argparse in app.py\n"
    "2. Add `--greeting` (default: hello)\n3. Print `GREETING, world`\n"
    "4. Add a test for the option\n"
)


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
        P_TODOS,
        [
            [Text("I'll track the steps."), Tool("todos", {"items": list(TODO_ITEMS)})],
            [
                Pause(0.5),
                Text(
                    "Reading app.py first: it prints a greeting and takes no arguments yet, "
                    "so the options come next, then the tests and the README.",
                    chunk=3,
                    delay=0.2,
                ),
            ],
        ],
    ),
    Turn(
        P_PLAN_FILE,
        [
            [Text("I'll write the plan down."), Tool("plan_file", {"plan": PLAN_TEXT})],
            [Tool("plan", {"plan": PLAN_TEXT})],
            [Text("Plan approved. I'll start with the argument parsing.", chunk=6, delay=0.06)],
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
# With a custom statusLine (settings.json) the script's output takes the footer's place under
# the input box: `esc to interrupt` and `? for shortcuts` are never drawn. The lab's status
# lines all end their last row with the git branch `main`; the spinner row above the box
# (`✻ Verb… (12s · ↓ 1.2k tokens)`) is then the only working cue, and it is not drawn while
# answer text streams (2.1.116 on): turns end when the fake server is quiet as well.
# The turn is over when Claude Code's own marks all say so: no spinner row, and the title's
# first cell back at rest (it spins, `⠂`/`⠐` or `◐`/`◑`, until the turn ends; the final frame
# can come a write before the title does).
TITLE_SPINNING = r"^[\u2800-\u28ff◐◑◒◓] "
# With the title turned off (dress `notitle`) a turn is over when the pane has not changed for
# this long (and the model is done): the spinner row ticks several times a second, an answer
# being drawn changes the screen every 0.1-0.3 s.
NOTITLE_STILL = 1.0
# The spinner row by its glyphs (the program's frame list; with `prefersReducedMotion` a still
# `●`, the answer marker, which the verb's `…` right after one word tells apart): a start-up
# banner row such as `│ /…/proj │` fits the looser SPINNER above.
SPINNER_ROW = r"^[·✢*✶✻✽✳●] \S+…"
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

# An answer that streams for longer than the pane tracker's 8 s cap on "still printing", with
# a pause in its middle (issue 28): 2.1.116 with a status line draws no spinner row while the
# text streams, so with the title off only the answer growing tells the turn.
P_SLOW = "walk me through the escapes one by one"
_SLOW_LINES = [
    f"{n}. ESC [ {n} m switches graphic rendition {n} on; ESC [ 0 m turns it off again."
    for n in range(1, 25)
]
SLOW_ANSWER = Turn(
    P_SLOW,
    [
        [
            Pause(0.3),
            Text("One by one:\n\n" + "\n".join(_SLOW_LINES[:12]) + "\n", chunk=24, delay=0.2),
            Pause(1.0),
            Text("\n".join(_SLOW_LINES[12:]) + "\n\nThat is all of them.", chunk=24, delay=0.2),
        ]
    ],
)

# A permission dialog right after a long streamed answer in the same turn (issue 28): the
# transcript has just scrolled a long way when the dialog replaces the input box.
P_LONG_BASH = "list the escapes, then clean the build directory"
LONG_BASH = Turn(
    P_LONG_BASH,
    [
        [
            Pause(0.3),
            Text("Here is the list:\n\n" + "\n".join(_SLOW_LINES) + "\n", chunk=90, delay=0.03),
            Tool("bash", {"command": st.BASH_COMMAND, "description": "Remove the build directory"}),
        ],
        [Pause(0.5), Text("Done: the build directory is gone.", chunk=6, delay=0.06)],
    ],
)

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


# 2.0.x (and 1.0.x): the interrupt hint is on the spinner row above the input box
# (`✻ Calculating… (esc to interrupt)`, later `(12s · ↓ 40 tokens · esc to interrupt)`) while
# the footer keeps `? for shortcuts` or the mode line: the working cue looks a few rows up.
LEGACY_UI = Ui(
    idle=IDLE,
    working=Cue(r"^\S \S+….*\(.*esc to interrupt", tail=8),
    place="prompt",
    ready_note="startup finished, empty prompt box",
    # An Enter right behind the typed text can land in the box as a newline (paste detection).
    submit_pause=0.5,
)
# The plan approval dialog once its menu is drawn down to the `No` option (2.0.x: `Would you
# like to proceed?` under `Ready to code?`; 2.1.x: `Exit plan mode?` / the plan and a menu).
PLAN_MENU = Cue(r"(?:\bproceed\?|Exit plan mode\?)" + _MENU)


def legacy_release(version: str | None) -> bool:
    """Releases before 2.1, whose interrupt hint is on the spinner row, not in the footer."""
    return version is not None and version.split(".")[:2] in (["1", "0"], ["2", "0"])


class Claude(AgentSpec):
    name = "claude"
    folder = "claude"
    ui = DEFAULT_UI
    turns: ClassVar[tuple[Turn, ...]] = (
        *CLAUDE_TURNS,
        BG_SHELL,
        SUBAGENTS,
        SURVEY,
        SLOW_ANSWER,
        LONG_BASH,
    )
    dialect = Dialect(
        tools={
            "questions": ToolShape("AskUserQuestion", _questions),
            "todos": ToolShape(
                "TodoWrite",
                lambda a: {
                    "todos": [
                        {
                            "content": item,
                            "status": "in_progress" if i == 0 else "pending",
                            "activeForm": item,
                        }
                        for i, item in enumerate(a["items"])
                    ]
                },
            ),
            "mcp": ToolShape("mcp__lab__deploy", lambda a: {"target": a["target"]}),
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
    # Dresses of its own (`record --dress`): the light theme, reduced motion, the accessibility
    # mode (native cursor), and the window title off (its
    # working/idle title is what some rules fall back on; the driver then needs another end of
    # a turn: `use_config`).
    dresses: ClassVar[dict[str, Dress]] = by_name(
        Dress("light", "theme light", options={"theme": "light"}),
        Dress(
            "notitle",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1: Claude Code sets no window title",
            env={"CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1"},
            options={"notitle": True},
        ),
        Dress(
            "reducedmotion",
            "settings prefersReducedMotion: true (animations reduced for accessibility)",
            options={"reduced_motion": True},
        ),
        Dress(
            "accessibility",
            "CLAUDE_CODE_ACCESSIBILITY=1: the terminal's own cursor shown, for screen readers",
            env={"CLAUDE_CODE_ACCESSIBILITY": "1"},
        ),
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
        "plan": ("--permission-mode plan", {"permission_mode": "plan"}),
        "acceptedits": ("--permission-mode acceptEdits", {"permission_mode": "acceptEdits"}),
        "auto": (
            "--permission-mode auto (2.1.x releases that have it)",
            {"permission_mode": "auto"},
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
    releases = True
    pinned: str | None = os.environ.get("OSF_LAB_CLAUDE_VERSION") or None

    def use_config(self, options: dict[str, object]) -> None:
        if options.get("statusline"):
            self.ui = STATUS_UI
        elif options.get("vim"):
            self.ui = VIM_UI
        elif legacy_release(self.pinned):
            self.ui = LEGACY_UI
        else:
            self.ui = DEFAULT_UI
        if options.get("notitle"):
            # Without the title nothing tells the driver that 2.1.116 is still drawing an
            # answer under an idle-looking box (no spinner row while text streams): the turn
            # is over once the model is done and the pane has stopped changing.
            self.ui = dataclasses.replace(self.ui, done_quiet=True, done_still=NOTITLE_STILL)

    def binary(self) -> Path:
        prefix = self.release_prefix(self.pinned) if self.pinned else lab_home() / "npm"
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

    def read_version(self) -> str:
        binary = self.binary()
        if binary.suffix == ".js":
            return package_version(binary.with_name("package.json"))
        return command_version([str(binary), "--version"])

    def build(self, s: Shapes) -> list[Scenario]:
        # The cues follow the configuration (`use_config`): the standard part is built here.
        standard = Standard(
            dialog=BASH_PROMPT,
            what="Bash permission prompt",
            first_option="select 1. Yes",
            bash="Bash permission prompt",
            approved="Bash permission prompt approved with option 1",
            startup="launch with dialogs pre-answered; idle input box",
            text="a slowly streamed text answer",
            edit_write="Read, then an Edit prompt and a Write (new file) prompt, both approved",
            edit_dialog=EDIT_PROMPT,
            edit="Edit permission prompt",
            write_dialog=WRITE_PROMPT,
            write="Write (create file) permission prompt",
            between=self.ui.working,
            between_note="edit approved; agent working",
            edit_after="write approved; agent working",
            question=QUESTION_PROMPT,
            question_desc="AskUserQuestion dialog answered with the first option",
            question_note="AskUserQuestion dialog",
            question_answer=Keys(("Enter",), "select the first option"),
            thinking="a thinking block streamed before the answer",
            long_output="a long answer that scrolls the transcript",
            draft=STATUS_DRAFT_IDLE if self.ui is STATUS_UI else DRAFT_IDLE,
            draft_place="input box",
            trust=TRUST_PROMPT,
            trust_what="trust-folder dialog",
        )
        return [
            *s.standard(standard),
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
                "long_then_bash",
                "a long streamed answer, then the Bash permission prompt in the same turn",
                P_LONG_BASH,
                s.blocked(BASH_PROMPT, "Bash permission prompt right after a long answer"),
                Keys(("Enter",), "select 1. Yes"),
                s.working("approved; command running"),
            ),
            s.sc(
                "slow_answer",
                "an answer streamed for about 20 s with a 1 s pause in its middle",
                s.start(),
                s.ask(P_SLOW),
                Expect(
                    "idle",
                    self.ui.idle,
                    f"turn finished, back at the {self.ui.place}",
                    timeout=90,
                    settle=self.ui.done_settle,
                    server_quiet=self.ui.done_quiet,
                    still=self.ui.done_still,
                ),
            ),
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
            s.plain(
                "acceptedits_edit",
                "--permission-mode acceptEdits: an edit and a new file, no dialog",
                st.P_EDIT,
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
            s.plain(
                "auto_bash",
                "--permission-mode auto: a command in the project runs unasked",
                st.P_BASH,
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
                "plan_approve",
                "--permission-mode plan: a plan written to the plan file, its approval dialog, "
                "approved",
                s.start(),
                s.ask(P_PLAN_FILE),
                dialog(PLAN_MENU, "plan approval dialog: the plan file's plan and a menu"),
                Keys(("Enter",), "accept option 1"),
                s.working("plan approved; agent working"),
                s.done(),
                permission_mode="plan",
            ),
            s.sc(
                "plan_empty",
                "--permission-mode plan: ExitPlanMode with no plan file written (the short "
                "`Exit plan mode?` dialog), approved",
                s.start(),
                s.ask(st.P_PLAN),
                dialog(PLAN_MENU, "exit-plan-mode dialog without a plan"),
                Keys(("Enter",), "accept option 1"),
                s.done(),
                permission_mode="plan",
            ),
            s.sc(
                "todos",
                "a to-do list (TodoWrite) under the spinner row while the answer streams",
                s.start(),
                s.ask(P_TODOS),
                # 2.0.x draws the list only once it is expanded (ctrl+t, kept in the settings)
                Keys(("C-t",), "ctrl+t: show the to-do list"),
                Expect(
                    "working",
                    Cue(r"(?s)\(.*esc to interrupt.*\n(?:.*\n)*?.*☐ Read app\.py", tail=24),
                    "spinner row with the to-do list under it",
                    timeout=20,
                ),
                # the spinner row is many rows up: the idle cue looks over the whole list
                Expect(
                    "idle",
                    # (a narrow pane wraps the footer: `? for` / `shortcuts`)
                    Cue(r"\? for\b|" + IDLE.pattern, absent=IDLE.absent, tail=24),
                    "turn finished, back at the prompt (the list stays in the transcript)",
                    settle=1.2,
                    server_quiet=True,
                ),
            ),
            s.plain(
                "auto_denied",
                "--permission-mode auto, a release whose classifier decides alone (2.1.1xx): "
                "a risky command is denied without a dialog, Claude goes on, the turn ends",
                P_RISKY,
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
                # one key per write: 2.0.x (node) takes four arrows in one read as one key
                *[
                    step
                    for _ in range(4)
                    for step in (Keys(("Down",), "move the pointer down"), Sleep(0.3))
                ],
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

    launch_env: ClassVar[dict[str, str]] = {
        "ANTHROPIC_BASE_URL": "{url}",
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {
        "bypass": ("--dangerously-skip-permissions",),
        "permission_mode": ("--permission-mode", "{}"),
    }

    def command(self) -> list[str]:
        binary = self.binary()
        return ["/usr/bin/node", str(binary)] if binary.suffix == ".js" else [str(binary)]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        state: dict[str, object] = {
            "hasCompletedOnboarding": True,
            "numStartups": 5,
            "hasSeenAutoDefaultNudge": True,
            "hasResetAutoModeOptInForDefaultOffer": True,
            "projects": {
                str(dirs.proj): {
                    "hasTrustDialogAccepted": bool(options.get("seed_trust", True)),
                    "allowedTools": [],
                }
            },
        }
        if options.get("seed_apikey", True):
            # Claude Code remembers an approved key by its last 20 characters.
            state["customApiKeyResponses"] = {"approved": [API_KEY[-20:]], "rejected": []}
        files: Files = {}
        server = {
            "type": "stdio",
            "command": sys.executable,
            "args": [str(MCP_SERVER), "--tools", "deploy"],
        }
        if options.get("mcp"):
            # user scope: no approval needed at start-up, each tool call asks
            state["mcpServers"] = {"lab": server}
        if options.get("mcp_project"):
            # project scope (.mcp.json), not yet approved: a start-up dialog asks about it
            files[str(dirs.proj / ".mcp.json")] = {"mcpServers": {"lab": server}}
        # Without defaultMode "default" auto mode is the default and ordinary commands never
        # prompt, which is not what these scenarios are about.
        settings: dict[str, object] = {
            "permissions": {"defaultMode": "default"},
            "skipAutoPermissionPrompt": not options.get("auto_prompt", False),
        }
        status = options.get("statusline")
        if status:
            script = dirs.home / ".claude" / "statusline.py"
            files[str(script)] = Executable(STATUS_SCRIPTS[str(status)])
            settings["statusLine"] = {"type": "command", "command": str(script)}
        if options.get("theme"):
            state["theme"] = options["theme"]
        if options.get("vim"):
            state["editorMode"] = "vim"
        if options.get("reduced_motion"):
            settings["prefersReducedMotion"] = True
        if options.get("bypass") and not options.get("bypass_warning", False):
            # Pre-accepted, unless the scenario is about the start-up warning itself.
            settings["skipDangerousModePermissionPrompt"] = True
            state["bypassPermissionsModeAccepted"] = True
        files[".claude.json"] = state
        files[".claude/settings.json"] = settings
        return files

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        # Claude Code refuses bypass mode as root outside a sandbox it knows of; the lab's
        # throwaway HOME and project are one (the lab may run as root in a container).
        return {"IS_SANDBOX": "1"} if options.get("bypass") else {}
