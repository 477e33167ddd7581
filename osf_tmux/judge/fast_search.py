"""A faster way to ask "does this rule pattern occur in this text?", with the same answers.

Python's regex engine scans a text quickly only for a pattern that starts with literal text.
Most rule patterns start with `^[ \\t]*...` or `\\b...` instead, so the engine tries every
position of a screen-sized text. Two rewrites, each applied only where it cannot change the
answer:

- A pattern that must contain some literal text (`Yes (y)` in `\\bYes \\(y\\)`) is only run when
  that text is there: `str in str` is much cheaper than the engine. Not for IGNORECASE patterns,
  whose case folding `in` cannot mirror exactly.
- A pattern that starts with `^` under MULTILINE can only match at the start of a line, i.e. at
  the start of the text or after a newline. `\\n(?:rest)` searched in "\\n" + text finds exactly
  those matches, and the engine scans for the newline quickly. Not when the rest could notice
  the added newline: `\\A`, or a lookbehind.

`classify` runs conditions through this; `explain` keeps the plain patterns, and the tests check
both agree on every capture."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from osf_tmux.judge.line_local import parse_tree

Finder = Callable[[str], object]  # a match (truthy) or None

# Global inline flags, then the `^` the parse tree starts with.
_LEADING_CARET = re.compile(r"\A((?:\(\?[aiLmsu]+\))*)\^")


def fast_search(pattern: re.Pattern[str]) -> Finder:
    tree = parse_tree(pattern)
    search: Finder = pattern.search
    if tree is None:
        return search
    line_start = _line_start_search(pattern, tree)
    if line_start is not None:
        search = line_start
    literals = () if pattern.flags & re.IGNORECASE else _required_literals(tree)
    if not literals:
        return search
    run = search

    def search_if_present(text: str) -> object:
        for literal in literals:
            if literal not in text:
                return None
        return run(text)

    return search_if_present


def _required_literals(tree: Any) -> tuple[str, ...]:
    """Runs of literal characters at the top level of the pattern: every match contains them."""
    runs: list[str] = []
    run: list[str] = []
    for op, av in tree:
        if str(op) == "LITERAL":
            run.append(chr(av))
            continue
        if len(run) >= 2:
            runs.append("".join(run))
        run = []
    if len(run) >= 2:
        runs.append("".join(run))
    return tuple(runs)


def _line_start_search(pattern: re.Pattern[str], tree: Any) -> Finder | None:
    items = list(tree)
    if not items or not pattern.flags & re.MULTILINE:
        return None
    op, av = items[0]
    if str(op) != "AT" or str(av) != "AT_BEGINNING":
        return None
    if pattern.flags & re.VERBOSE or _looks_back(items[1:]):
        return None
    head = _LEADING_CARET.match(pattern.pattern)
    if head is None:
        return None
    rest = pattern.pattern[head.end() :]
    try:
        shifted = re.compile(f"{head.group(1)}\n(?:{rest})", pattern.flags)
    except re.error:
        return None
    search = shifted.search
    return lambda text: search("\n" + text)


_PLAIN = ("LITERAL", "NOT_LITERAL", "ANY", "IN", "GROUPREF")


def _looks_back(items: Any) -> bool:
    """Whether anything in the pattern could see past its match's start: a lookbehind or `\\A`.
    Unknown constructs count as looking back."""
    for op, av in items:
        name = str(op)
        if name == "AT":
            if str(av) == "AT_BEGINNING_STRING":
                return True
        elif name in ("ASSERT", "ASSERT_NOT"):
            if av[0] < 0 or _looks_back(av[1]):
                return True
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            if _looks_back(av[2]):
                return True
        elif name == "SUBPATTERN":
            if _looks_back(av[3]):
                return True
        elif name == "ATOMIC_GROUP":
            if _looks_back(av):
                return True
        elif name == "BRANCH":
            if any(_looks_back(b) for b in av[1]):
                return True
        elif name not in _PLAIN:  # GROUPREF_EXISTS, and anything unknown
            return True
    return False
