"""The scheduler alone (daemon/scheduler.py): when the loop wakes, which FIFOs it listens to, and
the slower beat. Driven with a fake clock, real FIFOs and no tmux."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings
from osf_tmux.judge.combine import PaneTracker
from tests.daemon.test_daemon_loop_work import pane


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.clock = FakeClock()
        self.table = PaneTable()
        self.status_at = float("inf")
        self.scheduler = Scheduler(Settings(), self.clock.now, self.table, lambda: self.status_at)
        self.pipes = PipeFactory(tmp / "run")
        self.pipes.prepare()
        self.writers: list[int] = []

    def watch(self, n: int) -> PaneWatch:
        """A pane with a FIFO of its own, listened to (as a new pipe is)."""
        pipe = self.pipes.open(f"%{n}")
        w = PaneWatch(pane(n), PaneTracker(), pipe=pipe, mode="pipe")
        self.table.panes[f"%{n}"] = w
        self.scheduler.listen(pipe, f"%{n}")
        self.writers.append(os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK))
        return w

    def listens(self, w: PaneWatch) -> bool:
        assert w.pipe is not None
        return w.pipe.read_fd in self.scheduler.selector.get_map()

    def close(self) -> None:
        for fd in self.writers:
            os.close(fd)
        for w in self.table.panes.values():
            assert w.pipe is not None
            w.pipe.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.close()


def test_an_idle_table_waits_for_the_sweep_and_nothing_else(rig: Rig) -> None:
    rig.scheduler.next_sweep = 1002.0
    assert rig.scheduler.next_deadline(rig.clock.now()) == 1002.0
    rig.table.status_dirty = True
    rig.status_at = 1000.2
    assert rig.scheduler.next_deadline(rig.clock.now()) == 1000.2
    rig.table.publish_due = True  # a pane went: its state leaves the counts at once
    assert rig.scheduler.next_deadline(rig.clock.now()) == rig.clock.now()


def test_a_drawing_pane_is_due_when_it_settles_or_at_the_ceiling(rig: Rig) -> None:
    s = rig.scheduler.settings
    rig.scheduler.next_sweep = float("inf")
    rig.table.status_dirty = False
    w = rig.watch(1)
    rig.table.active.add("%1")
    w.dirty_since, w.last_bytes = 1000.0, 1000.0
    assert rig.scheduler.next_deadline(1000.0) == pytest.approx(1000.0 + s.settle)
    w.last_bytes = 1000.24  # still drawing: the ceiling comes first
    assert rig.scheduler.next_deadline(1000.24) == pytest.approx(1000.0 + s.ceiling)
    w.pending += b"x"  # bytes to parse: now
    assert rig.scheduler.next_deadline(1000.24) == 1000.24


def test_wait_hands_back_the_panes_whose_fifos_have_bytes(rig: Rig) -> None:
    a, b = rig.watch(1), rig.watch(2)
    rig.scheduler.next_sweep = float("inf")
    os.write(rig.writers[1], b"frame")
    assert rig.scheduler.wait(max_wait=0.0) == ["%2"]
    assert rig.table.counters["wakeups"] == 1
    assert rig.scheduler.woke == rig.clock.now()
    assert b.pipe is not None and b.pipe.read() == b"frame"
    assert a.pipe is not None and rig.scheduler.wait(max_wait=0.0) == []


def test_several_drawing_panes_are_gathered_by_one_wait(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []
    monkeypatch.setattr("osf_tmux.daemon.scheduler.time.sleep", slept.append)
    s = rig.scheduler.settings
    rig.scheduler.next_sweep = float("inf")
    rig.scheduler.woke = rig.clock.now()
    rig.table.recent["%1"] = rig.clock.now()
    rig.scheduler.wait(max_wait=0.0)
    assert slept == []  # one pane alone gains nothing from waiting
    rig.table.recent.update({"%2": rig.clock.now(), "%3": rig.clock.now()})
    rig.scheduler.woke = rig.clock.now()
    rig.watch(1)
    os.write(rig.writers[0], b"x")  # the select after the gathering wait returns at once
    assert rig.scheduler.wait(max_wait=1.0) == ["%1"]
    assert slept == [pytest.approx(min(s.batch, 3 * s.batch_per_pane))]


def test_a_parked_pane_leaves_the_selector_and_is_read_on_the_beat(rig: Rig) -> None:
    s = rig.scheduler.settings
    w = rig.watch(1)
    for n in (2, 3):  # enough panes draw to keep it on the beat
        rig.table.recent[f"%{n}"] = rig.clock.now()
    rig.table.recent["%1"] = rig.clock.now()
    rig.scheduler.park(w, rig.clock.now())
    assert w.parked and not rig.listens(w) and rig.table.counters["parked"] == 1
    assert w.next_read == pytest.approx((rig.clock.now() // s.steady_read + 1) * s.steady_read)
    os.write(rig.writers[0], b"spin")
    got: list[bytes] = []
    rig.scheduler.read_parked(rig.clock.now(), lambda _, data: got.append(data))
    assert got == []  # not its instant yet
    rig.clock.t = w.next_read
    rig.scheduler.read_parked(rig.clock.now(), lambda _, data: got.append(data))
    assert got == [b"spin"] and w.parked and w.hurry
    for _ in range(s.steady_quiet):  # quiet reads in a row: back on the selector
        rig.clock.t = w.next_read
        rig.scheduler.read_parked(rig.clock.now(), lambda _, data: got.append(data))
    assert not w.parked and rig.listens(w) and not rig.scheduler.parked


def test_the_beat_slows_with_many_panes_on_it(rig: Rig) -> None:
    s = rig.scheduler.settings
    assert rig.scheduler.beat_step() == s.steady_read
    rig.scheduler.settings = Settings(steady_looks=4.0)  # one pane a beat of 0.25 s
    watches = [rig.watch(n) for n in (1, 2, 3)]
    for w in watches:
        rig.scheduler.park(w, rig.clock.now())
    assert rig.scheduler.beat_step() == pytest.approx(0.75)
    assert len({w.next_read for w in watches}) == 1  # all on one instant
    rig.scheduler.unpark(watches[0], listen=False)  # a pipe about to close
    assert not rig.listens(watches[0])
    assert rig.scheduler.beat_step() == pytest.approx(0.5)
