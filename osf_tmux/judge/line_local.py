"""Whether a rule's regex can only ever match inside one line.

For such a pattern, searching the rows joined with newlines finds a match exactly when searching
one of the rows alone does: a match cannot take in a newline, and the anchors and lookarounds it
may use see a newline where a lone row has its start or end, which they treat alike (`^` and `$`
under MULTILINE, `\\b`, lookarounds that cannot match a newline themselves). That lets the
classifier tell that a frame which changed only rows no pattern sees differently keeps its
verdict (classify.same_verdict).

The test is conservative: anything it does not know (backreferences, conditionals, an opcode of a
future Python) counts as crossing lines, like `\\A`, `\\Z`, `\\s`, `[^x]` and `.` under DOTALL."""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_parse as _sre_parse

NEWLINE = ord("\n")

# Character classes (`\d`, `\w`, `\S`) that never contain a newline.
_SAFE_CATEGORIES = {
    "CATEGORY_DIGIT",
    "CATEGORY_WORD",
    "CATEGORY_NOT_SPACE",
    "CATEGORY_NOT_LINEBREAK",
}
_NEWLINE_CATEGORIES = {
    "CATEGORY_SPACE",
    "CATEGORY_NOT_DIGIT",
    "CATEGORY_NOT_WORD",
    "CATEGORY_LINEBREAK",
}
# Zero-width assertions that behave the same at a newline and at the end of a lone row. `^` and
# `$` (AT_BEGINNING/AT_END) only do so under MULTILINE.
_SAFE_AT = {"AT_BOUNDARY", "AT_NON_BOUNDARY", "AT_BEGINNING_LINE", "AT_END_LINE"}
_LINE_AT = {"AT_BEGINNING", "AT_END"}
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def parse_tree(pattern: re.Pattern[str]) -> Any | None:
    """The pattern as Python's regex parser sees it (a sequence of (opcode, argument)), or None
    if that parser no longer reads what Python compiled."""
    try:
        return _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return None


def is_line_local(pattern: re.Pattern[str]) -> bool:
    tree = parse_tree(pattern)
    return tree is not None and _local(tree, pattern.flags)


def _local(items: Any, flags: int) -> bool:
    return all(_node_local(op, av, flags) for op, av in items)


def _node_local(op: Any, av: Any, flags: int) -> bool:
    name = str(op)
    if name == "LITERAL":
        return bool(av != NEWLINE)
    if name == "ANY":
        return not flags & re.DOTALL
    if name == "IN":
        return _set_local(av)
    if name == "AT":
        at = str(av)
        return at in _SAFE_AT or (at in _LINE_AT and bool(flags & re.MULTILINE))
    if name in _REPEATS:
        return _local(av[2], flags)
    if name == "SUBPATTERN":
        _group, add, remove, sub = av
        return _local(sub, (flags | add) & ~remove)
    if name == "ATOMIC_GROUP":
        return _local(av, flags)
    if name == "BRANCH":
        return all(_local(branch, flags) for branch in av[1])
    if name in ("ASSERT", "ASSERT_NOT"):
        return _local(av[1], flags)
    if name == "NOT_LITERAL":
        return bool(av == NEWLINE)
    return False  # GROUPREF, GROUPREF_EXISTS, and anything unknown


def _set_local(items: Any) -> bool:
    """A character set is line-local when it cannot match the newline: it does not hold it, or
    it is negated and does (`[^\\s/]`)."""
    negated = bool(items) and str(items[0][0]) == "NEGATE"
    holds = False
    for op, av in items[1:] if negated else items:
        name = str(op)
        if name == "LITERAL":
            holds |= av == NEWLINE
        elif name == "RANGE":
            holds |= av[0] <= NEWLINE <= av[1]
        elif name == "CATEGORY" and str(av) in _NEWLINE_CATEGORIES:
            holds = True
        elif name != "CATEGORY" or str(av) not in _SAFE_CATEGORIES:
            return False  # something this test does not know
    return holds == negated
