"""Draws osf-tmux's notification icon (osf_tmux/plugin/icons/osf-tmux.png), pure Python.

A dark rounded square holding two tmux panes side by side; the right one carries the red dot
that the status line shows for a waiting agent. Anti-aliased by 4x4 supersampling.

    python tools/draw_icon.py            # rewrites the shipped icon
    python tools/draw_icon.py --check    # exit 1 if the shipped icon differs from this drawing"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

SIZE = 64
SAMPLES = 4
OUT = Path(__file__).resolve().parent.parent / "osf_tmux" / "plugin" / "icons" / "osf-tmux.png"

Colour = tuple[int, int, int, int]
BACKGROUND: Colour = (30, 36, 48, 255)
FRAME: Colour = (139, 148, 166, 255)
PANE: Colour = (44, 52, 68, 255)
DOT: Colour = (228, 62, 62, 255)
CLEAR: Colour = (0, 0, 0, 0)


def inside_rounded(
    x: float, y: float, x0: float, y0: float, x1: float, y1: float, r: float
) -> bool:
    if not (x0 <= x <= x1 and y0 <= y <= y1):
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def colour_at(x: float, y: float) -> Colour:
    """The colour of one sample point, in a 64x64 design space."""
    if not inside_rounded(x, y, 2, 2, 62, 62, 12):
        return CLEAR
    if (x - 43) ** 2 + (y - 33) ** 2 <= 8**2:
        return DOT
    # Two panes inside a frame, split by a vertical border as tmux draws it.
    if inside_rounded(x, y, 9, 12, 55, 54, 3):
        if 30.5 <= x <= 33.5 or not inside_rounded(x, y, 11, 14, 53, 52, 2):
            return FRAME
        return PANE
    if 9 <= x <= 55 and 6 <= y <= 9:
        return FRAME  # the status line above the panes
    return BACKGROUND


def pixels() -> list[list[Colour]]:
    rows = []
    step = 1 / SAMPLES
    for py in range(SIZE):
        row = []
        for px in range(SIZE):
            acc = [0, 0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    c = colour_at(px + (sx + 0.5) * step, py + (sy + 0.5) * step)
                    a = c[3]
                    acc[0] += c[0] * a
                    acc[1] += c[1] * a
                    acc[2] += c[2] * a
                    acc[3] += a
            n = SAMPLES * SAMPLES
            alpha = acc[3] / n
            rgb = [round(acc[i] / acc[3]) for i in range(3)] if acc[3] else [0, 0, 0]
            row.append((rgb[0], rgb[1], rgb[2], round(alpha)))
        rows.append(row)
    return rows


def png(rows: list[list[Colour]]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in rows)
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main(argv: list[str]) -> int:
    data = png(pixels())
    if "--check" in argv:
        same = OUT.exists() and OUT.read_bytes() == data
        print(f"{OUT}: {'as drawn' if same else 'differs from the drawing'}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
