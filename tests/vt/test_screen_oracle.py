"""PaneScreen against tmux's recorded answers (tests/support/tmux_oracle.json): every conformance
case and capture point, without starting tmux. tests/vt/test_screen_conformance.py asks a live tmux
(slow tier) and fails when the recorded answers are stale."""

from __future__ import annotations

import functools
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
from tests.support.examples import sample_marks, sampled
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


# Replaying a capture once per point cost the fast tier most of its time (214 MB fed for 67 MB
# of captures). Each capture is now replayed once, its screen taken at every point on the way
# (the daemon feeds in pieces too: tests/vt/test_screen_fuzz.py checks that pieces change
# nothing). The fast tier checks the end of each folder's every SAMPLE_EVERY-th capture (the
# screen after all its bytes), the slow tier every other point: at every point of every 10th
# capture these were 1,409 of the fast tier's 5,443 tests, ~2 ms of CPU each (a worker's and
# xdist's controller's) for a replay that is made once per capture anyway.
SAMPLE_EVERY = 20


def _capture_params() -> list[Any]:
    params = []
    rank: dict[Path, int] = {}
    per_folder: dict[Path, int] = {}
    for path, offset in CAPTURE_POINTS:
        if path not in rank:
            rank[path] = per_folder[path.parent] = per_folder.get(path.parent, -1) + 1
        marks = sample_marks(sampled(rank[path], SAMPLE_EVERY) and offset is None)
        if marks is None:
            continue
        # A capture's points on one worker (xdist), which replays it once: spread over two, each
        # replayed nearly every capture of the sample.
        marks.append(pytest.mark.xdist_group(f"oracle:{path.parent.name}/{path.stem}"))
        params.append(pytest.param(path, offset, id=point_id(path, offset), marks=marks))
    return params


POINTS_OF: dict[Path, list[int | None]] = {}
for _path, _offset in CAPTURE_POINTS:
    POINTS_OF.setdefault(_path, []).append(_offset)


@functools.lru_cache(maxsize=8)
def screens_of(path: Path) -> dict[int | None, dict[str, Any]]:
    """Our screen at each recorded point of one capture (None: its end), from one replay."""
    cols, rows = size_of(path)
    data = path.read_bytes()
    screen = PaneScreen(cols, rows)
    out: dict[int | None, dict[str, Any]] = {}
    done = 0
    for offset in sorted(min(o, len(data)) for o in POINTS_OF[path] if o is not None):
        screen.feed(data[done:offset])
        done = offset
        out[offset] = ours(screen.snapshot(), keep_rows=False)
    screen.feed(data[done:])
    out[None] = ours(screen.snapshot(), keep_rows=False)
    return out


@pytest.mark.parametrize(("path", "offset"), _capture_params())
def test_capture_as_tmux_drew_it(path: Path, offset: int | None) -> None:
    at = None if offset is None else min(offset, path.stat().st_size)
    assert screens_of(path)[at] == ORACLE[point_id(path, offset)], (
        "differs from tmux; for the rows, run the live check: "
        f"pytest tests/vt/test_screen_conformance.py -k '{path.stem}'"
    )


def test_one_replay_takes_the_screen_a_replay_to_the_point_draws() -> None:
    """The shortcut above against the straight way, on a capture's every point."""
    path = next(p for p, points in POINTS_OF.items() if len(points) > 3)
    cols, rows = size_of(path)
    for offset in POINTS_OF[path]:
        alone = ours(replay(point_data(path, offset), cols, rows, ()), keep_rows=False)
        assert screens_of(path)[offset] == alone, offset


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
