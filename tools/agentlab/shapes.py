"""The scenario shapes every agent plays: start-up, a text turn, a command approved and rejected,
an interrupt, an edit and a new file, long/thinking/ask-back answers, a draft, a start-up
dialog. Each adapter describes its screen once (`Ui`: the idle and working cues, the words of
its notes) and picks the shapes that apply; only what is its own stays in its module."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, PickOption, Sleep, Type, flatten
from tools.agentlab.script import Script

Steps = Action | list[Action]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    script: Script
    actions: list[Action]
    files: dict[str, str] = field(default_factory=dict)  # created in proj before launch
    options: dict[str, object] = field(default_factory=dict)  # agent-specific switches


STREAMING = Cue(r"Terminals began")  # the essay the interrupt scenarios stop midway
NO_OPTION = PickOption(r"No\b", "choose the No option")  # the digit read off the screen
FIRST_CHOICE = Keys(("Enter",), "choose the first option")


@dataclass(frozen=True)
class Ui:
    """What the driver needs to know about an agent's screen to play the shared shapes."""

    idle: Cue  # the input box is ready (and nothing works, nothing asks)
    working: Cue  # the agent streams, thinks or runs a tool
    place: str = "input box"  # where the user types: notes say "back at the <place>"
    ready_note: str = "startup finished, input box ready"
    working_note: str = "prompt submitted, agent working"
    start_timeout: float = 60  # first start of a node/python CLI on a loaded machine
    # Seconds between typing a prompt and Enter: some input boxes take an Enter that follows
    # typed text closely for part of a paste (Gemini at 200x50).
    submit_pause: float = 0.0
    done_settle: float = 1.2  # held after the turn ends, so idle lasts in the capture
    # The end of a turn also waits for the fake server to be quiet: for agents whose screen
    # shows no working cue while answer text streams.
    done_quiet: bool = False
    # ... and for the pane's text to stay unchanged this long (Expect.still): for a screen that
    # shows nothing at all while the answer is drawn (no spinner, no footer hint, no title).
    done_still: float = 0.0
    dialog_settle: float = 1.5  # held on a dialog, so its redraws are in the capture
    # How long a cue after the prompt may take (a dialog, the working state after an answer,
    # the end of the turn): longer for agents whose first turn boots services first (OpenCode).
    turn_timeout: float = 30.0
    stream_settle: float = 1.5  # streaming time before an interrupt


@dataclass(frozen=True)
class Standard:
    """The standard scenarios of an agent, as data: its approval dialog and what its notes call
    things. An adapter that sets `standard` plays them (`Shapes.standard`) without a `build` of
    its own: start-up, a text turn, the command approved, rejected with Esc and with No, the
    essay interrupted with Esc and Ctrl-C, the edit and the new file approved, the long,
    thinking and ask-back answers; a draft, a question with options, plan mode, a command
    interrupted while it runs, a trust dialog at start-up and the hooks' payloads when it has
    them."""

    dialog: Cue  # the approval dialog (the command's; the edit's and the new file's by default)
    what: str  # what the dialog is called in the notes: "shell confirmation"
    first_option: str  # the note on Enter, which chooses the first option: "1. Allow once"
    bash: str  # the note on the command's dialog
    edit: str = "edit confirmation"  # the note on the edit's dialog
    write: str = "new-file confirmation"  # the note on the new file's dialog
    edit_write: str = "edit confirmation, then new-file confirmation, both approved"
    approved: str | None = None  # bash_yes's description; None: "<what> approved (<first>)"
    reject: Action | None = NO_OPTION  # how No is chosen; None: the dialog has no No
    draft: Cue | None = None  # the input box showing the draft (None: no draft scenario)
    draft_place: str | None = None  # where the draft is typed, if not `Ui.place`
    startup: str = "launch; input box ready"  # the start-up scenario's description
    text: str = "a streamed text answer"  # the text scenario's
    thinking: str = "reasoning streamed before the answer"  # the thinking scenario's
    long_output: str = "a long answer that scrolls"  # the long_output scenario's
    trust: Cue | None = None  # a trust dialog at start-up (unless option seed_trust)
    trust_what: str = "folder trust dialog"
    hooks: bool = False  # hooks_bash: the adapter's launch writes osf-tmux's hooks
    hooks_approved: str | None = None  # hooks_bash's description; None: "<what> approved"
    # How a dialog is approved (None: Enter on the first option) and what the notes say after.
    approve: Action | None = None
    edit_approve: Action | None = None  # the edit's and the new file's, if not `approve`
    running: str = "approved; command running"
    esc: bool = True  # Esc rejects the command's dialog (bash_esc)
    # The edit's and the new file's dialogs where they are not `dialog`, and whether edits ask
    # at all (else edit_write is one plain turn); what shows between the two dialogs (None: the
    # working cue with the dialog gone).
    edit_dialog: Cue | None = None
    write_dialog: Cue | None = None
    edits_ask: bool = True
    between: Cue | Expect | None = None  # an Expect: the whole step, its state and note
    between_note: str = "edit approved"
    edit_after: str | None = None  # the working note after the new file's approval, if any
    edit_options: tuple[tuple[str, object], ...] = ()  # edit_write's scenario options
    # The interrupts: their keys, and what is waited for before the key (None: the essay's
    # first words on screen).
    interrupt_keys: tuple[str, ...] = ("Escape", "C-c")
    streaming: Expect | None = None
    # bash_interrupt: the slow command (the agent's `turns` hold st.slow_turn()) approved, this
    # seen, then Esc. None: no such scenario.
    slow: Expect | None = None
    # The model's question with options (st.P_QUESTION): its dialog, the note on it, the key
    # that answers and its note, what follows (None: nothing before the end of the turn).
    question: Cue | None = None
    question_desc: str = "a question with options, first option chosen"
    question_note: str = "Which database should the app use? with its options"
    question_answer: Action = FIRST_CHOICE
    question_after: str | None = "answered; agent working"
    plan_idle: Cue | None = None  # plan_mode: started with --plan, this its idle screen


class Shapes:
    """Scenario builders bound to one agent's script and screen."""

    def __init__(self, script: Script, ui: Ui) -> None:
        self.script = script
        self.ui = ui

    # -- the pieces scenarios are made of ------------------------------------------------------
    def sc(self, name: str, desc: str, *steps: Steps, **options: object) -> Scenario:
        """A scenario of this agent's script, played in the shared project."""
        return Scenario(name, desc, self.script, flatten(steps), st.PROJECT_FILES, dict(options))

    def start(self) -> list[Action]:
        ui = self.ui
        return [Expect("idle", ui.idle, ui.ready_note, timeout=ui.start_timeout, settle=0.8)]

    def ask(self, prompt: str) -> list[Action]:
        pause: list[Action] = [Sleep(self.ui.submit_pause)] if self.ui.submit_pause else []
        return [
            Type(prompt),
            *pause,
            Keys(("Enter",), "submit prompt"),
            Expect("working", self.ui.working, self.ui.working_note),
        ]

    def done(self, note: str | None = None) -> Expect:
        ui = self.ui
        return Expect(
            "idle",
            ui.idle,
            note or f"turn finished, back at the {ui.place}",
            timeout=ui.turn_timeout,
            settle=ui.done_settle,
            server_quiet=ui.done_quiet,
            still=ui.done_still,
        )

    def back(self, note: str) -> Expect:
        """Idle again after the turn was cut short (no answer left to wait for)."""
        return Expect("idle", self.ui.idle, note, settle=self.ui.done_settle)

    def blocked(self, cue: Cue, note: str) -> Expect:
        return Expect(
            "blocked", cue, note, timeout=self.ui.turn_timeout, settle=self.ui.dialog_settle
        )

    def working(self, note: str, cue: Cue | None = None) -> Expect:
        return Expect("working", cue or self.ui.working, note, timeout=self.ui.turn_timeout)

    # -- scenario shapes -----------------------------------------------------------------------
    def standard(self, std: Standard) -> list[Scenario]:
        """The standard scenarios (see `Standard`), in the order `record --scenario all` plays
        them."""
        approve = std.approve or Keys(("Enter",), std.first_option)
        dialog = self.blocked(std.dialog, std.bash)
        running = self.working(std.running)
        edit_dialog = std.edit_dialog or std.dialog
        between = std.between or dataclasses.replace(self.ui.working, absent=std.dialog.pattern)
        if not isinstance(between, Expect):
            between = self.working(std.between_note, between)
        out = [
            self.startup(std.startup),
            self.text(std.text),
            *self.approvals(
                what=std.what,
                approved=std.approved or f"{std.what} approved ({std.first_option})",
                dialog=dialog,
                first_option=std.first_option,
                working=running,
                approve=approve,
                reject=std.reject,
                esc=std.esc,
            ),
        ]
        if std.slow is not None:
            out.append(self.bash_interrupt(dialog, approve, std.slow))
        out += self.interrupts(std.streaming, keys=std.interrupt_keys)
        if std.edits_ask:
            edit_write = self.edit_write(
                std.edit_write,
                edit=self.blocked(edit_dialog, std.edit),
                approve=std.edit_approve or approve,
                between=between,
                write=self.blocked(std.write_dialog or edit_dialog, std.write),
                after=None if std.edit_after is None else self.working(std.edit_after),
            )
        else:
            edit_write = self.plain("edit_write", std.edit_write, st.P_EDIT)
        out.append(dataclasses.replace(edit_write, options=dict(std.edit_options)))
        out += self.answers(std.thinking, std.long_output)
        if std.question is not None:
            after = [] if std.question_after is None else self.working(std.question_after)
            out.append(
                self.question(
                    std.question_desc,
                    self.blocked(std.question, std.question_note),
                    std.question_answer,
                    after,
                )
            )
        if std.draft is not None:
            place = std.draft_place or self.ui.place
            out.append(self.draft(std.draft, f"into the {place}", f"in the {place}"))
        if std.plan_idle is not None:
            out.append(self.plan_mode(std.plan_idle))
        if std.trust is not None:
            out.append(
                self.startup_dialog("trust_dialog", std.trust_what, std.trust, seed_trust=False)
            )
        if std.hooks:
            approved = std.hooks_approved or f"{std.what} approved"
            out.append(self.hooks_bash(approved, dialog, approve, running))
        return out

    def startup(self, desc: str) -> Scenario:
        return self.sc("startup", desc, self.start())

    def text(self, desc: str = "a streamed text answer") -> Scenario:
        return self.plain("text", desc, st.P_TEXT)

    def plain(self, name: str, desc: str, prompt: str, **options: object) -> Scenario:
        """One turn that asks nothing: the prompt, the agent works, idle again (a setting that
        lets a command or an edit through, an answer of some kind)."""
        return self.sc(name, desc, self.start(), self.ask(prompt), self.done(), **options)

    def dialog_turn(
        self,
        name: str,
        desc: str,
        prompt: str,
        dialog: Expect,
        answer: Action,
        after: Steps,
        start: Steps | None = None,
        **options: object,
    ) -> Scenario:
        """Ask; a dialog comes up; answer it; what follows; the turn ends."""
        return self.sc(
            name,
            desc,
            self.start() if start is None else start,
            self.ask(prompt),
            dialog,
            answer,
            after,
            self.done(),
            **options,
        )

    def bash_turn(
        self,
        name: str,
        desc: str,
        dialog: Expect,
        approve: Action,
        working: Expect | None = None,
        **options: object,
    ) -> Scenario:
        """The command (st.P_BASH) asks; `approve` answers; `working` (by default the working
        cue) follows; the turn ends."""
        return self.dialog_turn(
            name,
            desc,
            st.P_BASH,
            dialog,
            approve,
            working or self.working("approved; command running"),
            **options,
        )

    def question(
        self, desc: str, dialog: Expect, answer: Action, after: Steps | None = None
    ) -> Scenario:
        """The model asks a question with options (st.P_QUESTION); `answer` picks one; `after`
        (by default the working cue) follows."""
        return self.dialog_turn(
            "question",
            desc,
            st.P_QUESTION,
            dialog,
            answer,
            self.working("answered; agent working") if after is None else after,
        )

    def approvals(
        self,
        *,
        what: str,
        approved: str,
        dialog: Expect,
        first_option: str,
        working: Expect | None = None,
        approve: Action | None = None,
        reject: Action | None = NO_OPTION,
        esc: bool = True,
    ) -> list[Scenario]:
        """A command's approval dialog approved (Enter on its first option unless `approve`
        says otherwise; then `working`, by default the working cue), rejected with Esc, and
        rejected by choosing No (`reject`; None = the dialog has no such choice): bash_yes,
        bash_esc, bash_no. `what` the dialog is called."""
        out = [
            self.bash_turn(
                "bash_yes", approved, dialog, approve or Keys(("Enter",), first_option), working
            )
        ]
        rejections = (
            ("bash_esc", "with Esc", "Esc", Keys(("Escape",), "reject with Esc") if esc else None),
            ("bash_no", "by choosing No", "No", reject),
        )
        for name, how, said, key in rejections:
            if key is not None:
                out.append(
                    self.sc(
                        name,
                        f"{what} rejected {how}",
                        self.start(),
                        self.ask(st.P_BASH),
                        dialog,
                        key,
                        self.done(f"rejected with {said}; back at the {self.ui.place}"),
                    )
                )
        return out

    def interrupts(
        self, streaming: Expect | None = None, keys: tuple[str, ...] = ("Escape", "C-c")
    ) -> list[Scenario]:
        """A long streamed answer interrupted with Esc (interrupt_esc) and with Ctrl-C
        (interrupt_ctrlc); `streaming` is what is waited for before the key (default: the
        essay's first words on screen, no label)."""
        seen = streaming or Expect(
            None, STREAMING, "answer streaming", settle=self.ui.stream_settle
        )
        named = {"Escape": ("interrupt_esc", "Esc"), "C-c": ("interrupt_ctrlc", "Ctrl-C")}
        out = []
        for key in keys:
            name, said = named[key]
            out.append(
                self.sc(
                    name,
                    f"long streamed answer interrupted with {said}",
                    self.start(),
                    self.ask(st.P_ESSAY),
                    seen,
                    Keys((key,), f"interrupt with {said}"),
                    self.back(f"interrupted; back at the {self.ui.place}"),
                )
            )
        return out

    def ctrlc_goes_on(
        self, desc: str, streaming: Steps, ctrlc: str, still: Expect, end: Steps | None = None
    ) -> Scenario:
        """interrupt_ctrlc where Ctrl-C does not stop the turn (it warns, or clears the input
        box): `streaming` before the key, `ctrlc` its note, `still` the screen after it; `end`
        (by default Esc, then idle) closes the turn."""
        if end is None:
            end = [
                Keys(("Escape",), "interrupt with Esc"),
                self.back(f"interrupted; back at the {self.ui.place}"),
            ]
        return self.sc(
            "interrupt_ctrlc",
            desc,
            self.start(),
            self.ask(st.P_ESSAY),
            streaming,
            Keys(("C-c",), ctrlc),
            still,
            end,
        )

    def bash_interrupt(
        self,
        dialog: Expect,
        approve: Action,
        running: Expect,
        desc: str = "a command approved, then interrupted with Esc while it runs",
    ) -> Scenario:
        """The slow command (st.P_SLOW: the agent's `turns` must hold st.slow_turn()) approved,
        `running` seen, then Esc."""
        return self.sc(
            "bash_interrupt",
            desc,
            self.start(),
            self.ask(st.P_SLOW),
            dialog,
            approve,
            running,
            Keys(("Escape",), "interrupt with Esc"),
            self.back(f"interrupted; back at the {self.ui.place}"),
        )

    def hooks_bash(
        self,
        approved: str,
        dialog: Expect,
        approve: Action,
        working: Expect | None = None,
        *,
        name: str = "hooks_bash",
        desc: str | None = None,
        hooks: object = True,
    ) -> Scenario:
        """bash_yes with osf-tmux's hook table installed (scenario option `hooks`: `launch`
        writes it, each hook logging its payload to hooks.jsonl in the run directory, kept with
        `--keep`): which events fire, in which order. `approved` says how the dialog was
        answered; `desc` replaces the description, `hooks` the option's value (where the
        adapter has more than one way to install them)."""
        desc = desc or f"{approved}, osf-tmux's hooks logging their payloads"
        return self.bash_turn(name, desc, dialog, approve, working, hooks=hooks)

    def mode_cycle(self, name: str, desc: str, modes: list[tuple[str, Cue, str]]) -> Scenario:
        """Shift+Tab pressed once per mode, each (`key_note`, the idle screen of that mode, its
        note) idle in turn."""
        steps: list[Action] = []
        for key_note, cue, note in modes:
            steps += [Keys(("BTab",), key_note), Expect("idle", cue, note, settle=1.0)]
        return self.sc(name, desc, self.start(), steps)

    def plan_mode(self, cue: Cue, flag: str = "--plan") -> Scenario:
        """Started in plan mode (scenario option `plan`: `launch` adds `flag`); a text turn.
        `cue` is the idle screen of plan mode."""
        return self.sc(
            "plan_mode",
            f"started in plan mode ({flag}); a text turn",
            Expect("idle", cue, "plan mode; input box ready", timeout=60, settle=0.8),
            self.ask(st.P_TEXT),
            self.done(),
            plan=True,
        )

    def edit_write(
        self,
        desc: str,
        edit: Expect,
        approve: Action,
        between: Expect,
        write: Expect,
        after: Steps | None = None,
    ) -> Scenario:
        """The edit of app.py and the new NOTES.md, each approved with `approve`; `between` is
        what shows between the two dialogs, `after` what follows the second (default nothing)."""
        return self.sc(
            "edit_write",
            desc,
            self.start(),
            self.ask(st.P_EDIT),
            edit,
            approve,
            between,
            write,
            approve,
            [] if after is None else after,
            self.done(),
        )

    def answers(
        self,
        thinking: str = "reasoning streamed before the answer",
        long_output: str = "a long answer that scrolls",
    ) -> list[Scenario]:
        """The scenarios that are one plain turn (ask, the agent answers, idle): long_output,
        thinking, ask_back."""
        start, ask, done = self.start, self.ask, self.done
        return [
            self.plain("long_output", long_output, st.P_LONG),
            self.plain("thinking", thinking, st.P_THINK),
            self.sc(
                "ask_back",
                "an answer that ends with 'Would you like me to ...?' (idle, not blocked)",
                start(),
                ask(st.P_ASKBACK),
                done("turn finished; answer ends with a question"),
            ),
        ]

    def draft(self, cue: Cue, into: str | None = None, at: str | None = None) -> Scenario:
        """Prompt phrases typed, never sent: still idle. `cue` must see the draft itself;
        `into` and `at` say where (by default the place the user types in, `Ui.place`)."""
        into = into or f"into the {self.ui.place}"
        at = at or f"in the {self.ui.place}"
        return self.sc(
            "draft",
            f"prompt phrases typed {into}, never sent (idle)",
            self.start(),
            Type(st.DRAFT, "draft with prompt phrases, not sent"),
            Expect("idle", cue, f"draft {at}; still idle", settle=2.0),
        )

    def startup_dialog(
        self,
        name: str,
        what: str,
        cue: Cue,
        note: str | None = None,
        timeout: float | None = None,
        **options: object,
    ) -> Scenario:
        """A dialog at start-up, left unanswered (the option that seeds its answer is off)."""
        return self.sc(
            name,
            f"start-up: {what} left unanswered",
            Expect(
                "blocked",
                cue,
                note or f"{what} at start-up",
                timeout=self.ui.start_timeout if timeout is None else timeout,
                settle=2.5,
            ),
            **options,
        )
