"""How often stock pyte and osf-tmux's emulator draw what tmux draws: every conformance case and
capture point of the test suite, against tmux's recorded answers (tests/support/tmux_oracle.json).

    .venv/bin/python bench/pyte_vs_tmux.py

A screen counts as equal when every visible row is (trailing blanks ignored, as capture-pane
prints them); the cursor is counted apart. The numbers are the README's reason for an emulator of
our own."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyte

from osf_tmux.vt.pane import PaneScreen
from tests.support.conformance_cases import (
    CAPTURE_POINTS,
    CASES,
    point_data,
    point_id,
    size_of,
)
from tests.support.screen_oracle import load, rows_digest


def pyte_screen(
    data: bytes, cols: int, rows: int, resizes: tuple[tuple[int, int], ...]
) -> tuple[list[str], tuple[int, int]] | None:
    screen = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(screen)
    try:
        stream.feed(data)
        for width, height in resizes:
            screen.resize(height, width)
        lines = [line.rstrip() for line in screen.display]
    except Exception:  # pyte raises on some sequences (FACTS.md): that screen is lost
        return None
    return lines, (screen.cursor.x, screen.cursor.y)


def ours(
    data: bytes, cols: int, rows: int, resizes: tuple[tuple[int, int], ...]
) -> tuple[list[str], tuple[int, int]]:
    screen = PaneScreen(cols, rows)
    screen.feed(data)
    for width, height in resizes:
        screen.resize(width, height)
    snap = screen.snapshot()
    return list(snap.rows), snap.cursor


def main() -> int:
    oracle = load()
    jobs = [(c.name, c.data, c.cols, c.rows, c.resizes, "synthetic") for c in CASES]
    for path, offset in CAPTURE_POINTS:
        cols, rows = size_of(path)
        jobs.append((point_id(path, offset), point_data(path, offset), cols, rows, (), "capture"))
    tally: dict[tuple[str, str], list[int]] = {}
    spent = {"pyte": 0.0, "osf-tmux": 0.0}
    for name, data, cols, rows, resizes, kind in jobs:
        want = oracle[name]
        for who, draw in (("pyte", pyte_screen), ("osf-tmux", ours)):
            start = time.perf_counter()
            got = draw(data, cols, rows, resizes)
            spent[who] += time.perf_counter() - start
            counts = tally.setdefault(
                (who, kind), [0, 0, 0, 0]
            )  # cases, rows eq, cursor eq, raised
            counts[0] += 1
            if got is None:
                counts[3] += 1
                continue
            lines, cursor = got
            counts[1] += rows_digest(lines) == want["digest"]
            counts[2] += list(cursor) == want["cursor"]
    print("| emulator | cases | screens equal to tmux | cursor equal | raised |")
    print("| --- | --- | --- | --- | --- |")
    for (who, kind), (n, rows_eq, cur_eq, raised) in sorted(tally.items()):
        print(
            f"| {who}, {kind} | {n} | {rows_eq} ({100 * rows_eq / n:.0f} %) | {cur_eq} | {raised} |"
        )
    print(f"\ntime: pyte {spent['pyte']:.1f} s, osf-tmux {spent['osf-tmux']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
