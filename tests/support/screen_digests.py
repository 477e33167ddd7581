"""A digest of the emulator's whole state at every read boundary of every capture.

For changes to osf_tmux/vt that must not change what it computes (a faster parser, say):

    python -m tests.support.screen_digests --tree /tmp/main-archive > before.txt
    python -m tests.support.screen_digests > after.txt
    diff before.txt after.txt          # nothing: the same screens, byte for byte

Each capture is fed read by read (its `.timing` offsets, every 4 KiB without one; the read
boundaries tools/capture_states.py judges at). After each read, the line holds a hash of what
PaneScreen shows (rows, cursor, cursor flag, title, alternate screen) and of the state that
shapes later output: wrap flags, the main screen behind the alternate one, scrollback, scroll
region, modes, tab stops, the saved cursor, REP's last character and a half-read UTF-8
character. `--reads 1` also feeds every capture one byte at a time (the state machine's path).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.capture_states import offsets

ROOT = Path(__file__).resolve().parents[2]


def size_of(capture: Path) -> tuple[int, int]:
    labels = capture.with_name(capture.name[: -len(".bytes")] + ".labels.json")
    if labels.exists():
        data = json.loads(labels.read_text())
        if "cols" in data and "rows" in data:
            return int(data["cols"]), int(data["rows"])
    for part in reversed(capture.stem.split("-")):
        cols, _, rows = part.partition("x")
        if cols.isdigit() and rows.isdigit():
            return int(cols), int(rows)
    return 80, 24


def state(pane: Any) -> str:
    """Everything of a PaneScreen that shows now or can show later, as one string."""
    return hashlib.sha256(repr(parts(pane)).encode()).hexdigest()[:16]


def parts(pane: Any) -> list[Any]:
    """Everything of a PaneScreen that shows now or can show later: the snapshot, then the
    screen's cells (the grid's lines, the main screen behind the alternate one, the history:
    lists of the one-character strings the screen stores), then its small state."""
    s = pane._screen
    p = pane._parser
    snap = pane.snapshot()
    saved = s.saved_grid
    return [
        snap,
        s.grid.lines,
        s.grid.wrapped,
        None if saved is None else (saved.lines, saved.wrapped),
        list(s.history),
        (s.rupper, s.rlower, s.mode_wrap, s.mode_insert, s.mode_origin),
        sorted(s.tabs),
        (s.saved_cx, s.saved_cy, s.saved_origin, s.alt_cursor, s.title_stack),
        (s.last, s.zwj_pending),
        (p.state, p._u8_size, bytes(p._u8)),
    ]


def digests(capture: Path, step: int | None = None) -> Iterator[str]:
    from osf_tmux.vt.pane import PaneScreen

    data = capture.read_bytes()
    pane = PaneScreen(*size_of(capture))
    start = 0
    for end in offsets(capture):
        if step is None:
            pane.feed(data[start:end])
        else:
            for i in range(start, end, step):
                pane.feed(data[i : min(i + step, end)])
        start = end
        yield f"{end} {state(pane)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="capture folders (default: all)")
    parser.add_argument("--tree", type=Path, help="import osf_tmux from this checkout")
    parser.add_argument("--reads", type=int, help="feed each read in pieces of this many bytes")
    args = parser.parse_args()
    sys.path.insert(0, str((args.tree or ROOT).resolve()))
    folders = args.folders or sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    for folder in folders:
        for capture in sorted(folder.glob("*.bytes")):
            name = capture.relative_to(ROOT).as_posix() if capture.is_absolute() else capture
            for line in digests(capture, args.reads):
                print(f"{name} {line}")


if __name__ == "__main__":
    main()
