"""PaneScreen against the oracle itself: the same bytes written into a real tmux 3.3a pane.

Every case compares all visible rows (`capture-pane -p`), the cursor, the cursor flag, the
alternate-screen flag and the title. Small screens make the edges (last column, last row,
scroll regions) easy to hit. The real captures under captures/ are replayed whole and cut at
each labelled offset. tmux's answers must also be the ones recorded in
tests/support/tmux_oracle.json, which the fast tier checks against
(tests/vt/test_screen_oracle.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot
from tests.support.conformance_cases import (
    CAPTURE_POINTS,
    CASES,
    Case,
    point_data,
    point_id,
    size_of,
)
from tests.support.screen_oracle import entry, load
from tests.support.tmux_server import PaneState, TmuxServer

pytestmark = [pytest.mark.tmux, pytest.mark.slow]


ORACLE = load()


def _check(snap: Snapshot, tmux: PaneState, default_title: str, name: str) -> None:
    ours = list(snap.rows)
    assert len(ours) == len(tmux.rows), f"{name}: row count"
    for y, (mine, theirs) in enumerate(zip(ours, tmux.rows, strict=True)):
        assert mine == theirs, f"{name}: row {y} differs\n ours: {mine!r}\n tmux: {theirs!r}"
    assert snap.cursor == tmux.cursor, f"{name}: cursor"
    assert snap.cursor_visible == tmux.cursor_visible, f"{name}: cursor flag"
    assert snap.alt_screen == tmux.alt_screen, f"{name}: alternate screen"
    # A title the program never set is tmux's default (the host name) and our ''; one it set to
    # empty (Amp does) is '' in both.
    assert snap.title == tmux.title or (not snap.title and tmux.title == default_title), (
        f"{name}: title"
    )
    title = None if tmux.title == default_title else tmux.title
    recorded = entry(tmux.rows, tmux.cursor, tmux.cursor_visible, tmux.alt_screen, title, False)
    stored = dict(ORACLE.get(name, {}))
    stored.pop("rows", None)
    assert stored == recorded, f"{name}: tests/support/tmux_oracle.json is stale; regenerate it"


def _replay(data: bytes, cols: int, rows: int, resizes: tuple[tuple[int, int], ...]) -> Snapshot:
    screen = PaneScreen(cols, rows)
    screen.feed(data)
    for width, height in resizes:
        screen.resize(width, height)
    return screen.snapshot()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_tmux(case: Case, tmux_server_session: TmuxServer, tmp_path: Path) -> None:
    server = tmux_server_session
    tmux = server.replay(case.data, case.cols, case.rows, tmp_path, case.resizes)
    snap = _replay(case.data, case.cols, case.rows, case.resizes)
    _check(snap, tmux, server.default_title(), case.name)


def _replayed_points() -> list[tuple[Path, int | None]]:
    """Every point of the reference captures, and of the lab's at 120x32: the fast tier checks
    every point of every capture against tmux's stored answers (test_screen_oracle.py), and
    `python -m tests.support.screen_oracle --regen` asks tmux for all of them; replaying the
    lab's other sizes here as well would take most of CI's time.
    OSF_CONFORMANCE_ALL=1 replays them all."""
    if os.environ.get("OSF_CONFORMANCE_ALL") == "1":
        return CAPTURE_POINTS
    return [
        (path, offset)
        for path, offset in CAPTURE_POINTS
        if "-lab" not in path.parent.name or size_of(path) == (120, 32)
    ]


REPLAYED_POINTS = _replayed_points()


@pytest.mark.parametrize(
    ("path", "offset"),
    REPLAYED_POINTS,
    ids=[point_id(p, o) for p, o in REPLAYED_POINTS],
)
def test_capture_same_as_tmux(
    path: Path, offset: int | None, tmux_server_session: TmuxServer, tmp_path: Path
) -> None:
    server = tmux_server_session
    data = point_data(path, offset)
    cols, rows = size_of(path)
    tmux = server.replay(data, cols, rows, tmp_path)
    snap = _replay(data, cols, rows, ())
    _check(snap, tmux, server.default_title(), point_id(path, offset))


def test_cases_are_unique() -> None:
    assert len({c.name for c in CASES}) == len(CASES)
