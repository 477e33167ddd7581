"""Grok Build, xAI's own Grok CLI (a static Rust binary; PyPI wheel `grok-cli-bin`, which carries
it as `grok_cli_bin/bin/grok`), against the fake server's OpenAI chat completions: a custom model
in `~/.grok/config.toml` (`[model.fake-model]`, `api_backend = "chat_completions"`) with an API
key of its own, so no login is asked for and nothing goes to xAI's servers."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario, cat_hook
from tools.agentlab.dialect import Dialect
from tools.agentlab.dress import Dress
from tools.agentlab.shapes import Shapes, Ui

# The footer row under the input box: "Shift+Tab:mode  │  Ctrl+x:shortcuts" when idle, with
# "Esc:cancel" while a turn runs (the spinner row "⠹ Remove the build directory… 13s ... [stop]"
# above the box). A permission panel replaces box and footer: rows behind a "┃" gutter,
# options "1 (●) Yes, and don't ask again ...", "2 (○) Yes, proceed", and the key row
# "1/3:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel" last.
FOOTER = r"Shift\+Tab:mode\b[^\n]*Ctrl\+x:shortcuts"
# The input box's bottom edge (the model's name in it) and one footer row under it: the key
# hints, or right after start "Logged in with API key  │  Beta".
IDLE = Cue(r"╰─[^\n]*─╯\n[^\n]*\S", absent=r"Esc:cancel|\[stop\]|\d/\d:select", tail=2)
WORKING = Cue(r"Esc:cancel|\[stop\]", absent=r"\d/\d:select", tail=4)
PERMISSION = Cue(r"(?s)┃ +1 \([●○]\) .*\n *1/\d:select +│[^\n]*Ctrl\+c:cancel")
SCOPE = Cue(r"(?s)Use ← → to choose permission scope.*Always allow: .*1/\d:select")
QUESTION = Cue(r"(?s)Which database should the app use\?.*1 \([●○]\) PostgreSQL.*Enter:submit")
# Plan mode's approval: the plan in a viewer box, its key row "a approve | s request changes |
# c comment | q quit plan" inside it; the input box's edge says "plan approval", the footer
# "c:comment  │  a:approve  │  q:quit plan  │  v:select  │  Tab:prompt".
PLAN_MODE = Cue(r"· plan ─╯\n[^\n]*Shift\+Tab:mode", tail=2)
PLAN_APPROVAL = Cue(r"plan approval ─╯\n[^\n]*\ba:approve\b", tail=2)
DRAFT_IDLE = Cue(r"│ ❯ Do you want to proceed", absent=r"Esc:cancel|\[stop\]")

# `--minimal` (scrollback-native): no box and no footer of key hints. The pinned rows at the
# bottom are the `❯` row and the status row under it ("Fake Model · 90 / 128K (0%) · ctrl+o
# transcript"); over them "minimal · /help" when idle, the spinner row ("⠋ Waiting for
# response… 0.7s ... ⇣1.04k") while a turn runs. A panel is drawn in their place: its rows
# behind the "┃" gutter, the last one too (no key row).
MIN_STATUS = r"❯[^\n]*\n[^\n]*·[^\n]*ctrl\+o transcript *$"
MIN_SPINNER = r"^[⠀-⣿] \S[^\n]*\n"
MIN_IDLE = Cue(r"^minimal · /help *\n" + MIN_STATUS, absent=MIN_SPINNER, tail=3)
MIN_WORKING = Cue(MIN_SPINNER + MIN_STATUS, tail=3)
MIN_PANEL_END = r"(?:\n┃[^\n]*)*\Z"
MIN_PERMISSION = Cue(r"^┃ +1 \([●○]\) [^\n]*\n┃ +2 \([●○]\) Yes, proceed" + MIN_PANEL_END)
# An edit's or a new file's panel: 1 always-approve, 2 every edit of the session, 3 Yes, 4 No.
MIN_EDIT = Cue(
    r"(?s)^┃ +Allow \w+ to \S*app\.py\?.*^┃ +3 \([●○]\) Yes *\n" + r"[^\n]*" + MIN_PANEL_END
)
MIN_WRITE = Cue(
    r"(?s)^┃ +Allow \w+ to \S*NOTES\.md\?.*^┃ +3 \([●○]\) Yes *\n" + r"[^\n]*" + MIN_PANEL_END
)
MIN_QUESTION = Cue(
    r"(?s)^┃ +Which database should the app use\?.*^┃ +1 \([●○]\) PostgreSQL[^\n]*" + MIN_PANEL_END
)
# Plan mode's approval, minimal: the plan's title (or "No plan written yet") over the key row
# "a approve · s revise · q keep planning", last.
MIN_PLAN_MODE = Cue(r"· plan · [^\n]*ctrl\+o transcript *$", absent=MIN_SPINNER, tail=2)
MIN_PLAN_APPROVAL = Cue(r"^a approve · [^\n]*\bq keep planning *\Z", tail=2)

CONFIG = """\
[models]
default = "fake-model"

[model.fake-model]
model = "fake-model"
base_url = "{url}/v1"
name = "Fake Model"
api_key = "sk-agentlab-fake"
api_backend = "chat_completions"
context_window = 128000

[features]
telemetry = false
feedback = false
remote_fetch = false
"""
# Per-command "Always allow: <prefix>" / "Never allow: <prefix>" rows: the scope panel.
REMEMBER = """
[ui]
remember_tool_approvals = true
"""


FULL_UI = Ui(idle=IDLE, working=WORKING, start_timeout=60, dialog_settle=1.5)
MINIMAL_UI = Ui(
    idle=MIN_IDLE, working=MIN_WORKING, place="❯ row", start_timeout=60, dialog_settle=1.5
)


class GrokBuild(AgentSpec):
    name = "grok-build"
    folder = "grok-build"  # captures/grok-build-<version>-lab
    dialect = Dialect(side_tools=frozenset({"session_title"}))
    ui = FULL_UI
    configs: ClassVar[dict[str, tuple[str, dict[str, object]]]] = {
        "remember": (
            "[ui] remember_tool_approvals = true: the panel's per-command Always/Never allow rows",
            {"remember": True},
        ),
    }

    # Its own settings as `--dress NAME`: the light theme (`[ui] theme`, GrokDay; the default
    # GrokNight is dark).
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", "[ui] theme = grokday (GrokDay)", options={"theme": "grokday"}),
        "minimal": Dress(
            "minimal",
            "--minimal: scrollback-native inline mode, no input box and no key-hint footer",
            options={"minimal": True},
        ),
    }
    pypi_dist = "grok_cli_bin"  # the wheel's version is the binary's ("grok 0.2.111 (94172f2aa4)")
    pypi_entry = "grok_cli_bin/bin/grok"
    launch_env: ClassVar[dict[str, str]] = {
        "GROK_DISABLE_AUTOUPDATER": "1",
        "GROK_TELEMETRY_ENABLED": "0",
    }
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {"minimal": ("--minimal",)}

    remember = False  # the configuration `build` plays (use_config)

    minimal = False  # the `minimal` dress: `--minimal`, its own cues and scenarios

    def use_config(self, options: dict[str, object]) -> None:
        self.remember = bool(options.get("remember"))
        self.minimal = bool(options.get("minimal"))
        self.ui = MINIMAL_UI if self.minimal else FULL_UI

    def build(self, s: Shapes) -> list[Scenario]:
        if self.minimal:
            return self.build_minimal(s)
        remember = self.remember
        # Option numbers: without the per-command rows 1 always-approve, 2 Yes, proceed,
        # 3 No, reject; with them 2 Always allow, 3 Yes, proceed, 4 No, reject, 5 Never allow.
        yes, no = ("3", "4") if remember else ("2", "3")
        dialog = SCOPE if remember else PERMISSION
        approve = Keys((yes,), f"{yes} Yes, proceed")
        reject = Keys((no,), f"{no} No, reject")
        approvals = s.approvals(
            what="permission panel with per-command scope rows" if remember else "permission panel",
            approved=f"permission panel approved ({yes} Yes, proceed)",
            dialog=s.blocked(
                dialog,
                "Use ← → to choose permission scope; Always allow"
                if remember
                else "the command, 1 always-approve, 2 Yes, proceed, 3 No",
            ),
            first_option="",
            approve=approve,
            reject=reject,
            esc=False,  # Esc does nothing on the panel: Ctrl+c cancels it
        )
        if remember:
            return approvals
        return [
            s.startup("launch; input box ready"),
            s.text(),
            *approvals,
            s.sc(
                "bash_cancel",
                "permission panel cancelled with Ctrl+c",
                s.start(),
                s.ask(st.P_BASH),
                s.blocked(dialog, "the permission panel"),
                Keys(("C-c",), "cancel with Ctrl+c"),
                s.back("cancelled; back at the input box"),
            ),
            *s.interrupts(keys=("Escape",)),
            *panels(
                s,
                edit=PERMISSION,
                write=PERMISSION,
                question=QUESTION,
                plan_mode=PLAN_MODE,
                plan_approval=PLAN_APPROVAL,
                plan="exit_plan_mode opens the plan approval",
                approval="the plan viewer: a approve, s request changes, q quit",
            ),
            *s.answers(),
            s.draft(DRAFT_IDLE),
            s.hooks_bash(
                "",
                s.blocked(dialog, "the permission panel"),
                approve,
                desc="permission panel approved, hooks of every event logging their payloads",
            ),
            s.sc(
                "hooks_no",
                "permission panel rejected (No), hooks of every event logging their payloads",
                s.start(),
                s.ask(st.P_BASH),
                s.blocked(dialog, "the permission panel"),
                reject,
                s.back("rejected: the turn is cancelled; back at the input box"),
                hooks=True,
            ),
        ]

    def build_minimal(self, s: Shapes) -> list[Scenario]:
        """`--minimal`: start-up, a text turn, the command's panel approved and rejected, the
        edit's and the new file's panels, the question and the plan approval: every panel it
        draws."""
        panel = s.blocked(MIN_PERMISSION, "the command, 1 always-approve, 2 Yes, proceed, 3 No")
        return [
            s.startup("launch (--minimal); the ❯ row ready"),
            s.text(),
            *s.approvals(
                what="permission panel",
                approved="permission panel approved (2 Yes, proceed)",
                dialog=panel,
                first_option="",
                approve=Keys(("2",), "2 Yes, proceed"),
                reject=Keys(("3",), "3 No, reject"),
                esc=False,
            ),
            *panels(
                s,
                edit=MIN_EDIT,
                write=MIN_WRITE,
                question=MIN_QUESTION,
                plan_mode=MIN_PLAN_MODE,
                plan_approval=MIN_PLAN_APPROVAL,
                plan="exit_plan_mode asks for the plan's approval",
                approval="the plan approval: a approve, s revise, q",
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config = CONFIG.format(url=url)
        if options.get("remember"):
            config += REMEMBER
        theme = options.get("theme")
        if theme:
            # one [ui] table: a theme joins the remember configuration's, or opens its own
            config += f'theme = "{theme}"\n' if "[ui]" in config else f'\n[ui]\ntheme = "{theme}"\n'
        files: Files = {".grok/config.toml": config}
        if options.get("hooks"):
            files[".grok/hooks/lab.json"] = _hooks(dirs.root / "hooks.jsonl")
            # Grok Build also reads ~/.claude/settings.json (Claude Code compatibility):
            # claude-hooks.jsonl shows what a Claude Code hook of the person's receives there.
            files[".claude/settings.json"] = _hooks(dirs.root / "claude-hooks.jsonl")
        return files


def panels(
    s: Shapes,
    *,
    edit: Cue,
    write: Cue,
    question: Cue,
    plan_mode: Cue,
    plan_approval: Cue,
    plan: str,
    approval: str,
) -> list[Scenario]:
    """The edit's and the new file's panels (3 Yes), the question (1) and the plan approval
    (a): the same turns on the full screen and on `--minimal`'s, with each screen's cues."""
    return [
        s.edit_write(
            "edit permission, then new-file permission, both approved (3 Yes)",
            edit=s.blocked(edit, "Allow Edit to app.py?"),
            approve=Keys(("3",), "3 Yes"),
            between=s.working("edit approved"),
            write=s.blocked(write, "Allow Edit to NOTES.md?"),
        ),
        s.question(
            "ask_user_question: a question with options, first option chosen with 1",
            s.blocked(question, "Which database should the app use? with its options"),
            Keys(("1",), "1 PostgreSQL"),
        ),
        s.sc(
            "plan",
            f"plan mode (Shift+Tab): {plan}, approved with a",
            s.start(),
            Keys(("BTab",), "plan mode"),
            Expect("idle", plan_mode, "plan mode on, idle", settle=1.0),
            s.ask(st.P_PLAN),
            s.blocked(plan_approval, approval),
            Keys(("a",), "a approve"),
            s.working("plan approved; agent working"),
            s.done(),
        ),
    ]


# Every event the docs name (10-hooks.md), each logging its payload: what the hooks of osf-tmux
# can rely on is read off hooks.jsonl.
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "Notification",
    "Stop",
    "StopFailure",
    "SessionEnd",
)


def _hooks(log: Path) -> dict[str, object]:
    """Every event of HOOK_EVENTS logging its payload to `log`."""
    hook = {"type": "command", "command": cat_hook(log), "timeout": 10}
    return {"hooks": {event: [{"hooks": [hook]}] for event in HOOK_EVENTS}}
