"""How long `output_flow` should wait: screen-change gaps in labelled captures.

For every capture with a `.timing` file (pipe-pane read boundaries with their times) and labels,
the screen is replayed read by read and judge/output_flow.OutputFlow notes when its text changed.
For each window N it prints, over the time labelled `working`, the share during which the flow
had stopped (the pane would read idle although it works: a miss, which rules of a real agent
would cover, `generic` would not). Independent of N: how often the text changed while labelled
idle or done, leaving out the first and last second of each such stretch (the output that led
to it, and the typing of the next message): those changes would read `working` for N seconds.
The latency to idle after output stops is N itself.

    .venv/bin/python bench/output_flow_gaps.py [FOLDER ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from osf_tmux.judge.output_flow import OutputFlow
from osf_tmux.vt.pane import PaneScreen

ROOT = Path(__file__).resolve().parent.parent
WINDOWS = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0)


def changes(data: bytes, cols: int, rows: int, timing: list[tuple[int, float]]) -> list[float]:
    """The times at which the screen's text changed (keystroke echoes left out)."""
    screen = PaneScreen(cols, rows)
    flow = OutputFlow(1.0)
    out: list[float] = []
    fed = 0
    for offset, t in timing:
        screen.feed(data[fed:offset])
        fed = offset
        before = flow.last_output
        flow.observe(screen.snapshot(), t)
        if flow.last_output != before:
            out.append(t)
    return out


def measure(folders: list[Path]) -> dict[str, dict[float, list[float]]]:
    # per window: [working seconds, working seconds not flowing, quiet seconds, quiet flowing]
    totals: dict[str, dict[float, list[float]]] = {}
    for folder in folders:
        for labels_path in sorted(folder.glob("*.labels.json")):
            base = labels_path.name[: -len(".labels.json")]
            timing_path = labels_path.with_name(base + ".timing")
            bytes_path = labels_path.with_name(base + ".bytes")
            if not timing_path.exists() or not bytes_path.exists():
                continue
            labels = json.loads(labels_path.read_text())
            timing = []
            for line in timing_path.read_text().splitlines():
                if line.strip():
                    off, t = line.split()[:2]
                    timing.append((int(off), float(t)))
            if not timing:
                continue
            data = bytes_path.read_bytes()
            seen = changes(data, int(labels["cols"]), int(labels["rows"]), timing)
            stamps = dict(timing)
            segs = labels.get("segments", [])
            group = totals.setdefault(folder.name.split("-")[0], {w: [0.0] * 4 for w in WINDOWS})
            for i, seg in enumerate(segs):
                if i + 1 >= len(segs) or "booting" in seg.get("note", ""):
                    continue
                start = _time_at(stamps, timing, int(seg["offset"]))
                end = _time_at(stamps, timing, int(segs[i + 1]["offset"]))
                if end <= start:
                    continue
                for w in WINDOWS:
                    flowing = _flowing_seconds(seen, start, end, w)
                    if seg["state"] == "working":
                        group[w][0] += end - start
                        group[w][1] += (end - start) - flowing
                    elif seg["state"] in ("idle", "done") and end - start > 2:
                        group[w][2] += end - start - 2
                        group[w][3] += sum(start + 1 <= c < end - 1 for c in seen)
    return totals


def _time_at(stamps: dict[int, float], timing: list[tuple[int, float]], offset: int) -> float:
    if offset in stamps:
        return stamps[offset]
    later = [t for off, t in timing if off >= offset]
    return later[0] if later else timing[-1][1]


def _flowing_seconds(changes_at: list[float], start: float, end: float, window: float) -> float:
    """Seconds of [start, end) within `window` after some change."""
    total, reach = 0.0, start
    for c in changes_at:
        if c >= end:
            break
        lo, hi = max(c, reach), min(c + window, end)
        if hi > lo:
            total += hi - lo
            reach = hi
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    args = parser.parse_args()
    folders = args.folders or sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    totals = measure(folders)
    print("window  group      working s  not flowing   idle/done s  changes there")
    for group in [*sorted(totals), "all"]:
        for w in WINDOWS:
            if group == "all":
                vals = [sum(totals[g][w][k] for g in totals) for k in range(4)]
            else:
                vals = totals[group][w]
            work, miss, quiet, late = vals
            print(
                f"{w:5.1f}s  {group:9s} {work:9.1f}  {_pct(miss, work):>10s}"
                f"   {quiet:10.1f}  {late:12.0f}"
            )
    return 0


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
