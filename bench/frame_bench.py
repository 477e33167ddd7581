"""Per-frame CPU of the daemon's work, in process: feed, snapshot, classify. Prints numbers.

Usage: .venv/bin/python bench/frame_bench.py [--frames 3000]

1. The spinner frame of bench/fake_spinner.py (~60 bytes of CUP, SGR and text on a Claude-like
   working screen, 120x32), judged after every frame as the daemon does at 10 Hz.
2. Every capture under captures/ fed in 97-byte chunks with a snapshot and a verdict after each.

CPU time (time.process_time), best of 5 runs, so a busy machine inflates less; in the daemon the
same work costs 2-4x more, since caches are cold after each wake-up."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.judge.classify import classify  # noqa: E402
from osf_tmux.judge.corpus import find_captures  # noqa: E402
from osf_tmux.judge.manifest import Manifest  # noqa: E402
from osf_tmux.judge.ruleset import load_rules  # noqa: E402
from osf_tmux.vt.pane import PaneScreen  # noqa: E402
from osf_tmux.vt.snapshot import Snapshot  # noqa: E402

GLYPHS = "·✢✳✶✻✽"


def spinner_frames(cols: int, rows: int, count: int) -> tuple[bytes, list[bytes]]:
    rule = "─" * cols
    first = (
        "\x1b[?1049h\x1b[2J\x1b[H● Thinking about the task\r\n"
        f"\x1b[{rows - 3};1H{rule}\x1b[{rows - 2};1H❯ \x1b[{rows - 1};1H{rule}"
        f"\x1b[{rows};1H  ⏵⏵ accept edits on · esc to interrupt"
    ).encode()
    frames = [
        (
            f"\x1b[{rows - 5};1H\x1b[38;5;174m{GLYPHS[i % len(GLYPHS)]}\x1b[39m Pondering… "
            f"({i // 10}s)\x1b[K\x1b[{rows - 2};3H"
        ).encode()
        for i in range(count)
    ]
    return first, frames


def best(run: Callable[[], None], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        run()
        times.append(time.process_time() - t0)
    return min(times)


def spinner(count: int, manifest: Manifest) -> None:
    first, frames = spinner_frames(120, 32, count)
    screen = PaneScreen(120, 32)
    screen.feed(first)
    snaps: list[Snapshot] = []

    def feed() -> None:
        for f in frames:
            screen.feed(f)

    def feed_snap() -> None:
        snaps.clear()
        for f in frames:
            screen.feed(f)
            snaps.append(screen.snapshot())

    def judge() -> None:
        for s in snaps:
            classify(s, manifest)

    t_feed = best(feed) / count
    t_snap = best(feed_snap) / count - t_feed
    t_class = best(judge) / count
    verdict = classify(snaps[-1], manifest)
    print(
        f"spinner frame ({len(frames[-1])} bytes): feed {t_feed * 1e6:.1f} us   "
        f"snapshot {t_snap * 1e6:.1f} us   classify {t_class * 1e6:.1f} us   "
        f"-> {verdict.state} ({verdict.rule})"
    )


def captures(chunk: int = 97) -> None:
    rules = load_rules(None)
    n = 0
    t_feed = t_snap = t_class = 0.0
    clock = time.process_time
    for cap in find_captures(ROOT / "captures"):
        try:
            size, agent = cap.size(), cap.agent()
        except OSError:
            continue  # a capture being written right now
        if size is None or agent is None:
            continue
        manifest = rules.get(agent)
        data = cap.bytes_path.read_bytes()
        screen = PaneScreen(*size)
        for off in range(0, len(data), chunk):
            t0 = clock()
            screen.feed(data[off : off + chunk])
            t1 = clock()
            snap = screen.snapshot()
            t2 = clock()
            classify(snap, manifest)
            t3 = clock()
            t_feed += t1 - t0
            t_snap += t2 - t1
            t_class += t3 - t2
            n += 1
    if n:
        print(
            f"captures ({n} chunks of {chunk} bytes): feed {t_feed / n * 1e6:.1f} us   "
            f"snapshot {t_snap / n * 1e6:.1f} us   classify {t_class / n * 1e6:.1f} us"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--frames", type=int, default=3000)
    args = ap.parse_args()
    spinner(args.frames, load_rules(None).get("claude"))
    captures()


if __name__ == "__main__":
    main()
