"""fast_search answers "is it there?" exactly as the pattern's own search does."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from osf_tmux.judge.classify import classify, explain
from osf_tmux.judge.fast_search import fast_search
from tests.support.capture_frames import CORPORA, capture_frames

PATTERNS = [
    r"^a",
    r"^[ \t]*❯[ \t]+\d{1,2}\.[ \t]+\S",
    r"(?i)^\s*press (enter|⏎) to confirm",
    r"^\s*(?:[›>❯]\s*)?1\.\s+\S",
    r"\bYes \(y\)",
    r"Yes\s+No",
    r"^(?<!x)a b",  # a lookbehind: no line-start rewrite
    r"(?<=\n)a b",
    r"^(?<=\n)a",  # rewritten, the added newline would satisfy the lookbehind
    r"^\Aa",  # ... and \A would never hold
    r"\Aa b|^b",
    r"^a|b a",
    r"^(a)\s*\1",
    r"(?i)yes \(Y\)",
    r"^$",
    r"^ ?│ +\? +\S[^\n]*\n ?│ +Allow",
    r"\[(Yes|No)\]:\Z",
    r"^\s*$",
]
ALPHABET = ["a", "b", " ", "\n", "\t", "Y", "e", "s", "(", "y", ")", "1", ".", "❯", "│", "?", "x"]
WORDS = ["Yes (y)", "a b", "press enter to confirm", "› 1. Run", "[Yes]:", "│ ? Allow", "ab a"]


@pytest.mark.parametrize("source", PATTERNS)
def test_same_answer_on_random_texts(source: str) -> None:
    pattern = re.compile(source, re.MULTILINE)
    fast = fast_search(pattern)
    rng = random.Random(source)
    for _ in range(3000):
        parts = [rng.choice(ALPHABET + WORDS) for _ in range(rng.randrange(0, 14))]
        text = "".join(parts)
        assert (fast(text) is not None) == (pattern.search(text) is not None), repr(text)


@pytest.mark.parametrize("corpus", CORPORA)
def test_same_answer_for_every_rule_on_the_captures(corpus: str) -> None:
    checked = 0
    finders: dict[re.Pattern[str], Callable[[str], object]] = {}  # one per pattern, not capture
    for manifest, snaps in capture_frames(corpus):
        conditions = {
            (c.pattern, c.region) for r in manifest.rules for c in (*r.all, *r.any, *r.not_)
        }
        for p, _ in conditions:
            if p not in finders:
                finders[p] = fast_search(p)
        for snap in snaps[::3]:
            for pattern, region in conditions:
                text = region.text(snap)
                assert (finders[pattern](text) is not None) == (pattern.search(text) is not None), (
                    manifest.agent,
                    pattern.pattern,
                    text[-400:],
                )
                checked += 1
    # The fast tier's sample (each agent's every 20th capture) gives ~37,000; the whole suite
    # checks about 20 times as many.
    assert checked > 30_000


@pytest.mark.parametrize("corpus", CORPORA)
def test_classify_agrees_with_explain_on_the_captures(corpus: str) -> None:
    """explain runs the patterns as written; classify runs them through fast_search."""
    for manifest, snaps in capture_frames(corpus):
        for snap in snaps[::2]:
            assert classify(snap, manifest) == explain(snap, manifest)[0]


def test_the_rewrites_apply_where_they_should() -> None:
    # Observable only through speed; at least make sure they are not silently skipped.
    caret = re.compile(r"^[ \t]*x", re.MULTILINE)
    assert fast_search(caret) is not caret.search
    literal = re.compile(r"\bYes \(y\)", re.MULTILINE)
    assert fast_search(literal) is not literal.search
    plain = re.compile(r"(?i)\byes", re.MULTILINE)
    assert fast_search(plain) == plain.search
    behind = re.compile(r"^(?<!x)a", re.MULTILINE)
    assert fast_search(behind) == behind.search
