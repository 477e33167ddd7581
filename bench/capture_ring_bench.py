"""What `osf-tmux capture`'s rings cost the daemon: each agent pane keeps its last output
(daemon/recent.py, 256 KiB and 8,192 read times by default, in two generations). Prints numbers.

  python bench/capture_ring_bench.py [--panes 50] [--megabytes 4] [--cap 262144]

Every pane is fed lab captures (the agents' real output, looped, in the reads their .timing
files record) through its own screen, as the daemon feeds it, until each pane has drawn
`--megabytes`; a generation that fills starts again from the screen rendered at that moment.
Reported: the bytes the rings hold (their own count, `RecentBytes.memory`), what tracemalloc
sees allocated by them at the end and at the peak, and the cost per read (add + rotations),
measured apart from the screens' own parsing."""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

from osf_tmux.daemon.recent import DEFAULT_POINTS, RecentBytes
from osf_tmux.vt.pane import PaneScreen

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("claude-2.1.332-lab", "codex-0.171.0-lab", "gemini-cli-0.61.0-lab")


def reads(capture: Path) -> list[bytes]:
    data = capture.read_bytes()
    timing = capture.with_suffix(".timing")
    lines = timing.read_text().splitlines()
    ends = sorted({int(line.split()[0]) for line in lines if line.strip()})
    starts = [0, *ends]
    return [data[a:b] for a, b in zip(starts, ends, strict=False) if b > a]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panes", type=int, default=50)
    ap.add_argument("--megabytes", type=float, default=4.0)
    ap.add_argument("--cap", type=int, default=256 * 1024)
    args = ap.parse_args()
    streams = [
        reads(c)
        for folder in FOLDERS
        for c in sorted((ROOT / "captures" / folder).glob("*-120x32.bytes"))
        if c.with_suffix(".timing").exists()
    ]
    streams = [s for s in streams if s]
    print(f"{len(streams)} lab captures at 120x32 from {', '.join(FOLDERS)}")
    panes = []
    for i in range(args.panes):
        screen = PaneScreen(120, 32)
        ring = RecentBytes(args.cap, DEFAULT_POINTS)
        ring.restart(screen.snapshot(), 0.0)
        panes.append((screen, ring, streams[i % len(streams)]))
    want = int(args.megabytes * 1024 * 1024)
    ring_time = 0.0
    total_reads = rotations = 0
    peak_held = 0
    for n, (screen, ring, stream) in enumerate(panes):
        fed = i = 0
        while fed < want:
            chunk = stream[i % len(stream)]
            i += 1
            screen.feed(chunk)
            t0 = time.perf_counter()
            if ring.add(chunk, float(i)):
                ring.rotate(screen.snapshot(), float(i))
                rotations += 1
            ring_time += time.perf_counter() - t0
            fed += len(chunk)
            total_reads += 1
        peak_held = max(peak_held, ring.memory())
        if n == 0:
            rec = ring.recording()
            assert rec is not None
            check = PaneScreen(120, 32)
            check.feed(rec.data)
            same = check.snapshot().rows == screen.snapshot().rows
            print(f"pane 0: the kept {len(rec.data)} bytes replay to its screen: {same}")
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    copies = [ring.recording() for _, ring, _ in panes]
    _, peak_copy = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del copies
    held = sum(ring.memory() for _, ring, _ in panes)
    print(f"panes {args.panes}, each fed {args.megabytes} MiB ({total_reads} reads, "
          f"{rotations} generations started)")  # fmt: skip
    print(f"held by the rings: {held / 1024 / 1024:.2f} MiB in all, "
          f"{held / args.panes / 1024:.0f} KiB a pane "
          f"(most for one pane: {peak_held / 1024:.0f} KiB; "
          f"bound: {args.cap // 1024} KiB + {DEFAULT_POINTS * 16 // 1024} KiB of read times "
          f"+ 2 seeds)")  # fmt: skip
    print(
        f"a capture of every pane at once: {(peak_copy - before) / 1024 / 1024:.2f} MiB "
        "more while the copies live"
    )
    print(f"ring cost per read: {ring_time / total_reads * 1e6:.2f} us "
          f"(rotations included; parsing not)")  # fmt: skip


if __name__ == "__main__":
    main()
