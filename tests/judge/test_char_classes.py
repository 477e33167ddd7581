"""Characters no rule can tell apart (judge/char_classes.py), and frames that `same_verdict` now
ties for rules that read across rows: a spinner's glyph or a timer's digits changing."""

from __future__ import annotations

import random
import re

import pytest

from osf_tmux.judge import char_classes
from osf_tmux.judge.classify import _plan, classify, same_verdict
from osf_tmux.judge.manifest import parse_manifest
from osf_tmux.judge.regions import RULE_ROW
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.vt.snapshot import Snapshot
from tests.support.capture_frames import CORPORA, capture_frames


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(None)


def _classes(*sources: str) -> char_classes.CharClasses:
    found = char_classes.build([re.compile(s, re.MULTILINE) for s in sources])
    assert found is not None
    return found


def test_a_set_is_one_test_whatever_it_lists() -> None:
    c = _classes(r"^ ?[⠋⠙⠹⠸] \S[^\n]*\n\(esc to cancel\)")
    assert c.canon("⠋ Thinking") == c.canon("⠹ Thinking")
    assert c.canon("⠋ Thinking") != c.canon("⠴ Thinking")  # not in the set
    assert c.canon("⠋ Thinking") != c.canon("⠋ Thinkin ")  # a space is not a letter


def test_digits_merge_unless_some_pattern_names_one() -> None:
    timer = _classes(r"\(\d+s\)\n>")
    assert timer.canon("(19s)") == timer.canon("(20s)")
    c = _classes(r"\(\d+s\)\n>", r"1\. Yes\n")
    assert c.canon("(25s)") == c.canon("(38s)")
    assert c.canon("(19s)") != c.canon("(29s)")


def test_word_boundaries_and_spaces_are_kept() -> None:
    c = _classes(r"\bgo\b\n")
    assert c.canon("a go") != c.canon("ago")  # \b sees word characters
    assert c.canon("a go") == c.canon("b go")
    assert c.canon("x\u00a0") != c.canon("xy")  # blank rows: str.isspace


def test_patterns_beyond_the_analysis_give_no_classes() -> None:
    assert char_classes.build([re.compile(r"(a)\n\1")]) is None  # a backreference
    assert char_classes.build([re.compile(r"(a)?(?(1)b|c)\n")]) is None  # a conditional


def test_ignorecase_keeps_every_cased_character_apart() -> None:
    c = _classes(r"(?i)esc\s+to\s+cancel")
    assert c.canon("a") != c.canon("b")
    assert c.canon("⠋") == c.canon("⠙")


def _shipped_spanning(rules: RuleSet) -> list[tuple[str, list[re.Pattern[str]]]]:
    out = []
    for agent, manifest in sorted(rules.manifests.items()):
        plan = _plan(manifest)
        if plan.spanning and plan.classes is not None:
            out.append((agent, [*plan.spanning, RULE_ROW]))
    return out


@pytest.mark.parametrize("corpus", CORPORA)
def test_shipped_rules_answer_the_same_on_texts_of_the_same_classes(
    rules: RuleSet, corpus: str
) -> None:
    """Texts from the captures (a few rows joined) against every pattern of the shipped rules
    that may span lines: each character replaced by another of its class (met anywhere in the
    corpus) changes no answer. The classes are built from those patterns alone."""
    rng = random.Random(7)
    frames = capture_frames(corpus)
    rows = sorted({row for _, snaps in frames for snap in snaps[::9] for row in snap.rows})
    alphabet = sorted({ch for row in rows for ch in row} | set("0123456789 \u00a0\t"))
    checked = 0
    for agent, patterns in _shipped_spanning(rules):
        classes = char_classes.build(patterns)
        assert classes is not None, agent
        members: dict[str, list[str]] = {}
        for ch in alphabet:
            members.setdefault(classes.canon(ch), []).append(ch)
        # Each character's class members, looked up once (a character alone in its class is
        # kept as it is without drawing).
        pools = {ch: members.get(classes.canon(ch), [ch]) for ch in [*alphabet, "\n"]}
        for _ in range(300):
            start = rng.randrange(len(rows))
            text = "\n".join(rows[start : start + rng.randint(1, 6)])
            other = "".join(rng.choice(p) if len(p := pools[ch]) > 1 else ch for ch in text)
            assert classes.canon(other) == classes.canon(text)
            for pattern in patterns:
                want = pattern.search(text) is not None
                assert (pattern.search(other) is not None) == want, (agent, pattern, text, other)
                checked += 1
    assert checked > 10_000


def test_a_spinner_ticking_under_rules_that_span_rows_is_not_classified_again() -> None:
    manifest = parse_manifest(
        {
            "agent": "demo",
            "rule": [
                {
                    "id": "approve",
                    "state": "blocked",
                    "region": "tail:6",
                    "all": [r"^ *Allow this\?\n(?:.*\n)?❯ 1\. Yes"],
                },
                {
                    "id": "spinner",
                    "state": "working",
                    "region": "tail:6",
                    "all": [r"^ ?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S[^\n]*\n(?:[^\n]*\n)?─{8,}"],
                },
            ],
        },
        "demo.toml",
    )
    assert not _plan(manifest).line_local
    rows = ("● reading app.py", "", " ⠋ Thinking (3s)", "─" * 20, "> ")
    before = Snapshot(cols=40, rows=rows)
    ticked = Snapshot(cols=40, rows=(*rows[:2], " ⠼ Thinking (4s)", *rows[3:]))
    assert classify(before, manifest).state == "working"
    assert same_verdict(before, ticked, manifest)
    # A glyph the rule does not take, a prompt, a rule row gone: classify again.
    odd = Snapshot(cols=40, rows=(*rows[:2], " ✦ Thinking (4s)", *rows[3:]))
    assert not same_verdict(before, odd, manifest)
    assert classify(odd, manifest).state == "idle"
    prompt = Snapshot(cols=40, rows=(*rows[:2], " Allow this?", "❯ 1. Yes", "  2. No"))
    assert not same_verdict(before, prompt, manifest)
    assert classify(prompt, manifest).state == "blocked"


def test_a_title_that_ticks_is_compared_by_what_the_rules_see(rules: RuleSet) -> None:
    claude = rules.get("claude")
    assert claude is not None and _plan(claude).sees_title and _plan(claude).line_local
    rows = ("● Working on it", "", "✶ Pondering… (3s · ↓ 120 tokens)", "─" * 60, "❯ ", "─" * 60)
    footer = "  ⏵⏵ accept edits on · esc to interrupt"
    before = Snapshot(cols=60, rows=(*rows, footer), title="✳ Fix the bug")
    after = Snapshot(cols=60, rows=(*rows, footer), title="✢ Fix the bug")
    assert same_verdict(before, after, claude) == (
        classify(before, claude) == classify(after, claude)
    )
    assert classify(before, claude) == classify(after, claude)
    assert same_verdict(before, after, claude)


def test_a_cursor_moving_between_rows_alike_keeps_the_verdict() -> None:
    manifest = parse_manifest(
        {
            "agent": "demo",
            "rule": [
                {"id": "ask", "state": "blocked", "region": "cursor_row", "all": [r"\[y/N\]"]}
            ],
        },
        "demo.toml",
    )
    rows = ("one", "two", "Continue? [y/N]", "")
    at = Snapshot(cols=20, rows=rows, cursor=(0, 0))
    assert same_verdict(at, Snapshot(cols=20, rows=rows, cursor=(0, 1)), manifest)
    onto = Snapshot(cols=20, rows=rows, cursor=(16, 2))
    assert not same_verdict(at, onto, manifest)
    assert classify(onto, manifest).state == "blocked"
    assert classify(at, manifest).state == "idle"
