"""One terminal emulator per pane (the only module that knows pyte).

Provisional version on stock pyte: the interface (PaneScreen.feed/resize/snapshot) is what the
rest of osf-tmux relies on; the fixes for pyte's gaps land behind it."""

from __future__ import annotations

import pyte

from osf_tmux.snapshot import Snapshot


class PaneScreen:
    """The screen of one pane, rebuilt from the bytes the pane's program wrote."""

    def __init__(self, cols: int, rows: int) -> None:
        self._screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self._screen)

    @property
    def size(self) -> tuple[int, int]:
        return self._screen.columns, self._screen.lines

    def feed(self, data: bytes) -> None:
        try:
            self._stream.feed(data)
        except Exception:  # stock pyte can raise on valid input; the real screen never does
            pass

    def resize(self, cols: int, rows: int) -> None:
        self._screen.resize(rows, cols)

    def snapshot(self) -> Snapshot:
        s = self._screen
        return Snapshot(
            cols=s.columns,
            rows=tuple(line.rstrip() for line in s.display),
            cursor=(s.cursor.x, s.cursor.y),
            cursor_visible=not s.cursor.hidden,
            title=s.title or "",
            alt_screen=False,
        )
