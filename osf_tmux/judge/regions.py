"""The parts of a screen a rule can look at, so that matches stay structural: a question in the
live area at the bottom is a prompt, the same words up in the transcript are not."""

from __future__ import annotations

import re
from dataclasses import dataclass

from osf_tmux.judge.text_cache import TextCache
from osf_tmux.vt.snapshot import Snapshot

# A horizontal rule is a row drawn only with line characters (optionally capped by corners).
# Eight cells keep a short `──` inside ordinary text from counting.
_RULE_ROW = re.compile(r"^[╭╰├┌└]?[─━═╌╍┄┅┈┉▔▁]{8,}[╮╯┤┐┘]?$")
# What region boundaries are found with, besides blank rows (judge/char_classes.py must know).
RULE_ROW = _RULE_ROW

KINDS_WITH_COUNT = ("tail", "bottom", "top", "above_box")
KINDS_PLAIN = (
    "screen",
    "below_rule",
    "above_rule",
    "between_rules",
    "cursor_row",
    "before_cursor",
    "after_cursor",
    "title",
)
# Regions whose text depends on the cursor's column, not only on its row.
CURSOR_COLUMN_KINDS = ("before_cursor", "after_cursor")


@dataclass(frozen=True)
class Region:
    """A named part of the screen: `kind` plus a row count for the counted kinds."""

    kind: str
    count: int = 0

    def __str__(self) -> str:
        return f"{self.kind}:{self.count}" if self.kind in KINDS_WITH_COUNT else self.kind

    @classmethod
    def parse(cls, spec: str) -> Region:
        """Parse `screen`, `tail:N`, ...; raises ValueError with a message fit for a user."""
        kind, sep, count = spec.strip().partition(":")
        if kind in KINDS_PLAIN and not sep:
            return cls(kind)
        if kind in KINDS_WITH_COUNT:
            if not sep or not count.isdigit() or int(count) < 1:
                raise ValueError(
                    f"region {spec!r} needs a row count of at least 1, like '{kind}:8'"
                )
            return cls(kind, int(count))
        known = ", ".join([*KINDS_PLAIN, *(f"{k}:N" for k in KINDS_WITH_COUNT)])
        raise ValueError(f"unknown region {spec!r} (known: {known})")

    @property
    def one_row(self) -> bool:
        """Covers at most one row: its text holds no newline, whatever the pattern."""
        return self.kind in ("title", "cursor_row", *CURSOR_COLUMN_KINDS) or (
            self.kind in KINDS_WITH_COUNT and self.count == 1
        )

    def rows(self, snap: Snapshot) -> tuple[str, ...]:
        """The rows of `snap` this region covers (the title counts as one row)."""
        rows = snap.rows
        if self.kind == "screen":
            return rows
        if self.kind == "title":
            return (snap.title,)
        if self.kind == "bottom":
            return rows[-self.count :]
        if self.kind == "top":
            return rows[: self.count]
        if self.kind == "tail":
            return _tail(rows, self.count)
        if self.kind == "cursor_row":
            y = snap.cursor[1]
            return (rows[y],) if 0 <= y < len(rows) else ()
        if self.kind in CURSOR_COLUMN_KINDS:
            y = snap.cursor[1]
            if not 0 <= y < len(rows):
                return ()
            before, after = split_at_column(rows[y], snap.cursor[0])
            return (before,) if self.kind == "before_cursor" else (after,)
        if self.kind == "between_rules":
            return _between_rules(rows)
        if self.kind == "above_box":
            return _above_box(rows, self.count)
        last = last_rule_index(rows)
        if self.kind == "below_rule":
            return rows if last is None else rows[last + 1 :]
        return () if last is None else rows[:last]  # above_rule

    def text(self, snap: Snapshot) -> str:
        return "\n".join(self.rows(snap))


def split_at_column(row: str, x: int) -> tuple[str, str]:
    """The text of `row` left of screen column `x` and from it on. Rows are right-stripped, so
    a cursor past a row's end stands after blanks: the left part is padded with them (a prompt
    `Continue? [y/N] ` keeps its last space). Wide characters take two columns."""
    if row.isascii():
        return (row[:x], row[x:]) if x <= len(row) else (row + " " * (x - len(row)), "")
    # Here, not at the top: the key commands import this module, and the width tables cost
    # tens of milliseconds to load (tests/plugin/test_overview.py keeps them out of a key press).
    from osf_tmux.vt.width import char_width

    col = 0
    for i, ch in enumerate(row):
        if col >= x:
            return row[:i], row[i:]
        col += max(char_width(ch), 0)
    return row + " " * max(x - col, 0), ""


def _tail(rows: tuple[str, ...], count: int) -> tuple[str, ...]:
    """The last `count` rows that are not blank (r.strip() non-empty)."""
    filled = _filled(rows)
    return filled[-count:] if count < len(filled) else filled


# The rows of the last screen asked for that are not blank: a manifest's rules look at tails
# of several lengths (tail:14, tail:30, ...), and each would go through the rows again. The
# screen's rows tuple is held, so `is` cannot mistake a new tuple for it.
_last_filled: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def _filled(rows: tuple[str, ...]) -> tuple[str, ...]:
    global _last_filled
    last = _last_filled  # read once: another thread may replace it meanwhile
    if last[0] is rows:
        return last[1]
    # r.isspace() is the same test as not r.strip(), without copying the row
    filled = tuple(r for r in rows if r and not r.isspace())
    _last_filled = (rows, filled)
    return filled


def _between_rules(rows: tuple[str, ...]) -> tuple[str, ...]:
    """The rows between the last two rules: the box an input line (or the dialog that takes its
    place) is drawn in. With one rule only, the rows above it (the box's top rule has scrolled
    away under a tall dialog); with none, nothing."""
    last = last_rule_index(rows)
    if last is None:
        return ()
    before = last_rule_index(rows[:last])
    return rows[(0 if before is None else before + 1) : last]


def _above_box(rows: tuple[str, ...], count: int) -> tuple[str, ...]:
    """The last `count` non-blank rows above the second-last rule: right above an input box
    drawn as two rules (the live rows an agent keeps over its box: a spinner, a note), with
    whatever the box has under it (a footer, a status line) left out. Fewer than two rules:
    nothing."""
    last = last_rule_index(rows)
    if last is None:
        return ()
    top = last_rule_index(rows[:last])
    return () if top is None else _tail(rows[:top], count)


def is_rule_row(row: str) -> bool:
    return _RULE_ROW.match(row.strip()) is not None


# Rows are mostly the very same string objects from one frame to the next, so whether a row is a
# rule is looked up rather than matched again; bounded so that scrolling text cannot grow it.
_rule_rows: TextCache[bool] = TextCache()


def last_rule_index(rows: tuple[str, ...]) -> int | None:
    known = _rule_rows
    for i in range(len(rows) - 1, -1, -1):
        row = rows[i]
        is_rule = known.get(row)
        if is_rule is None:
            is_rule = known.put(row, _RULE_ROW.match(row.strip()) is not None)
        if is_rule:
            return i
    return None
