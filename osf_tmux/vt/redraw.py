"""A screen drawn again from its snapshot: the bytes that put `Snapshot`'s text, cursor, title
and alternate screen back on a blank terminal of its size (where a capture must replay from a
screen whose own bytes are gone: daemon/recent.py, a redacted capture)."""

from __future__ import annotations

import re

from osf_tmux.vt.snapshot import Snapshot

# A title is put back with OSC 2: nothing in it may end or break out of the sequence.
_UNSAFE_TITLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def seed_bytes(snap: Snapshot) -> bytes:
    """Bytes that draw `snap` on a blank terminal of its size: each row's text put in place
    with CUP (no row can wrap into the next), the alternate screen, the title, the cursor and
    whether it shows. Colours are not kept: no rule reads them."""
    out = ["\x1b[?1047h" if snap.alt_screen else "", "\x1b[H\x1b[2J"]
    for y, row in enumerate(snap.rows):
        if row:
            out.append(f"\x1b[{y + 1};1H{row}")
    if snap.title:
        out.append(f"\x1b]2;{_UNSAFE_TITLE.sub('', snap.title)}\x07")
    x, y = snap.cursor
    out.append(f"\x1b[{y + 1};{x + 1}H")
    if not snap.cursor_visible:
        out.append("\x1b[?25l")
    return "".join(out).encode("utf-8", "replace")
