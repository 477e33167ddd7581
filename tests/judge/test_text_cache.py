"""The judge's per-row caches stay bounded by what they hold, together, however long agents
stream and however many manifests judge (issue #30: the daemon's memory rose the whole time)."""

from __future__ import annotations

import gc
import itertools
import random
import string
import tracemalloc

import pytest

from osf_tmux.judge import char_classes, classify, regions, text_cache
from osf_tmux.judge.classify import classify as classify_screen
from osf_tmux.judge.classify import same_verdict
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.judge.text_cache import BUDGET, ENTRY_COST, TextCache, _Budget
from osf_tmux.vt.snapshot import Snapshot

COLS, ROWS = 200, 50


def streamed_screens(count: int, seed: int) -> list[Snapshot]:
    """Screens of an agent streaming an answer: every frame scrolls one new wide row in."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "     .,`─"
    rows = ["" for _ in range(ROWS - 3)]
    footer = ("─" * COLS, "> ", "  esc to interrupt")
    out = []
    for _ in range(count):
        rows = [*rows[1:], "".join(rng.choice(alphabet) for _ in range(COLS - 10))]
        out.append(Snapshot(cols=COLS, rows=(*rows, *footer)))
    return out


def retained_after_streaming(frames: int) -> int:
    """Bytes the judge keeps after judging `frames` streamed frames of four agents' screens."""
    rules = load_rules()
    manifests = [rules.manifests[a] for a in ("claude", "codex", "gemini", "generic")]
    classify._plans.clear()

    def judge(frames: int, seed: int) -> None:
        for n, manifest in enumerate(manifests):
            screens = streamed_screens(frames, seed=seed + n)
            for before, after in itertools.pairwise(screens):
                if not same_verdict(before, after, manifest):
                    classify_screen(after, manifest)

    judge(20, seed=100)  # what is built once (plans, lazy imports) is not what grows
    # What earlier tests of this process left in the shared caches (the whole suite runs many
    # in one worker) would be dropped while this one is traced, and count against it.
    for _ in range(2):
        for cache in list(text_cache.SHARED._caches):
            cache.turn()
    text_cache.SHARED.used = 0
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        judge(frames, seed=0)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()


def row_caches() -> list[object]:
    """Every per-row cache of the judge: each plan's signatures (and its characters' classes'
    texts), and the rule rows of the regions."""
    out: list[object] = [regions._rule_rows]
    for plan in classify._plans.values():
        out += [plan.signatures, plan.blind_signatures]
        classes = plan._classes
        if isinstance(classes, char_classes.CharClasses):
            out.append(classes._texts)
    return out


def chars_held(cache: object) -> int:
    """The characters of the keys a cache holds, with ENTRY_COST each: the dicts it is made of
    (a dict itself, or the dicts its slots refer to)."""
    dicts = [cache] if isinstance(cache, dict) else gc.get_referents(cache)
    return sum(len(k) + ENTRY_COST for d in dicts if isinstance(d, dict) for k in d)


def test_row_caches_stay_under_one_budget_however_long_agents_stream() -> None:
    rules = load_rules()
    classify._plans.clear()
    for n, agent in enumerate(("claude", "codex")):
        manifest = rules.manifests[agent]
        screens = streamed_screens(2500, seed=n)
        for before, after in itertools.pairwise(screens):
            if not same_verdict(before, after, manifest):
                classify_screen(after, manifest)
    held = sum(chars_held(c) for c in row_caches())
    # Bounded one by one in entries (4096 rows each, per manifest and kind of answer), the
    # caches held 2.9 million characters of these rows, and went on growing with more.
    assert held <= 2 * BUDGET + 4 * (COLS + ENTRY_COST), f"{held} characters held"


@pytest.mark.slow
def test_what_the_judge_keeps_levels_off() -> None:
    """Memory as tracemalloc counts it: as much kept after 2000 streamed frames as after 1000
    (before: 7.2 MB, then 11.3 MB)."""
    first = retained_after_streaming(1000)
    second = retained_after_streaming(2000)
    assert second < first * 1.15, f"{first / 1e6:.1f} MB, then {second / 1e6:.1f} MB"


def test_a_cache_keeps_what_is_used_and_drops_what_scrolled_away() -> None:
    budget = _Budget(10 * (ENTRY_COST + 10))
    cache: TextCache[int] = TextCache(budget)
    hot = "0123456789"
    cache.put(hot, 1)
    for i in range(1000):
        assert cache.get(hot) == 1  # on screen every frame: found again, moved to the newer
        cache.put(f"row {i:06d}", i)  # a new row every frame
    assert budget.turns > 50
    assert cache.chars() <= 2 * budget.limit + ENTRY_COST + 10
    assert cache.get("row 000000") is None  # scrolled away long ago: gone
    assert cache.get("row 000999") == 999


def test_the_budget_is_shared_by_every_cache() -> None:
    budget = _Budget(100 * (ENTRY_COST + 8))
    caches: list[TextCache[int]] = [TextCache(budget) for _ in range(20)]
    for i in range(5000):
        caches[i % 20].put(f"row{i:05d}", i)
    total = sum(c.chars() for c in caches)
    assert total <= 2 * budget.limit + ENTRY_COST + 8
