"""Runs in a tmux pane: replays lab captures one after another, forever, at their recorded pace.

soak_pane.py PLAYLIST.json     {"captures": [[bytes_path, timing_path], ...], "max_gap": 1.0,
                                "seed": N}

Each capture starts on a reset screen (RIS), its bytes written read by read as its .timing
(offset epoch) recorded them, silences longer than `max_gap` shortened; a pause of 1-3 s between
captures. The order is shuffled per round, so prompts come and go in a new order each time."""

from __future__ import annotations

import json
import os
import random
import sys
import time
import tty


def reads(data: bytes, timing: str) -> list[tuple[float, bytes]]:
    """(pause before, chunk) per pipe-pane read of a capture."""
    out: list[tuple[float, bytes]] = []
    start, last = 0, None
    for line in timing.splitlines():
        parts = line.split()
        if len(parts) != 2:
            continue
        end, at = int(parts[0]), float(parts[1])
        pause = 0.0 if last is None else max(at - last, 0.0)
        out.append((pause, data[start:end]))
        start, last = end, at
    if start < len(data):
        out.append((0.0, data[start:]))
    return out


def main() -> None:
    tty.setraw(0)  # no output processing: the bytes reach tmux as the agent wrote them
    with open(sys.argv[1], encoding="utf-8") as f:
        playlist = json.load(f)
    max_gap = float(playlist.get("max_gap", 1.0))
    rng = random.Random(playlist.get("seed"))
    captures = [(p, t) for p, t in playlist["captures"]]
    while True:
        rng.shuffle(captures)
        for bytes_path, timing_path in captures:
            with open(bytes_path, "rb") as b, open(timing_path, encoding="utf-8") as t:
                chunks = reads(b.read(), t.read())
            os.write(1, b"\x1bc")
            for pause, chunk in chunks:
                if pause:
                    time.sleep(min(pause, max_gap))
                os.write(1, chunk)
            time.sleep(rng.uniform(1.0, 3.0))


if __name__ == "__main__":
    main()
