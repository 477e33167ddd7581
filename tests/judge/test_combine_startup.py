"""An agent that starts in a pane: the work it shows before its first prompt (a spinner, a
banner) is its start-up, not a turn, so an unwatched pane goes `idle` after it, not `done`.
Driven by a fake clock; the last tests play real start-ups from the captures."""

from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.combine import Observation, PaneTracker, Report, Timing
from osf_tmux.judge.corpus import Capture
from tools.tracker_replay import first_typed, replay

ROOT = Path(__file__).resolve().parents[2]
TIMING = Timing()


class Pane:
    """A tracker on a fake clock; `show` says what the screen's rules make of it now."""

    def __init__(self, started: bool = True) -> None:
        self.clock = FakeClock()
        self.tracker = PaneTracker(TIMING)
        self.changed = self.clock.now()  # when the screen's text last changed
        if started:
            self.tracker.agent_started(self.clock.now())

    def show(
        self,
        state: str,
        rule: str | None = "rule",
        change: bool = True,
        report: Report | None = None,
    ) -> str | None:
        if change:
            self.changed = self.clock.now()
        obs = Observation(
            True,
            Verdict(state, rule, "agent"),
            seen=False,
            report=report,
            quiet=self.clock.now() - self.changed,
        )
        return self.tracker.update(obs, self.clock.now(), self.clock.wall()).state

    def settle(self, state: str = "idle", rule: str | None = "rule", seconds: float = 3.0) -> str:
        """The screen stays as it is for `seconds`, looked at every 0.1 s."""
        got: str | None = None
        for _ in range(round(seconds * 10)):
            self.clock.advance(0.1)
            got = self.show(state, rule, change=False)
        assert got is not None
        return got

    def turn(self, seconds: float = 2.0) -> str:
        """Someone's prompt: work, then the agent's prompt again."""
        for _ in range(round(seconds * 10)):
            self.clock.advance(0.1)
            self.show("working")
        self.clock.advance(0.1)
        self.show("idle")
        return self.settle()


def test_the_work_before_the_first_prompt_is_no_turn() -> None:
    p = Pane()
    assert p.turn() == "idle"  # the start-up's spinner, then its prompt
    assert p.turn() == "done"  # the first prompt someone typed


def test_an_agent_found_running_finishes_its_turn() -> None:
    # Found at the daemon's first look (not started): it may be in a turn someone asked for.
    p = Pane(started=False)
    assert p.turn() == "done"


def test_a_prompt_a_rule_knows_ends_the_start_up() -> None:
    p = Pane()
    p.show("idle")  # Claude's prompt, named by a rule
    p.clock.advance(0.1)
    assert p.turn() == "done"  # typed at once: still a turn


def test_a_still_screen_no_rule_names_ends_the_start_up() -> None:
    # Gemini's or Qwen's prompt is the screen's default: sitting there still, it waits for a person.
    p = Pane()
    p.clock.advance(0.3)
    p.show("idle", rule=None)  # its first frame
    assert p.settle(rule=None, seconds=TIMING.start_quiet + 0.2) == "idle"
    assert p.turn() == "done"


def test_a_screen_still_before_the_agent_drew_is_not_its_prompt() -> None:
    # A program still loading (Node: about a second) has not drawn its prompt.
    p = Pane()
    p.show("idle", rule=None, change=False)
    assert p.settle(rule=None, seconds=2.0) == "idle"
    assert p.tracker.starting
    assert p.turn() == "idle"


def test_a_start_up_that_draws_is_not_over_before_its_work() -> None:
    # Vibe types its welcome out (the default idle screen, changing) before its spinner.
    p = Pane()
    for _ in range(50):
        p.clock.advance(0.1)
        assert p.show("idle", rule=None) == "idle"
    assert p.turn() == "idle"
    assert p.turn() == "done"


def test_typing_ahead_during_the_start_up_still_makes_a_turn() -> None:
    p = Pane()
    for _ in range(10):
        p.clock.advance(0.1)
        p.show("working")
    for _ in range(3):  # its prompt, and the person's keys at once: the return never confirmed
        p.clock.advance(0.1)
        assert p.show("idle") == "working"
    assert p.turn() == "done"


def test_a_report_says_a_turn_began() -> None:
    # A hook's report during what looked like the start-up: `claude "fix it"` began a turn.
    p = Pane()
    p.show("working")
    p.clock.advance(0.5)
    p.show("working", report=Report("working", p.clock.wall()))
    assert p.turn() == "done"


def test_a_dialog_at_start_up_ends_it() -> None:
    p = Pane()
    p.show("blocked")  # trust this folder?
    p.clock.advance(1.0)
    p.show("idle")  # answered: its prompt
    assert p.settle() == "idle"
    assert p.turn() == "done"


def test_the_grace_ends_a_start_up_that_never_works() -> None:
    p = Pane()
    for _ in range(round(TIMING.start_grace * 10) + 1):
        p.clock.advance(0.1)
        p.show("idle", rule=None)  # always changing (a clock in its prompt): never still
    assert p.turn() == "done"


# ---- real start-ups ---------------------------------------------------------------------------

# Each starts with work and reaches its prompt before anything is typed (the labels say so).
STARTUPS = [
    "aider-0.86.2-lab/ask_back-120x32",  # its banner: output that flows
    "vibe-3.0.3-lab/question-120x32",  # its welcome typed out, `Starting the app server…` (1.7 s)
    "vibe-3.0.2-lab/draft-120x32",  # the same, 14 s on a slow start, then a spinner row
    "grok-build-0.2.111-lab-minimal/plan-120x32",  # a working row that comes and goes
]


def states_until_typed(name: str, started: bool) -> list[str | None]:
    """The states an unwatched pane shows from the agent's start to the first key typed, its
    reads played at their recorded times, and on as if nothing came (tools/tracker_replay.py)."""
    capture = Capture(
        ROOT / "captures" / f"{name}.bytes", ROOT / "captures" / f"{name}.labels.json"
    )
    typed = first_typed(capture)
    assert typed is not None
    return [state for _, state in replay(capture, started=started, until=typed).states]


@pytest.mark.parametrize("name", STARTUPS)
def test_a_real_start_up_ends_idle(name: str) -> None:
    started = states_until_typed(name, started=True)
    assert "working" in started and started[-1] == "idle" and "done" not in started
    # The same bytes in a pane the daemon found already running: the work ends `done`.
    assert states_until_typed(name, started=False)[-1] == "done"
