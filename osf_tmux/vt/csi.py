"""tmux's input_csi_dispatch for the screen (vt/screen.py's TmuxScreen, as `CsiScreen`): one
handler per CSI final byte, and runs of sequences (with the OSCs and C0 controls between them)
prepared once into operations on the screen.

A run a program sends again and again (`ESC[2K ESC[1A` x N to erase a live area, `\\r\\n` and a
cursor move before text) is prepared once per distinct run (the parser keeps it): parameters
read with input_get's defaults ahead of time, one operation per sequence, and runs that are one
loop in effect (erase a row, move up; erase a row, move down; CR LF) done as one loop. Every
operation ends with REP's character cleared, as every sequence and control does; REP itself
sees the character only as the first of a run (after anything else it has none)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from osf_tmux.vt.grid import BLANK, Grid, blank_row
from osf_tmux.vt.state_machine import CsiCall, Param, PreparedRun


class CsiScreen(Protocol):
    """What the handlers read and change of the screen (TmuxScreen): its cursor, margins, modes
    and grid, and the moves it makes the way tmux's screen-write.c does. The screen imports
    these handlers, so they know it only by this shape."""

    cols: int
    rows: int
    cx: int
    cy: int
    rupper: int
    rlower: int
    grid: Grid
    history: deque[tuple[list[str], bool]]
    tabs: set[int]
    last: str | None
    title: str
    title_stack: list[str]
    mode_insert: bool
    mode_origin: bool
    cursor_visible: bool

    def print_ascii(self, text: str) -> None: ...
    def execute(self, code: int) -> None: ...
    def osc_dispatch(self, data: bytes) -> None: ...
    def _move(self, x: int, y: int, origin: bool) -> None: ...
    def _cursor_up(self, n: int) -> None: ...
    def _cursor_down(self, n: int) -> None: ...
    def _linefeed(self, wrapped: bool) -> None: ...
    def _scroll_up(self, top: int, bottom: int) -> None: ...
    def _scroll_down(self, top: int, bottom: int) -> None: ...
    def _save_cursor(self) -> None: ...
    def _restore_cursor(self) -> None: ...
    def _clear_lines(self, start: int, end: int) -> None: ...
    def _clear_cells(self, y: int, start: int, end: int) -> None: ...
    def _insert_cells(self, x: int, y: int, n: int) -> None: ...
    def _private_modes(self, params: list[Param], on: bool) -> None: ...


# -- one handler per final byte, in a table to dispatch in one lookup --


def _get(params: list[Param], i: int, minimum: int, default: int) -> int:
    """input_get: default when missing, -1 for a parameter with sub-parameters."""
    if i >= len(params):
        return default
    p = params[i]
    if p is None:
        return default
    if isinstance(p, str):
        return -1
    return max(p, minimum)


def _cuu(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s._cursor_up(n)


def _cud(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s._cursor_down(n)


def _cuf(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        cx = min(s.cx, s.cols - 1)
        s.cx = cx + min(n, s.cols - 1 - cx)


def _cub(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s.cx -= min(n, s.cx)


def _cnl(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s.cx = 0
        s._cursor_down(n)


def _cpl(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s.cx = 0
        s._cursor_up(n)


def _hpa(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s._move(n - 1, -1, origin=True)


def _vpa(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        s._move(-1, n - 1, origin=True)


def _cup(s: CsiScreen, p: list[Param], last: str | None) -> None:
    if len(p) == 2 and not s.mode_origin:
        row, col = p
        if type(row) is int and type(col) is int:  # the usual CSI row;col H, inlined
            s.cx = min(max(col, 1) - 1, s.cols - 1)
            s.cy = min(max(row, 1) - 1, s.rows - 1)
            return
    n = _get(p, 0, 1, 1)
    m = _get(p, 1, 1, 1)
    if n != -1 and m != -1:
        s._move(m - 1, n - 1, origin=True)


def _ed(s: CsiScreen, p: list[Param], last: str | None) -> None:
    how = _get(p, 0, 0, 0)
    cols, rows = s.cols, s.rows
    if how == 0:
        if s.cx < cols:
            s._clear_cells(s.cy, s.cx, cols)
        s._clear_lines(s.cy + 1, rows)
    elif how == 1:
        s._clear_lines(0, s.cy)
        s._clear_cells(s.cy, 0, min(s.cx + 1, cols))
    elif how == 2:
        s._clear_lines(0, rows)
    elif how == 3 and _get(p, 1, 0, 0) == 0:
        s.history.clear()  # scrollback only: the visible screen stays


def _el(s: CsiScreen, p: list[Param], last: str | None) -> None:
    how = _get(p, 0, 0, 0)
    cols = s.cols
    if how == 0:
        if s.cx < cols:
            s._clear_cells(s.cy, s.cx, cols)
    elif how == 1:
        s._clear_cells(s.cy, 0, min(s.cx + 1, cols))
    elif how == 2:
        s._clear_cells(s.cy, 0, cols)


def _il(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n == -1:
        return
    if s.rupper <= s.cy <= s.rlower:
        for _ in range(min(n, s.rlower + 1 - s.cy)):
            s._scroll_down(s.cy, s.rlower)
        return
    # Outside the region tmux 3.3a only moves rows (grid_move_lines): the rows that fit move
    # down by n, the source rows left uncovered are emptied, the rows between keep their text
    # and nothing happens when no row fits (measured; tmux's own clear is a no-op here).
    cy, grid = s.cy, s.grid
    n = min(n, s.rows - cy)
    count = s.rows - cy - n
    if count <= 0:
        return
    src, dst = slice(cy, cy + count), slice(cy + n, cy + n + count)
    grid.lines[dst], grid.wrapped[dst], grid.text[dst] = (
        grid.lines[src],
        grid.wrapped[src],
        grid.text[src],
    )
    for y in range(cy, min(cy + count, cy + n)):
        grid.lines[y] = blank_row(s.cols)
        grid.wrapped[y] = False
        grid.text[y] = None


def _dl(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n == -1:
        return
    bottom = s.rows - 1 if s.cy < s.rupper or s.cy > s.rlower else s.rlower
    n = min(n, bottom + 1 - s.cy)
    for _ in range(n):
        grid = s.grid
        del grid.lines[s.cy], grid.wrapped[s.cy], grid.text[s.cy]
        grid.lines.insert(bottom, blank_row(s.cols))
        grid.wrapped.insert(bottom, False)
        grid.text.insert(bottom, None)


def _ich(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1 and s.cx < s.cols:
        s._insert_cells(s.cx, s.cy, n)


def _dch(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    cols = s.cols
    if n == -1 or s.cx >= cols:
        return
    n = min(n, cols - s.cx)
    line = s.grid.lines[s.cy]
    del line[s.cx : s.cx + n]
    line.extend([BLANK] * n)
    s.grid.text[s.cy] = None


def _ech(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1 and s.cx < s.cols:
        s._clear_cells(s.cy, s.cx, min(s.cols, s.cx + n))


def _su(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        for _ in range(min(n, s.rlower - s.rupper + 1)):
            s._scroll_up(s.rupper, s.rlower)


def _sd(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n != -1:
        for _ in range(min(n, s.rlower - s.rupper + 1)):
            s._scroll_down(s.rupper, s.rlower)


def _cbt(s: CsiScreen, p: list[Param], last: str | None) -> None:
    cx = min(s.cx, s.cols - 1)
    n = _get(p, 0, 1, 1)
    if n == -1:
        return
    while cx > 0 and n > 0:
        n -= 1
        cx -= 1
        while cx > 0 and cx not in s.tabs:
            cx -= 1
    s.cx = cx


def _rep(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    if n == -1 or last is None:
        return
    n = min(n, s.cols - s.cx)
    if n > 0:
        s.print_ascii(last * n)
    s.last = None


def _tbc(s: CsiScreen, p: list[Param], last: str | None) -> None:
    how = _get(p, 0, 0, 0)
    if how == 0:
        s.tabs.discard(s.cx)
    elif how == 3:
        s.tabs.clear()


def _sm(s: CsiScreen, p: list[Param], last: str | None) -> None:
    for mode in p:
        if mode == 4:
            s.mode_insert = True


def _rm(s: CsiScreen, p: list[Param], last: str | None) -> None:
    for mode in p:
        if mode == 4:
            s.mode_insert = False


def _decstbm(s: CsiScreen, p: list[Param], last: str | None) -> None:
    n = _get(p, 0, 1, 1)
    m = _get(p, 1, 1, s.rows)
    if n == -1 or m == -1:
        return
    upper = min(n - 1, s.rows - 1)
    lower = min(m - 1, s.rows - 1)
    if upper >= lower:
        return
    s.cx = s.cy = 0
    s.rupper, s.rlower = upper, lower


def _scp(s: CsiScreen, p: list[Param], last: str | None) -> None:
    s._save_cursor()


def _rcp(s: CsiScreen, p: list[Param], last: str | None) -> None:
    s._restore_cursor()


def _winops(s: CsiScreen, p: list[Param], last: str | None) -> None:
    # Only the title stack (22/23) changes what a pane shows; the rest are reports or no-ops.
    m = 0
    while True:
        n = _get(p, m, 0, -1)
        if n == -1:
            return
        if n in (3, 4, 8):
            m += 2
        elif n in (9, 10):
            m += 1
        elif n in (22, 23):
            m += 1
            which = _get(p, m, 0, -1)
            if which == -1:
                return
            if which in (0, 2):
                if n == 22:
                    s.title_stack.append(s.title)
                    del s.title_stack[:-10]
                elif s.title_stack:
                    s.title = s.title_stack.pop()
        m += 1


CSI_PLAIN = {
    "@": _ich,
    "A": _cuu,
    "B": _cud,
    "C": _cuf,
    "D": _cub,
    "E": _cnl,
    "F": _cpl,
    "G": _hpa,
    "H": _cup,
    "J": _ed,
    "K": _el,
    "L": _il,
    "M": _dl,
    "P": _dch,
    "S": _su,
    "T": _sd,
    "X": _ech,
    "Z": _cbt,
    "`": _hpa,
    "b": _rep,
    "d": _vpa,
    "f": _cup,
    "g": _tbc,
    "h": _sm,
    "l": _rm,
    "r": _decstbm,
    "s": _scp,
    "t": _winops,
    "u": _rcp,
}


# -- runs prepared once -----------------------------------------------------------------------
# An operation is (function, argument), called as function(screen, argument); it leaves REP's
# character cleared.
Op = tuple[Callable[[CsiScreen, Any], None], Any]


def _op_clear_last(s: CsiScreen, arg: None) -> None:
    s.last = None


def _op_nothing(s: CsiScreen, arg: None) -> None:
    pass


def _op_seq(s: CsiScreen, ops: tuple[Op, ...]) -> None:
    for fn, arg in ops:
        fn(s, arg)


def _op_call(s: CsiScreen, arg: tuple[Callable[..., None], list[Param]]) -> None:
    handler, params = arg
    s.last = None
    handler(s, params, None)


def _op_rep(s: CsiScreen, n: int) -> None:
    last = s.last
    s.last = None
    _rep(s, [n], last)


def _op_up(s: CsiScreen, n: int) -> None:
    s.last = None
    s._cursor_up(n)


def _op_down(s: CsiScreen, n: int) -> None:
    s.last = None
    s._cursor_down(n)


def _op_column(s: CsiScreen, x: int) -> None:
    # HPA/CHA: the row is kept, so origin mode plays no part.
    s.last = None
    cols = s.cols
    s.cx = x if x < cols else cols - 1


def _op_cup(s: CsiScreen, arg: tuple[int, int]) -> None:
    x, y = arg
    s.last = None
    if s.mode_origin:
        s._move(x, y, origin=True)
    else:
        cols, rows = s.cols, s.rows
        s.cx = x if x < cols else cols - 1
        s.cy = y if y < rows else rows - 1


def _op_el(s: CsiScreen, how: int) -> None:
    """EL 0 (to the end of the row) and 1 (to the cursor, inclusive)."""
    s.last = None
    cols = s.cols
    if how == 0:
        start, end = s.cx, cols
    else:
        start, end = 0, min(s.cx + 1, cols)
    if start < end:
        line = s.grid.lines[s.cy]
        line[start:end] = [BLANK] * (end - start)
        s.grid.text[s.cy] = None


def _op_el2(s: CsiScreen, arg: None) -> None:
    """EL 2: the whole row, wherever the cursor is."""
    s.last = None
    cols = s.cols
    cy = s.cy
    s.grid.lines[cy][0:cols] = [BLANK] * cols
    s.grid.text[cy] = None


def _op_erase_rows(s: CsiScreen, arg: tuple[int, int]) -> None:
    """(EL 2, CUU n) or (EL 2, CUD n) k times, as `(-n, k)` or `(n, k)`: each row cleared whole,
    then the cursor moved, stopping at the edge of the scroll region it moves towards (or of
    the screen, from outside the region) as _cursor_up and _cursor_down do."""
    step, k = arg
    s.last = None
    cols = s.cols
    blank = [BLANK] * cols
    lines, text = s.grid.lines, s.grid.text
    cy = s.cy
    if step < 0:
        edge = 0 if cy < s.rupper else s.rupper
    else:
        edge = s.rows - 1 if cy > s.rlower else s.rlower
    # A row whose text is empty holds blanks only when it can hold no padding: left as it is.
    wide = s.grid.wide
    for _ in range(k):
        if wide or text[cy] != "":
            lines[cy][0:cols] = blank
            text[cy] = None
        cy += step
        if (cy < edge) if step < 0 else (cy > edge):
            cy = edge
    if s.cx == cols:
        s.cx = cols - 1
    s.cy = cy


def _op_cr(s: CsiScreen, arg: None) -> None:
    s.last = None
    s.cx = 0


def _op_lf(s: CsiScreen, arg: None) -> None:
    s.last = None
    s._linefeed(False)


def _op_crlf(s: CsiScreen, k: int) -> None:
    """(CR LF) k times: a line feed keeps the column, so the cursor goes to 0 once."""
    s.last = None
    s.cx = 0
    cy = s.cy
    if k == 1 and cy != s.rlower and cy < s.rows - 1:
        s.cy = cy + 1  # the usual case: _linefeed without a scroll
        return
    linefeed = s._linefeed
    for _ in range(k):
        linefeed(False)


def _op_execute(s: CsiScreen, code: int) -> None:
    s.execute(code)


def _op_osc(s: CsiScreen, body: bytes) -> None:
    s.osc_dispatch(body)


def _control_op(code: int) -> Op:
    if code == 0x0D:
        return (_op_cr, None)
    if code in (0x0A, 0x0B, 0x0C):
        return (_op_lf, None)
    return (_op_execute, code)


# Handlers whose one parameter (n >= 1, default 1) is all they need.
_COUNTED: dict[Callable[..., None], Callable[[CsiScreen, int], None]] = {
    _cuu: _op_up,
    _cud: _op_down,
}


def _csi_op(call: CsiCall, first: bool) -> Op | None:
    """The operation for one sequence; None when it only clears REP's character."""
    intermediates, params, final = call
    if intermediates == "?":
        if final != "h" and final != "l":
            return None
        on = final == "h"
        # Most modes a program sets (synchronized output, bracketed paste, mouse) change
        # nothing modelled here; the cursor's visibility is the usual one left.
        modes = [p for p in params if p in _PRIVATE_MODES]
        if not modes:
            return None
        if modes == [25]:
            return (_op_cursor_visible, on)
        return (_op_call, (_private_h if on else _private_l, modes))
    if intermediates != "":
        return None
    handler = CSI_PLAIN.get(final)
    if handler is None:
        return None
    if handler is _rep:
        n = _get(params, 0, 1, 1)
        # After anything else in the run REP's character is gone: REP does nothing.
        return (_op_rep, n) if first and n != -1 else None
    counted = _COUNTED.get(handler)
    if counted is not None:
        n = _get(params, 0, 1, 1)
        return None if n == -1 else (counted, n)
    if handler is _hpa:
        n = _get(params, 0, 1, 1)
        return None if n == -1 else (_op_column, n - 1)
    if handler is _cup:
        row, col = _get(params, 0, 1, 1), _get(params, 1, 1, 1)
        return None if row == -1 or col == -1 else (_op_cup, (col - 1, row - 1))
    if handler is _el:
        how = _get(params, 0, 0, 0)
        if how == 2:
            return (_op_el2, None)
        return (_op_el, how) if how in (0, 1) else None
    return (_op_call, (handler, params))


# The private modes the screen's _private_modes acts on.
_PRIVATE_MODES = frozenset({3, 6, 7, 25, 47, 1047, 1049})


def _op_cursor_visible(s: CsiScreen, on: bool) -> None:
    s.last = None
    s.cursor_visible = on


def _private_h(s: CsiScreen, p: list[Param], last: str | None) -> None:
    s._private_modes(p, True)


def _private_l(s: CsiScreen, p: list[Param], last: str | None) -> None:
    s._private_modes(p, False)


# Operations that only move the cursor: a CUP right after one undoes all it did.
_CURSOR_ONLY = {_op_up, _op_down, _op_column, _op_cup, _op_cr}


def _fused(ops: list[Op]) -> list[Op]:
    """Pairs that repeat (erase a row and move; CR and LF) as one operation each; a cursor
    move that the next CUP overrides, dropped."""
    out: list[Op] = []
    i, n = 0, len(ops)
    while i < n:
        fn, arg = ops[i]
        pair = ops[i + 1] if i + 1 < n else None
        if fn in _CURSOR_ONLY and pair is not None and pair[0] is _op_cup:
            i += 1
            continue
        if fn is _op_cr and pair == (_op_cr, None):
            i += 1  # CR CR: the second does all the first did (`\r\r\n` newlines)
            continue
        if fn is _op_el2 and pair is not None and pair[0] in (_op_up, _op_down):
            move, step = pair
            k = 1
            while ops[i + 2 * k : i + 2 * k + 2] == [(_op_el2, None), pair]:
                k += 1
            out.append((_op_erase_rows, (-step if move is _op_up else step, k)))
            i += 2 * k
        elif fn is _op_cr and pair == (_op_lf, None):
            k = 1
            while ops[i + 2 * k : i + 2 * k + 2] == [(_op_cr, None), (_op_lf, None)]:
                k += 1
            out.append((_op_crlf, k))
            i += 2 * k
        else:
            out.append((fn, arg))
            i += 1
    return out


def prepare_run(items: Sequence[CsiCall | int | bytes | None]) -> PreparedRun:
    """One operation doing what the run's calls do in order: csi_dispatch for a CsiCall,
    execute for a C0 control's code, osc_dispatch for an OSC's body, swallowed for None."""
    ops: list[Op] = []
    for index, item in enumerate(items):
        if item is None:
            continue  # swallowed(): clears REP's character, as every operation does
        if isinstance(item, int):
            ops.append(_control_op(item))
            continue
        if isinstance(item, bytes):
            ops.append((_op_osc, item))
            continue
        op = _csi_op(item, first=index == 0)
        if op is not None:
            ops.append(op)
    ops = _fused(ops)
    if not ops:
        # No call at all (only OSCs too long to keep) leaves even REP's character alone.
        return (_op_clear_last, None) if items else (_op_nothing, None)
    if len(ops) == 1:
        return ops[0]
    return (_op_seq, tuple(ops))
