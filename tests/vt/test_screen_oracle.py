"""PaneScreen against tmux's recorded answers (tests/support/tmux_oracle.json): every conformance
case and capture point, without starting tmux. tests/vt/test_screen_conformance.py asks a live tmux
(slow tier) and fails when the recorded answers are stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

ORACLE = load()


def replay(data: bytes, cols: int, rows: int, resizes: tuple[tuple[int, int], ...]) -> Snapshot:
    screen = PaneScreen(cols, rows)
    screen.feed(data)
    for width, height in resizes:
        screen.resize(width, height)
    return screen.snapshot()


def ours(snap: Snapshot, keep_rows: bool) -> dict[str, Any]:
    return entry(
        tuple(snap.rows), snap.cursor, snap.cursor_visible, snap.alt_screen, snap.title, keep_rows
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_as_tmux_drew_it(case: Case) -> None:
    snap = replay(case.data, case.cols, case.rows, case.resizes)
    assert ours(snap, keep_rows=True) == ORACLE[case.name]


@pytest.mark.parametrize(
    ("path", "offset"), CAPTURE_POINTS, ids=[point_id(p, o) for p, o in CAPTURE_POINTS]
)
def test_capture_as_tmux_drew_it(path: Path, offset: int | None) -> None:
    cols, rows = size_of(path)
    snap = replay(point_data(path, offset), cols, rows, ())
    assert ours(snap, keep_rows=False) == ORACLE[point_id(path, offset)], (
        "differs from tmux; for the rows, run the live check: "
        f"pytest tests/vt/test_screen_conformance.py -k '{path.stem}'"
    )


def test_every_case_has_a_recorded_answer() -> None:
    names = {c.name for c in CASES} | {point_id(p, o) for p, o in CAPTURE_POINTS}
    missing = sorted(names - ORACLE.keys())
    assert not missing, (
        f"run python -m tests.support.screen_oracle --regen (missing: {missing[:5]})"
    )


def test_a_wrong_screen_is_caught() -> None:
    case = CASES[0]
    snap = replay(case.data + b"!", case.cols, case.rows, case.resizes)
    assert ours(snap, keep_rows=True) != ORACLE[case.name]
