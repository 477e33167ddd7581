"""The slower beat (Settings.steady_read): a pane that keeps drawing while its verdict and state
hold leaves the selector and is read on a shared beat; whatever it shows at that read is judged
at once, and a change, a quiet read, a flood, a seed or a closed pipe puts it back. In process,
with a fake clock and real FIFOs; tmux is replaced by a recorder."""

from __future__ import annotations

import dataclasses
import os
import selectors
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PaneCapture
from osf_tmux.daemon.watch import PaneWatch
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.tmux import PaneInfo, Tmux
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_settle import fake_daemon

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.snapshots"


def screen_bytes(name: str) -> bytes:
    """A whole screen of a labelled snapshot, drawn from the top left."""
    lines = (SNAPSHOTS / name).read_text(encoding="utf-8").split("\n")[:32]
    return b"\x1b[H\x1b[2J" + "\r\n".join(lines).encode()


WORKING = screen_bytes("01-working.txt")
PROMPT = screen_bytes("02-blocked.txt")


def _info(n: int) -> PaneInfo:
    return PaneInfo(
        pane_id=f"%{n}", pid=123, tty="/dev/pts/9", width=120, height=32, piped=True,
        dead=False, active=False, window_active=False, window_id=f"@{n}", session_id="$1",
        session_name="s", window_index=str(n), pane_index="0", session_attached=0,
        current_command="claude", agent_override="", report="", our_pipe="token",
        alt_screen=False,
    )  # fmt: skip


def one_turn(daemon: Daemon, watches: Sequence[PaneWatch], now: float) -> None:
    """One wake-up of the loop: the bytes of the panes the selector would hand over (those on
    the beat are not on it), the reads due on the beat, then what is due."""
    for w in watches:
        if not w.parked and w.pipe is not None:
            daemon.judging.on_bytes(w, w.pipe.read())
    daemon.scheduler.read_parked(now, daemon.judging.on_bytes)
    daemon.process()


@dataclasses.dataclass
class Rig:
    daemon: Daemon
    clock: FakeClock
    watches: list[PaneWatch]
    writers: list[int]

    def write(self, i: int, data: bytes, written_ago: float = 0.1) -> None:
        """Bytes into pane i's FIFO, stamped `written_ago` seconds ago (settled by default)."""
        os.write(self.writers[i], data)
        pipe = self.watches[i].pipe
        assert pipe is not None
        stamp = int((self.clock.wall() - written_ago) * 1e9)
        os.utime(pipe.path, ns=(stamp, stamp))

    def turn(self, draw: Sequence[int] = (0, 1, 2), data: bytes = WORKING) -> None:
        """The panes in `draw` draw a frame, the loop wakes up once, then time goes on."""
        for i in draw:
            self.write(i, data)
        one_turn(self.daemon, self.watches, self.clock.now())
        self.clock.advance(0.1)

    def on_selector(self, i: int) -> bool:
        pipe = self.watches[i].pipe
        assert pipe is not None
        return pipe.read_fd in self.daemon.scheduler.selector.get_map()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    daemon, clock = fake_daemon(tmp_path)
    daemon.scheduler.next_sweep = float("inf")  # no tmux here to list panes
    rules = daemon.guard.rules
    watches, writers = [], []
    for n in (1, 2, 3):
        pipe = daemon.pipes.open(f"%{n}")
        daemon.scheduler.selector.register(pipe.read_fd, selectors.EVENT_READ, f"%{n}")
        w = PaneWatch(
            _info(n), PaneTracker(), pipe=pipe, mode="pipe", manifest=rules.get("claude"),
            screen=PaneScreen(120, 32),
        )  # fmt: skip
        daemon.table.panes[f"%{n}"] = w
        watches.append(w)
        writers.append(os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK))
    yield Rig(daemon, clock, watches, writers)
    for fd in writers:
        os.close(fd)
    for w in watches:
        daemon.registry.close_pipe(w)


def steady(rig: Rig) -> None:
    """Long enough for every pane's verdict to have held past `steady_after`."""
    for _ in range(int(rig.daemon.settings.steady_after / 0.1) + 3):
        rig.turn()


def test_panes_that_draw_while_their_verdict_holds_go_onto_the_beat(rig: Rig) -> None:
    rig.turn()
    assert all(w.tracker.current.state == "working" for w in rig.watches)
    assert not rig.daemon.scheduler.parked  # the verdict has not held long enough yet
    steady(rig)
    assert set(rig.daemon.scheduler.parked) == {"%1", "%2", "%3"}
    assert not any(rig.on_selector(i) for i in range(3))
    # One shared instant: one wake-up reads them all, and the loop sleeps until then.
    beats = {w.next_read for w in rig.watches}
    assert len(beats) == 1
    (beat,) = beats
    assert rig.clock.now() <= beat <= rig.clock.now() + rig.daemon.settings.steady_read
    assert rig.daemon.scheduler.next_deadline(rig.clock.now()) <= beat
    assert rig.daemon.table.counters["parked"] == 3


def test_with_fewer_panes_drawing_none_goes_onto_the_beat(rig: Rig) -> None:
    for _ in range(int(rig.daemon.settings.steady_after / 0.1) + 3):
        rig.turn(draw=(0, 1))
    assert rig.watches[0].tracker.current.state == "working"
    assert not rig.daemon.scheduler.parked
    assert rig.on_selector(0) and rig.on_selector(1)


def test_a_parked_pane_is_read_only_on_the_beat(rig: Rig) -> None:
    steady(rig)
    w = rig.watches[0]
    rig.write(0, WORKING)
    rig.clock.t = w.next_read - 0.01
    rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
    assert w.pipe is not None and not w.pending and w.parked
    assert os.read(w.pipe.read_fd, 1 << 16)  # the bytes still wait in the FIFO


def test_with_many_panes_on_it_the_beat_slows_to_keep_its_reads_few(rig: Rig) -> None:
    s = rig.daemon.settings
    assert rig.daemon.scheduler.beat_step() == s.steady_read  # nothing on it yet
    # Four reads a second: one pane a beat of 0.25 s, so three panes are read every 0.75 s.
    rig.daemon.settings = dataclasses.replace(s, steady_looks=4.0)
    steady(rig)
    assert len(rig.daemon.scheduler.parked) == 3
    assert rig.daemon.scheduler.beat_step() == pytest.approx(0.75)
    # Read together at the slower beat's instants, and not before.
    for _ in range(3):
        beats = {w.next_read for w in rig.watches}
        assert len(beats) == 1
        (beat,) = beats
        assert (beat / 0.75) == pytest.approx(round(beat / 0.75))
        for i in range(3):
            rig.write(i, WORKING)
        rig.clock.t = beat - 0.3  # past the faster beat's instant, before this one
        rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
        assert all(w.parked and not w.pending for w in rig.watches)
        rig.clock.t = beat
        rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
        rig.daemon.process()
        assert all(w.parked and w.next_read == pytest.approx(beat + 0.75) for w in rig.watches)
    # Never slower than steady_read_max, and back to steady_read as they leave it.
    rig.daemon.settings = dataclasses.replace(s, steady_looks=0.1)
    assert rig.daemon.scheduler.beat_step() == s.steady_read_max
    for w in rig.watches[:2]:
        rig.daemon.scheduler.unpark(w)
    rig.daemon.settings = s
    assert rig.daemon.scheduler.beat_step() == s.steady_read


def test_a_prompt_read_on_the_beat_is_judged_at_once_and_takes_the_pane_off_it(
    rig: Rig,
) -> None:
    steady(rig)
    w = rig.watches[0]
    rig.clock.t = w.next_read
    # Written just now: without the beat it would wait `settle` for the pane to go quiet.
    rig.write(0, PROMPT, written_ago=0.0)
    for i in (1, 2):
        rig.write(i, WORKING)
    rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
    rig.daemon.process()
    assert w.tracker.current.state == "blocked"
    assert not w.parked and rig.on_selector(0)
    assert ["set-option", "-p", "-t", "%1", "@osf_state", "blocked"] in rig.daemon.tmux.sent  # type: ignore[attr-defined]
    # The others drew the same working screen: they stay on the beat, read at the next one.
    assert rig.watches[1].parked and rig.watches[1].next_read > rig.clock.now()


def test_quiet_reads_on_the_beat_put_the_pane_back_on_the_selector(rig: Rig) -> None:
    steady(rig)
    w = rig.watches[0]
    rig.clock.t = w.next_read
    rig.daemon.scheduler.read_parked(
        rig.clock.now(), rig.daemon.judging.on_bytes
    )  # what the last frame left in the FIFO
    rig.daemon.process()
    assert w.parked
    for _ in range(rig.daemon.settings.steady_quiet - 1):  # agents pause now and then
        rig.clock.t = w.next_read
        rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
        assert w.parked and not w.hurry
    rig.clock.t = w.next_read
    rig.daemon.scheduler.read_parked(
        rig.clock.now(), rig.daemon.judging.on_bytes
    )  # nothing was written since
    assert not w.parked and rig.on_selector(0)
    assert "%1" not in rig.daemon.scheduler.parked


def test_a_flood_takes_the_pane_off_the_beat(rig: Rig) -> None:
    steady(rig)
    w = rig.watches[0]
    rig.clock.t = w.next_read
    big = rig.daemon.settings.max_pending + 1
    w.pending += b"x" * big  # as if the beat's read had brought that much
    rig.daemon.judging.on_bytes(w, b"y")
    assert w.dropping_since is not None
    assert not w.parked and rig.on_selector(0)


def test_a_seed_or_a_closed_pipe_takes_the_pane_off_the_beat(rig: Rig) -> None:
    steady(rig)
    a, b = rig.watches[0], rig.watches[1]
    rig.daemon.scheduler.unpark(a)  # what the seed does once its capture arrives
    assert not a.parked and rig.on_selector(0)
    rig.daemon.registry.close_pipe(b)
    assert not b.parked and "%2" not in rig.daemon.scheduler.parked
    assert rig.daemon.scheduler.next_deadline(rig.clock.now()) == rig.watches[2].next_read


def test_the_cross_check_leaves_parked_panes_alone(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    steady(rig)
    rig.clock.advance(1.0)
    captured: list[list[str]] = []

    def capture(tmux: Tmux, panes: list[str], **kw: object) -> dict[str, object]:
        captured.append(panes)
        return {}

    monkeypatch.setattr("osf_tmux.daemon.seeding.capture_panes", capture)
    rig.daemon.screens.cross_check()
    assert captured == []
    rig.daemon.scheduler.unpark(rig.watches[0])  # off the beat, it is compared as before
    rig.daemon.screens.cross_check()
    assert captured == [["%1"]]


def test_when_fewer_panes_draw_the_beat_ends(rig: Rig) -> None:
    steady(rig)
    w = rig.watches[0]
    for other in rig.watches[1:]:  # the other two stopped drawing more than a second ago
        assert other.pipe is not None
        other.pipe.read()
    rig.clock.advance(1.0)
    rig.write(0, WORKING)
    rig.clock.t = max(rig.clock.t, w.next_read)
    rig.daemon.scheduler.read_parked(rig.clock.now(), rig.daemon.judging.on_bytes)
    assert not w.parked and rig.on_selector(0)
    assert not rig.daemon.scheduler.parked and all(rig.on_selector(i) for i in range(3))
    assert w.pending  # what it read is parsed and judged as usual


def test_panes_on_the_beat_do_not_hold_back_the_others(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait that gathers the frames of several drawing panes counts only the panes on the
    selector: a prompt in a quiet pane is read when it comes, not after a wait for panes that
    are read on the beat anyway."""
    steady(rig)
    slept: list[float] = []
    monkeypatch.setattr("osf_tmux.daemon.scheduler.time.sleep", slept.append)
    d = rig.daemon
    d.scheduler.woke = rig.clock.now()  # just woke: a wait would last the whole `batch`
    d.step(max_wait=0.0)
    assert slept == []
    d.scheduler.unpark(rig.watches[0])
    d.scheduler.unpark(rig.watches[1])
    d.scheduler.woke = rig.clock.now()
    d.step(max_wait=0.2)
    assert slept and slept[0] > 0  # two panes on the selector draw: their frames are gathered


def test_a_plain_pane_never_goes_onto_the_beat(rig: Rig) -> None:
    """A pane with no agent's rules has its bytes read but not parsed: the beat saves nothing
    there, and an agent that starts in it is found when its bytes are read."""
    w = rig.watches[0]
    w.info = dataclasses.replace(w.info, current_command="sleep")
    w.manifest = None
    for _ in range(int(rig.daemon.settings.steady_after / 0.1) + 3):
        rig.turn()
        w.dirty_since = rig.clock.now()  # judged as often as a focus change could make it
        rig.daemon.table.active.add("%1")  # as the sweep does
        rig.daemon.process()
    assert w.manifest is None and w.tracker.current.state is None
    assert not w.parked and rig.on_selector(0)
    assert rig.watches[1].parked


def test_the_cross_check_takes_a_tab_cell_for_the_blanks_it_covers(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = rig.watches[0]
    rig.write(0, b"\x1b[H\x1b[2Ja\tb\r\n")
    one_turn(rig.daemon, rig.watches, rig.clock.now())
    rig.clock.advance(1.0)
    printed = ["a\tb"]  # as tmux 3.6 and later print a tab over blanks (test_tmux_versions)

    def capture(tmux: Tmux, panes: list[str], **kw: object) -> dict[str, PaneCapture]:
        lines = (*printed, *[""] * 31)
        return {p: PaneCapture(p, 120, 32, (0, 1), True, False, "", lines) for p in panes}

    monkeypatch.setattr("osf_tmux.daemon.seeding.capture_panes", capture)
    assert w.checked_bytes
    rig.daemon.screens.cross_check()
    assert (w.mismatches, w.needs_seed) == (0, False)
    # a row that does differ still does
    rig.write(0, b"\x1b[H\x1b[2Ja\tb\r\n")
    one_turn(rig.daemon, rig.watches, rig.clock.now())
    rig.clock.advance(1.0)
    printed = ["a\tc"]
    rig.daemon.screens.cross_check()
    assert (w.mismatches, w.needs_seed) == (1, True)
