"""Which rule regexes can make Python's backtracking engine take exponential time.

Python's `re` tries every way a pattern can match before it gives up. When a repeated part can
match the same text in more than one way, the ways multiply with each repetition: `^(a+)+$`
on 45 `a`s and a `!` takes hours, on a single screen row. A user's rule must not be able to do
that to the daemon, so such patterns are refused when a manifest is loaded (and by
`rules check`). Two shapes cause it, both looked for inside every repeat that may run more
than once (`*`, `+`, `{n,}`, `{n,m}` with m > 1):

- an inner repeat whose characters every other required part of the outer repeat's body can
  also match: `(a+)+`, `(\\w+\\s?)*`, `(x+x+)+`, `(.*,)*`. Each character can then be counted
  by the inner repeat or by a new round of the outer one. `(\\w+\\s)*` is fine: every round
  must end in a space, which `\\w` cannot match, so the rounds are fixed.
- alternatives that can start with the same character, or two that can match nothing:
  `(a|b|ab)*`, `(a|a)*` (which Python reads as `a(?:|)`). Python merges some alternatives
  itself (`(\\w|\\d)` becomes one set, `(a|ab)` becomes `ab?`), and those are then fine.

Possessive repeats and atomic groups never backtrack into themselves, so they do not count.
The test is a screen, not a proof: it finds the common shapes, and polynomial blow-ups
(`\\s*\\s*\\s*x`) pass it. That is why the daemon also runs every classification under a CPU
budget (osf_tmux/daemon/rule_budget.py)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from osf_tmux.judge.line_local import parse_tree

CharSet = Callable[[str], bool]

_REPEATS = {"MAX_REPEAT", "MIN_REPEAT"}  # POSSESSIVE_REPEAT never backtracks
_UNKNOWN = "?"
# Characters the sets are compared on: ASCII, and some beyond it (box drawing, spaces, digits
# and letters of other scripts); the pattern's own literals and range ends are added.
_SAMPLE = "".join(chr(c) for c in range(128)) + "é ß─│❯▌\u00a0\u2028\u3000あ٣Ω"

_CATEGORIES: dict[str, CharSet] = {
    "CATEGORY_DIGIT": lambda c: re.match(r"\d", c) is not None,
    "CATEGORY_NOT_DIGIT": lambda c: re.match(r"\D", c) is not None,
    "CATEGORY_SPACE": lambda c: re.match(r"\s", c) is not None,
    "CATEGORY_NOT_SPACE": lambda c: re.match(r"\S", c) is not None,
    "CATEGORY_WORD": lambda c: re.match(r"\w", c) is not None,
    "CATEGORY_NOT_WORD": lambda c: re.match(r"\W", c) is not None,
    "CATEGORY_LINEBREAK": lambda c: c == "\n",
    "CATEGORY_NOT_LINEBREAK": lambda c: c != "\n",
}


@functools.lru_cache(maxsize=4096)
def exponential_risk(pattern: re.Pattern[str]) -> str | None:
    """Why `pattern` can take exponential time on some text, or None when none of the known
    shapes is in it. Kept per pattern (its text and flags; the answer depends on nothing else):
    this search was four fifths of loading the rules, which a process does again at every
    reload, and a test process over and over."""
    tree = parse_tree(pattern)
    if tree is None:
        return None
    checker = _Checker(pattern)
    return checker.sequence(list(tree), pattern.flags)


class _Checker:
    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.sample = _SAMPLE + "".join(sorted(set(_codepoints(pattern.pattern))))

    # ---- the search ----------------------------------------------------------------------

    def sequence(self, items: list[Any], flags: int) -> str | None:
        for op, av in items:
            found = self.node(str(op), av, flags)
            if found:
                return found
        return None

    def node(self, name: str, av: Any, flags: int) -> str | None:
        if name in _REPEATS:
            _low, high, body = av
            body = list(body)
            if high > 1:
                found = self.repeat(body, flags)
                if found:
                    return f"{found}, inside {_render(name, av)}"
            return self.sequence(body, flags)
        if name == "SUBPATTERN":
            _group, add, remove, sub = av
            return self.sequence(list(sub), (flags | add) & ~remove)
        if name == "BRANCH":
            for branch in av[1]:
                found = self.sequence(list(branch), flags)
                if found:
                    return found
        if name in ("ASSERT", "ASSERT_NOT"):
            return self.sequence(list(av[1]), flags)
        if name in ("ATOMIC_GROUP", "POSSESSIVE_REPEAT"):
            return self.sequence(list(av if name == "ATOMIC_GROUP" else av[2]), flags)
        return None

    def repeat(self, body: list[Any], flags: int) -> str | None:
        """What makes the rounds of a repeat over `body` ambiguous, or None."""
        for inner, inner_flags in _inner_repeats(body, flags):
            _name, av = inner
            low, high, inner_body = av
            if high == low:
                continue  # a fixed count matches one length only
            chars = self.chars(list(inner_body), inner_flags)
            if self.others_overlap(body, inner, chars, flags):
                return f"{_render(*inner)} can match what each round must match"
        for branch, branch_flags in _branches(body, flags):
            alike = f"alternatives {_render('BRANCH', (None, branch))} can match alike"
            if sum(all(_nullable(str(o), a) for o, a in b) for b in branch) > 1:
                return alike  # two ways to match nothing (`(a|a)` is parsed as `a(?:|)`)
            firsts = [self.first(list(b), branch_flags) for b in branch]
            for i, a in enumerate(firsts):
                for b in firsts[i + 1 :]:
                    if self.meet(a, b):
                        return alike
        return None

    def others_overlap(self, items: list[Any], inner: tuple[str, Any], chars: CharSet,
                       flags: int) -> bool:  # fmt: skip
        """Whether every required part of `items` besides the path down to `inner` can match
        some character of `chars` (so that text of `chars` alone can fill a round)."""
        for op, av in items:
            name = str(op)
            if (name, av) == inner:
                continue
            if _holds(name, av, inner):
                sub = _children_holding(name, av, inner, flags)
                if sub is None or not self.others_overlap(sub[0], inner, chars, sub[1]):
                    return False
                continue
            if not _nullable(name, av) and not self.meet(self.chars([(op, av)], flags), chars):
                return False
        return True

    # ---- character sets ------------------------------------------------------------------

    def meet(self, a: CharSet, b: CharSet) -> bool:
        return any(a(c) and b(c) for c in self.sample)

    def chars(self, items: list[Any], flags: int) -> CharSet:
        """Every character `items` can consume (lookarounds consume none)."""
        sets = [s for op, av in items if (s := self._chars(str(op), av, flags)) is not None]
        return lambda c: any(s(c) for s in sets)

    def first(self, items: list[Any], flags: int) -> CharSet:
        """The characters a match of `items` can start with."""
        sets = []
        for op, av in items:
            name = str(op)
            sets.append(self._first(name, av, flags))
            if not _nullable(name, av):
                break
        return lambda c: any(s(c) for s in sets)

    def _first(self, name: str, av: Any, flags: int) -> CharSet:
        if name in _REPEATS or name == "POSSESSIVE_REPEAT":
            return self.first(list(av[2]), flags)
        if name == "SUBPATTERN":
            return self.first(list(av[3]), (flags | av[1]) & ~av[2])
        if name == "ATOMIC_GROUP":
            return self.first(list(av), flags)
        if name == "BRANCH":
            sets = [self.first(list(b), flags) for b in av[1]]
            return lambda c: any(s(c) for s in sets)
        found = self._chars(name, av, flags)
        return found if found is not None else _none

    def _chars(self, name: str, av: Any, flags: int) -> CharSet | None:
        fold = bool(flags & re.IGNORECASE)
        if name == "LITERAL":
            return _literal(av, fold)
        if name == "NOT_LITERAL":
            inner = _literal(av, fold)
            return lambda c: not inner(c)
        if name == "ANY":
            return _any if flags & re.DOTALL else _not_newline
        if name == "IN":
            return _in(av, fold)
        if name in _REPEATS or name == "POSSESSIVE_REPEAT":
            return self.chars(list(av[2]), flags)
        if name == "SUBPATTERN":
            return self.chars(list(av[3]), (flags | av[1]) & ~av[2])
        if name == "ATOMIC_GROUP":
            return self.chars(list(av), flags)
        if name == "BRANCH":
            sets = [self.chars(list(b), flags) for b in av[1]]
            return lambda c: any(s(c) for s in sets)
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            return None
        return _any  # a backreference, a conditional: could be anything


def _inner_repeats(items: list[Any], flags: int) -> Iterator[tuple[tuple[str, Any], int]]:
    """Every backtracking repeat inside `items` (not inside lookarounds), with its flags."""
    for op, av in items:
        name = str(op)
        if name in _REPEATS:
            yield (name, av), flags
            yield from _inner_repeats(list(av[2]), flags)
        elif name == "SUBPATTERN":
            yield from _inner_repeats(list(av[3]), (flags | av[1]) & ~av[2])
        elif name == "BRANCH":
            for branch in av[1]:
                yield from _inner_repeats(list(branch), flags)


def _branches(items: list[Any], flags: int) -> Iterator[tuple[list[Any], int]]:
    """Every alternation inside `items` (not inside lookarounds), with its flags."""
    for op, av in items:
        name = str(op)
        if name == "BRANCH":
            yield list(av[1]), flags
            for branch in av[1]:
                yield from _branches(list(branch), flags)
        elif name in _REPEATS:
            yield from _branches(list(av[2]), flags)
        elif name == "SUBPATTERN":
            yield from _branches(list(av[3]), (flags | av[1]) & ~av[2])


def _holds(name: str, av: Any, inner: tuple[str, Any]) -> bool:
    """Whether the node (name, av) has `inner` somewhere below it."""
    if name in _REPEATS:
        return any((str(o), a) == inner or _holds(str(o), a, inner) for o, a in av[2])
    if name == "SUBPATTERN":
        return any((str(o), a) == inner or _holds(str(o), a, inner) for o, a in av[3])
    if name == "BRANCH":
        return any((str(o), a) == inner or _holds(str(o), a, inner) for b in av[1] for o, a in b)
    return False


def _children_holding(
    name: str, av: Any, inner: tuple[str, Any], flags: int
) -> tuple[list[Any], int] | None:
    """The sequence right below the node that leads to `inner`, and its flags."""
    if name in _REPEATS:
        return list(av[2]), flags
    if name == "SUBPATTERN":
        return list(av[3]), (flags | av[1]) & ~av[2]
    if name == "BRANCH":
        for branch in av[1]:
            if any((str(o), a) == inner or _holds(str(o), a, inner) for o, a in branch):
                return list(branch), flags
    return None


def _nullable(name: str, av: Any) -> bool:
    """Whether the node can match the empty string."""
    if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
        return False
    if name in _REPEATS or name == "POSSESSIVE_REPEAT":
        return bool(av[0] == 0) or all(_nullable(str(o), a) for o, a in av[2])
    if name == "SUBPATTERN":
        return all(_nullable(str(o), a) for o, a in av[3])
    if name == "ATOMIC_GROUP":
        return all(_nullable(str(o), a) for o, a in av)
    if name == "BRANCH":
        return any(all(_nullable(str(o), a) for o, a in b) for b in av[1])
    return True  # assertions, anchors, backreferences (possibly empty)


def _literal(code: int, fold: bool) -> CharSet:
    char = chr(code)
    if fold:
        low = char.lower()
        return lambda c: c.lower() == low
    return lambda c: c == char


def _in(items: Any, fold: bool) -> CharSet:
    members = list(items)
    negated = bool(members) and str(members[0][0]) == "NEGATE"
    if negated:
        members = members[1:]
    tests: list[CharSet] = []
    for op, av in members:
        name = str(op)
        if name == "LITERAL":
            tests.append(_literal(av, fold))
        elif name == "RANGE":
            lo, hi = av
            tests.append(_range(lo, hi, fold))
        elif name == "CATEGORY":
            tests.append(_CATEGORIES.get(str(av), _any))
        else:
            tests.append(_any)
    if negated:
        return lambda c: not any(t(c) for t in tests)
    return lambda c: any(t(c) for t in tests)


def _range(lo: int, hi: int, fold: bool) -> CharSet:
    if fold:
        return lambda c: any(lo <= ord(x) <= hi for x in (c, c.lower(), c.upper()) if len(x) == 1)
    return lambda c: lo <= ord(c) <= hi


def _any(c: str) -> bool:
    return True


def _not_newline(c: str) -> bool:
    return c != "\n"


def _none(c: str) -> bool:
    return False


def _codepoints(source: str) -> Iterator[str]:
    """The pattern's own characters and their neighbours: range ends, literals."""
    for char in source:
        code = ord(char)
        for near in (code - 1, code, code + 1):
            if 0 <= near < 0x110000:
                yield chr(near)


_CATEGORY_TEXT = {
    "CATEGORY_DIGIT": "\\d",
    "CATEGORY_NOT_DIGIT": "\\D",
    "CATEGORY_SPACE": "\\s",
    "CATEGORY_NOT_SPACE": "\\S",
    "CATEGORY_WORD": "\\w",
    "CATEGORY_NOT_WORD": "\\W",
}


def _render_member(name: str, av: Any) -> str:
    if name == "NEGATE":
        return "^"
    if name == "LITERAL":
        return re.escape(chr(av))
    if name == "RANGE":
        return f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}"
    if name == "CATEGORY":
        return _CATEGORY_TEXT.get(str(av), _UNKNOWN)
    return _UNKNOWN


def _render(name: str, av: Any) -> str:
    """A short, regex-like rendering of a node, for messages."""
    if name in _REPEATS or name == "POSSESSIVE_REPEAT":
        low, high, body = av
        inner = "".join(_render(str(o), a) for o, a in body)
        if len(body) > 1 or (body and str(body[0][0]) in _REPEATS):
            inner = f"({inner})"
        if (low, high) == (0, 1):
            count = "?"
        elif high > 1_000_000:  # MAXREPEAT
            count = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        else:
            count = f"{{{low},{high}}}"
        return inner + count + ("?" if name == "MIN_REPEAT" else "")
    if name == "SUBPATTERN":
        return "(" + "".join(_render(str(o), a) for o, a in av[3]) + ")"
    if name == "BRANCH":
        return "(?:" + "|".join("".join(_render(str(o), a) for o, a in b) for b in av[1]) + ")"
    if name == "LITERAL":
        return re.escape(chr(av))
    if name == "ANY":
        return "."
    if name == "IN":
        return "[" + "".join(_render_member(str(o), a) for o, a in av) + "]"
    if name == "NOT_LITERAL":
        return f"[^{re.escape(chr(av))}]"
    return _UNKNOWN
