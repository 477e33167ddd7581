"""OpenCode (the native binary of `opencode-ai`) against the fake chat-completions server through
a custom `@ai-sdk/openai-compatible` provider; Kilo CLI (kilo.py) is the same program family
and reuses everything here but its names."""

from __future__ import annotations

from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Sleep, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.dress import Dress
from tools.agentlab.script import Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard, Ui

# The footer under the input box: `⬝⬝⬝■■■■  esc interrupt` while a turn runs (diamonds
# `⬥◆⬩·` in another spinner style, `[⋯]` with animations off; `esc again to interrupt` after one
# Esc), the working directory and `ctrl+p commands` otherwise. Dialogs replace the input box and
# its footer altogether.
SPIN = r"(?:[■⬝⬥◆⬩⬪·]{8}|\[⋯\]) +\S+ (?:again to )?interrupt"
WORKING = Cue(SPIN, tail=2)
IDLE = Cue(
    r"ctrl\+p commands",
    absent=SPIN + r"|enter confirm|esc dismiss|enter submit",
    tail=4,
)
# `--mini` draws inline: the same spinner and dialogs, a status row ending in `ctrl+p cmd`.
MINI_IDLE = Cue(
    r"ctrl\+p cmd\b",
    absent=SPIN + r"|enter confirm|esc dismiss|enter submit",
    tail=3,
)
PERMISSION = Cue(r"Allow(?: once)? +(?:Allow always +)?Reject", tail=5)
ALWAYS = Cue(r"Confirm +Cancel", tail=5)
QUESTION = Cue(r"esc dismiss", tail=3)
REJECT_MESSAGE = Cue(r"enter confirm +esc cancel", tail=3)
# Typed but never sent: OpenCode's own dialog words in the input box must read idle.
DRAFT = (
    "Allow once   Allow always   Reject  ⇆ select  enter confirm  △ Permission required  "
    "1. Yes  2. Type your own answer  ↑↓ select  enter submit  esc dismiss  esc interrupt"
)
DRAFT_IDLE = Cue(r"┃ +Allow once +Allow always +Reject", absent=SPIN, tail=10)

FAMILY_TURNS = [
    # A command long enough to be interrupted while it runs.
    Turn(
        st.P_SLOW,
        [
            [
                Text("Running the slow check."),
                Tool("bash", {"command": "sleep 20 && echo done", "description": "Slow check"}),
            ],
            [Text("The slow check finished.")],
        ],
    ),
]


# The first screen can take ~45 s on a loaded machine (a 180 MB binary, a database migration on
# the first start); a session's first turn boots the project's services first (12-20 s before
# the first model request), so the cues after a prompt wait longer than the driver's default.
# At a load average of ~40 on two cores (2026-12-06) the first permission prompt took more than
# 90 s to come: 150.
TURN = 150.0
UI = Ui(
    idle=IDLE,
    working=WORKING,
    start_timeout=120,
    submit_pause=0.4,
    done_quiet=True,
    turn_timeout=TURN,
)
MINI_START = Expect("idle", MINI_IDLE, "startup finished, prompt ready", timeout=120, settle=0.8)


def _rejected(s: Shapes, how: str, message_stage: bool) -> list[Action]:
    """After Esc or Reject: OpenCode rejects at once; Kilo first asks what to tell the agent
    instead (a second stage, still waiting), confirmed with Enter."""
    if not message_stage:
        return [s.done(f"rejected with {how}; back at the input box")]
    return [
        s.blocked(REJECT_MESSAGE, f"{how}: the reject message (what to tell the agent instead)"),
        Keys(("Enter",), "confirm the rejection, no message"),
        s.done("rejected; back at the input box"),
    ]


def _esc_esc(s: Shapes) -> list[Action]:
    """One Esc only asks for another; the second interrupts."""
    return [
        Keys(("Escape",), "first Esc: the footer asks for another"),
        Expect("working", Cue(r"again to interrupt", tail=2), "still working", settle=0.5),
        Keys(("Escape",), "second Esc interrupts"),
        s.done("interrupted; back at the input box"),
    ]


STANDARD = Standard(
    dialog=PERMISSION,
    what="command permission prompt",
    first_option="Allow once (the option selected when the prompt opens)",
    bash="command permission prompt (Allow once / always / Reject)",
    approved="command permission prompt approved with Enter (Allow once)",
    reject=None,  # Esc and Reject below: Kilo asks for a message first
    esc=False,
    startup="launch; home screen with the input box",
    text="a slowly streamed text answer",
    interrupt_keys=(),  # Esc Esc below
    edit_write="read, then an edit permission prompt and a write (new file) prompt, both approved",
    edit="edit permission prompt (diff of app.py)",
    write="write permission prompt (NOTES.md)",
    edit_approve=Keys(("Enter",), "Allow once"),
    between=WORKING,
    between_note="edit approved; agent working",
    edit_after="write approved; agent working",
    question=QUESTION,
    question_desc="the question tool: a question with numbered options, answered with 1",
    question_note="question dialog with numbered options",
    question_answer=Keys(("1",), "pick option 1"),
    long_output="a long answer that scrolls the transcript",
)


def scenarios(
    s: Shapes, plan_agent: str, message_stage: bool, plan_pick: tuple[str, str]
) -> list[Scenario]:
    bash_prompt = s.blocked(PERMISSION, "command permission prompt (Allow once / always / Reject)")
    allow = Keys(("Enter",), "Allow once")
    return [
        *s.standard(STANDARD),
        s.sc(
            "bash_esc",
            "command permission prompt rejected with Esc",
            s.start(),
            s.ask(st.P_BASH),
            bash_prompt,
            Keys(("Escape",), "reject with Esc"),
            _rejected(s, "Esc", message_stage),
        ),
        s.sc(
            "bash_no",
            "command permission prompt rejected by choosing Reject",
            s.start(),
            s.ask(st.P_BASH),
            bash_prompt,
            Keys(("Right",), "select Allow always"),
            Sleep(0.3),
            Keys(("Right",), "select Reject"),
            Sleep(0.3),
            Keys(("Enter",), "confirm Reject"),
            _rejected(s, "Reject", message_stage),
        ),
        s.sc(
            "bash_always",
            "Allow always, then its confirmation dialog (Confirm / Cancel) confirmed",
            s.start(),
            s.ask(st.P_BASH),
            bash_prompt,
            Keys(("Right",), "select Allow always"),
            Sleep(0.3),
            Keys(("Enter",), "choose Allow always"),
            s.blocked(ALWAYS, "Always allow: the patterns to allow, Confirm / Cancel"),
            Keys(("Enter",), "Confirm"),
            s.working("confirmed; command running"),
            s.done(),
        ),
        s.sc(
            "bash_interrupt",
            "command approved, then interrupted with Esc Esc while it runs",
            s.start(),
            s.ask(st.P_SLOW),
            bash_prompt,
            allow,
            Expect("working", WORKING, "approved; command running", settle=2.0),
            _esc_esc(s),
        ),
        s.sc(
            "interrupt_esc",
            "long streamed answer interrupted with Esc Esc",
            s.start(),
            s.ask(st.P_ESSAY),
            Expect(None, Cue(r"Terminals began"), "answer streaming", timeout=TURN, settle=1.5),
            _esc_esc(s),
        ),
        s.dialog_turn(
            "plan",
            "plan agent: after plan_exit the agent asks whether to implement; answered",
            st.P_PLAN,
            s.blocked(QUESTION, "after plan_exit: implement the plan? (its own question dialog)"),
            Keys((plan_pick[0],), plan_pick[1]),
            s.working("plan approved; agent working"),
            agent=plan_agent,
            plan_mode=True,
        ),
        s.sc(
            "mini_bash_yes",
            "--mini (inline interface): a command permission prompt approved with Enter",
            MINI_START,
            s.ask(st.P_BASH),
            bash_prompt,
            allow,
            s.working("approved; command running"),
            Expect(
                "idle",
                MINI_IDLE,
                "turn finished, back at the prompt",
                settle=1.2,
                server_quiet=True,
            ),
            mini=True,
        ),
        s.sc(
            "mini_draft",
            "--mini: dialog words typed at the prompt, never sent (idle)",
            MINI_START,
            Type(DRAFT, "draft with dialog words, not sent"),
            Expect(
                "idle",
                Cue(r"Allow once +Allow always +Reject", absent=SPIN, tail=8),
                "draft at the prompt; still idle",
                settle=2.0,
            ),
            mini=True,
        ),
        s.sc(
            "draft",
            "after a turn, the dialogs' own words typed into the input box, never sent (idle)",
            s.start(),
            s.ask(st.P_TEXT),
            s.done(),
            Type(DRAFT, "draft with dialog words, not sent"),
            Expect("idle", DRAFT_IDLE, "draft in the input box; still idle", settle=2.0),
        ),
    ]


class OpenCode(AgentSpec):
    name = "opencode"
    folder = "opencode"
    # How the program is installed and named: its package and command, its config folder under
    # XDG_CONFIG_HOME and config file, the prefix of its environment switches.
    npm_package = "opencode-ai"
    npm_command = "opencode"
    config_dir = "opencode"
    config_file = "opencode.json"
    env_prefix = "OPENCODE_"
    plan_agent = "plan"
    # Whether Esc / Reject on a permission prompt first asks for a message to the agent.
    reject_message = False
    # The answer to the question that follows plan_exit: OpenCode's `Switch to the build agent?`.
    plan_pick = ("1", "pick Yes (switch to the build agent)")
    turns = tuple(FAMILY_TURNS)
    ui = UI
    # plan_exit takes no arguments; its name is not one the server knows for a plan.
    dialect = Dialect(tools={"plan": ToolShape("plan_exit", lambda a: {})})
    # Its own setting (`record --dress`): OpenCode takes dark or light from the terminal's
    # background (an OSC 11 query); its "toggle theme mode" command locks one and keeps the lock
    # in the TUI's state (`theme_mode_lock` in kv.json). No screen-reader or reduced-motion mode.
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress(
            "light", "theme mode locked to light (theme_mode_lock)", options={"theme_mode": "light"}
        )
    }

    def build(self, s: Shapes) -> list[Scenario]:
        return scenarios(s, self.plan_agent, self.reject_message, self.plan_pick)

    option_args: ClassVar[dict[str, tuple[str, ...]]] = {
        "agent": ("--agent", "{}"),
        "mini": ("--mini",),
    }

    def extra_env(self) -> dict[str, str]:
        """Switches of the fork's own."""
        return {}

    def config_extra(self, options: Options) -> dict[str, object]:
        """Settings a family member adds to the config file it is started with."""
        return {}

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config = {
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": url + "/v1", "apiKey": "sk-fake"},
                    "models": {"fake-model": {"name": "Fake Model", "tool_call": True}},
                }
            },
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "ask", "edit": "ask"},
            **self.config_extra(options),
        }
        files: Files = {f".config/{self.config_dir}/{self.config_file}": config}
        mode = options.get("theme_mode")
        if mode:
            files[f".local/state/{self.config_dir}/kv.json"] = {"theme_mode_lock": mode}
        return files

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        p = self.env_prefix
        env = {
            "XDG_CONFIG_HOME": str(dirs.home / ".config"),
            "XDG_DATA_HOME": str(dirs.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(dirs.home / ".cache"),
            "XDG_STATE_HOME": str(dirs.home / ".local" / "state"),
            p + "DISABLE_AUTOUPDATE": "1",
            p + "DISABLE_MODELS_FETCH": "1",
            p + "DISABLE_LSP_DOWNLOAD": "1",
            p + "DISABLE_SHARE": "1",
            **self.extra_env(),
        }
        if options.get("plan_mode"):
            # plan_exit is offered to the plan agent only with the experimental plan mode.
            env[p + "EXPERIMENTAL_PLAN_MODE"] = "1"
        return env
