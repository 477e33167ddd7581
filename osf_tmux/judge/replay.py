"""Feed a byte capture into a screen and classify it at chosen offsets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot

_SIZE = re.compile(r"^(\d+)x(\d+)$")
MAX_COLS, MAX_ROWS = 2000, 1000


def parse_size(text: str) -> tuple[int, int]:
    """`COLSxROWS` -> (cols, rows); ValueError with a message fit for a user."""
    m = _SIZE.match(text.strip().lower())
    if not m:
        raise ValueError(f"size {text!r} is not COLSxROWS, like 120x32")
    cols, rows = int(m.group(1)), int(m.group(2))
    if not (2 <= cols <= MAX_COLS and 2 <= rows <= MAX_ROWS):
        raise ValueError(f"size {text!r} is out of range (2..{MAX_COLS} x 2..{MAX_ROWS})")
    return cols, rows


@dataclass(frozen=True)
class Point:
    offset: int
    snapshot: Snapshot
    verdict: Verdict


def snapshots_at(
    data: bytes, cols: int, rows: int, offsets: Iterable[int]
) -> Iterator[tuple[int, Snapshot]]:
    """The screen after `data[:offset]` for each offset, in the order given (fed once)."""
    wanted = list(offsets)
    screen = PaneScreen(cols, rows)
    fed = 0
    cache: dict[int, Snapshot] = {}
    for offset in sorted(set(wanted)):
        screen.feed(data[fed:offset])
        fed = offset
        cache[offset] = screen.snapshot()
    for offset in wanted:
        yield offset, cache[offset]


def replay(
    data: bytes, cols: int, rows: int, manifest: Manifest, offsets: Iterable[int]
) -> list[Point]:
    return [
        Point(offset, snap, classify(snap, manifest))
        for offset, snap in snapshots_at(data, cols, rows, offsets)
    ]
