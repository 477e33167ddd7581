"""The grid of one screen: its rows of cells and the per-row state that scrolls with them.

Shared by the screen model (vt/screen.py) and resizing (vt/resize.py), which both work on it; it
knows nothing of escape sequences."""

from __future__ import annotations

# A cell is the text capture-pane prints for it; a wide character's second cell is PAD.
BLANK = " "
PAD = ""


def blank_row(cols: int) -> list[str]:
    return [BLANK] * cols


class Grid:
    """One screen's rows plus the per-row state that travels with a row when it scrolls."""

    __slots__ = ("cols", "lines", "rows", "text", "wide", "wrapped")

    def __init__(self, cols: int, rows: int) -> None:
        self.cols = cols
        self.rows = rows
        self.lines: list[list[str]] = [blank_row(cols) for _ in range(rows)]
        # Cached capture-pane text of each row; None marks a row changed since the last render.
        self.text: list[str | None] = [None] * rows
        # tmux's GRID_LINE_WRAPPED: the row continues on the next one (for BS and reflow).
        self.wrapped: list[bool] = [False] * rows
        # False while no row can hold a wide character's padding: text then goes into a row
        # without looking for a wide character in its way (a scan of the cells it covers, about
        # half the time of writing a row). Set when one is written; cleared when the whole grid
        # is, and worked out again by a resize (rows come back from history), so it may be True
        # with none left.
        self.wide = False

    def render(self) -> tuple[str, ...]:
        text = self.text
        lines = self.lines
        for y, cached in enumerate(text):
            if cached is None:
                text[y] = "".join(lines[y]).rstrip(BLANK)
        return tuple(text)  # type: ignore[arg-type]  # no None left after the loop
