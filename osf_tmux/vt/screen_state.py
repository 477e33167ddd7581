"""The screen's state and the grid operations every part of the emulator shares.

The cursor, the scroll region, the modes, the saved cursor and the alternate screen, and what
moves or clears them as tmux 3.3a's screen-write.c does. Printing (printing.py) and the control
sequences (screen.py) are built on these."""

from __future__ import annotations

from collections import deque

from osf_tmux.vt.grid import BLANK, Grid, blank_row
from osf_tmux.vt.resize import resize_grid

# Rows kept above the screen so a resize can pull them back as tmux does (tmux keeps 2000;
# a shorter history only matters when a pane grows by more than this).
HISTORY_ROWS = 200


class ScreenState:
    """A pane's grid, cursor and modes, and the moves, scrolls and clears tmux makes on them."""

    def __init__(self, cols: int, rows: int) -> None:
        self.cols = max(1, cols)
        self.rows = max(1, rows)
        self.grid = Grid(self.cols, self.rows)
        self.history: deque[tuple[list[str], bool]] = deque(maxlen=HISTORY_ROWS)
        # The main screen while the alternate one is shown (tmux's saved_grid).
        self.saved_grid: Grid | None = None
        self.saved_history_on = True
        self.title = ""
        self.title_stack: list[str] = []
        self._reset_state()
        # ?1049 cursor (tmux's saved_cx/saved_cy): survives leaving the alternate screen.
        self.alt_cursor: tuple[int, int] | None = None

    def _reset_state(self) -> None:
        self.cx = 0
        self.cy = 0
        self.rupper = 0
        self.rlower = self.rows - 1
        self.mode_wrap = True
        self.mode_insert = False
        self.mode_origin = False
        self.cursor_visible = True
        self.tabs = set(range(8, self.cols, 8))
        # DECSC/SCOSC slot (tmux keeps one, not a stack).
        self.saved_cx = 0
        self.saved_cy = 0
        self.saved_origin = False
        # The last printed ASCII character, for REP; cleared by anything but printing.
        self.last: str | None = None
        self.zwj_pending = False

    @property
    def alt_screen(self) -> bool:
        return self.saved_grid is not None

    # -- cursor ---------------------------------------------------------------------------

    def _move(self, x: int, y: int, origin: bool) -> None:
        """screen_write_cursormove: -1 keeps a coordinate; clamps into the screen."""
        if origin and y != -1 and self.mode_origin:
            y = self.rlower if y > self.rlower - self.rupper else y + self.rupper
        if x != -1:
            self.cx = min(x, self.cols - 1)
        if y != -1:
            self.cy = min(y, self.rows - 1)

    def _cursor_up(self, n: int) -> None:
        cy = self.cy
        n = min(n, cy) if cy < self.rupper else min(n, cy - self.rupper)
        if self.cx == self.cols:
            self.cx -= 1
        self.cy = cy - n

    def _cursor_down(self, n: int) -> None:
        cy = self.cy
        n = min(n, self.rows - 1 - cy) if cy > self.rlower else min(n, self.rlower - cy)
        if self.cx == self.cols:
            self.cx -= 1
        self.cy = cy + n

    def _backspace(self) -> None:
        if self.cx == 0:
            if self.cy > 0 and self.grid.wrapped[self.cy - 1]:
                self.cy -= 1
                self.cx = self.cols - 1
        else:
            self.cx -= 1

    def _tab(self) -> None:
        cols = self.cols
        if self.cx >= cols - 1:
            return
        cx = self.cx
        while True:
            cx += 1
            if cx in self.tabs or cx >= cols - 1:
                break
        self.cx = cx

    def _save_cursor(self) -> None:
        self.saved_cx, self.saved_cy, self.saved_origin = self.cx, self.cy, self.mode_origin

    def _restore_cursor(self) -> None:
        self.mode_origin = self.saved_origin
        self._move(self.saved_cx, self.saved_cy, origin=False)

    # -- lines and cells ------------------------------------------------------------------

    def _linefeed(self, wrapped: bool) -> None:
        grid = self.grid
        if wrapped:
            grid.wrapped[self.cy] = True
        if self.cy == self.rlower:
            self._scroll_up(self.rupper, self.rlower)
        elif self.cy < self.rows - 1:
            self.cy += 1

    def _scroll_up(self, top: int, bottom: int) -> None:
        grid = self.grid
        line = grid.lines.pop(top)
        wrapped = grid.wrapped.pop(top)
        grid.text.pop(top)
        if top == 0 and bottom == self.rows - 1 and self.saved_grid is None:
            self.history.append((line, wrapped))
        grid.lines.insert(bottom, blank_row(self.cols))
        grid.wrapped.insert(bottom, False)
        grid.text.insert(bottom, None)

    def _scroll_down(self, top: int, bottom: int) -> None:
        grid = self.grid
        del grid.lines[bottom], grid.wrapped[bottom], grid.text[bottom]
        grid.lines.insert(top, blank_row(self.cols))
        grid.wrapped.insert(top, False)
        grid.text.insert(top, None)

    def _reverse_index(self) -> None:
        if self.cy == self.rupper:
            self._scroll_down(self.rupper, self.rlower)
        elif self.cy > 0:
            self.cy -= 1

    def _clear_lines(self, start: int, end: int) -> None:
        grid = self.grid
        if start == 0 and end >= self.rows:
            grid.wide = False  # nothing is left on it (history comes back only by resize)
        for y in range(start, end):
            grid.lines[y] = blank_row(self.cols)
            grid.text[y] = None
            grid.wrapped[y] = False

    def _clear_cells(self, y: int, start: int, end: int) -> None:
        line = self.grid.lines[y]
        line[start:end] = [BLANK] * (end - start)
        self.grid.text[y] = None

    def _insert_cells(self, x: int, y: int, n: int) -> None:
        cols = self.cols
        if x >= cols:
            return
        line = self.grid.lines[y]
        n = min(n, cols - x)
        line[x:x] = [BLANK] * n
        del line[cols:]
        self.grid.text[y] = None

    def _alignment_test(self) -> None:
        grid = self.grid
        for y in range(self.rows):
            grid.lines[y] = ["E"] * self.cols
            grid.text[y] = None
        self.cx = self.cy = 0
        self.rupper, self.rlower = 0, self.rows - 1

    # -- alternate screen and resize ------------------------------------------------------

    def _alternate_on(self, save_cursor: bool) -> None:
        if self.saved_grid is not None:
            return
        if save_cursor:
            self.alt_cursor = (self.cx, self.cy)
        self.saved_grid = self.grid
        self.grid = Grid(self.cols, self.rows)

    def _alternate_off(self, restore_cursor: bool) -> None:
        if restore_cursor and self.alt_cursor is not None:
            self.cx, self.cy = self.alt_cursor
        main = self.saved_grid
        if main is None:
            return
        self.saved_grid = None
        if main.cols != self.cols or main.rows != self.rows:
            cx, cy = self.cx, self.cy
            self.grid = main
            self._resize_grid(self.cols, self.rows, reflow=True)
            self.cx, self.cy = cx, cy
        else:
            self.grid = main
            main.text = [None] * main.rows
        self.cx = min(self.cx, self.cols - 1)
        self.cy = min(self.cy, self.rows - 1)

    def resize(self, cols: int, rows: int) -> None:
        """tmux's screen_resize: rows below the cursor go first, then rows into history; the
        main screen reflows wrapped lines (the alternate screen does not)."""
        cols, rows = max(1, cols), max(1, rows)
        if (cols, rows) == (self.cols, self.rows):
            return
        if self.saved_grid is None:
            self._resize_grid(cols, rows, reflow=True)
        else:
            self._resize_grid(cols, rows, reflow=False)
        self.tabs = set(range(8, self.cols, 8))

    def _resize_grid(self, cols: int, rows: int, reflow: bool) -> None:
        history = self.history if self.saved_grid is None else None
        self.cx, self.cy = resize_grid(self.grid, history, cols, rows, self.cx, self.cy, reflow)
        self.cols, self.rows = cols, rows
        self.rupper, self.rlower = 0, rows - 1
