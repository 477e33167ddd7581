"""Move each label from the poll that saw its cue to the first byte offset that shows it.

Polling lags (50 ms, plus pipe-pane to sink latency) and can even run ahead of the file (tmux
drew the frame before the sink wrote it). Replaying the bytes into the project's own screen
model (osf_tmux.vt.pane.PaneScreen) at every pipe-pane read boundary finds the first boundary at
which the cue is visible, which is what the classifier will be asked about."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from osf_tmux.judge.regions import Region
from osf_tmux.vt.pane import PaneScreen
from tools.agentlab.actions import Cue


def cue_matches(cue: Cue, text: str, title: str = "") -> bool:
    """The cue's pattern is on screen (within the bottom `tail` non-blank rows, if set) and its
    `absent` pattern is not."""
    if cue.title is not None and not re.search(cue.title, title):
        return False
    if cue.title_absent is not None and re.search(cue.title_absent, title):
        return False
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if cue.tail:
        lines = lines[-cue.tail :]
    hay = "\n".join(lines)
    # MULTILINE: `^`/`$` are row boundaries, which is how cues about a row's start are written.
    if not re.search(cue.pattern, hay, re.MULTILINE):
        return False
    return not (cue.absent and re.search(cue.absent, hay, re.MULTILINE))


def _first_match(data: bytes, cols: int, rows: int, cue: Cue, points: list[int]) -> int | None:
    screen = PaneScreen(cols, rows)
    fed = 0
    for point in points:
        screen.feed(data[fed:point])
        fed = point
        snap = screen.snapshot()
        if cue_matches(cue, "\n".join(snap.rows), snap.title):
            return point
    return None


def _last_change(data: bytes, cols: int, rows: int, cue: Cue, points: list[int]) -> int:
    """The boundary among `points` (the first shows the cue) whose screen text is the last one
    that differs from the one before it, where the cue still shows. Only the rows above the
    last horizontal rule count: what is under an input box (a footer, a status line, a notice
    on its right) redraws on its own after the turn."""
    above = Region("above_rule")
    screen = PaneScreen(cols, rows)
    screen.feed(data[: points[0]])
    best, last_text = points[0], above.text(screen.snapshot())
    fed = points[0]
    for point in points[1:]:
        screen.feed(data[fed:point])
        fed = point
        snap = screen.snapshot()
        text = above.text(snap)
        if text != last_text and cue_matches(cue, "\n".join(snap.rows), snap.title):
            best = point
        last_text = text
    return best


SYNC_BEGIN, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"


def outside_sync(data: bytes, bounds: list[int]) -> list[int]:
    """The boundaries not inside a synchronized update (`ESC[?2026h` ... `ESC[?2026l`): a
    terminal shows such a frame only whole, so a read boundary in its middle is a screen no
    one ever saw (Codex wraps every frame in one; a pipe read can end anywhere)."""
    marks = sorted(
        [(m, 1) for m in _find_all(data, SYNC_BEGIN)] + [(m, 0) for m in _find_all(data, SYNC_END)]
    )
    out: list[int] = []
    inside = False
    i = 0
    for b in bounds:
        while i < len(marks) and marks[i][0] + len(SYNC_BEGIN) <= b:
            inside = bool(marks[i][1])
            i += 1
        if not inside:
            out.append(b)
    return out


def _find_all(data: bytes, needle: bytes) -> list[int]:
    found, start = [], 0
    while (pos := data.find(needle, start)) != -1:
        found.append(pos)
        start = pos + 1
    return found


def refine_offsets(
    data: bytes,
    cols: int,
    rows: int,
    segments: list[dict[str, Any]],
    events: list[dict[str, Any]],
    boundaries: list[int],
) -> None:
    """Set `offset_exact` (or None) and `offset` on each labelled segment, in place."""
    bounds = sorted({b for b in boundaries if 0 < b <= len(data)} | {len(data)})
    bounds = outside_sync(data, bounds)
    lo = 0
    for seg in segments:
        if seg.get("cue") is None:
            seg["offset_exact"] = None
            lo = seg["offset"]
            continue
        if seg.get("server_quiet") and seg.get("offset_server_quiet") is not None:
            # This cue only means something once the model is done (the screen alone could
            # match mid-turn): search from where the server was first seen quiet.
            lo = max(lo, int(seg["offset_server_quiet"]))
        # The state was seen at poll time and held until the driver's next action, so its
        # first frame lies after the previous label and before that action.
        later = [e["offset"] for e in events if e["t"] > seg["t"] and e["event"] != "launch"]
        hi = min(later) if later else len(data)
        hi = max(hi, seg["offset_polled"])
        cue = Cue(
            seg["cue"],
            seg.get("absent"),
            int(seg.get("tail") or 0),
            seg.get("title"),
            seg.get("title_absent"),
        )
        window = [b for b in bounds if lo < b <= hi]
        found = _first_match(data, cols, rows, cue, window)
        if found is not None and seg.get("still"):
            # The cue showed before the screen stopped changing (an answer still being drawn
            # under an idle-looking input box): the state begins with the last change.
            found = _last_change(data, cols, rows, cue, [b for b in window if b >= found])
        seg["offset_exact"] = found
        seg["offset"] = found if found is not None else seg["offset_polled"]
        lo = seg["offset"]


def relabel(labels_path: Path) -> bool:
    """Recompute the offsets of a recorded capture from its polls, events and .timing (after
    a change to this module); True if any offset moved."""
    labels = json.loads(labels_path.read_text())
    base = str(labels_path).removesuffix(".labels.json")
    data = Path(base + ".bytes").read_bytes()
    timing = Path(base + ".timing")
    boundaries = (
        [int(line.split()[0]) for line in timing.read_text().splitlines() if line.strip()]
        if timing.exists()
        else []
    )
    before = [seg["offset"] for seg in labels["segments"]]
    refine_offsets(
        data,
        int(labels["cols"]),
        int(labels["rows"]),
        labels["segments"],
        labels["driver_events"],
        boundaries,
    )
    labels_path.write_text(json.dumps(labels, indent=1, ensure_ascii=False) + "\n")
    return before != [seg["offset"] for seg in labels["segments"]]
