"""The judge's caches keyed by screen text (a row, a region's text), on one shared budget.

The judge keeps answers per row: rows recur from frame to frame (a spinner, a footer, a border)
and each is worked out once. Every row an agent streams is new, though, so these caches fill
for as long as agents print. Bounded one by one in entries (4096 rows each, per manifest, per
kind of answer), they could hold tens of megabytes between them and took hours of streaming to
get there: the daemon's memory rose the whole time (issue #30). Here every cache draws on one
shared budget (budget_cache.py), counted in characters plus a cost per entry, so all of them
together stay under `2 * BUDGET` whatever the number of manifests, the width of the panes or the
hours of output, and that bound is reached within minutes."""

from __future__ import annotations

from osf_tmux.budget_cache import Budget, BudgetCache

# Not `typing` at run time (budget_cache.py says why).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    V = TypeVar("V")
else:
    V = None

# Characters (of keys, plus ENTRY_COST each) added to all caches between two turns. About 1.5
# bytes a character once the strings, tuples and dict slots are counted: 2 generations of it are
# a few megabytes, and a frame of 20 busy panes of one agent fits in one many times over.
BUDGET = 1 << 19
ENTRY_COST = 96  # what an entry costs besides its key's characters: its value, its dict slot

_Budget = Budget
SHARED = Budget(BUDGET)


def _cost(key: str, value: object) -> int:
    return len(key) + ENTRY_COST


class TextCache(BudgetCache[str, V]):
    """A dict from text to an answer that is never None, bounded by the shared budget."""

    __slots__ = ()

    def __init__(self, budget: Budget | None = None) -> None:
        super().__init__(SHARED if budget is None else budget, _cost)

    def chars(self) -> int:
        """What it holds, as the budget counts it."""
        return self.held()
