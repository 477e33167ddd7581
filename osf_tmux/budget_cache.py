"""Caches of what panes print, bounded together by a budget of what they hold, in two generations.

The parser (vt/stream.py, vt/printing.py) and the judge (judge/text_cache.py) keep answers by the
text they were worked out from: a line of bytes, a run of sequences, a row. What recurs (a
spinner, a footer, a border) is worked out once; but every line an agent streams is new, so such
caches fill for as long as agents print. Bounded one by one in entries, their bounds added up to
many megabytes that filled over hours: the daemon's memory rose the whole time (issue #30). On a
budget, every cache that draws on it adds the cost of what it keeps (about its bytes) to what
was added since the last turn; past the budget's limit, every cache turns: its newer generation
becomes its older and the older is dropped. So all of them together hold at most two limits,
and with a limit a few minutes of busy panes fill, what they hold stops growing after those
minutes, whatever the number of panes, agents or hours.

An entry found in the older generation moves to the newer: what is still on some screen is found
again and stays; what scrolled away goes within two turns."""

from __future__ import annotations

import weakref

# Not `typing` at run time: the key commands import the judge's regions, and with them this
# module, and keep their start-up light (tests/plugin/test_overview.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
    from typing import Generic, TypeVar

    K = TypeVar("K", bound=Hashable)
    V = TypeVar("V")

    class _Generic(Generic[K, V]):
        pass
else:
    K = V = None

    class _Generic:
        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls


class Budget:
    """What every cache added since the last turn, and the caches to turn when it is spent."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.turns = 0
        self._caches: weakref.WeakSet[BudgetCache[object, object]] = weakref.WeakSet()

    def join(self, cache: BudgetCache[object, object]) -> None:
        self._caches.add(cache)

    def caches(self) -> list[BudgetCache[object, object]]:
        return list(self._caches)

    def spend(self, cost: int) -> None:
        self.used += cost
        if self.used > self.limit:
            self.turn()

    def turn(self) -> None:
        self.used = 0
        self.turns += 1
        for cache in list(self._caches):
            cache.turn()


class BudgetCache(_Generic[K, V]):
    """A dict from a key to an answer that is never None, bounded by its budget.

    `newer` may be read directly where a method call would cost too much (the parser's inner
    loop): a hit there is a hit; after a miss, `get` looks in the older generation. A reference
    to `newer` held across a turn is the older generation then: still right, only not kept."""

    __slots__ = ("__weakref__", "_budget", "_cost", "newer", "older")

    def __init__(self, budget: Budget, cost: Callable[[K, V], int]) -> None:
        self._budget = budget
        self._cost = cost  # about the bytes an entry keeps: its key's, its value's, its slot
        self.newer: dict[K, V] = {}
        self.older: dict[K, V] = {}
        budget.join(self)  # type: ignore[arg-type]  # K and V are only stored, never read back

    def get(self, key: K) -> V | None:
        found = self.newer.get(key)
        if found is None:
            found = self.older.pop(key, None)
            if found is not None:
                # Counted again: the newer generation holds no more than was spent since the
                # last turn, so the two together stay under two limits.
                self.put(key, found)
        return found

    def put(self, key: K, value: V) -> V:
        self.newer[key] = value
        self._budget.spend(self._cost(key, value))
        return value

    def held(self) -> int:
        """What it holds, as its budget counts it."""
        return sum(self._cost(k, v) for d in (self.newer, self.older) for k, v in d.items())

    def turn(self) -> None:
        self.older, self.newer = self.newer, {}

    def clear(self) -> None:
        self.newer.clear()
        self.older.clear()

    def __contains__(self, key: object) -> bool:
        return key in self.newer or key in self.older

    def __len__(self) -> int:
        return len(self.newer) + len(self.older)
