"""Text into the grid: how tmux 3.3a prints runs of ASCII, wide characters, combining and
zero-width characters, with pending wrap and insert mode. The fast paths here take a whole run
of narrow text at once; they must leave the grid as printing it character by character would
(tests/vt/test_vt_fast_paths.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from osf_tmux.budget_cache import BudgetCache
from osf_tmux.vt.grid import BLANK, PAD
from osf_tmux.vt.kept import CELL_COST, CHAR_COST, ENTRY_COST, PARSER
from osf_tmux.vt.screen_state import ScreenState
from osf_tmux.vt.width import char_width

ZWJ = "\u200d"
# tmux stores at most this many UTF-8 bytes in a cell; combining past it is dropped.
CELL_BYTES = 21
# Characters known to take one cell (ASCII's printable ones, then every one met so far), so
# a run of text is checked in one set operation; bounded, hostile input cannot grow it forever.
_NARROW = {chr(c) for c in range(0x20, 0x7F)}
_NARROW_MAX = 1 << 16
# Whole runs of text found narrow, as the cells they fill: a row redrawn every frame (a
# border, a footer) is checked once, by its hash, and goes into the grid without making a new
# string for each character again. On the parser's budget (vt/kept.py).


def _cells_cost(text: str, cells: tuple[str, ...]) -> int:
    # A cell beyond Latin-1 is a string of its own (Python shares only Latin-1's).
    own = len(text) - len(text.encode("latin-1", "ignore"))
    return len(text) + CELL_COST * len(cells) + CHAR_COST * own + ENTRY_COST


_NARROW_CELLS: BudgetCache[str, tuple[str, ...]] = BudgetCache(PARSER, _cells_cost)
_NARROW_TEXT_LEN = 1024
# Text cut into its ASCII and other runs (tmux prints the two differently).
_RUNS = re.compile(r"[\x20-\x7e]+|[^\x20-\x7e]+")


def _narrow_cells(text: str) -> tuple[str, ...] | None:
    """The cells of text whose every character takes one cell; None when one does not."""
    cells = _NARROW_CELLS.get(text)  # in the older generation
    if cells is not None:
        return cells
    if not _NARROW.issuperset(text):
        for ch in set(text).difference(_NARROW):
            if char_width(ch) != 1:
                return None
            if len(_NARROW) < _NARROW_MAX:
                _NARROW.add(ch)
    cells = tuple(text)
    if len(text) <= _NARROW_TEXT_LEN:
        _NARROW_CELLS.put(text, cells)
    return cells


class TextPrinter(ScreenState):
    """The printing half of the terminal interface (state_machine.Terminal's print_* calls)."""

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
        cells = _NARROW_CELLS.newer.get(text)
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
