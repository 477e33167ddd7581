"""The daemon benchmark's loop junction (bench/agent_frames.py `repaint`): the bytes that take a
screen back to the one a working stretch began from must give that very screen, whatever the
loop drew meanwhile, or the benchmark would measure another screen than the agent's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from osf_tmux.vt.pane import PaneScreen
from tests.support.bench_scripts import bench_script

repaint: Callable[[PaneScreen], bytes] = bench_script("agent_frames").repaint

SETUPS = {
    "main screen, text and a wide character": b"hello\r\nworld \xe4\xb8\x96\xe7\x95\x8c\x1b[3;5Hx",
    "alternate screen, hidden cursor, title": (
        b"main\x1b[?1049h\x1b[2J\x1b[5;1Halt row\x1b[?25l\x1b]2;a title\x07\x1b[7;9H"
    ),
    "scroll region and origin mode": b"top\x1b[3;10r\x1b[?6h\x1b[2;4Hin region",
    "no autowrap, insert mode": b"\x1b[?7l\x1b[4h\x1b[10;1Habc\x1b[10;2HX",
    "a full row ending at the last column": b"\x1b[12;1H" + b"y" * 40 + b"\x1b[1;1H",
}
# What the loop drew before the junction: a mess of every kind the setups undo.
MESS = b"\x1b[?1049l\x1b[?6l\x1b[r\x1b[?7h\x1b[4l\x1b[?25h\x1b]2;other\x07" + b"junk\r\n" * 30


def _state(screen: PaneScreen) -> tuple[object, ...]:
    s = screen._screen
    return (
        screen.snapshot(),
        (s.rupper, s.rlower),
        s.mode_wrap,
        s.mode_insert,
        s.mode_origin,
    )


@pytest.mark.parametrize("name", list(SETUPS))
def test_repaint_gives_the_screen_back(name: str) -> None:
    first = PaneScreen(40, 14)
    first.feed(SETUPS[name])
    looped = PaneScreen(40, 14)
    looped.feed(SETUPS[name] + MESS + repaint(first))
    assert _state(looped) == _state(first)
    # and the next bytes land where they would have on the first screen
    for screen in (first, looped):
        screen.feed(b"\x1b[2Anext \xe2\x9c\xbb\x1b[1B\x1b[2K")
    assert _state(looped) == _state(first)
