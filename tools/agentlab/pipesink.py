"""The `pipe-pane -O` reader: append the pane's bytes to BASE.bytes and one
`cumulative_offset epoch_seconds` line per read to BASE.timing.

Runs as its own process (tmux starts it via `sh -c`), stdlib only, unbuffered: the driver reads
the .bytes size while recording, so every read must reach the file at once. Each read is one
timing line, which also gives the replay its candidate frame boundaries."""

from __future__ import annotations

import os
import sys
import time


def main(base: str) -> int:
    total = 0
    with (
        open(base + ".bytes", "ab", buffering=0) as out,
        open(base + ".timing", "a", buffering=1) as timing,
    ):
        while True:
            data = os.read(0, 65536)
            if not data:
                return 0
            out.write(data)
            total += len(data)
            timing.write(f"{total} {time.time():.6f}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
