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

    __slots__ = ("cols", "lines", "rows", "text", "wrapped")

    def __init__(self, cols: int, rows: int) -> None:
        self.cols = cols
        self.rows = rows
        self.lines: list[list[str]] = [blank_row(cols) for _ in range(rows)]
        # Cached capture-pane text of each row; None marks a row changed since the last render.
        self.text: list[str | None] = [None] * rows
        # tmux's GRID_LINE_WRAPPED: the row continues on the next one (for BS and reflow).
        self.wrapped: list[bool] = [False] * rows

    def render(self) -> tuple[str, ...]:
        text = self.text
        lines = self.lines
        for y, cached in enumerate(text):
            if cached is None:
                text[y] = "".join(lines[y]).rstrip(BLANK)
        return tuple(text)  # type: ignore[arg-type]  # no None left after the loop
