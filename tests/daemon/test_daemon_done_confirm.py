"""A turn is not done while the agent is still going to ask (issue #30): Codex 0.171.0 shows its
idle composer for 0.17-0.6 s between the work of a turn and the first approval dialog of it
(measured on the lab's captures; longer on a loaded machine), which published `done` (a
`✔ 1 done` flash on the status bar) each time it outlasted the confirmation of an idle return.
In process, with a fake clock and a real FIFO (tests/daemon/test_daemon_settle.py's rig)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.watch import PaneWatch
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_settle import Rig, _info, fake_daemon

ROOT = Path(__file__).resolve().parents[2]
SNAPS = ROOT / "captures/codex-0.171.0-lab/bash_yes-120x32.snapshots"


def screen_bytes(name: str) -> bytes:
    """A labelled screen of the capture, drawn whole."""
    lines = (SNAPS / name).read_text(encoding="utf-8").split("\n")[:32]
    return b"\x1b[2J\x1b[H" + "\r\n".join(lines).encode()


WORKING = "01-working.txt"
COMPOSER = "04-idle.txt"  # the composer under the transcript, as between work and the dialog
DIALOG = "02-blocked.txt"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    daemon, clock = fake_daemon(tmp_path)
    pipe = daemon.pipes.open("%1")
    info = _info()
    watch = PaneWatch(
        info.__class__(**{**info.__dict__, "current_command": "codex"}),
        PaneTracker(daemon.settings.timing), pipe=pipe, mode="pipe",
        manifest=daemon.guard.rules.get("codex"), screen=PaneScreen(120, 32),
    )  # fmt: skip
    daemon.table.panes["%1"] = watch
    writer = os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK)
    yield Rig(daemon, clock, watch, writer)
    os.close(writer)
    pipe.close()


def play(rig: Rig, frames: list[tuple[float, str]], until: float) -> list[tuple[float, str]]:
    """Each frame drawn at its time (seconds from the start), the loop turning every 10 ms
    meanwhile, as the daemon's deadlines would wake it; the published states with their
    times."""
    published: list[tuple[float, str]] = []
    t, step = 0.0, 0.01
    pending = sorted(frames)
    while t <= until + 1e-9:
        while pending and pending[0][0] <= t + 1e-9:
            rig.frame(screen_bytes(pending.pop(0)[1]), written_ago=0.05)
        rig.turn()
        state = rig.state
        if state and (not published or published[-1][1] != state):
            published.append((round(t, 2), state))
        rig.clock.advance(step)
        t += step
    return published


@pytest.mark.parametrize("composer_for", [0.2, 0.3, 0.6])
def test_the_composer_before_the_first_dialog_of_a_turn_is_not_done(
    rig: Rig, composer_for: float
) -> None:
    """Working, the composer for a moment, then the approval dialog: `working` then `blocked`,
    and `blocked` as soon as the dialog is drawn."""
    start = 1.0
    frames = [(0.0, WORKING), (start, COMPOSER), (start + composer_for, DIALOG)]
    published = play(rig, frames, until=start + composer_for + 0.5)
    assert [s for _, s in published] == ["working", "blocked"]
    assert published[-1][0] <= start + composer_for + 0.1


def test_a_turn_that_ends_is_done_after_its_confirmation(rig: Rig) -> None:
    """A real end of a turn: `done`, once the composer held `done_confirm`, and not much
    later."""
    confirm = rig.daemon.settings.timing.done_confirm
    published = play(rig, [(0.0, WORKING), (1.0, COMPOSER)], until=1.0 + confirm + 0.5)
    assert [s for _, s in published] == ["working", "done"]
    assert 1.0 + confirm <= published[-1][0] <= 1.0 + confirm + 0.15
