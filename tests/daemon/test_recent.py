"""daemon/recent.py: what an agent pane drew lately, bounded, replayable from its seed."""

from __future__ import annotations

import threading

from osf_tmux.daemon.recent import RecentBytes
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.redraw import seed_bytes
from osf_tmux.vt.snapshot import Snapshot


def replayed(data: bytes, cols: int, rows: int) -> Snapshot:
    return next(snap for _, snap in snapshots_at(data, cols, rows, [len(data)]))


def test_a_seed_draws_the_screen_again() -> None:
    pane = PaneScreen(40, 6)
    pane.feed(
        b"\x1b]2;my title\x07hello\r\n  wide \xe6\x97\xa5\xe6\x9c\xac\r\n\x1b[5;3Hend\x1b[?25l"
    )
    snap = pane.snapshot()
    again = replayed(seed_bytes(snap), 40, 6)
    assert again == snap


def test_the_alternate_screen_and_a_hostile_title_are_kept_safely() -> None:
    snap = Snapshot(
        cols=20, rows=("a", "", "b"), cursor=(1, 2), title="t\x07\x1b]2;x", alt_screen=True
    )
    again = replayed(seed_bytes(snap), 20, 3)
    assert again.rows == snap.rows and again.alt_screen and again.cursor == (1, 2)
    assert again.title == "t]2;x"  # the controls dropped, nothing broke out of the OSC


def test_bytes_added_replay_from_the_seed_to_the_screen_they_led_to() -> None:
    pane = PaneScreen(30, 5)
    pane.feed(b"before the seed\r\n")
    recent = RecentBytes(cap=1 << 16)
    recent.restart(pane.snapshot(), 100.0)
    for i, chunk in enumerate([b"line one\r\n", b"\x1b[2Jcleared", b" and more"]):
        pane.feed(chunk)
        assert not recent.add(chunk, 101.0 + i)
    rec = recent.recording()
    assert rec is not None
    assert replayed(rec.data, 30, 5) == pane.snapshot()
    assert [t for _, t in rec.timing] == [100.0, 101.0, 102.0, 103.0]
    assert rec.timing[-1][0] == len(rec.data)


def test_it_stays_bounded_and_still_replays_after_many_rotations() -> None:
    cap = 4096
    pane = PaneScreen(40, 10)
    recent = RecentBytes(cap=cap, max_points=64)
    recent.restart(pane.snapshot(), 0.0)
    most = 0
    for i in range(2000):
        chunk = f"\x1b[{i % 10 + 1};1Hrow {i} of the flood\x1b[K".encode()
        pane.feed(chunk)
        if recent.add(chunk, float(i)):
            recent.rotate(pane.snapshot(), float(i))
        most = max(most, recent.memory())
    rec = recent.recording()
    assert rec is not None
    assert replayed(rec.data, 40, 10) == pane.snapshot()
    # Two generations of at most half the cap each (bytes or points), plus two seeds.
    assert most <= cap + 64 * 16 + 2 * len(seed_bytes(pane.snapshot())) + 64
    assert len(rec.timing) <= 64 + 1


def test_a_restart_forgets_what_led_to_the_old_screen() -> None:
    recent = RecentBytes(cap=1 << 12)
    assert recent.recording() is None
    recent.restart(Snapshot(cols=10, rows=("old",)), 1.0)
    recent.add(b"xyz", 2.0)
    recent.restart(Snapshot(cols=10, rows=("new",)), 3.0)
    rec = recent.recording()
    assert rec is not None and b"xyz" not in rec.data and rec.started == 3.0


def test_read_from_another_thread_while_bytes_come_in() -> None:
    pane = PaneScreen(20, 4)
    recent = RecentBytes(cap=2048, max_points=256)
    recent.restart(pane.snapshot(), 0.0)
    done = threading.Event()
    seen: list[int] = []

    def reader() -> None:
        while not done.is_set():
            rec = recent.recording()
            assert rec is not None
            assert all(a[0] <= b[0] for a, b in zip(rec.timing, rec.timing[1:], strict=False))
            assert rec.timing[-1][0] <= len(rec.data)
            seen.append(len(rec.data))

    t = threading.Thread(target=reader)
    t.start()
    for i in range(1500):
        chunk = f"{i}\r\n".encode()
        pane.feed(chunk)
        if recent.add(chunk, float(i)):
            recent.rotate(pane.snapshot(), float(i))
    done.set()
    t.join()
    assert seen
