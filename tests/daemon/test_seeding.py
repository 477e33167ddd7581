"""Seeds, polls and the cross-check alone (daemon/seeding.py): `capture-pane` is replaced by a
function that answers what a test says tmux shows; the clock is fake."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.seeding import ScreenSync
from osf_tmux.daemon.source import PaneCapture
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.tmux import Tmux, TmuxError
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_loop_work import pane
from tests.daemon.test_daemon_settle import RecordingTmux


def capture(pane_id: str, *lines: str) -> PaneCapture:
    return PaneCapture(
        pane_id=pane_id, cols=20, rows_count=4, cursor=(0, len(lines)), cursor_visible=True,
        alt_screen=False, title="", lines=(*lines, *[""] * (4 - len(lines))),
    )  # fmt: skip


@dataclasses.dataclass
class Rig:
    sync: ScreenSync
    table: PaneTable
    scheduler: Scheduler
    clock: FakeClock
    shows: dict[str, PaneCapture]  # what tmux shows, by pane
    calls: list[list[str]]

    def watch(self, n: int, **fields: object) -> PaneWatch:
        w = PaneWatch(pane(n, width=20, height=4), PaneTracker(), **fields)  # type: ignore[arg-type]
        self.table.panes[f"%{n}"] = w
        return w


@pytest.fixture
def rig(monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    shows: dict[str, PaneCapture] = {}
    calls: list[list[str]] = []

    def fake_capture(
        tmux: Tmux, pane_ids: list[str], escapes: bool, alt: frozenset[str] = frozenset()
    ) -> dict[str, PaneCapture]:
        calls.append(pane_ids)
        if "fail" in shows:
            raise TmuxError("can't find pane")
        return {p: shows[p] for p in pane_ids if p in shows}

    monkeypatch.setattr("osf_tmux.daemon.seeding.capture_panes", fake_capture)
    clock, table = FakeClock(), PaneTable()
    scheduler = Scheduler(Settings(), clock.now, table)
    sync = ScreenSync(
        RecordingTmux(), settings=Settings(), clock=clock, table=table, scheduler=scheduler
    )
    yield Rig(sync, table, scheduler, clock, shows, calls)


def test_a_seed_sets_the_screen_from_the_capture(rig: Rig) -> None:
    w = rig.watch(1, needs_seed=True, pending=bytearray(b"old"))
    rig.shows["%1"] = capture("%1", "$ claude", "> ")
    rig.sync.seed([w])
    assert w.screen is not None and w.screen.snapshot().rows[:2] == ("$ claude", ">")
    assert not w.needs_seed and not w.pending and w.reseeds == 1
    assert w.dirty_since == rig.clock.now() and rig.table.counters["reseeds"] == 1


def test_a_pane_missing_from_the_capture_is_seeded_after_the_next_sweep(rig: Rig) -> None:
    s = rig.sync.settings
    rig.scheduler.next_sweep = float("inf")
    w = rig.watch(1, needs_seed=True)
    rig.sync.seed([w])
    assert w.needs_seed and w.screen is None
    assert w.seed_not_before == rig.clock.now() + s.retry_sweep
    assert rig.scheduler.next_sweep == rig.clock.now() + s.retry_sweep
    rig.shows["fail"] = capture("fail")  # tmux refuses the whole call: sweep now
    rig.sync.seed([w])
    assert rig.scheduler.next_sweep == rig.clock.now()
    assert w.seed_not_before == rig.clock.now() + s.settle


def test_a_polled_screen_that_changed_counts_as_output(rig: Rig) -> None:
    s = rig.sync.settings
    w = rig.watch(2, mode="foreign")
    rig.shows["%2"] = capture("%2", "working")
    rig.sync.poll([w], rig.clock.now())
    assert w.polled is not None and w.polled.rows == ("working", "", "", "")
    assert w.last_bytes == rig.clock.now() - s.settle and "%2" in rig.table.active
    assert w.next_poll == rig.clock.now() + s.foreign_poll  # it changed lately: polled often
    rig.table.active.clear()
    rig.clock.advance(s.foreign_hot)
    rig.sync.poll([w], rig.clock.now())  # the same screen
    assert "%2" not in rig.table.active
    assert w.next_poll == rig.clock.now() + s.foreign_poll_idle


def test_the_cross_check_reseeds_a_screen_that_went_astray(rig: Rig) -> None:
    w = rig.watch(1, mode="pipe", screen=PaneScreen(20, 4), checked_bytes=True)
    assert w.screen is not None
    w.screen.feed(b"mine")
    rig.shows["%1"] = capture("%1", "mine")
    rig.clock.advance(1.0)  # quiet for more than half a second
    rig.sync.check_if_due(rig.clock.now())
    assert rig.calls == []  # not due yet
    rig.clock.advance(rig.sync.settings.check_interval)
    rig.sync.check_if_due(rig.clock.now())
    assert rig.calls == [["%1"]] and not w.needs_seed and w.mismatches == 0
    w.checked_bytes = True
    rig.shows["%1"] = capture("%1", "theirs")
    rig.sync.cross_check()
    assert w.needs_seed and w.mismatches == 1 and "%1" in rig.table.active
    assert rig.table.counters["mismatches"] == 1
