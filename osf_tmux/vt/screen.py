"""The screen model behind PaneScreen: what tmux 3.3a's screen-write.c does to a pane's grid.

Only text is modelled (osf-tmux classifies text; colours and attributes are parsed and dropped).
A row is a list of cells; a cell is the string tmux would print for it with `capture-pane -p`:
one character plus any zero-width characters combined onto it, or "" for the padding cell that
follows a wide character (capture-pane skips padding, and so does "".join).

tmux, not xterm, is the reference, including its quirks: the cursor may sit one past the last
column (pending wrap, reported as cursor_x == width), a line feed keeps that column, IL outside
the scroll region does nothing while DL works, CUB from the pending column does not clamp first.
Each quirk here was measured against a real tmux pane (tests/vt/test_screen_conformance.py)."""

from __future__ import annotations

import contextlib
import re
from collections import deque
from collections.abc import Sequence

from osf_tmux.vt.csi import CSI_PLAIN, prepare_run
from osf_tmux.vt.grid import BLANK, PAD, Grid, blank_row
from osf_tmux.vt.resize import resize_grid
from osf_tmux.vt.stream import CsiRun, Param, PreparedRun
from osf_tmux.vt.width import char_width

ZWJ = "\u200d"
# tmux stores at most this many UTF-8 bytes in a cell; combining past it is dropped.
CELL_BYTES = 21
# Rows kept above the screen so a resize can pull them back as tmux does (tmux keeps 2000;
# a shorter history only matters when a pane grows by more than this).
HISTORY_ROWS = 200
# Complete CSI sequences that change nothing modelled here but REP's character, as any sequence
# does (what swallowed() does): SGR in every form, since colours and attributes are not
# modelled. The parser takes text with them inside (around every word) in one piece.
INERT_CSI = rb"\x1b\[[\x3c-\x3f]?[\x30-\x3b]*[\x20-\x2f]*m"
# Characters known to take one cell (ASCII's printable ones, then every one met so far), so
# a run of text is checked in one set operation; bounded, hostile input cannot grow it forever.
_NARROW = {chr(c) for c in range(0x20, 0x7F)}
_NARROW_MAX = 1 << 16
# Whole runs of text found narrow, as the cells they fill: a row redrawn every frame (a
# border, a footer) is checked once, by its hash, and goes into the grid without making a new
# string for each character again. Bounded by the cells kept; a full cache starts again.
_NARROW_CELLS: dict[str, tuple[str, ...]] = {}
_NARROW_CELLS_MAX = 1 << 14
_NARROW_TEXT_LEN = 1024
_narrow_cells_kept = 0
# Text cut into its ASCII and other runs (tmux prints the two differently).
_RUNS = re.compile(r"[\x20-\x7e]+|[^\x20-\x7e]+")


def _narrow_cells(text: str) -> tuple[str, ...] | None:
    """The cells of text whose every character takes one cell; None when one does not."""
    global _narrow_cells_kept
    if not _NARROW.issuperset(text):
        for ch in set(text).difference(_NARROW):
            if char_width(ch) != 1:
                return None
            if len(_NARROW) < _NARROW_MAX:
                _NARROW.add(ch)
    cells = tuple(text)
    if len(text) <= _NARROW_TEXT_LEN:
        if _narrow_cells_kept + len(text) > _NARROW_CELLS_MAX:
            _NARROW_CELLS.clear()
            _narrow_cells_kept = 0
        _NARROW_CELLS[text] = cells
        _narrow_cells_kept += len(text)
    return cells


class TmuxScreen:
    """Implements vt_stream.Terminal with tmux semantics."""

    inert_csi = INERT_CSI

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

    # -- printing -------------------------------------------------------------------------

    def print_ascii(self, text: str) -> None:
        self.last = text[-1]
        if not self.mode_wrap or self.mode_insert:
            if not self.mode_insert and self._print_nowrap(text):
                return
            cell = self._cell
            for ch in text:
                cell(ch, 1)
            return
        cx = self.cx
        end = cx + len(text)
        if end < self.cols:  # the usual case, the loop below once: it fits, no padding after
            line = self.grid.lines[self.cy]
            if line[end] != PAD:
                line[cx:end] = text
                self.grid.text[self.cy] = None
                self.cx = end
                return
        # tmux's collect path: write runs straight into the row, then drop padding left
        # dangling after the run (but not a wide character the run starts inside of).
        grid = self.grid
        cols = self.cols
        pos = 0
        n = len(text)
        while pos < n:
            if self.cx > cols - 1:
                self._linefeed(True)
                self.cx = 0
            cx = self.cx
            k = min(n - pos, cols - cx)
            line = grid.lines[self.cy]
            end = cx + k
            line[cx:end] = text[pos : pos + k]
            while end < cols and line[end] == PAD:
                line[end] = BLANK
                end += 1
            grid.text[self.cy] = None
            self.cx = cx + k
            pos += k

    def _print_nowrap(self, text: Sequence[str]) -> bool:
        """Characters of one cell each without autowrap, as _cell would print them one by one,
        when no wide character is in the way: the cursor stops at the last column, where each
        character left overwrites the one before. False (nothing done) otherwise."""
        cols = self.cols
        cx = self.cx
        if cx >= cols:
            return True  # past the last column (wrap turned off while pending): all dropped
        n = len(text)
        end = min(cx + n, cols - 1)
        line = self.grid.lines[self.cy]
        if self.grid.wide and PAD in line[cx : end + 1]:
            return False
        if cx + n <= cols - 1:
            line[cx:end] = text
        else:
            line[cx:end] = text[: end - cx]
            line[end] = text[-1]
        self.grid.text[self.cy] = None
        self.cx = end
        return True

    def print_run(self, text: str) -> None:
        """Printable text, ASCII and not, as print_ascii and print_text would print its runs.
        Where no wide character is near, the two write the same cells: then the text goes in
        as slices of a row, whatever it holds, like an ASCII run."""
        if text.isascii():
            self.print_ascii(text)
            return
        cells = _NARROW_CELLS.get(text)
        if not self.mode_wrap and not self.mode_insert and not self.zwj_pending:
            # print_char and print_ascii both print a narrow character with _cell.
            if cells is None:
                cells = _narrow_cells(text)
            if cells is not None and self._print_nowrap(cells):
                self.last = text[-1] if text[-1] < "\x7f" else None
                return
        if (
            not self.mode_wrap
            or self.mode_insert
            or self.zwj_pending
            or (cells is None and (cells := _narrow_cells(text)) is None)
        ):
            for run in _RUNS.findall(text):
                if run[0] < "\x7f":
                    self.print_ascii(run)
                else:
                    self.print_text(run)
            return
        cx = self.cx
        end = cx + len(text)
        if end <= self.cols:  # the usual case: it fits the row (so no pending wrap either)
            line = self.grid.lines[self.cy]
            if not self.grid.wide or PAD not in line[cx : end + 1]:
                line[cx:end] = cells
                self.grid.text[self.cy] = None
                self.cx = end
                self.last = text[-1] if text[-1] < "\x7f" else None
                return
        grid = self.grid
        cols = self.cols
        pos = 0
        n = len(text)
        while pos < n:
            if self.cx > cols - 1:
                self._linefeed(True)
                self.cx = 0
            cx = self.cx
            k = min(n - pos, cols - cx)
            line = grid.lines[self.cy]
            end = cx + k
            if grid.wide and PAD in line[cx : end + 1]:
                # A wide character in the way: ASCII overwrites it the collect way, the rest
                # cell by cell (the piece fits the row, so neither wraps).
                for run in _RUNS.findall(text[pos : pos + k]):
                    if run[0] < "\x7f":
                        self.print_ascii(run)
                    else:
                        self._narrow_run(run)
            else:
                line[cx:end] = cells[pos : pos + k]
                grid.text[self.cy] = None
                self.cx = end
            pos += k
        self.last = text[-1] if text[-1] < "\x7f" else None

    def print_char(self, char: str) -> None:
        self.last = None
        width = char_width(char)
        if width < 0:
            return
        # tmux 3.3a holds a ZWJ back and glues it, with the next non-ASCII character whatever
        # its width, onto the cell before the cursor (so 👨‍💻 takes 2 cells, not 4).
        if char == ZWJ:
            self.zwj_pending = True
            return
        if self.zwj_pending:
            self.zwj_pending = False
            self._combine(ZWJ + char)
            return
        if width == 0:
            self._combine(char)
            return
        self._cell(char, width)

    def print_text(self, text: str) -> None:
        """Runs of 1-cell characters (box drawing, bullets, accents) go in as slices when no
        wide character is in the way; anything else takes the per-character path."""
        if not self.mode_wrap or self.mode_insert:
            for ch in text:
                self.print_char(ch)
            return
        self.last = None
        n = len(text)
        i = 0
        while i < n:
            if self.zwj_pending or char_width(text[i]) != 1:
                self.print_char(text[i])
                i += 1
                continue
            j = i + 1
            while j < n and char_width(text[j]) == 1:
                j += 1
            self._narrow_run(text[i:j])
            i = j

    def _narrow_run(self, run: str) -> None:
        cols = self.cols
        grid = self.grid
        pos = 0
        n = len(run)
        while pos < n:
            if self.cx > cols - 1:
                self._linefeed(True)
                self.cx = 0
            cx = self.cx
            k = min(n - pos, cols - cx)
            line = grid.lines[self.cy]
            end = cx + k
            if grid.wide and PAD in line[cx : end + 1]:
                for ch in run[pos : pos + k]:
                    self._cell(ch, 1)
            else:
                line[cx:end] = run[pos : pos + k]
                grid.text[self.cy] = None
                self.cx = end
            pos += k

    def _combine(self, char: str) -> None:
        cx = self.cx
        if cx == 0:
            return
        line = self.grid.lines[self.cy]
        x = min(cx, self.cols) - 1
        while x >= 0 and line[x] == PAD:
            x -= 1
        if x < 0:
            return
        if len((line[x] + char).encode("utf-8")) > CELL_BYTES:
            return
        line[x] += char
        self.grid.text[self.cy] = None

    def _cell(self, char: str, width: int) -> None:
        """screen_write_cell: one character of `width` cells at the cursor."""
        cols = self.cols
        if (
            not self.mode_wrap
            and width > 1
            and (width > cols or (self.cx != cols and self.cx > cols - width))
        ):
            return  # a wide character that cannot fit is dropped without autowrap
        if self.mode_insert:
            self._insert_cells(self.cx, self.cy, width)
        if self.mode_wrap and self.cx > cols - width:
            self._linefeed(True)
            self.cx = 0
        cx = self.cx
        if cx > cols - width:
            return
        line = self.grid.lines[self.cy]
        self._overwrite(line, cx, width)
        line[cx] = char
        if width > 1:
            self.grid.wide = True
            for x in range(cx + 1, cx + width):
                line[x] = PAD
        self.grid.text[self.cy] = None
        if self.mode_wrap or cx + width < cols - 1:
            self.cx = cx + width
        else:
            self.cx = cols - width  # without autowrap the cursor sticks at the last column

    def _overwrite(self, line: list[str], cx: int, width: int) -> None:
        """Blank the rest of any wide character the new one lands on (screen_write_overwrite)."""
        cols = self.cols
        old = line[cx]
        old_wide = old == PAD
        if old == PAD:
            x = cx
            while x > 0 and line[x] == PAD:
                line[x] = BLANK
                x -= 1
            line[x] = BLANK
        else:
            old_wide = char_width(old[0]) > 1 if old else False
        if width != 1 or old_wide:
            x = cx + width
            while x < cols and line[x] == PAD:
                line[x] = BLANK
                x += 1

    # -- controls -------------------------------------------------------------------------

    def execute(self, code: int) -> None:
        self.last = None
        if code == 0x0D:
            self.cx = 0
        elif code == 0x0A or code == 0x0B or code == 0x0C:
            self._linefeed(False)
        elif code == 0x08:
            self._backspace()
        elif code == 0x09:
            self._tab()

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

    # -- ESC ------------------------------------------------------------------------------

    def esc_dispatch(self, intermediates: str, final: str) -> None:
        self.last = None
        if intermediates == "":
            if final == "7":
                self._save_cursor()
            elif final == "8":
                self._restore_cursor()
            elif final == "D":
                self._linefeed(False)
            elif final == "E":
                self.cx = 0
                self._linefeed(False)
            elif final == "M":
                self._reverse_index()
            elif final == "H":
                if self.cx < self.cols:
                    self.tabs.add(self.cx)
            elif final == "c":
                self._full_reset()
        elif intermediates == "#" and final == "8":
            self._alignment_test()

    def _save_cursor(self) -> None:
        self.saved_cx, self.saved_cy, self.saved_origin = self.cx, self.cy, self.mode_origin

    def _restore_cursor(self) -> None:
        self.mode_origin = self.saved_origin
        self._move(self.saved_cx, self.saved_cy, origin=False)

    def _reverse_index(self) -> None:
        if self.cy == self.rupper:
            self._scroll_down(self.rupper, self.rlower)
        elif self.cy > 0:
            self.cy -= 1

    def _full_reset(self) -> None:
        self._reset_state()
        self._clear_lines(0, self.rows)

    def _alignment_test(self) -> None:
        grid = self.grid
        for y in range(self.rows):
            grid.lines[y] = ["E"] * self.cols
            grid.text[y] = None
        self.cx = self.cy = 0
        self.rupper, self.rlower = 0, self.rows - 1

    # -- strings --------------------------------------------------------------------------

    def osc_dispatch(self, data: bytes) -> None:
        self.last = None
        code, _, rest = data.partition(b";")
        if code in (b"0", b"2"):
            self._set_title(rest)

    def apc_dispatch(self, data: bytes) -> None:
        # tmux takes an APC string as a title (screen's convention), kitty queries included.
        self.last = None
        self._set_title(data)

    def _set_title(self, data: bytes) -> None:
        # tmux refuses a title that is not valid UTF-8.
        with contextlib.suppress(UnicodeDecodeError):
            self.title = data.decode("utf-8")

    def swallowed(self) -> None:
        self.last = None

    # -- CSI ------------------------------------------------------------------------------

    def csi_dispatch(self, intermediates: str, params: list[Param], final: str) -> None:
        last = self.last
        self.last = None
        if intermediates == "":
            handler = CSI_PLAIN.get(final)
            if handler is not None:
                handler(self, params, last)
        elif intermediates == "?":
            if final == "h":
                self._private_modes(params, True)
            elif final == "l":
                self._private_modes(params, False)

    @staticmethod
    def prepare_run(items: CsiRun) -> PreparedRun:
        return prepare_run(items)

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

    def _private_modes(self, params: list[Param], on: bool) -> None:
        for p in params:
            if p == 3:  # DECCOLM: tmux only clears and homes
                self._move(0, 0, origin=True)
                self._clear_lines(0, self.rows)
            elif p == 6:
                self.mode_origin = on
                self._move(0, 0, origin=True)
            elif p == 7:
                self.mode_wrap = on
            elif p == 25:
                self.cursor_visible = on
            elif p in (47, 1047, 1049):
                if on:
                    self._alternate_on(p == 1049)
                else:
                    self._alternate_off(p == 1049)

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

    # -- resize ---------------------------------------------------------------------------

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
