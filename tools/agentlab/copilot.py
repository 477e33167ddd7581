"""GitHub Copilot CLI (`@github/copilot`: a node loader that runs the native binary of its
platform package) in offline mode against the fake chat completions API (BYOK provider)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, PickOption, Sleep, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.dress import LIGHT_WINDOW, Dress, by_name, switch
from tools.agentlab.shapes import Shapes, Standard, Ui

# The footer row under the input box is the last row on screen: the mode while idle, the spinner
# and the double-Esc hint while a turn runs (after the mode in Plan/Autopilot mode). Dialogs
# replace the input box and its footer.
WORKING_HINT = r"esc esc (interrupt|edit prompt|stop agents)|esc again to interrupt|Cancelling"
IDLE = Cue(
    # 1.0.4x: no mode in Interactive mode, only the shortcuts
    r"(Interactive|Plan|Autopilot) · |^ ?/ commands · \? help",
    absent=WORKING_HINT + r"|to navigate|enter accept",
    tail=1,
)
WORKING = Cue(WORKING_HINT, tail=1)


def _box(words: str) -> Cue:
    """A dialog box with these words, drawn down to its bottom edge: a pipe read can end in the
    middle of the frame that draws it, and until the edge is there the old footer still shows
    under a half-drawn box. With `--screen-reader` the dialog has no box: it is drawn when its
    navigation hint, the last row, is there."""
    end = r"(?:[^\n]*╰─{8,}╯|↑/?↓ to (?:navigate|select) ·[^\n]*)"
    return Cue(rf"(?:{words})(?s:.*)\n{end}[ \t]*\Z")


BASH_PROMPT = _box(r"Do you want to run this command\?")
EDIT_PROMPT = _box(r"Do you want to edit ")
CREATE_PROMPT = _box(r"Do you want to create ")
PLAN_PROMPT = _box(r"Plan Ready for Review")
TRUST_PROMPT = _box(r"Confirm folder trust|Do you trust the files in this folder\?")
# The model's question: between two rules, the closing one the last row.
QUESTION_PROMPT = Cue(r"needs information\.(?s:.*)enter accept[^\n]*\n[^\n]*─{8,}[ \t]*\Z")
# Releases whose ask_user takes `question` + `choices` (1.0.x until the form, e.g. 1.0.43): a
# rounded box titled `Question`, its choices numbered, the hint row at the bottom inside it.
QUESTION_BOX = _box(r"(?i:to select · enter to confirm)")
# 1.0.4x: the spinner row above the input box says `(Esc to cancel …)`; the footer stays.
# 1.0.66: the spinner row ends in the hint `esc cancel` (`esc again to cancel` after one Esc).
OLD_WORKING = Cue(r"^\s*[∙∘○◎◉●] .*(?:\(Esc to cancel\b|\besc (?:again to )?cancel\b)", tail=8)
# Typed, never sent: Copilot's own dialog words and the shared ones (no `@`, `#` or a leading
# `/`: those open pickers in the input box).
DRAFT = (
    "Do you want to run this command? ❯ 1. Yes 2. No ↑/↓ to navigate · enter to select · "
    "esc to cancel · esc esc interrupt · Copilot needs information. " + st.DRAFT
)
DRAFT_IDLE = Cue(r"(?s)Do you want to run this command\?.*(Interactive|Plan|Autopilot) · ", tail=8)


def _ask_user(a: dict[str, Any]) -> dict[str, Any]:
    """ask_user takes a form (JSON schema) rather than a list of options."""
    return {
        "message": a["question"],
        "requestedSchema": {
            "properties": {
                "choice": {
                    "type": "string",
                    "title": a.get("header", "Choice"),
                    "enum": [label for label, _ in a["options"]],
                }
            },
            "required": ["choice"],
        },
    }


def _ask_user_choices(a: dict[str, Any]) -> dict[str, Any]:
    """The older ask_user: a question and plain choice strings; the tool's description tells
    the model to put the recommended one first, marked `(Recommended)`."""
    labels = [label for label, _ in a["options"]]
    return {
        "question": a["question"],
        "choices": [f"{labels[0]} (Recommended)", *labels[1:]],
        "allow_freeform": True,
    }


def takes_choices(package: Path) -> bool:
    """Whether an installed release's ask_user takes `choices` (the Question box) rather than a
    form: the releases that ship their JavaScript say so in app.js; the later ones (a native
    binary only, 1.0.102) take the form."""
    try:
        app = (package / "app.js").read_text(errors="replace")
    except OSError:
        return False
    return "allow_freeform:" in app


def _exit_plan_mode(a: dict[str, Any]) -> dict[str, Any]:
    # Interactive recommended: option 1 then continues with manual approval.
    return {"summary": a["plan"], "recommendedAction": "interactive"}


def _interrupt(s: Shapes, keys: list[Action], how: str) -> list[Action]:
    return [
        *s.start(),
        *s.ask(st.P_ESSAY),
        Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.5),
        *keys,
        Expect("idle", IDLE, f"interrupted with {how}; back at the input box", settle=1.2),
    ]


def _scenarios(s: Shapes, choices: bool = False) -> list[Scenario]:
    sc = s.sc
    if choices:
        question, note = QUESTION_BOX, "ask_user Question box: numbered choices"
        answer = "confirm the first (recommended) choice"
    else:
        question, note = QUESTION_PROMPT, "ask_user form: Copilot needs information"
        answer = "accept the first option"
    # The cues follow the release (`old_layout`): the standard part is built here.
    standard = Standard(
        dialog=BASH_PROMPT,
        what="command permission dialog",
        first_option="select 1. Yes",
        bash="command permission dialog",
        approved="command permission dialog approved with 1. Yes",
        reject=None,  # No is a text field: bash_no below
        startup="launch in a trusted folder; idle input box",
        text="a slowly streamed text answer",
        interrupt_keys=(),  # Esc Esc and Ctrl-C below
        edit_write="a file read, then an edit dialog and a create-file dialog, both approved",
        edit_dialog=EDIT_PROMPT,
        edit="edit file dialog",
        write_dialog=CREATE_PROMPT,
        write="create file dialog",
        between=s.ui.working,
        between_note="edit approved; agent working",
        question=question,
        question_desc="ask_user question answered with its first option",
        question_note=note,
        question_answer=Keys(("Enter",), answer),
        question_after=None,
        long_output="a long answer that scrolls the transcript",
    )
    return [
        *s.standard(standard),
        sc(
            "bash_no",
            "command permission dialog rejected with its No option and feedback",
            s.start(),
            s.ask(st.P_BASH),
            s.blocked(BASH_PROMPT, "command permission dialog"),
            # The No option is a text field: its digit moves the pointer there, the feedback
            # typed into it is sent with Enter.
            PickOption(r"No\b", "move to the No option (a text field)"),
            s.blocked(
                # --screen-reader says the pointer in words
                _box(r"(?:❯ ?|Current selection: )3\. No\b"),
                "pointer on the No option; dialog still open",
            ),
            Type("keep the build directory", "feedback for the rejection"),
            Sleep(0.5),
            Keys(("Enter",), "reject with the feedback"),
            s.done("rejected with feedback; the model answered it; back at the input box"),
        ),
        sc(
            "interrupt_esc",
            "long streamed answer interrupted with Esc Esc",
            # Two presses within half a second (Copilot's window: 500 ms). Sent as one key
            # string, or too close together on a busy machine, the two arrive in one read and
            # are taken for one key.
            _interrupt(
                s,
                [Keys(("Escape",), "first Esc"), Sleep(0.3), Keys(("Escape",), "second Esc")],
                "Esc Esc",
            ),
        ),
        sc(
            "interrupt_ctrlc",
            "long streamed answer interrupted with Ctrl-C",
            _interrupt(s, [Keys(("C-c",), "interrupt with Ctrl-C")], "Ctrl-C"),
        ),
        s.dialog_turn(
            "plan",
            "Plan mode (--plan): the plan review after exit_plan_mode, accepted",
            st.P_PLAN,
            s.blocked(PLAN_PROMPT, "plan review dialog"),
            Keys(("Enter",), "accept option 1"),
            [],
            mode="plan",
        ),
        s.mode_cycle(
            "mode_switch",
            "shift+tab cycles the mode: Plan, Autopilot, back to Interactive (idle throughout)",
            [
                ("switch to Plan mode", Cue(r"Plan · ", tail=1), "Plan mode, idle"),
                ("switch to Autopilot mode", Cue(r"Autopilot · ", tail=1), "Autopilot mode, idle"),
                ("back to Interactive mode", Cue(r"Interactive · ", tail=1), "Interactive again"),
            ],
        ),
        sc(
            "draft",
            "Copilot's prompt phrases typed into the input box, never sent (idle)",
            s.start(),
            Type(DRAFT, "draft with prompt phrases, not sent"),
            Expect("idle", DRAFT_IDLE, "draft in the input box; still idle", settle=2.0),
        ),
        sc(
            "trust_dialog",
            "first start in the folder: folder trust dialog left unanswered",
            Expect("blocked", TRUST_PROMPT, "folder trust dialog", timeout=90, settle=2.5),
            seed_trust=False,
        ),
        sc(
            "trust_answered",
            "first start in the folder: trust dialog answered (remember the folder), then idle",
            Expect("blocked", TRUST_PROMPT, "folder trust dialog", timeout=90, settle=1.5),
            Keys(("2",), "2. Yes, and remember this folder"),
            s.start(),
            seed_trust=False,
        ),
    ]


FORM_DIALECT = Dialect(
    tools={
        # Releases whose ask_user takes `question` and `choices` but ship no app.js (1.0.66):
        # the request's schema says so, and the schema search fills those.
        "question": ToolShape("ask_user", _ask_user, when="requestedSchema"),
        "plan": ToolShape("exit_plan_mode", _exit_plan_mode),
    }
)
CHOICES_DIALECT = Dialect(
    tools={
        "question": ToolShape("ask_user", _ask_user_choices),
        "plan": ToolShape("exit_plan_mode", _exit_plan_mode),
    }
)


class Copilot(AgentSpec):
    name = "copilot"
    folder = "copilot"
    # The ask_user form and exit_plan_mode's summary take shapes the schema alone cannot tell.
    dialect = FORM_DIALECT
    # Another release than the default install: install.sh's COPILOT_VERSIONS puts it in
    # npm-copilot-<VER>/ (`record --agent-version VER`).
    releases = True

    ui = Ui(
        idle=IDLE,
        working=WORKING,
        ready_note="startup finished, empty input box",
        start_timeout=90,
        # An Enter that follows the typed text too closely is taken as part of a paste.
        submit_pause=0.5,
        done_quiet=True,
    )
    # 1.0.4x: the footer is the same working or not; the spinner row above the box tells.
    old_ui = dataclasses.replace(
        ui,
        working=OLD_WORKING,
        idle=Cue(
            IDLE.pattern,
            absent=r"\(Esc to cancel\b|\besc (?:again to )?cancel\b|(?i:to select · enter to)",
            tail=8,
        ),
    )

    # Its own settings (`record --dress`): `--screen-reader` ("Enable screen reader
    # optimizations", `copilot --help`). It has no light theme: its `theme` setting names
    # palettes ("default", "github", "dim", "high-contrast", "colorblind"; `copilot help config`)
    # that follow the terminal's background, which it asks for (OSC 10/11). `light` is therefore
    # a light terminal: the lab's tmux answers those queries with a white background.
    dresses: ClassVar[dict[str, Dress]] = by_name(
        Dress(
            "light",
            "a light terminal (window-style fg=#000000,bg=#ffffff: tmux answers OSC 10/11)",
            tmux_options=LIGHT_WINDOW,
        ),
        switch("screenreader", "--screen-reader", "screen reader optimizations"),
    )

    # What npm links for the package: the node loader, which starts the platform binary.
    npm_package = "@github/copilot"
    launch_env: ClassVar[dict[str, str]] = {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": "{url}/v1",
        "COPILOT_PROVIDER_API_KEY": "sk-agentlab-fake",
        "COPILOT_MODEL": "fake-model",
    }
    launch_args = ("--no-auto-update",)
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {"mode": ("--mode", "{}")}

    def build(self, shapes: Shapes) -> list[Scenario]:
        # The dialect is read when the fake server starts, after the scenarios are built.
        self.dialect = CHOICES_DIALECT if takes_choices(self.package_dir()) else FORM_DIALECT
        return _scenarios(shapes, self.old_layout())

    def old_layout(self) -> bool:
        """The activity row above the input box and the Question box: seen on 1.0.43 and
        1.0.66, not on 1.0.102 (the change lies between; releases before 1.0.100 are taken
        for old)."""
        if takes_choices(self.package_dir()):
            return True
        if self.pinned is None:
            return False
        numbers = tuple(int(p) if p.isdigit() else 0 for p in self.pinned.split(".")[:3])
        return numbers < (1, 0, 100)

    def scenarios(self) -> dict[str, Scenario]:
        # The cues follow the release (its working row), before the shapes are built.
        self.ui = self.old_ui if self.old_layout() else type(self).ui
        return super().scenarios()

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config: dict[str, Any] = {"firstLaunchAt": "2026-01-01T00:00:00.000Z", "appTipShown": True}
        if options.get("seed_trust", True):
            config["trustedFolders"] = [str(dirs.proj)]
        files: Files = {}
        # A dress's settings (`theme`): in the user settings file, where /settings writes them,
        # and in config.json, where releases before settings.json kept them.
        settings = options.get("copilot_settings")
        if isinstance(settings, dict):
            config.update(settings)
            files[".copilot/settings.json"] = settings
        files[".copilot/config.json"] = config
        return files
