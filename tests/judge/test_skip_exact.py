"""The daemon's skipping gives exactly the verdicts of judging every frame (issue #15).

Every capture is replayed twice at every pipe-pane read boundary (the points
tools/capture_states.py prints): once classifying every screen, once through `ScreenJudge`,
which keeps the last verdict for a screen that `same_verdict` ties to the one before. The two
must agree at every point. And the digit rewrite behind the row cache (digit_blind.py) must give
every blind pattern of the shipped rules the answers it gives on the row as it is."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from osf_tmux.judge.classify import _plan, classify
from osf_tmux.judge.digit_blind import TO_ZERO, is_digit_blind
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.judge.screen_judge import ScreenJudge
from tests.support.capture_frames import CORPORA, capture_frames
from tests.support.corpus import captures
from tools.capture_states import offsets

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = sorted(p.name for p in (ROOT / "captures").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(None)


@pytest.mark.slow  # ~9 s of CPU for the whole corpus; the fast tier samples it in test_screen_judge
@pytest.mark.parametrize("folder", FOLDERS)
def test_skipping_gives_the_verdict_of_every_read_boundary(rules: RuleSet, folder: str) -> None:
    points = skipped = 0
    for cap in captures(ROOT / "captures" / folder):
        size, agent = cap.size(), cap.agent()
        if size is None or agent is None or agent not in rules.manifests:
            continue
        manifest = rules.manifests[agent]
        judge = ScreenJudge(manifest)
        data = cap.bytes_path.read_bytes()
        for offset, snap in snapshots_at(data, *size, offsets(cap.bytes_path)):
            skipping = judge.verdict(snap)
            assert skipping == classify(snap, manifest), (cap.name, offset)
            points += 1
        skipped += judge.skipped
        assert judge.skipped + judge.classified == len(offsets(cap.bytes_path))
    assert points > 0
    timed = any((ROOT / "captures" / folder).glob("*.timing"))
    if timed and all(
        _plan(m).line_local for a, m in rules.manifests.items() if folder.startswith(a)
    ):
        # Read boundaries are frames: with rules that stay within lines, many keep the verdict.
        assert skipped > 0


@pytest.mark.parametrize(
    "source",
    [
        r"\d+s\b",
        r"(?i)esc to interrupt",
        r"^[ \t]*[❯>][ \t]+\S",
        r"\(\d+s · [↑↓] [\d.]+k? tokens\)",
        r"[^\s/]+",
        r"[0-9a-f]{7}",
        r"\w+…",
        r"(?<=\()\d",
        r"x[^a]y",
    ],
)
def test_patterns_blind_to_digits(source: str) -> None:
    assert is_digit_blind(re.compile(source, re.MULTILINE))


@pytest.mark.parametrize(
    "source",
    [
        r"❯ 1\. Yes",
        r"[1-3]\.",
        r"[^0]",
        r"(\d)\1",
        r"v2",
        r"(x)?(?(1)a|b)",
        r"[0-4a-z]",
    ],
)
def test_patterns_that_tell_digits_apart(source: str) -> None:
    assert not is_digit_blind(re.compile(source))


_DIGIT = re.compile(r"[0-9]")
REWRITES = 4  # random rewrites of each row; the patterns take them in turn


def _digits_rewritten(row: str, rng: random.Random) -> str:
    return _DIGIT.sub(lambda _: rng.choice("0123456789"), row)


@pytest.mark.parametrize("corpus", CORPORA)
def test_blind_patterns_answer_the_same_with_digits_rewritten(rules: RuleSet, corpus: str) -> None:
    """Every row of the corpus (and every one with its digits changed at random) against every
    pattern of the shipped rules that counts as blind."""
    rng = random.Random(3)
    rows = sorted(
        {row for _, snaps in capture_frames(corpus) for snap in snaps[::5] for row in snap.rows}
    )
    rows = [r for r in rows if any(c.isdigit() for c in r)]
    assert len(rows) > 500
    patterns = {
        c.pattern
        for m in rules.manifests.values()
        for r in m.rules
        for c in (*r.all, *r.any, *r.not_)
    }
    blind = [p for p in patterns if is_digit_blind(p)]
    assert len(blind) > len(patterns) // 2
    # Rewritten once per row rather than once per row and pattern: the rewriting cost more
    # than the searches.
    variants = [
        (row, row.translate(TO_ZERO), [_digits_rewritten(row, rng) for _ in range(REWRITES)])
        for row in rows
    ]
    for i, pattern in enumerate(blind):
        for row, zeroed, others in variants:
            want = pattern.search(row) is not None
            assert (pattern.search(zeroed) is not None) == want, (pattern, row)
            other = others[i % REWRITES]
            assert (pattern.search(other) is not None) == want, (pattern, row, other)


def test_a_ticking_counter_costs_one_cache_entry(rules: RuleSet) -> None:
    """Issue #15's Claude 2.1.x spinner row: a new token count each frame, one row signature."""
    claude = rules.get("claude")
    assert claude is not None
    plan = _plan(claude)
    plan.signatures.clear()
    plan.blind_signatures.clear()
    for n in range(100, 1000, 7):
        plan.signature(f"✻ Zesting… ({n // 10}s · ↓ {n} tokens)")
    assert len(plan.blind_signatures) == 1
