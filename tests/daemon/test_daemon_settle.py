"""When the daemon judges a frame: once the pane has been quiet for `settle`, and the FIFO's
write stamp lets it know that at the very read that brought the frame. In process, with a fake
clock and a real FIFO; tmux is replaced by a recorder."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import PaneWatch
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import PaneInfo, ServerSpec, Tmux
from osf_tmux.vt.pane import PaneScreen

ROOT = Path(__file__).resolve().parents[2]
PROMPT = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.snapshots/02-blocked.txt"


class RecordingTmux(Tmux):
    def __init__(self) -> None:
        super().__init__(ServerSpec("osf-test-never-started"))
        self.sent: list[list[str]] = []

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        self.sent.extend(list(c) for c in commands)
        return ""


def _info() -> PaneInfo:
    return PaneInfo(
        pane_id="%1", pid=123, tty="/dev/pts/9", width=120, height=32, piped=True, dead=False,
        active=False, window_active=False, window_id="@1", session_id="$1", session_name="s",
        window_index="0", pane_index="0", session_attached=0, current_command="claude",
        agent_override="", report="", our_pipe="token", alt_screen=False,
    )  # fmt: skip


@dataclasses.dataclass
class Rig:
    daemon: Daemon
    clock: FakeClock
    watch: PaneWatch
    writer: int

    def frame(self, data: bytes, written_ago: float | None) -> None:
        """Write `data` into the pane's FIFO; `written_ago`: pretend the write happened that
        long ago by the daemon's clock (None: the stamp the kernel set stays)."""
        os.write(self.writer, data)
        assert self.watch.pipe is not None
        if written_ago is not None:
            stamp = int((self.clock.wall() - written_ago) * 1e9)
            os.utime(self.watch.pipe.path, ns=(stamp, stamp))

    def turn(self) -> None:
        """What one wake-up of the loop does with this pane: read, parse, judge what is due."""
        assert self.watch.pipe is not None
        self.daemon.judging.on_bytes(self.watch, self.watch.pipe.read())
        self.daemon.process()

    @property
    def state(self) -> str | None:
        return self.watch.tracker.current.state


def fake_daemon(tmp: Path) -> tuple[Daemon, FakeClock]:
    """A daemon with FIFOs under `tmp`, tmux a recorder, and a fake clock whose wall time
    starts at the real one (the FIFOs' stamps are real)."""
    clock = FakeClock(start=1000.0, wall_offset=time.time() - 1000.0)
    daemon = Daemon(
        RecordingTmux(), load_rules(None), PipeFactory(tmp / "run"), "token", clock=clock
    )
    daemon.pipes.prepare()
    return daemon, clock


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    daemon, clock = fake_daemon(tmp_path)
    pipe = daemon.pipes.open("%1")
    manifest = daemon.guard.rules.get("claude")
    watch = PaneWatch(
        _info(), PaneTracker(), pipe=pipe, mode="pipe", manifest=manifest,
        screen=PaneScreen(120, 32),
    )  # fmt: skip
    daemon.table.panes["%1"] = watch
    writer = os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK)
    yield Rig(daemon, clock, watch, writer)
    os.close(writer)
    pipe.close()


def prompt_bytes() -> bytes:
    lines = PROMPT.read_text(encoding="utf-8").split("\n")[:32]
    return "\r\n".join(lines).encode()


def test_a_frame_that_settled_before_the_read_is_judged_at_that_read(rig: Rig) -> None:
    rig.frame(prompt_bytes(), written_ago=0.1)
    rig.turn()
    assert rig.state == "blocked"
    assert ["set-option", "-p", "-t", "%1", "@osf_state", "blocked"] in rig.daemon.tmux.sent  # type: ignore[attr-defined]


def test_a_frame_written_just_now_waits_for_the_pane_to_settle(rig: Rig) -> None:
    rig.frame(prompt_bytes(), written_ago=0.0)
    rig.turn()
    assert rig.state is None
    settle = rig.daemon.settings.settle
    rig.clock.advance(settle - 0.005)
    rig.daemon.process()
    assert rig.state is None
    rig.clock.advance(0.01)
    rig.daemon.process()
    assert rig.state == "blocked"


def test_the_stamp_is_read_with_a_margin_for_the_coarse_clock(rig: Rig) -> None:
    s = rig.daemon.settings
    rig.frame(prompt_bytes(), written_ago=s.settle + s.stamp_slack - 0.005)
    rig.turn()
    assert rig.state is None
    rig.clock.advance(0.01)
    rig.daemon.process()
    assert rig.state == "blocked"


def test_a_stamp_that_did_not_move_counts_as_written_at_the_read(rig: Rig) -> None:
    rig.frame(b"\x1b[2J\x1b[Hhello", written_ago=1.0)
    rig.turn()
    assert rig.watch.pipe is not None
    seen = rig.watch.pipe.stamp_ns
    # The next frame leaves the stamp where it was (two writes within one tick, or a filesystem
    # that does not stamp FIFOs): the daemon cannot know how old it is, so it waits.
    rig.frame(prompt_bytes(), written_ago=None)
    os.utime(rig.watch.pipe.path, ns=(seen, seen))
    rig.clock.advance(1.0)
    rig.turn()
    assert rig.state != "blocked"
    rig.clock.advance(rig.daemon.settings.settle + 0.001)
    rig.daemon.process()
    assert rig.state == "blocked"


def test_bytes_left_in_the_fifo_make_the_stamp_worthless(rig: Rig) -> None:
    assert rig.watch.pipe is not None
    rig.frame(b"x" * (1 << 16) * 9 + prompt_bytes(), written_ago=1.0)
    rig.daemon.judging.on_bytes(rig.watch, rig.watch.pipe.read(limit=8))
    assert not rig.watch.pipe.drained
    assert rig.watch.last_bytes == rig.clock.now()


def test_status_file_carries_the_notifiers_section(tmp_path: Path) -> None:
    """The notifier's own record (the path it really uses) lands in status.json; a section
    that fails says so there instead of keeping the file from being written."""
    status_file = tmp_path / "status.json"
    sections = {"notify": lambda: {"path": "terminal"}, "broken": lambda: 1 / 0}
    daemon = Daemon(
        RecordingTmux(),
        load_rules(None),
        PipeFactory(tmp_path / "run"),
        "token",
        clock=FakeClock(),
        status_file=status_file,
        extra_status=sections,
    )
    daemon.status_changed()  # from the notifier's thread: written at the next turn
    assert daemon.table.status_dirty
    daemon.write_status()
    data = json.loads(status_file.read_text())
    assert data["notify"] == {"path": "terminal"}
    assert "division by zero" in data["broken"]["error"]


def screen_bytes(name: str) -> bytes:
    snap = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.snapshots" / name
    lines = snap.read_text(encoding="utf-8").split("\n")[:32]
    return b"\x1b[2J\x1b[H" + "\r\n".join(lines).encode()


# A software cursor that blinks: a reverse-video blank drawn and undrawn where the cursor is.
BLINK_ON = b"\x1b7\x1b[7m \x1b[27m\x1b8"
BLINK_OFF = b"\x1b7 \x1b8"


def blink_after_idle(rig: Rig, blink: bool) -> list[tuple[float, str | None]]:
    """A working screen, then the idle one, then 2 s of 0.1 s frames that only blink (or that
    keep printing, when `blink` is False). The state after each frame."""
    rig.frame(screen_bytes("01-working.txt"), written_ago=0.1)
    rig.turn()
    assert rig.state == "working"
    rig.clock.advance(0.1)
    rig.frame(screen_bytes("04-idle.txt"), written_ago=0.05)
    rig.turn()
    seen: list[tuple[float, str | None]] = []
    for i in range(20):
        rig.clock.advance(0.1)
        data = (BLINK_ON if i % 2 == 0 else BLINK_OFF) if blink else f"\r{i:>3}".encode()
        rig.frame(data, written_ago=0.05)
        rig.turn()
        seen.append((0.1 * (i + 1), rig.state))
    return seen


def test_a_cursor_that_only_blinks_lets_the_return_to_idle_hold(rig: Rig) -> None:
    # The bytes never stop, the text does: the end of the turn is confirmed after
    # done_confirm (1 s), not after idle_max (8 s).
    seen = blink_after_idle(rig, blink=True)
    assert seen[-1][1] == "done"
    first = next(t for t, state in seen if state == "done")
    assert first <= rig.daemon.settings.timing.done_confirm + 0.3


def test_output_that_changes_the_text_still_holds_the_return_to_idle(rig: Rig) -> None:
    # A row that keeps changing is output: an idle-looking frame is not confirmed while it flows.
    seen = blink_after_idle(rig, blink=False)
    assert all(state == "working" for _, state in seen)
