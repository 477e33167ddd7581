"""The immutable picture of a pane that the screen hands to everyone downstream."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Snapshot:
    """What a pane shows now: visible rows only (history is deliberately absent, since a prompt
    that scrolled away is not a prompt), the cursor, the window title and the alt-screen flag."""

    cols: int
    rows: tuple[str, ...]
    cursor: tuple[int, int] = (0, 0)
    cursor_visible: bool = True
    title: str = ""
    alt_screen: bool = False

    @property
    def lines(self) -> int:
        return len(self.rows)

    @classmethod
    def from_text(
        cls, text: str, cols: int | None = None, title: str = "", alt_screen: bool = False
    ) -> Snapshot:
        """A snapshot of plain text (for tests and for classifying `capture-pane -p` output)."""
        rows = tuple(line.rstrip() for line in text.split("\n"))
        width = cols if cols is not None else max((len(r) for r in rows), default=0)
        return cls(cols=width, rows=rows, title=title, alt_screen=alt_screen)
