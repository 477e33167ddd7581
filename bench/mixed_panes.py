"""Parser and judge on many panes at once: the CPU and memory of what they keep, in one process.

Usage: .venv/bin/python bench/mixed_panes.py [--tree DIR] [--reads 40000] [--panes 8]

`--panes` screens, each replaying lab captures (captures/*-lab*, every agent and size, picked at
random with a fixed seed) read by read at their `.timing` offsets through `PaneScreen` and
`ScreenJudge`, one read of each pane in turn: the mix a daemon with many agents sees, where the
caches of the parser and the judge turn over (a single agent's stream, as in feed_bench.py,
fits in them). `--tree DIR` runs the osf_tmux of another tree (a `git archive` of main, say).
Prints the CPU seconds and RSS every tenth of the reads."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT)
    ap.add_argument("--reads", type=int, default=40000)
    ap.add_argument("--panes", type=int, default=8)
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from osf_tmux.judge.ruleset import load_rules
    from osf_tmux.judge.screen_judge import ScreenJudge
    from osf_tmux.vt.pane import PaneScreen

    rules = load_rules(None)
    captures = []
    for labels in sorted(ROOT.glob("captures/*-lab*/*.labels.json")):
        stem = str(labels)[: -len(".labels.json")]
        timing, data = Path(stem + ".timing"), Path(stem + ".bytes")
        agent = json.loads(labels.read_text()).get("agent")
        size = stem.rsplit("-", 1)[-1].split("x")
        if timing.exists() and data.exists() and agent in rules.manifests and len(size) == 2:
            captures.append((agent, int(size[0]), int(size[1]), data, timing))
    rng = random.Random(7)

    def pane() -> Iterator[tuple[Any, Any, bytes]]:
        while True:
            agent, cols, rows, data_path, timing = rng.choice(captures)
            data = data_path.read_bytes()
            ends = {int(line.split()[0]) for line in timing.read_text().splitlines() if line}
            screen, judge, start = PaneScreen(cols, rows), ScreenJudge(rules.manifests[agent]), 0
            for end in sorted(e for e in ends | {len(data)} if e <= len(data)):
                if end > start:
                    yield screen, judge, data[start:end]
                    start = end

    panes = [pane() for _ in range(args.panes)]
    print(f"osf_tmux of {args.tree}, {len(captures)} captures")
    began, done, step = time.process_time(), 0, max(1, args.reads // 10)
    while done < args.reads:
        for p in panes:
            screen, judge, chunk = next(p)
            screen.feed(chunk)
            judge.verdict(screen.snapshot())
            done += 1
            if done % step == 0:
                cpu = time.process_time() - began
                rss = rss_kb() / 1024
                print(f"reads {done:7d}  CPU {cpu:6.2f} s  RSS {rss:5.1f} MB", flush=True)


if __name__ == "__main__":
    main()
