"""`output_flow`: a pane reads working while its text changes, idle once it stops. A fake clock
drives it: no test sleeps."""

from __future__ import annotations

from osf_tmux.clock import FakeClock
from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.combine import OUTPUT_FLOW_RULE, Observation, PaneTracker, Timing
from osf_tmux.judge.output_flow import OutputFlow
from osf_tmux.vt.snapshot import Snapshot

WINDOW = 2.0


def screen(*rows: str, cursor: tuple[int, int] | None = None, title: str = "") -> Snapshot:
    y = len(rows) - 1
    return Snapshot(
        cols=80,
        rows=rows,
        cursor=cursor if cursor is not None else (len(rows[y]), y),
        title=title,
    )


class Pane:
    def __init__(self, flow: float | None = WINDOW) -> None:
        self.clock = FakeClock()
        self.tracker = PaneTracker(Timing())
        self.flow = flow

    def show(
        self, snap: Snapshot, state: str = "idle", seen: bool = False, rule: str | None = None
    ) -> str | None:
        obs = Observation(
            True,
            Verdict(state, rule or (None if state == "idle" else f"rule-{state}"), "generic"),
            seen,
            output_flow=self.flow,
            snapshot=snap,
        )
        return self.tracker.update(obs, self.clock.now(), self.clock.wall()).state


def test_working_while_the_text_changes_then_idle_once_it_stops() -> None:
    p = Pane()
    assert p.show(screen("$ make")) == "idle"  # the first screen seen is not output
    p.clock.advance(0.1)
    assert p.show(screen("$ make", "cc -c a.c")) == "working"
    assert p.tracker.current.rule == OUTPUT_FLOW_RULE
    assert p.tracker.deadline() == p.clock.now() + WINDOW
    p.clock.advance(1.5)
    assert p.show(screen("$ make", "cc -c a.c", "cc -c b.c")) == "working"
    p.clock.advance(WINDOW - 0.01)
    assert p.show(screen("$ make", "cc -c a.c", "cc -c b.c")) == "working"
    p.clock.advance(0.02)
    # Not `done`: a program that stops printing has not finished a turn anyone asked for.
    assert p.show(screen("$ make", "cc -c a.c", "cc -c b.c")) == "idle"
    assert p.tracker.deadline() is None


def test_the_same_text_drawn_again_is_not_output() -> None:
    p = Pane()
    p.show(screen("Working on it", "12:00:01"))
    p.clock.advance(0.5)
    assert p.show(screen("Working on it", "12:00:01")) == "idle"  # a redraw, a new object
    p.clock.advance(0.5)
    # The cursor blinking or moving, a new title: the text is the same.
    assert p.show(screen("Working on it", "12:00:01", cursor=(0, 0), title="x")) == "idle"


def test_a_keystroke_echoed_at_the_cursor_is_not_output() -> None:
    p = Pane()
    p.show(screen("Name:"))
    for typed in ("Name: a", "Name: ab", "Name: a"):  # typing, and a backspace
        p.clock.advance(0.2)
        assert p.show(screen(typed)) == "idle"
    p.clock.advance(0.2)
    # A whole line at once at the cursor is printed, not typed.
    assert p.show(screen("Name: a -- done, 3 files")) == "working"


def test_a_change_away_from_the_cursor_row_is_output() -> None:
    p = Pane()
    p.show(screen("50%", "$"))
    p.clock.advance(0.2)
    assert p.show(screen("51%", "$")) == "working"


def test_blocked_and_rule_states_win_over_the_flow() -> None:
    p = Pane()
    p.show(screen("a"))
    p.clock.advance(0.1)
    assert p.show(screen("a", "Continue? [y/N]"), state="blocked") == "blocked"
    p.clock.advance(0.1)
    assert p.show(screen("a", "Continue? [y/N] y", "b"), state="working") == "working"
    assert p.tracker.current.rule == "rule-working"


def test_without_output_flow_the_text_changing_changes_nothing() -> None:
    p = Pane(flow=None)
    p.show(screen("a"))
    p.clock.advance(0.1)
    assert p.show(screen("a", "b")) == "idle"
    assert p.tracker.deadline() is None


def test_a_prompt_answered_then_output_is_working_and_ends_idle() -> None:
    p = Pane()
    p.show(screen("$ rm -i x"))
    p.clock.advance(0.1)
    assert p.show(screen("$ rm -i x", "rm: remove regular file 'x'?"), state="blocked") == "blocked"
    p.clock.advance(3)
    assert p.show(screen("$ rm -i x", "rm: remove regular file 'x'? y", "$")) == "working"
    p.clock.advance(WINDOW)
    assert p.show(screen("$ rm -i x", "rm: remove regular file 'x'? y", "$")) == "idle"


def test_flow_alone_counts_changes_and_their_time() -> None:
    flow = OutputFlow(1.0)
    flow.observe(screen("a"), 10.0)
    assert not flow.flowing(10.0)
    flow.observe(screen("a", "b"), 11.0)
    assert flow.flowing(11.9) and not flow.flowing(12.0)
    assert flow.ends() == 12.0


def test_back_at_its_own_prompt_reads_idle_once_quiet_not_after_the_window() -> None:
    """An idle rule (generic's `at-prompt`) ends the flow: the shell's prompt back after output
    reads idle once the pane stays quiet for `idle_confirm`, not `output_flow` seconds later;
    never `done`. Without it the same screen stays `working` for the whole window."""
    for rule, idle_after in (("at-prompt", Timing().idle_confirm), (None, WINDOW)):
        p = Pane()
        p.show(screen("$ make"), rule=rule)
        p.clock.advance(0.1)
        assert p.show(screen("$ make", "cc -c a.c")) == "working"
        p.clock.advance(0.1)
        back = screen("$ make", "cc -c a.c", "$ ")
        assert p.show(back, rule=rule) == "working"  # confirmed like any return to idle
        deadline = p.tracker.deadline()
        assert deadline is not None
        assert abs(deadline - (p.clock.now() + idle_after)) < 1e-9
        p.clock.advance(deadline - p.clock.now() + 1e-6)
        assert p.show(back, rule=rule) == "idle", rule


def test_typing_at_its_own_prompt_is_not_output() -> None:
    """Whole words at once at the prompt (typed fast, completed, recalled from history, an
    autosuggestion drawn): with the prompt's idle rule, the pane stays idle."""
    p = Pane()
    p.show(screen("$ "), rule="at-prompt")
    for typed in ("$ npm", "$ npm install --save-dev", "$ git log --oneline"):
        p.clock.advance(0.2)
        assert p.show(screen(typed), rule="at-prompt") == "idle"
    p = Pane()
    p.show(screen("$ "))
    p.clock.advance(0.2)
    assert p.show(screen("$ npm install --save-dev")) == "working"  # without the rule


def test_a_line_that_looks_like_a_prompt_with_output_behind_it_stays_working() -> None:
    p = Pane()
    p.show(screen("make"))
    p.clock.advance(0.1)
    assert p.show(screen("make", "cc -c a.c")) == "working"
    for i in range(5):  # a `$ ` row at the bottom for a moment each time, output all along
        p.clock.advance(0.2)
        rows = ("make", "cc -c a.c", *(f"line {j}" for j in range(i)), "$ ")
        obs = Observation(
            True,
            Verdict("idle", "at-prompt", "generic"),
            False,
            quiet=0.0,
            output_flow=WINDOW,
            snapshot=screen(*rows),
        )
        assert p.tracker.update(obs, p.clock.now(), p.clock.wall()).state == "working"
