"""One terminal emulator per pane: replays a pane's raw output into what tmux 3.3a shows.

PaneScreen is the only way the rest of osf-tmux sees a screen. Behind it, vt_stream parses bytes
the way tmux's input.c does and vt_screen applies them the way tmux's screen-write.c does; the
oracle for both is a real tmux pane (tests/vt/test_screen_conformance.py). pyte was the first
engine; it differs from tmux in enough places (alternate screen, zero-width characters, wrap
of wide characters, unknown CSI drawn as text, exceptions out of feed) that the model is ours."""

from __future__ import annotations

import re

from osf_tmux.vt.screen import TmuxScreen
from osf_tmux.vt.snapshot import Snapshot
from osf_tmux.vt.stream import Parser

# SGR sequences in `capture-pane -e` output: styling only, the seed keeps the text.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


class PaneScreen:
    """The screen of one pane, rebuilt from the bytes the pane's program wrote."""

    def __init__(self, cols: int, rows: int) -> None:
        self._screen = TmuxScreen(cols, rows)
        self._parser = Parser(self._screen)

    @property
    def size(self) -> tuple[int, int]:
        return self._screen.cols, self._screen.rows

    def feed(self, data: bytes) -> None:
        """Apply bytes the pane's program wrote. Never raises on any input; an escape or UTF-8
        character split across calls is completed by the next call."""
        self._parser.feed(data)

    def resize(self, cols: int, rows: int) -> None:
        self._screen.resize(cols, rows)

    def tab_stops(self) -> frozenset[int]:
        """The columns a tab stops at now (every 8th unless the program set its own)."""
        return frozenset(self._screen.tabs)

    def snapshot(self) -> Snapshot:
        s = self._screen
        return Snapshot(
            cols=s.cols,
            rows=s.grid.render(),
            cursor=(s.cx, s.cy),
            cursor_visible=s.cursor_visible,
            title=s.title,
            alt_screen=s.alt_screen,
        )

    def seed(
        self,
        text_rows_with_sgr: list[str],
        cursor: tuple[int, int],
        alt_screen: bool,
        title: str = "",
        cursor_visible: bool = True,
        main_rows_with_sgr: list[str] | None = None,
    ) -> None:
        """Replace the screen with what `capture-pane -p -e` printed, plus the cursor formats.

        Each row is placed with CUP so that cells the capture left out stay blank and no row
        can wrap into the next. In the alternate screen, `main_rows_with_sgr` (from
        `capture-pane -p -e -a`) is the main screen behind it; without it that screen is blank."""
        cols, rows = self.size
        screen = TmuxScreen(cols, rows)
        parser = Parser(screen)

        def place(text_rows: list[str]) -> None:
            for y, row in enumerate(text_rows[:rows]):
                parser.feed(f"\x1b[{y + 1};1H".encode())
                # Escapes other than SGR in a capture would be ours to misread; keep the text.
                parser.feed(_SGR.sub("", row).replace("\x1b", "").encode("utf-8", "replace"))

        if alt_screen:
            place(main_rows_with_sgr or [])
            parser.feed(b"\x1b[?1047h")
        place(text_rows_with_sgr)
        x, y = cursor
        screen.cx = max(0, min(x, cols))
        screen.cy = max(0, min(y, rows - 1))
        screen.cursor_visible = cursor_visible
        screen.title = title
        screen.last = None
        self._screen = screen
        self._parser = parser
