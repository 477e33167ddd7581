"""The budget that bounds the parser's and the judge's caches together (budget_cache.py)."""

from __future__ import annotations

from osf_tmux.budget_cache import Budget, BudgetCache


def _cost(key: str, value: int) -> int:
    return len(key) + 10


def test_what_is_found_again_every_turn_is_counted_again_and_the_total_stays_bounded() -> None:
    # Every entry found again before it is dropped: were moving it to the newer generation free,
    # the newer one would grow by a budget every turn.
    budget = Budget(1000)
    cache: BudgetCache[str, int] = BudgetCache(budget, _cost)
    for i in range(2000):
        cache.put(f"row {i:06d}", i)
        for j in range(max(0, i - 50), i):
            cache.get(f"row {j:06d}")
        assert cache.held() <= 2 * budget.limit + _cost("row 000000", 0)
    assert budget.turns > 50


def test_every_cache_of_a_budget_turns_together() -> None:
    budget = Budget(500)
    quiet: BudgetCache[str, int] = BudgetCache(budget, _cost)
    busy: BudgetCache[str, int] = BudgetCache(budget, _cost)
    quiet.put("kept a while", 1)
    for i in range(100):
        busy.put(f"line {i}", i)
    assert budget.turns >= 2
    assert "kept a while" not in quiet  # dropped by turns the other cache paid for
    assert quiet.held() + busy.held() <= 2 * budget.limit + _cost("line 99", 0)
    assert budget.caches() and all(isinstance(c, BudgetCache) for c in budget.caches())
