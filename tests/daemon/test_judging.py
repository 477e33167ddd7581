"""The judging step alone (daemon/judging.py): bytes into a pane's screen, judged once settled,
run through its tracker, under the rule budget, holds included. A fake clock, no tmux, no
FIFO: bytes are handed in as the loop would hand them."""

from __future__ import annotations

import dataclasses
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.judging import JudgingStep
from osf_tmux.daemon.rule_budget import RuleBudget, RuleGuard
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings, Transition
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.judge.manifest import Manifest, parse_manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_loop_work import pane
from tests.daemon.test_rule_budget import POLYNOMIAL


def manifest(hold: str) -> Manifest:
    """Busy while its status row shows; a hold that keeps it working while the screen changes
    and `hold` is found on it; blocked on a question."""
    return parse_manifest(
        {
            "agent": "claude",
            "rule": [
                {"id": "ask", "state": "blocked", "all": [r"^Proceed\? \(y/n\)"]},
                {"id": "busy", "state": "working", "all": [r"esc to interrupt"]},
                {"id": "drawn", "state": "working", "while_changing": 3.0, "all": [hold]},
            ],
        },
        "mine.toml",
    )


SETTLED = Settings().settle + 0.001  # a frame this old has settled


@dataclasses.dataclass
class Rig:
    step: JudgingStep
    table: PaneTable
    clock: FakeClock
    watch: PaneWatch
    identified: list[tuple[str, bool]]
    transitions: list[Transition]

    def show(self, *rows: str) -> None:
        """The pane draws `rows` (from the top, screen cleared), and the loop turns once the
        frame settled."""
        self.step.on_bytes(self.watch, b"\x1b[H\x1b[2J" + "\r\n".join(rows).encode())
        self.turn(SETTLED)

    def turn(self, after: float = 0.0) -> bool:
        self.clock.advance(after)
        now = self.clock.now()
        busy = self.table.busy()
        assert self.step.feed(busy, now) == []
        return self.step.judge_due(busy, now)

    @property
    def state(self) -> str | None:
        return self.watch.tracker.current.state


def make_rig(m: Manifest, budget: RuleBudget | None = None) -> Rig:
    clock, table = FakeClock(), PaneTable()
    settings = Settings()
    identified: list[tuple[str, bool]] = []
    transitions: list[Transition] = []

    def identify(w: PaneWatch, now: float, if_changed: bool) -> None:
        identified.append((w.info.pane_id, if_changed))
        w.last_identify = now

    step = JudgingStep(
        settings=settings, clock=clock, table=table,
        scheduler=Scheduler(settings, clock.now, table),
        guard=RuleGuard(RuleSet({"claude": m}), budget),
        identify=identify,
        on_transition=transitions.append,
    )  # fmt: skip
    w = PaneWatch(pane(1), PaneTracker(), mode="pipe", manifest=m, screen=PaneScreen(120, 32))
    w.signature_read = clock.now()
    table.panes["%1"] = w
    return Rig(step, table, clock, w, identified, transitions)


@pytest.fixture
def rig() -> Rig:
    return make_rig(manifest(r"^>"))


def test_bytes_of_an_agent_are_parsed_and_judged_once_settled(rig: Rig) -> None:
    rig.step.on_bytes(rig.watch, b"Proceed? (y/n)")
    assert rig.watch.pending and "%1" in rig.table.active and rig.table.recent == {"%1": 1000.0}
    assert not rig.turn()  # parsed, not settled yet
    assert not rig.watch.pending and rig.watch.dirty_since == 1000.0 and rig.state is None
    assert rig.turn(SETTLED)
    assert rig.state == "blocked" and rig.watch.tracker.current.rule == "ask"
    assert [(t.before.state, t.after.state) for t in rig.transitions] == [(None, "blocked")]
    assert rig.table.counters["judged"] == 1 and rig.table.counters["classified"] == 1
    assert "%1" not in rig.table.active  # nothing left to do


def test_a_plain_pane_is_not_parsed_but_may_have_become_an_agent(rig: Rig) -> None:
    rig.watch.manifest = None
    rig.step.on_bytes(rig.watch, b"$ ls")
    assert not rig.watch.pending and rig.identified == [("%1", False)]
    rig.step.on_bytes(rig.watch, b"$ ls")  # not again before identify_interval
    assert rig.identified == [("%1", False)]


def test_a_flood_is_dropped_and_the_pane_seeded_once_it_calms_down(rig: Rig) -> None:
    s = rig.step.settings
    rig.step.on_bytes(rig.watch, b"x" * (s.max_pending + 1))
    assert rig.watch.dropping_since == rig.clock.now() and not rig.watch.pending
    assert rig.watch.dropped == s.max_pending + 1
    rig.clock.advance(s.reseed_quiet)
    assert rig.step.feed(rig.table.busy(), rig.clock.now()) == [rig.watch]


def test_the_tracker_is_handed_the_holds_that_match(rig: Rig) -> None:
    rig.show("> answer")
    assert rig.state == "idle" and rig.watch.holding == frozenset()  # no hold for an idle pane
    rig.show("answer", "esc to interrupt")
    assert rig.state == "working" and rig.watch.holding == frozenset()  # nor a busy screen
    rig.show("answer grows", "> ")  # no status row, the answer changed: held
    assert rig.watch.holding == {"drawn"}
    assert rig.state == "working" and rig.watch.tracker.current.rule == "drawn"
    rig.show("answer grows more", "")  # its conditions no longer hold: the turn ends
    assert rig.watch.holding == frozenset()
    rig.turn(rig.step.settings.timing.done_confirm + 0.01)
    assert rig.state == "done"


class Stuck(Exception):
    pass


@pytest.fixture
def watchdog() -> Iterator[None]:
    """Matched outside the budget, the slow hold would run for hours: fail after 10 s."""

    def stuck(signum: int, frame: FrameType | None) -> Any:
        raise Stuck("still inside a hold's pattern after 10 s")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_slow_hold_is_cut_off_by_the_budget_and_dropped(watchdog: None) -> None:
    """Holds are rules too: their patterns run under the CPU budget, and one that blows it is
    dropped like any other rule, while the pane goes on being judged."""
    rig = make_rig(manifest(POLYNOMIAL), RuleBudget(0.05))
    # The hold's pattern takes hours on a row of blanks ending in a mark. The pane works, then
    # its status row goes while the text changes: where a hold applies, so it is matched.
    rig.show(" " * 118 + "!", "esc to interrupt")
    assert rig.state == "working"
    rig.show(" " * 117 + "!", "")
    kept = rig.step.guard.rules.get("claude")
    assert [h.id for h in kept.holds] == [] and [r.id for r in kept.rules] == ["ask", "busy"]
    assert rig.watch.manifest is kept
    rig.show(" " * 117 + "!", "Proceed? (y/n)")  # judged on, without it
    assert rig.state == "blocked" and rig.watch.tracker.current.rule == "ask"
