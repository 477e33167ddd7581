"""The emulator's cost per read: `PaneScreen.feed` and `snapshot` on agents' real byte streams.

Usage: .venv/bin/python bench/feed_bench.py [--repeat 7] [--against DIR] [--json OUT] [names...]

Two kinds of rows:

- an agent's name (and `claude-2.1-issue`): the working stretch bench/agent_frames.py picks for
  the daemon benchmark, read by read as tmux read it (600 frames of the issue's spinner). The
  screen is set up with the bytes before the stretch (not timed), then the stretch is timed.
- a capture folder (`captures/NAME`): every capture in it fed whole, read by read at its
  `.timing` offsets (every 4 KiB without one), from a new screen.

Timed by the process's CPU time (time spent waiting for a core does not count): passes that only
feed, and passes that take a snapshot after each read (as the daemon does); feed is the fastest
of the first, snapshot the fastest of the second less that. Printed: bytes a read, µs a read and
ns a byte for feed, µs a read for snapshot.

`--against DIR` loads a second emulator, DIR/osf_tmux/vt (a `git archive` of main, say), under
another package name, and times both in the same process, pass for pass alternately, so that a
busy machine slows both alike; the table then has both and the speed-up.

Finding the stretches replays the captures through the classifier (about a minute); they are
kept in a cache file (`--cache`) keyed by each capture's size and mtime."""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

Reads = list[bytes]


def _load_other(tree: Path) -> type:
    """PaneScreen of the emulator in `tree`, imported as another package (its modules import
    each other as osf_tmux.vt.*: renamed in a private copy)."""
    src = tree / "osf_tmux" / "vt"
    if not (src / "pane.py").exists():
        raise SystemExit(f"no osf_tmux/vt in {tree}")
    top = Path(tempfile.mkdtemp(prefix="feed-bench-"))
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    dst = top / "osf_other" / "vt"
    dst.mkdir(parents=True)
    (top / "osf_other" / "__init__.py").write_text("")
    for path in src.glob("*.py"):
        (dst / path.name).write_text(path.read_text().replace("osf_tmux.vt", "osf_other.vt"))
    sys.path.insert(0, str(top))
    module = importlib.import_module("osf_other.vt.pane")
    return module.PaneScreen  # type: ignore[no-any-return]


# -- the streams ------------------------------------------------------------------------------


def _stretch_specs(names: Sequence[str] | None, cache: Path) -> dict[str, dict[str, Any]]:
    """{agent: {"capture": path, "start": n, "ends": [...]}} for every agent with a stretch."""
    sys.path.insert(1, str(ROOT / "bench"))
    captures = sorted((ROOT / "captures").glob("*/*.bytes"))
    key = {str(p.relative_to(ROOT)): [p.stat().st_size, int(p.stat().st_mtime)] for p in captures}
    if cache.exists():
        stored = json.loads(cache.read_text())
        if stored.get("key") == key:
            specs: dict[str, dict[str, Any]] = stored["specs"]
            return {k: v for k, v in specs.items() if not names or k in names}
    import agent_frames

    specs = {}
    for agent in agent_frames.agents_with_stretches():
        s = agent_frames.pick_stretch(agent)
        specs[agent] = {
            "capture": str(s.capture.bytes_path.relative_to(ROOT)),
            "start": s.start,
            "ends": [end for _, end in s.chunks],
        }
    cache.write_text(json.dumps({"key": key, "specs": specs}))
    return {k: v for k, v in specs.items() if not names or k in names}


def _issue_claude(frames: int = 600) -> tuple[bytes, Reads]:
    sys.path.insert(1, str(ROOT / "bench"))
    import agent_frames

    prefix, loop = agent_frames.issue_claude()
    return prefix, [next(loop)[1] for _ in range(frames)]


def _stretch(spec: dict[str, Any]) -> tuple[bytes, Reads]:
    data = (ROOT / spec["capture"]).read_bytes()
    start = spec["start"]
    reads = []
    for end in spec["ends"]:
        reads.append(data[start:end])
        start = end
    return data[: spec["start"]], reads


def _offsets(capture: Path) -> list[int]:
    """The read boundaries tools/capture_states.py uses."""
    timing = capture.with_suffix(".timing")
    size = capture.stat().st_size
    if timing.exists():
        found = {int(line.split()[0]) for line in timing.read_text().splitlines() if line.strip()}
    else:
        found = set(range(4096, size, 4096))
    return sorted(o for o in found | {size} if 0 < o <= size)


def _capture_reads(capture: Path) -> Reads:
    data = capture.read_bytes()
    reads, start = [], 0
    for end in _offsets(capture):
        reads.append(data[start:end])
        start = end
    return reads


def _size(capture: Path) -> tuple[int, int]:
    labels = capture.with_name(capture.name[: -len(".bytes")] + ".labels.json")
    if labels.exists():
        data = json.loads(labels.read_text())
        if "cols" in data and "rows" in data:
            return int(data["cols"]), int(data["rows"])
    stem = capture.stem
    for part in reversed(stem.split("-")):
        cols, _, rows = part.partition("x")
        if cols.isdigit() and rows.isdigit():
            return int(cols), int(rows)
    return 80, 24


# -- timing -----------------------------------------------------------------------------------


def _timed_pass(make: Callable[[], Any], prefix: bytes, reads: Reads, snap: bool) -> int:
    """CPU ns of feeding `reads` (and taking a snapshot after each, with `snap`), after an
    untimed `prefix` on a new screen. The process's CPU time, not the wall clock: time spent
    waiting for a core on a busy machine does not count."""
    clock = time.process_time_ns
    screen = make()
    screen.feed(prefix)
    screen.snapshot()
    feed = screen.feed
    if snap:
        snapshot = screen.snapshot
        t0 = clock()
        for chunk in reads:
            feed(chunk)
            snapshot()
        return clock() - t0
    t0 = clock()
    for chunk in reads:
        feed(chunk)
    return clock() - t0


def _row(name: str, reads: int, nbytes: int, feed_ns: int, snap_ns: int) -> dict[str, Any]:
    return {
        "name": name,
        "reads": reads,
        "bytes": nbytes,
        "feed_us": feed_ns / reads / 1000,
        "feed_ns_byte": feed_ns / max(nbytes, 1),
        "snap_us": snap_ns / reads / 1000,
    }


def _best(
    makers: Sequence[Callable[[], Any]], streams: list[tuple[bytes, Reads]], repeat: int
) -> list[tuple[int, int]]:
    """(feed ns, snapshot ns) over `streams` for each maker: the fastest pass without
    snapshots, and the fastest with one after each read less that; makers take turns."""
    feed: list[list[int]] = [[] for _ in makers]
    both: list[list[int]] = [[] for _ in makers]
    for _ in range(repeat):
        for k, make in enumerate(makers):
            feed[k].append(sum(_timed_pass(make, p, r, snap=False) for p, r in streams))
            both[k].append(sum(_timed_pass(make, p, r, snap=True) for p, r in streams))
    return [(min(f), max(0, min(b) - min(f))) for f, b in zip(feed, both, strict=True)]


def bench_stretch(
    name: str, prefix: bytes, reads: Reads, screens: list[type], repeat: int
) -> list[dict[str, Any]]:
    makers = [lambda cls=cls: cls(120, 32) for cls in screens]
    nbytes = sum(map(len, reads))
    return [
        _row(name, len(reads), nbytes, feed, snap)
        for feed, snap in _best(makers, [(prefix, reads)], repeat)
    ]


def bench_folder(folder: Path, screens: list[type], repeat: int) -> list[dict[str, Any]]:
    totals = [[0, 0] for _ in screens]
    reads_n = nbytes = 0
    for capture in sorted(folder.glob("*.bytes")):
        size = _size(capture)
        reads = _capture_reads(capture)
        makers = [lambda cls=cls, size=size: cls(*size) for cls in screens]
        for total, (feed, snap) in zip(totals, _best(makers, [(b"", reads)], repeat), strict=True):
            total[0] += feed
            total[1] += snap
        reads_n += len(reads)
        nbytes += sum(map(len, reads))
    return [_row(f"captures/{folder.name}", reads_n, nbytes, f, sn) for f, sn in totals]


# -- output -----------------------------------------------------------------------------------


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        "| stream | reads | bytes a read | feed µs a read | feed ns a byte | snapshot µs a read |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['name']} | {r['reads']} | {r['bytes'] / r['reads']:,.0f} | {r['feed_us']:.1f} |"
            f" {r['feed_ns_byte']:.0f} | {r['snap_us']:.1f} |"
        )


def print_compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    print(
        "| stream | bytes a read | feed µs before | feed µs after | speed-up | ns a byte before |"
        " ns a byte after | snapshot µs before | snapshot µs after |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for b, r in zip(before, after, strict=True):
        print(
            f"| {r['name']} | {r['bytes'] / r['reads']:,.0f} | {b['feed_us']:.1f} |"
            f" {r['feed_us']:.1f} | {b['feed_us'] / r['feed_us']:.2f}x |"
            f" {b['feed_ns_byte']:.0f} | {r['feed_ns_byte']:.0f} | {b['snap_us']:.1f} |"
            f" {r['snap_us']:.1f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="agents, claude-2.1-issue, or captures/FOLDER")
    parser.add_argument("--repeat", type=int, default=7, help="passes over each stretch")
    parser.add_argument("--whole-repeat", type=int, default=3, help="passes over each capture")
    parser.add_argument("--no-whole", action="store_true", help="skip the capture folders")
    parser.add_argument("--against", type=Path, help="a checkout whose emulator is 'before'")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument(
        "--cache", type=Path, default=Path("/tmp") / f"osf-feed-bench-{os.getuid()}.json"
    )
    args = parser.parse_args()
    from osf_tmux.vt.pane import PaneScreen

    screens: list[type] = [PaneScreen]
    if args.against:
        screens.insert(0, _load_other(args.against))

    agents = [n for n in args.names if not n.startswith("captures/")]
    folders = [ROOT / n for n in args.names if n.startswith("captures/")]
    if not args.names:
        folders = sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    load_start = _load()
    rows: list[list[dict[str, Any]]] = []
    if not args.names or "claude-2.1-issue" in agents:
        prefix, reads = _issue_claude()
        rows.append(bench_stretch("claude-2.1-issue", prefix, reads, screens, args.repeat))
    if not args.names or [a for a in agents if a != "claude-2.1-issue"]:
        for agent, spec in sorted(_stretch_specs(agents or None, args.cache).items()):
            prefix, reads = _stretch(spec)
            rows.append(bench_stretch(agent, prefix, reads, screens, args.repeat))
    if not args.no_whole:
        for folder in folders:
            rows.append(bench_folder(folder, screens, args.whole_repeat))
    load = f"{load_start} | {_load()}"
    if args.against:
        print(f"before: {args.against}, after: {ROOT}; load average (1, 5, 15 min) {load}")
        print_compare([r[0] for r in rows], [r[1] for r in rows])
    else:
        print(f"{ROOT}; load average (1, 5, 15 min) {load}")
        print_table([r[0] for r in rows])
    if args.json:
        data = {"against": str(args.against), "load": load, "rows": rows}
        args.json.write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
