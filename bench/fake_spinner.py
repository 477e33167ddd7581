"""Runs in a tmux pane: an agent's working screen whose spinner row redraws at RATE Hz.

    fake_spinner.py RATE [LOOK]     LOOK: claude (default; alternate screen) or pi (Pi's normal
                                    screen: loader row, input box, footer; synchronized frames)

Each frame is ~60 bytes of cursor movement and SGR, like a real agent's spinner, so the daemon
does the same work per frame as with a real agent that is thinking."""

from __future__ import annotations

import os
import sys
import time
import tty

GLYPHS = "·✢✳✶✻✽"
BRAILLE = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def pi_frames(rows: int, cols: int) -> tuple[str, list[str]]:
    """Pi 0.73.1 at work: the loader two rows above the input box, the cursor kept in the box;
    each frame rewrites the loader row inside a synchronized update, then puts the cursor back."""
    rule = "─" * cols
    stats = "↑200 ↓40 0.1%/128k (auto)"
    footer = stats + " " * (cols - len(stats) - len("fake-model")) + "fake-model"
    top = rows - 8
    frame0 = (
        "\x1b[2J\x1b[H run the check\r\n\r\n Running a command.\r\n"
        f"\x1b[{top + 1};1H\x1b[{top + 3};1H{rule}\x1b[{top + 5};1H{rule}"
        f"\x1b[{top + 6};1H~/src/proj (main)\x1b[{top + 7};1H{footer}\x1b[{top + 4};1H"
    )
    frames = [
        f"\x1b[?2026h\x1b[{top + 1};1H\x1b[2K \x1b[36m{g}\x1b[39m \x1b[90mWorking...\x1b[39m"
        f"\x1b[?2026l\x1b[{top + 4};1H"
        for g in BRAILLE
    ]
    return frame0, frames


def main() -> None:
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    tty.setraw(0)
    rows = os.get_terminal_size(1).lines
    cols = os.get_terminal_size(1).columns
    rule = "─" * cols
    look = sys.argv[2] if len(sys.argv) > 2 else "claude"
    frame0 = (
        "\x1b[?1049h\x1b[2J\x1b[H● Thinking about the task\r\n"
        f"\x1b[{rows - 3};1H{rule}\x1b[{rows - 2};1H❯ \x1b[{rows - 1};1H{rule}"
        f"\x1b[{rows};1H  ⏵⏵ accept edits on · esc to interrupt"
    )
    pi = pi_frames(rows, cols) if look == "pi" else None
    os.write(1, (pi[0] if pi else frame0).encode())
    i = 0
    start = time.monotonic()
    while True:
        i += 1
        if pi:
            frame = pi[1][i % len(pi[1])]
        else:
            glyph = GLYPHS[i % len(GLYPHS)]
            frame = f"\x1b[{rows - 5};1H\x1b[38;5;174m{glyph}\x1b[39m Pondering… ({i // 10}s)\x1b[K"
            frame += f"\x1b[{rows - 2};3H"
        os.write(1, frame.encode())
        next_at = start + i / rate
        time.sleep(max(0.0, next_at - time.monotonic()))


if __name__ == "__main__":
    main()
