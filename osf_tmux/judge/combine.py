"""One place for time and priority: screen verdicts, agent reports and the foreground process
become the state a pane shows.

Priority, strongest first: a blocked screen; a fresh agent report; the shell back in the
foreground (no agent); the other screen rules; for a manifest with `output_flow`, output that
flows (output_flow.py); a pane already `working` stays so while one of its manifest's holds
applies (holds.py). `blocked` and `working` are entered at once; a return to idle is
confirmed for a moment so that one redraw cannot flap the bar, and a prompt that is only being
redrawn (erased, not yet drawn again) is not taken for an answered one."""

from __future__ import annotations

from dataclasses import dataclass, field

from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.holds import Holds, can_hold
from osf_tmux.judge.manifest import Rule
from osf_tmux.judge.output_flow import OutputFlow
from osf_tmux.vt.snapshot import Snapshot

# The rule a pane shows while it reads `working` only because its output flows.
OUTPUT_FLOW_RULE = "output-flow"

STATES = ("blocked", "done", "working", "idle")
URGENCY = {state: rank for rank, state in enumerate(reversed(STATES), start=1)}


def most_urgent(states: list[str | None]) -> str | None:
    present = [s for s in states if s]
    return max(present, key=lambda s: URGENCY[s]) if present else None


@dataclass(frozen=True)
class Report:
    """What an agent's hook said (`@osf_report`: `STATE EPOCH_SECONDS [AGENT]`)."""

    state: str
    at: float
    # Who reported: identifies the pane's agent when nothing else does (daemon/identify.py).
    # Not part of what the report says about the state, so not compared.
    agent: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str) -> Report | None:
        parts = text.split()
        if len(parts) < 2 or parts[0] not in STATES:
            return None
        try:
            return cls(parts[0], float(parts[1]), parts[2] if len(parts) > 2 else "")
        except ValueError:
            return None


@dataclass(frozen=True)
class Observation:
    """Everything known about a pane at one moment."""

    is_agent: bool
    screen: Verdict | None
    seen: bool
    report: Report | None = None
    quiet: float = float("inf")  # seconds since the pane's output last changed its text
    # The manifest's `output_flow` window (seconds; None: off) and the screen it was judged on:
    # with both, a screen that no rule calls busy still reads `working` while its text changes.
    output_flow: float | None = None
    snapshot: Snapshot | None = None
    # The manifest's holds (rules with `while_changing`): they keep a working pane working
    # while their region's text changes.
    holds: tuple[Rule, ...] = ()
    # The ids of those holds whose conditions match `snapshot` (or, with none, the last screen
    # seen), for a caller that runs rules under a budget (the daemon); None: matched here.
    holding: frozenset[str] | None = None


@dataclass(frozen=True)
class PaneState:
    state: str | None  # None: no agent in the pane
    since: float  # wall-clock seconds
    rule: str | None
    source: str  # screen | report | none


@dataclass(frozen=True)
class Timing:
    idle_confirm: float = 0.4  # a return to idle must hold this long, with the pane quiet
    # ... and a return that finishes a turn (`done`, judged from the screen) this long: Codex
    # shows its idle composer for 0.17-0.6 s between the work of a turn and its first approval
    # dialog (issue #30: a `done` flash on the status bar each time it outlasted 0.4 s). An
    # agent's own report of the end of its turn (a Stop hook) needs only `idle_confirm`. The
    # pane must still have been quiet for `idle_confirm` only: a screen that keeps redrawing
    # (a clock, a status line) after its turn is not kept from `done` any longer than before.
    done_confirm: float = 1.0
    idle_max: float = 8.0  # ... or hold this long while the pane keeps printing
    # An agent just started is starting up until its first prompt: one a rule names, or, as a
    # prompt with no rule of its own (Gemini's, Qwen's) is the screen's default like a start-up
    # screen, the screen idle and still this long after the agent drew. Start-ups pause up to
    # 0.54 s (Vibe's empty welcome box); a first prompt typed sooner after an unnamed prompt
    # ends `idle` (`tools/tracker_replay.py --start-ups`: 32 of 1,357 lab turns).
    start_quiet: float = 0.8
    start_grace: float = 60.0  # ... or this long without work (a prompt that never stands still)
    report_ttl: float = 30.0  # an agent report older than this is ignored
    blocked_report_grace: float = 2.0  # a screen not blocked this long after a blocked report wins
    # A prompt erased for a redraw (Kimi CLI erases its approval panel, asks the terminal where
    # the cursor is, and draws it again 0.4-0.9 s later) stays blocked this long at most.
    redraw_grace: float = 1.5


class PaneTracker:
    """The state machine of one pane. Pure: time comes in with every call."""

    def __init__(self, timing: Timing | None = None) -> None:
        self.timing = timing or Timing()
        self.current = PaneState(None, 0.0, None, "none")
        self._idle_since: float | None = None
        self._confirm = self.timing.idle_confirm  # how long the pending return must hold
        self._quiet_since = float("-inf")
        self._after_prompt = False  # `working` only because a prompt just went away
        # An agent started in the pane and has not reached its prompt yet: what it shows until
        # then is its start-up (Vibe's and Grok Build's spinner, Aider's banner), not a turn
        # anyone asked for, so the return to its prompt is `idle`, never `done`.
        self._starting = False
        self._started_at = float("-inf")
        self._startup_end = False  # the pending return to idle ends the start-up, not a turn
        self._last_seen = float("-inf")
        self._flow: OutputFlow | None = None
        self._holds: Holds | None = None
        # The screen that last showed the prompt, and since when the screen has been that one
        # with rows erased and nothing new drawn (the prompt being redrawn).
        self._prompt_rows: tuple[str, ...] = ()
        self._erased_since: float | None = None
        self._erased = False

    def agent_started(self, now: float) -> None:
        """An agent has just started in this pane (not one found running): its start-up is no
        turn. It ends at the agent's first prompt (one a rule knows, or the end of the start-up's
        work), a dialog, a report (a hook says a turn began), or `start_grace` seconds without
        work."""
        self._starting = True
        self._started_at = now

    @property
    def starting(self) -> bool:
        """Whether the agent is taken to be starting up still (`agent_started`)."""
        return self._starting

    @property
    def standing_in(self) -> bool:
        """Whether the state only stands in for a prompt that went (`working` right after
        `blocked`, the return to the agent's input not confirmed yet): a redraw looks the same."""
        return self._after_prompt

    def deadline(self) -> float | None:
        """Monotonic time at which `update` should run again even without news."""
        if self.current.rule == OUTPUT_FLOW_RULE and self._flow is not None:
            if self._idle_since is None:
                return self._flow.ends()
            # Back at its own prompt while the flow lasts: the confirmation comes first.
            return min(self._confirmed_at(self._idle_since), self._flow.ends())
        if self._holds is not None and self._idle_since is None:
            # Working by a hold: look again when it lapses (then the return to idle is timed)
            lapses = self._holds.ends(self.current.rule)
            if lapses is not None and self.current.state == "working":
                return lapses
        if self._erased_since is not None:
            return self._erased_since + self.timing.redraw_grace
        if self._idle_since is None:
            return None
        return min(self._confirmed_at(self._idle_since), self._idle_since + self.timing.idle_max)

    def _confirmed_at(self, idle_since: float) -> float:
        """When the pending return (to idle, or done) is confirmed if nothing changes: held
        for its confirmation, with the pane quiet for `idle_confirm` (monotonic)."""
        return max(idle_since + self._confirm, self._quiet_since + self.timing.idle_confirm)

    def _flowing(self, obs: Observation, now: float) -> bool:
        """Whether the pane's output flows (only for a manifest that asks: `output_flow`)."""
        if obs.output_flow is None:
            self._flow = None
            return False
        if self._flow is None or self._flow.window != obs.output_flow:
            self._flow = OutputFlow(obs.output_flow)
        if obs.snapshot is not None:
            self._flow.observe(obs.snapshot, now)
        return self._flow.flowing(now)

    def _held(self, obs: Observation, now: float) -> Rule | None:
        """The hold that applies now, if the manifest has any (judge/holds.py)."""
        if not obs.holds:
            self._holds = None
            return None
        if self._holds is None or self._holds.rules is not obs.holds:
            self._holds = Holds(obs.holds)
        if obs.snapshot is not None:
            self._holds.observe(obs.snapshot, now)
        return self._holds.holding(now, obs.holding)

    def _start_over(self, quiet_since: float, now: float) -> bool:
        """Whether a start-up ended with no rule to say so: the agent sat idle, its screen still,
        for `start_quiet` (a prompt no rule names waits for the person), or `start_grace`
        passed without work."""
        if self.current.state != "idle":
            return False
        t = self.timing
        if now - self._started_at >= t.start_grace:
            return True
        if self._quiet_since <= self._started_at:
            return False  # nothing drawn since it started: a program still loading (Node: ~1 s)
        # The stillness since the screen last changed, up to its next change (or now).
        until = quiet_since if quiet_since > self._quiet_since else now
        return until - self._quiet_since >= t.start_quiet

    def _idle_confirmed(self, now: float) -> bool:
        """An agent that still prints (Codex streaming its answer hides its status row) has not
        returned to its prompt yet, however idle one frame looks."""
        t = self.timing
        held = now - self._idle_since if self._idle_since is not None else 0.0
        quiet = now - self._quiet_since
        return (held >= self._confirm and quiet >= t.idle_confirm) or held >= t.idle_max

    def update(self, obs: Observation, now: float, wall: float) -> PaneState:
        if obs.seen:
            self._last_seen = wall
        quiet_since = now - obs.quiet
        if self._starting and self._start_over(quiet_since, now):
            self._starting = False
        self._quiet_since = quiet_since
        flowing = self._flowing(obs, now)
        held = self._held(obs, now)
        raw, rule, source = self._raw(obs, wall)
        cur = self.current.state
        if raw is None:
            return self._set(None, None, "none", wall)
        # An idle rule of a manifest that watches the flow (generic's `at-prompt`): the program
        # waits at its own prompt, so what changes there is typing, and the output that drew it
        # has ended; the return is confirmed like any other.
        at_prompt = (
            raw == "idle"
            and source == "screen"
            and rule is not None
            and obs.output_flow is not None
        )
        if raw in ("idle", "done") and source == "screen" and flowing and not at_prompt:
            raw, rule = "working", OUTPUT_FLOW_RULE
        elif source == "screen" and can_hold(cur, raw) and held:
            # Still drawing what the turn produced, with nothing on screen saying so.
            raw, rule = "working", held.id
        if raw == "blocked" and source == "screen" and obs.snapshot is not None:
            self._prompt_rows = obs.snapshot.rows
        if raw in ("blocked", "working"):
            return self._set(raw, rule, source, wall)
        if self._redrawing_prompt(obs, raw, rule, source, now):
            return self.current
        if cur == "working" and self.current.rule == OUTPUT_FLOW_RULE and not at_prompt:
            # The flow stopped `output_flow` seconds ago: that wait was the confirmation. A
            # program that stops printing has not finished a turn anyone asked for: idle.
            return self._set("idle", rule, source, wall)
        # raw is idle or done: the agent sits at its prompt.
        if cur in ("blocked", "working"):
            if self._idle_since is None:
                self._idle_since = now
                # The start-up's work ended: this return is its end (confirmed or not: typing
                # ahead may hold it up), and whatever works after it is a turn.
                self._startup_end, self._starting = self._starting, False
            # A turn finished if it really worked; leaving a prompt for the idle screen (the
            # prompt was rejected) finishes nothing.
            # Back at a program's own prompt (`at_prompt`) nobody's turn finished either: a
            # command line or a REPL is not an agent that was asked for something.
            finished = (
                cur == "working"
                and not self._after_prompt
                and not at_prompt
                and not self._startup_end
            ) or (raw == "done")
            target = "done" if finished and not obs.seen else "idle"
            t = self.timing
            self._confirm = (
                t.done_confirm if target == "done" and source == "screen" else t.idle_confirm
            )
            if not self._idle_confirmed(now):
                if cur == "blocked":
                    # The prompt is gone, so nobody is waited for any more: show the agent as
                    # busy while its return to idle is confirmed (an answered dialog is usually
                    # followed by work, or by redraws that delay the confirmation).
                    since = self._idle_since
                    self._set("working", rule, source, wall)
                    self._idle_since, self._after_prompt = since, True
                return self.current
            return self._set(target, rule, source, wall)
        if cur == "done" and not obs.seen:
            return self.current
        if raw == "done" and cur is None:
            raw = "idle"  # a finished turn we never saw running is nothing new
        target = "done" if raw == "done" and not obs.seen else "idle"
        return self._set(target, rule, source, wall)

    def _redrawing_prompt(
        self, obs: Observation, raw: str, rule: str | None, source: str, now: float
    ) -> bool:
        """Whether a blocked pane is only redrawing its prompt: the screen, recognised by no rule,
        is the prompt's screen with its lower rows erased and nothing drawn anywhere, for at most
        `redraw_grace`. An answer draws something (a spinner, the input box, a message), so it
        still ends the block at once."""
        cur = self.current
        if cur.state != "blocked" or cur.source != "screen" or source != "screen":
            self._erased_since = None
            return False
        if obs.snapshot is not None:
            self._erased = (
                raw == "idle"
                and rule is None
                and _erased_from(self._prompt_rows, obs.snapshot.rows)
            )
        if not self._erased:
            self._erased_since = None
            return False
        if self._erased_since is None:
            self._erased_since = now
        if now - self._erased_since < self.timing.redraw_grace:
            return True
        self._erased_since = None
        return False

    def _raw(self, obs: Observation, wall: float) -> tuple[str | None, str | None, str]:
        screen = obs.screen
        if screen is not None and screen.state == "blocked":
            return "blocked", screen.rule, "screen"
        report = obs.report
        if report is not None and 0 <= wall - report.at <= self.timing.report_ttl:
            stale_block = (
                report.state == "blocked"
                and screen is not None
                and wall - report.at > self.timing.blocked_report_grace
            )
            if not stale_block:
                # A finished turn reported before the person last looked is old news.
                state = (
                    "idle"
                    if report.state == "done" and report.at <= self._last_seen
                    else report.state
                )
                return state, f"report:{report.state}", "report"
        if not obs.is_agent:
            return None, None, "none"
        if screen is None:
            return "idle", None, "none"
        return screen.state, screen.rule, "screen"

    def _set(self, state: str | None, rule: str | None, source: str, wall: float) -> PaneState:
        if (
            source == "report"
            or state not in ("working", "idle")
            or (state == "idle" and rule is not None)
        ):
            self._starting = False  # a turn reported, a dialog, or a prompt a rule knows
        self._startup_end = False
        self._idle_since = None
        self._confirm = self.timing.idle_confirm
        self._after_prompt = False
        self._erased_since = None
        self._erased = False
        if state != self.current.state:
            self.current = PaneState(state, wall, rule, source)
        elif rule != self.current.rule or source != self.current.source:
            self.current = PaneState(state, self.current.since, rule, source)
        return self.current


def _erased_from(prompt: tuple[str, ...], rows: tuple[str, ...]) -> bool:
    """Whether `rows` are `prompt` erased from some row down (`ESC[J` under the transcript):
    the rows above that one unchanged, at least one of them with text, every row from it on
    blank, and text erased. A screen cleared whole is not a live area being redrawn."""
    if len(rows) != len(prompt):
        return False
    y = len(rows)
    while y and not rows[y - 1].strip():
        y -= 1
    kept = rows[:y]
    return bool(kept) and kept == prompt[:y] and any(r.strip() for r in prompt[y:])
