"""The pane state machine, driven by a fake clock: no test sleeps."""

from __future__ import annotations

from osf_tmux.clock import FakeClock
from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.combine import Observation, PaneTracker, Report, Timing, most_urgent
from osf_tmux.vt.snapshot import Snapshot


def verdict(state: str) -> Verdict:
    return Verdict(state, f"rule-{state}", "claude")


DONE = 1.0  # Timing.done_confirm: a turn that ends (not a prompt rejected) is confirmed longer


class Pane:
    """A tracker plus a clock, with shorthand for what the screen shows."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.tracker = PaneTracker(
            Timing(idle_confirm=0.4, done_confirm=DONE, report_ttl=30, blocked_report_grace=2)
        )

    def show(
        self,
        state: str | None,
        seen: bool = False,
        report: Report | None = None,
        agent: bool = True,
    ) -> str | None:
        obs = Observation(agent, verdict(state) if state else None, seen, report)
        return self.tracker.update(obs, self.clock.now(), self.clock.wall()).state

    def report(self, state: str, ago: float = 0.0) -> Report:
        return Report(state, self.clock.wall() - ago)


def test_blocked_and_working_are_entered_at_once() -> None:
    p = Pane()
    assert p.show("idle") == "idle"
    assert p.show("working") == "working"
    assert p.show("blocked") == "blocked"
    assert p.show("working") == "working"


def test_return_to_idle_is_confirmed_then_done_until_seen() -> None:
    p = Pane()
    p.show("working")
    assert p.show("idle") == "working"  # one idle-looking redraw is not enough
    assert p.tracker.deadline() == p.clock.now() + DONE
    p.clock.advance(0.2)
    assert p.show("working") == "working"  # it flapped back: no change
    assert p.tracker.deadline() is None
    assert p.show("idle") == "working"
    p.clock.advance(DONE - 0.01)
    assert p.show("idle") == "working"  # the end of a turn is confirmed for `done_confirm`
    p.clock.advance(0.02)
    assert p.show("idle") == "done"
    p.clock.advance(60)
    assert p.show("idle") == "done"  # stays done until a person looks
    assert p.show("idle", seen=True) == "idle"
    assert p.show("idle") == "idle"


def test_finishing_while_watched_is_idle() -> None:
    p = Pane()
    p.show("working", seen=True)
    p.show("idle", seen=True)
    p.clock.advance(0.5)
    assert p.show("idle", seen=True) == "idle"


def test_rejected_prompt_goes_idle_not_done() -> None:
    p = Pane()  # the person who rejected it is looking at the pane
    p.show("blocked", seen=True)
    p.show("idle", seen=True)
    p.clock.advance(0.5)
    assert p.show("idle", seen=True) == "idle"


def test_blocked_ends_as_soon_as_the_prompt_is_gone() -> None:
    # After an answered dialog, Codex prints without a status row and Claude redraws its logo:
    # idle is not confirmed yet, but a prompt no longer on screen must not stay `blocked`.
    p = Pane()
    p.show("blocked")
    streaming = Observation(True, verdict("idle"), False, quiet=0.0)
    assert p.tracker.update(streaming, p.clock.now(), p.clock.wall()).state == "working"
    for _ in range(5):
        p.clock.advance(0.1)
        assert p.tracker.update(streaming, p.clock.now(), p.clock.wall()).state == "working"
    quiet = Observation(True, verdict("idle"), True, quiet=0.5)
    p.clock.advance(0.5)
    assert p.tracker.update(quiet, p.clock.now(), p.clock.wall()).state == "idle"


def test_no_agent_means_no_state() -> None:
    p = Pane()
    p.show("working")
    assert p.show(None, agent=False) is None


def test_since_changes_only_with_the_state() -> None:
    p = Pane()
    p.show("working")
    since = p.tracker.current.since
    p.clock.advance(5)
    p.show("working")
    assert p.tracker.current.since == since
    p.show("blocked")
    assert p.tracker.current.since == since + 5


def test_blocked_screen_beats_a_fresh_report() -> None:
    p = Pane()
    assert p.show("blocked", report=p.report("working")) == "blocked"


def test_fresh_report_beats_screen_and_missing_agent() -> None:
    p = Pane()
    assert p.show("idle", report=p.report("working")) == "working"
    assert p.show(None, agent=False, report=p.report("working", ago=1)) == "working"
    # expired: the screen decides again
    assert p.show(None, agent=False, report=p.report("working", ago=31)) is None


def test_stale_blocked_report_is_cleared_by_the_screen() -> None:
    # Rejecting a Claude prompt with Esc fires no hook: the screen must clear the report.
    p = Pane()
    assert p.show("idle", report=p.report("blocked", ago=0.5)) == "blocked"
    p.clock.advance(3)
    # the report is stale and the prompt is gone: not blocked, busy while idle is confirmed
    assert p.show("idle", report=p.report("blocked", ago=3.5)) == "working"
    p.clock.advance(0.5)
    assert p.show("idle", report=p.report("blocked", ago=4)) == "idle"


def test_done_report_counts_once() -> None:
    p = Pane()
    p.show("working")
    done = p.report("done")
    p.show("idle", report=done)
    p.clock.advance(0.5)
    assert p.show("idle", report=done) == "done"
    assert p.show("idle", seen=True, report=done) == "idle"
    p.clock.advance(1)
    assert p.show("idle", report=done) == "idle"  # seen after the report: old news


def test_report_parsing() -> None:
    assert Report.parse("blocked 1800000000.5") == Report("blocked", 1800000000.5)
    assert Report.parse("working 12 claude") == Report("working", 12.0)
    for bad in ("", "blocked", "sleeping 12", "working soon"):
        assert Report.parse(bad) is None


def test_most_urgent() -> None:
    assert most_urgent(["idle", None, "working", "done"]) == "done"
    assert most_urgent(["working", "blocked"]) == "blocked"
    assert most_urgent([None]) is None


def test_idle_waits_for_the_pane_to_go_quiet() -> None:
    # Codex hides its status row while the answer streams: idle-looking frames, still printing.
    p = Pane()
    obs = Observation(True, verdict("working"), False)
    p.tracker.update(obs, p.clock.now(), p.clock.wall())
    streaming = Observation(True, verdict("idle"), False, quiet=0.05)
    for _ in range(20):  # 2 s of streaming, judged every 100 ms
        p.clock.advance(0.1)
        state = p.tracker.update(streaming, p.clock.now(), p.clock.wall()).state
        assert state == "working"
    quiet = Observation(True, verdict("idle"), False, quiet=DONE + 0.01)
    p.clock.advance(DONE + 0.01)
    assert p.tracker.update(quiet, p.clock.now(), p.clock.wall()).state == "done"


def test_idle_is_not_held_forever_by_a_printing_pane() -> None:
    p = Pane()
    p.show("working")
    streaming = Observation(True, verdict("idle"), False, quiet=0.0)
    p.tracker.update(streaming, p.clock.now(), p.clock.wall())
    assert p.tracker.deadline() == p.clock.now() + DONE
    p.clock.advance(8.0)
    assert p.tracker.update(streaming, p.clock.now(), p.clock.wall()).state == "done"


def _screen(*rows: str) -> Snapshot:
    return Snapshot(cols=40, rows=tuple(rows) + ("",) * (8 - len(rows)))


PROMPT = _screen(
    "transcript", "", "╭─ approval ─╮", "│ → [1] Approve │", "╰────────────╯", "── footer"
)
ERASED = _screen("transcript")  # the panel erased, the terminal asked where the cursor is


def _see(
    p: Pane, snap: Snapshot | None, state: str, rule: str | None = None, quiet: float = 0.0
) -> str | None:
    obs = Observation(True, Verdict(state, rule, "kimi"), False, quiet=quiet, snapshot=snap)
    return p.tracker.update(obs, p.clock.now(), p.clock.wall()).state


def test_a_prompt_erased_to_be_drawn_again_stays_blocked() -> None:
    # Kimi CLI erases its approval panel below the cursor and draws it again 0.4-0.9 s later;
    # the frames between are recognised by no rule. Without the grace they read busy, then the
    # prompt came back: the status line blinked blocked -> working -> blocked.
    p = Pane()
    assert _see(p, PROMPT, "blocked", "approval") == "blocked"
    p.clock.advance(0.01)
    assert _see(p, ERASED, "idle") == "blocked"
    assert p.tracker.deadline() == p.clock.now() + 1.5
    p.clock.advance(0.4)
    assert _see(p, ERASED, "idle") == "blocked"
    p.clock.advance(0.4)
    assert _see(p, PROMPT, "blocked", "approval") == "blocked"
    assert p.tracker.deadline() is None


def test_an_erased_prompt_that_is_not_drawn_again_ends_after_the_grace() -> None:
    p = Pane()
    _see(p, PROMPT, "blocked", "approval")
    assert _see(p, ERASED, "idle") == "blocked"
    p.clock.advance(1.5)
    assert _see(p, None, "idle", quiet=1.5) == "working"  # the deadline's turn, no new frame
    p.clock.advance(0.5)
    assert _see(p, None, "idle", quiet=2.0) == "idle"  # rejected: idle, not done


def test_an_answer_still_ends_a_prompt_at_once() -> None:
    # What replaces an answered prompt is known to a rule (a spinner, the input box) or is
    # something drawn that the prompt's screen did not have: neither is a redraw.
    for snap, state, rule in (
        (ERASED, "working", "spinner"),
        (ERASED, "idle", "input-box"),
        (_screen("transcript", "", "✕ rejected"), "idle", None),
        (_screen(), "idle", None),  # the screen cleared whole: no live area left to redraw
        (_screen("transcript", "", "", "╭─ approval ─╮"), "idle", None),
    ):
        p = Pane()
        _see(p, PROMPT, "blocked", "approval")
        assert _see(p, snap, state, rule) == "working"
