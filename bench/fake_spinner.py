"""Runs in a tmux pane: a Claude-like working screen whose spinner row redraws at RATE Hz.

Each frame is ~60 bytes of cursor movement and SGR, like a real agent's spinner, so the daemon
does the same work per frame as with a real agent that is thinking."""

from __future__ import annotations

import os
import sys
import time
import tty

GLYPHS = "·✢✳✶✻✽"


def main() -> None:
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    tty.setraw(0)
    rows = os.get_terminal_size(1).lines
    cols = os.get_terminal_size(1).columns
    rule = "─" * cols
    frame0 = (
        "\x1b[?1049h\x1b[2J\x1b[H● Thinking about the task\r\n"
        f"\x1b[{rows - 3};1H{rule}\x1b[{rows - 2};1H❯ \x1b[{rows - 1};1H{rule}"
        f"\x1b[{rows};1H  ⏵⏵ accept edits on · esc to interrupt"
    )
    os.write(1, frame0.encode())
    i = 0
    start = time.monotonic()
    while True:
        i += 1
        glyph = GLYPHS[i % len(GLYPHS)]
        frame = f"\x1b[{rows - 5};1H\x1b[38;5;174m{glyph}\x1b[39m Pondering… ({i // 10}s)\x1b[K"
        frame += f"\x1b[{rows - 2};3H"
        os.write(1, frame.encode())
        next_at = start + i / rate
        time.sleep(max(0.0, next_at - time.monotonic()))


if __name__ == "__main__":
    main()
