"""Whether a rule's regex treats every ASCII digit alike.

Agents redraw counters many times a second: `✻ Zesting… (12s · ↓ 1234 tokens)`, elapsed
seconds, percentages. Each redraw is a row never seen before, so the classifier's per-row cache
(classify._Plan.signature) misses and runs every pattern on it again. For a pattern that cannot
tell one ASCII digit from another, a row and the same row with every ASCII digit written as `0`
get the same answer: the counter's rows then share one cache entry.

Sound because the rewrite maps one character to one character (lengths and positions stay) and
each step of such a pattern accepts either all ten digits or none of them: `\\d`, `\\w`, `.`,
`\\S`, `[0-9]`, `[^x]` take them all; `\\s`, `[a-z]`, `x` take none; `\\b` sees word characters
on both sides alike. A literal digit, a set with some digits but not all (`[1-3]`), a
backreference or a conditional, or anything this test does not know, makes the pattern not
blind: it is then run on the row as it is."""

from __future__ import annotations

import re
from typing import Any

from osf_tmux.judge.line_local import parse_tree

DIGITS = frozenset(range(ord("0"), ord("9") + 1))
# Every ASCII digit as "0": rows that differ only in their digits become one string.
TO_ZERO = str.maketrans("123456789", "000000000")

# Character classes by the ASCII digits they hold (whatever the flags: ASCII digits are digits,
# word characters and not spaces in every mode).
_ALL_DIGITS = {"CATEGORY_DIGIT", "CATEGORY_WORD", "CATEGORY_NOT_SPACE", "CATEGORY_NOT_LINEBREAK"}
_NO_DIGITS = {"CATEGORY_NOT_DIGIT", "CATEGORY_NOT_WORD", "CATEGORY_SPACE", "CATEGORY_LINEBREAK"}
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def is_digit_blind(pattern: re.Pattern[str]) -> bool:
    tree = parse_tree(pattern)
    return tree is not None and _blind(tree)


def _blind(items: Any) -> bool:
    return all(_node_blind(op, av) for op, av in items)


def _node_blind(op: Any, av: Any) -> bool:
    name = str(op)
    if name in ("LITERAL", "NOT_LITERAL"):
        return av not in DIGITS
    if name in ("ANY", "AT"):
        return True  # `.` takes every digit; anchors and \b see digits alike
    if name == "IN":
        held = _digits_in_set(av)
        return held is not None and (not held or held == DIGITS)
    if name in _REPEATS:
        return _blind(av[2])
    if name == "SUBPATTERN":
        return _blind(av[3])
    if name == "ATOMIC_GROUP":
        return _blind(av)
    if name == "BRANCH":
        return all(_blind(branch) for branch in av[1])
    if name in ("ASSERT", "ASSERT_NOT"):
        return _blind(av[1])
    return False  # GROUPREF, GROUPREF_EXISTS, and anything unknown


def _digits_in_set(items: Any) -> frozenset[int] | None:
    """The ASCII digits a character set accepts; None for something this test does not know."""
    negated = bool(items) and str(items[0][0]) == "NEGATE"
    held: set[int] = set()
    for op, av in items[1:] if negated else items:
        name = str(op)
        if name == "LITERAL":
            if av in DIGITS:
                held.add(av)
        elif name == "RANGE":
            held.update(d for d in DIGITS if av[0] <= d <= av[1])
        elif name == "CATEGORY" and str(av) in _ALL_DIGITS:
            held.update(DIGITS)
        elif name != "CATEGORY" or str(av) not in _NO_DIGITS:
            return None
    return DIGITS - held if negated else frozenset(held)
