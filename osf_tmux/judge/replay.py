"""Feed a byte capture into a screen and classify it at chosen offsets."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.combine import OUTPUT_FLOW_RULE
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.output_flow import OutputFlow
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


def replay_timed(
    data: bytes,
    cols: int,
    rows: int,
    manifest: Manifest,
    offsets: Iterable[int],
    timing: Sequence[tuple[int, float]],
) -> list[Point]:
    """`replay` for a manifest with `output_flow`, whose verdicts depend on time: each offset
    is judged at the moment the pane's next bytes arrived (from `timing`, the capture's
    pipe-pane reads), that is, in the state the pane settled into before anything more came.
    A screen no rule calls blocked or busy reads `working` when its text changed less than
    `output_flow` seconds before that moment (judge/output_flow.py, as the daemon does)."""
    window = manifest.output_flow
    if window is None:
        return replay(data, cols, rows, manifest, offsets)
    wanted = list(offsets)
    reads = [(o, t) for o, t in timing if 0 < o <= len(data)]
    read_offsets = [o for o, _ in reads]

    def arrived(offset: int) -> float:
        """When the bytes up to `offset` had all arrived: at the first read that took them."""
        i = bisect.bisect_left(read_offsets, offset)
        return reads[i][1] if i < len(reads) else (reads[-1][1] if reads else 0.0)

    def next_bytes(offset: int) -> float:
        i = bisect.bisect_right(read_offsets, offset)
        return reads[i][1] if i < len(reads) else float("inf")

    points: dict[int, Point] = {}
    flow = OutputFlow(window)
    stops = sorted(set(read_offsets) | set(wanted))
    for offset, snap in snapshots_at(data, cols, rows, stops):
        flow.observe(snap, arrived(offset))
        if offset not in points and offset in wanted:
            verdict = classify(snap, manifest)
            # An idle rule says the program waits at its prompt (combine.py: `at_prompt`).
            at_prompt = verdict.state == "idle" and verdict.rule is not None
            if (
                verdict.state in ("idle", "done")
                and not at_prompt
                and flow.flowing(next_bytes(offset))
            ):
                verdict = Verdict("working", OUTPUT_FLOW_RULE, manifest.agent)
            points[offset] = Point(offset, snap, verdict)
    return [points[o] for o in wanted]


def replay_with_time(
    data: bytes,
    cols: int,
    rows: int,
    manifest: Manifest,
    offsets: Iterable[int],
    timing: Sequence[tuple[int, float]] | None,
) -> list[Point]:
    """`replay_timed` where the rules depend on time (`output_flow`) and the capture's reads
    are known, else `replay`: what `osf-tmux replay` and the capture tests ask."""
    if manifest.output_flow is not None and timing:
        return replay_timed(data, cols, rows, manifest, offsets, timing)
    return replay(data, cols, rows, manifest, offsets)
