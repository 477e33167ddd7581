"""Resizing a grid the way tmux's screen_resize does (height first, then width with reflow).

Height: shrinking drops rows below the cursor first, then moves top rows into history (main
screen) or drops them (alternate screen); growing pulls rows back from history, then adds blank
rows. Width, main screen only: wrapped rows are joined into logical lines and split again at the
new width; the visible screen is the last `rows` rows of the result. The alternate screen is cut
or padded instead (its program redraws on SIGWINCH anyway)."""

from __future__ import annotations

from collections import deque

from osf_tmux.vt.grid import BLANK, PAD, Grid
from osf_tmux.vt.width import char_width

History = deque[tuple[list[str], bool]]


def resize_grid(
    grid: Grid,
    history: History | None,
    cols: int,
    rows: int,
    cx: int,
    cy: int,
    reflow: bool,
) -> tuple[int, int]:
    """Resize `grid` in place (and `history` when given); returns the new cursor."""
    if rows != grid.rows:
        cy = _resize_height(grid, history, rows, cy)
    if cols != grid.cols:
        if reflow and history is not None:
            cx, cy = _reflow(grid, history, cols, cx, cy)
        else:
            _cut_width(grid, cols)
    grid.cols = cols
    grid.text = [None] * grid.rows
    # Rows may have come back from history, or lost their wide characters at the new edge.
    grid.wide = any(PAD in line for line in grid.lines)
    # tmux leaves x alone (it may sit at or past the new width until the next move).
    return cx, max(0, min(cy, grid.rows - 1))


def _blank(cols: int) -> list[str]:
    return [BLANK] * cols


def _resize_height(grid: Grid, history: History | None, rows: int, cy: int) -> int:
    old = grid.rows
    lines, wrapped = grid.lines, grid.wrapped
    if rows < old:
        needed = old - rows
        below = min(max(0, old - 1 - cy), needed)
        if below:
            del lines[old - below :], wrapped[old - below :]
        needed -= below
        if needed:
            if history is not None:
                history.extend(zip(lines[:needed], wrapped[:needed], strict=True))
            del lines[:needed], wrapped[:needed]
            cy -= needed
    else:
        needed = rows - old
        pulled = 0
        if history is not None:
            while history and pulled < needed:
                line, wrap = history.pop()
                lines.insert(0, _fit(line, grid.cols))
                wrapped.insert(0, wrap)
                pulled += 1
        cy += pulled
        for _ in range(needed - pulled):
            lines.append(_blank(grid.cols))
            wrapped.append(False)
    grid.rows = rows
    return cy


def _fit(line: list[str], cols: int) -> list[str]:
    if len(line) >= cols:
        return line[:cols]
    return line + _blank(cols - len(line))


def _cut_width(grid: Grid, cols: int) -> None:
    grid.lines = [_fit(line, cols) for line in grid.lines]
    for line in grid.lines:
        if line and line[-1] != PAD and _wide_at_end(line):
            line[-1] = BLANK  # half a wide character cannot stay
        if line and line[0] == PAD:
            line[0] = BLANK


def _wide_at_end(line: list[str]) -> bool:
    last = line[-1]
    return bool(last) and char_width(last[0]) > 1


def _used(line: list[str]) -> int:
    n = len(line)
    while n and line[n - 1] == BLANK:
        n -= 1
    return n


def _reflow(grid: Grid, history: History, cols: int, cx: int, cy: int) -> tuple[int, int]:
    all_lines = [line for line, _ in history] + grid.lines
    all_wrapped = [w for _, w in history] + grid.wrapped
    cursor_row = len(history) + cy
    out_lines: list[list[str]] = []
    out_wrapped: list[bool] = []
    new_cursor = (0, 0)
    y = 0
    total = len(all_lines)
    while y < total:
        # One logical line: this row and the rows it wraps onto.
        cells: list[str] = []
        cursor_at = -1
        while True:
            line = all_lines[y]
            if y == cursor_row:
                cursor_at = len(cells) + cx
            more = all_wrapped[y] and y + 1 < total
            cells.extend(line if more else line[: _used(line)])
            y += 1
            if not more:
                break
        # Split at the new width; a wide character that does not fit starts the next row.
        start_row = len(out_lines)
        row: list[str] = []
        offsets: list[int] = []  # logical offset of each output row's first cell
        i = 0
        offsets.append(0)
        while i < len(cells):
            cell = cells[i]
            width = 1
            if cell and char_width(cell[0]) > 1:
                width = 2
            if len(row) + width > cols:
                out_lines.append(row + _blank(cols - len(row)))
                out_wrapped.append(True)
                row = []
                offsets.append(i)
            row.extend(cells[i : i + width])
            i += width
        out_lines.append(row + _blank(cols - len(row)))
        out_wrapped.append(False)
        if cursor_at >= 0:
            k = 0
            while k + 1 < len(offsets) and offsets[k + 1] <= cursor_at:
                k += 1
            new_cursor = (cursor_at - offsets[k], start_row + k)
    rows = grid.rows
    if len(out_lines) < rows:
        pad = rows - len(out_lines)
        out_lines.extend(_blank(cols) for _ in range(pad))
        out_wrapped.extend([False] * pad)
    hsize = len(out_lines) - rows
    history.clear()
    history.extend(zip(out_lines[:hsize], out_wrapped[:hsize], strict=True))
    grid.lines = out_lines[hsize:]
    grid.wrapped = out_wrapped[hsize:]
    ncx, ncy = new_cursor
    if ncy < hsize:
        return 0, 0
    return ncx, ncy - hsize
