"""Characters no rule of a manifest can tell apart, so that two screens written with them are
judged alike.

A spinner's glyph (`⠙` then `⠼`) and a timer's digits change many times a second. For a
manifest whose patterns may span lines, `classify.same_verdict` cannot reason row by row, and
every such frame was classified again. Each step of a regex looks at one character through a
few tests: is it this literal, is it in this range, is it a digit, a word character, a space,
a newline. Two characters that pass and fail every test of every pattern alike are the same to
the regex engine, in any position; so are they to the regions (a blank row is one of spaces,
a rule row is one of line characters: the same kinds of test, added here). Writing every
character as the first one met of its class (its representative) maps a text to one of the
same length whose every search gives the same answer: two screens whose rows map to the same
text get the same verdict.

Conservative: a backreference or a conditional (they compare characters with each other), the
LOCALE flag, or an opcode this module does not know make a manifest have no classes at all
(None: classify as before). Under IGNORECASE, case folding is not modelled: every character
that has a case stays a class of its own."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from osf_tmux.judge.line_local import parse_tree
from osf_tmux.judge.text_cache import TextCache

_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}
# Anchors that look at no character, or at a newline only (tested below for every text).
_AT_PLAIN = {
    "AT_BEGINNING",
    "AT_BEGINNING_STRING",
    "AT_END",
    "AT_END_STRING",
    "AT_BEGINNING_LINE",
    "AT_END_LINE",
}
_AT_WORD = {"AT_BOUNDARY", "AT_NON_BOUNDARY"}
_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\d",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\w",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\s",
    "CATEGORY_LINEBREAK": r"\n",
    "CATEGORY_NOT_LINEBREAK": r"\n",
}
# Bounded caches: hostile output cannot grow them without end.
_CHARS_MAX = 1 << 14


class _Tests:
    """The character tests met in a set of patterns."""

    def __init__(self) -> None:
        self.literals: set[int] = {ord("\n")}
        # A set (`[...]`) is one test, whatever it holds: its items as (literal code, None),
        # (low, high) or (regex of a class, ASCII flag).
        self.sets: set[frozenset[tuple[object, object]]] = set()
        self.categories: set[tuple[str, bool]] = set()  # (regex of the class, ASCII flag)
        self.casefold = False  # some pattern ignores case

    def add_pattern(self, pattern: re.Pattern[str]) -> bool:
        if pattern.flags & re.LOCALE:
            return False
        tree = parse_tree(pattern)
        return tree is not None and self._items(tree, pattern.flags)

    def _items(self, items: Any, flags: int) -> bool:
        return all(self._node(op, av, flags) for op, av in items)

    def _node(self, op: Any, av: Any, flags: int) -> bool:
        name = str(op)
        if flags & re.IGNORECASE:
            self.casefold = True
        if name in ("LITERAL", "NOT_LITERAL"):
            self.literals.add(av)
            return True
        if name == "ANY":
            return True  # it tells a newline from the rest: a literal of every set
        if name == "AT":
            if str(av) in _AT_WORD:
                self.categories.add((r"\w", bool(flags & re.ASCII)))
                return True
            return str(av) in _AT_PLAIN
        if name == "IN":
            return self._set(av, flags)
        if name in _REPEATS:
            return self._items(av[2], flags)
        if name == "SUBPATTERN":
            _, add, remove, body = av
            return self._items(body, (flags | add) & ~remove)
        if name == "ATOMIC_GROUP":
            return self._items(av, flags)
        if name == "BRANCH":
            return all(self._items(branch, flags) for branch in av[1])
        if name in ("ASSERT", "ASSERT_NOT"):
            return self._items(av[1], flags)
        return False  # GROUPREF, GROUPREF_EXISTS, and anything unknown

    def _set(self, items: Any, flags: int) -> bool:
        held: set[tuple[object, object]] = set()
        for op, av in items:
            name = str(op)
            if name == "NEGATE":
                continue  # the same test, answered the other way
            if name == "LITERAL":
                held.add((av, None))
            elif name == "RANGE":
                held.add((av[0], av[1]))
            elif name == "CATEGORY" and str(av) in _CATEGORIES:
                held.add((_CATEGORIES[str(av)], bool(flags & re.ASCII)))
            else:
                return False
        self.sets.add(frozenset(held))
        return True


class CharClasses:
    """Maps texts to their representatives: `canon(a) == canon(b)` means no pattern given to
    `build` (nor a region) can tell `a` from `b`."""

    def __init__(self, tests: _Tests) -> None:
        self._literals = frozenset(tests.literals)
        self._sets = tuple(_member_test(items) for items in tests.sets)
        self._categories = tuple(
            re.compile(regex, re.ASCII if ascii_only else 0)
            for regex, ascii_only in sorted(tests.categories)
        )
        self._casefold = tests.casefold
        self._representative: dict[tuple[object, ...], int] = {}
        self._table = _Table(self._char)
        self._texts: TextCache[str] = TextCache()

    def _key(self, code: int) -> tuple[object, ...]:
        ch = chr(code)
        if code in self._literals or (self._casefold and ch.lower() != ch.upper()):
            return (code,)
        return (
            None,
            ch.isspace(),  # blank rows and str.strip (regions)
            *(member(code, ch) for member in self._sets),
            *(c.match(ch) is not None for c in self._categories),
        )

    def _char(self, code: int) -> int:
        key = self._key(code)
        rep = self._representative.get(key)
        if rep is None:
            rep = self._representative[key] = code
        return rep

    def canon(self, text: str) -> str:
        out = self._texts.get(text)
        if out is None:
            if len(self._table) >= _CHARS_MAX:
                self._table.clear()
            out = self._texts.put(text, text.translate(self._table))
        return out


def _member_test(items: frozenset[tuple[object, object]]) -> Callable[[int, str], bool]:
    """Whether a character is in the set made of `items` (char_classes._Tests._set)."""
    codes = frozenset(a for a, b in items if b is None)
    ranges = tuple((a, b) for a, b in items if isinstance(a, int) and isinstance(b, int))
    classes = tuple(
        re.compile(a, re.ASCII if b else 0)
        for a, b in items
        if isinstance(a, str) and isinstance(b, bool)
    )

    def member(code: int, ch: str) -> bool:
        return (
            code in codes
            or any(lo <= code <= hi for lo, hi in ranges)
            or any(c.match(ch) is not None for c in classes)
        )

    return member


class _Table(dict[int, int]):
    """A translation table filled as characters are met (str.translate asks it per character)."""

    def __init__(self, char: Any) -> None:
        super().__init__()
        self._char = char

    def __missing__(self, code: int) -> int:
        rep: int = self._char(code)
        self[code] = rep
        return rep


def build(patterns: Iterable[re.Pattern[str]]) -> CharClasses | None:
    """The classes of characters none of `patterns` (nor the regions) tells apart; None if some
    pattern holds what this module cannot reason about."""
    tests = _Tests()
    for pattern in patterns:
        if not tests.add_pattern(pattern):
            return None
    return CharClasses(tests)
