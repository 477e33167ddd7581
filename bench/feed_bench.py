"""The emulator's cost per read: `PaneScreen.feed` and `snapshot` on agents' real byte streams.

Usage: .venv/bin/python bench/feed_bench.py [--repeat 7] [--json OUT] [--tree DIR] [names...]
       .venv/bin/python bench/feed_bench.py --compare BEFORE.json AFTER.json

Two kinds of rows:

- an agent's name (and `claude-2.1-issue`): the working stretch bench/agent_frames.py picks for
  the daemon benchmark, read by read as tmux read it (600 frames of the issue's spinner). The
  screen is set up with the bytes before the stretch (not timed) and the stretch is played the
  given number of times; the row is the fastest pass, so a busy machine inflates it less.
- a capture folder (`captures/NAME`): every capture in it fed whole, read by read at its
  `.timing` offsets (every 4 KiB without one), with a snapshot after each read as the daemon
  takes one; fastest of `--whole-repeat` passes.

Each read is timed on its own (perf_counter_ns): feed, then snapshot. Printed: bytes a read, µs
a read and ns a byte for feed, µs a read for snapshot. `--tree DIR` imports osf_tmux from
another checkout (a `git archive` of main, say), so that before and after run the same script.

Finding the stretches replays the captures through the classifier (about a minute); they are
kept in a cache file (`--cache`) keyed by each capture's size and mtime."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

Reads = list[bytes]


def _import_tree(tree: Path | None) -> None:
    """osf_tmux from `tree` when given (before anything imports it), else from this checkout."""
    path = str((tree or ROOT).resolve())
    sys.path.insert(0, path)
    import osf_tmux

    where = Path(osf_tmux.__file__).resolve().parent.parent
    if where != Path(path):
        raise SystemExit(f"osf_tmux came from {where}, not {path}")


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


def _timed_pass(
    make: Callable[[], Any], prefix: bytes, reads: Reads, snap: bool = True
) -> tuple[int, int]:
    """(feed ns, snapshot ns) over `reads`, after an untimed `prefix` on a new screen."""
    clock = time.perf_counter_ns
    screen = make()
    screen.feed(prefix)
    screen.snapshot()
    feed_ns = snap_ns = 0
    for chunk in reads:
        t0 = clock()
        screen.feed(chunk)
        t1 = clock()
        if snap:
            screen.snapshot()
            snap_ns += clock() - t1
        feed_ns += t1 - t0
    return feed_ns, snap_ns


def _row(name: str, reads: int, nbytes: int, feed_ns: int, snap_ns: int) -> dict[str, Any]:
    return {
        "name": name,
        "reads": reads,
        "bytes": nbytes,
        "feed_us": feed_ns / reads / 1000,
        "feed_ns_byte": feed_ns / max(nbytes, 1),
        "snap_us": snap_ns / reads / 1000,
    }


def bench_stretch(name: str, prefix: bytes, reads: Reads, size: tuple[int, int], repeat: int):  # type: ignore[no-untyped-def]
    from osf_tmux.vt.pane import PaneScreen

    def make() -> PaneScreen:
        return PaneScreen(*size)

    feed = snap = None
    for _ in range(repeat):
        f, s = _timed_pass(make, prefix, reads)
        feed = f if feed is None else min(feed, f)
        snap = s if snap is None else min(snap, s)
    assert feed is not None and snap is not None
    return _row(name, len(reads), sum(map(len, reads)), feed, snap)


def bench_folder(folder: Path, repeat: int) -> dict[str, Any]:
    from osf_tmux.vt.pane import PaneScreen

    caps = sorted(folder.glob("*.bytes"))
    streams = [(_size(c), _capture_reads(c)) for c in caps]
    best: list[tuple[int, int]] = []
    for _ in range(repeat):
        feed = snap = 0
        for size, reads in streams:
            f, s = _timed_pass(lambda size=size: PaneScreen(*size), b"", reads)
            feed += f
            snap += s
        best.append((feed, snap))
    reads_n = sum(len(r) for _, r in streams)
    nbytes = sum(sum(map(len, r)) for _, r in streams)
    return _row(
        f"captures/{folder.name}",
        reads_n,
        nbytes,
        min(f for f, _ in best),
        min(s for _, s in best),
    )


# -- output -----------------------------------------------------------------------------------


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def print_table(rows: list[dict[str, Any]]) -> None:
    print("| stream | reads | bytes a read | feed µs a read | feed ns a byte | snapshot µs a read |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['name']} | {r['reads']} | {r['bytes'] / r['reads']:,.0f} | {r['feed_us']:.1f} |"
            f" {r['feed_ns_byte']:.0f} | {r['snap_us']:.1f} |"
        )


def print_compare(before: dict[str, Any], after: dict[str, Any]) -> None:
    old = {r["name"]: r for r in before["rows"]}
    print(f"before: {before['tree']} (load {before['load']})")
    print(f"after:  {after['tree']} (load {after['load']})")
    print()
    print(
        "| stream | bytes a read | feed µs before | feed µs after | speed-up | ns a byte before |"
        " ns a byte after | snapshot µs before | snapshot µs after |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in after["rows"]:
        b = old.get(r["name"])
        if b is None:
            continue
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
    parser.add_argument("--whole-repeat", type=int, default=2, help="passes over each folder")
    parser.add_argument("--no-whole", action="store_true", help="skip the capture folders")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--tree", type=Path, help="import osf_tmux from this checkout")
    parser.add_argument(
        "--cache", type=Path, default=Path("/tmp") / f"osf-feed-bench-{os.getuid()}.json"
    )
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        print_compare(*(json.loads(p.read_text()) for p in args.compare))
        return
    _import_tree(args.tree)

    agents = [n for n in args.names if not n.startswith("captures/")]
    folders = [ROOT / n for n in args.names if n.startswith("captures/")]
    if not args.names:
        folders = sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    load_start = _load()
    rows = []
    if not args.names or "claude-2.1-issue" in agents:
        prefix, reads = _issue_claude()
        rows.append(bench_stretch("claude-2.1-issue", prefix, reads, (120, 32), args.repeat))
    if not args.names or [a for a in agents if a != "claude-2.1-issue"]:
        for agent, spec in sorted(_stretch_specs(agents or None, args.cache).items()):
            prefix, reads = _stretch(spec)
            rows.append(bench_stretch(agent, prefix, reads, (120, 32), args.repeat))
    if not args.no_whole:
        for folder in folders:
            rows.append(bench_folder(folder, args.whole_repeat))
    load = f"{load_start} | {_load()}"
    print(f"osf_tmux from {args.tree or ROOT}; load average (1, 5, 15 min) {load}")
    print_table(rows)
    if args.json:
        args.json.write_text(
            json.dumps({"tree": str(args.tree or ROOT), "load": load, "rows": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
