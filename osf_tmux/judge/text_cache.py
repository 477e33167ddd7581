"""Caches keyed by screen text (a row, a region's text), bounded together by what they hold.

The judge keeps answers per row: rows recur from frame to frame (a spinner, a footer, a border)
and each is worked out once. Every row an agent streams is new, though, so these caches fill
for as long as agents print. Bounded one by one in entries (4096 rows each, per manifest, per
kind of answer), they could hold tens of megabytes between them and took hours of streaming to
get there: the daemon's memory rose the whole time (issue #30). Here every cache draws on one
shared budget, counted in characters plus a cost per entry, so all of them together stay under
`2 * BUDGET` whatever the number of manifests, the width of the panes or the hours of output,
and that bound is reached within minutes.

Two generations: an entry found in the older one moves to the newer. When the entries added
since the last turn exceed the budget, every cache's newer generation becomes its older and the
oldest is dropped. Rows still on some screen are found again every frame and stay; rows that
scrolled away go within two turns."""

from __future__ import annotations

import weakref

# Not `typing` at run time: the key commands import the regions, and with them this module, and
# keep their start-up light (tests/plugin/test_overview.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Generic, TypeVar

    V = TypeVar("V")

    class _Generic(Generic[V]):
        pass
else:
    V = None

    class _Generic:
        __slots__ = ()

        def __class_getitem__(cls, item: object) -> type:
            return cls


# Characters (of keys, plus ENTRY_COST each) added to all caches between two turns. About 1.5
# bytes a character once the strings, tuples and dict slots are counted: 2 generations of it are
# a few megabytes, and a frame of 20 busy panes of one agent fits in one many times over.
BUDGET = 1 << 19
ENTRY_COST = 96  # what an entry costs besides its key's characters: its value, its dict slot


class _Budget:
    """What every cache added since the last turn, and the caches to turn when it is spent."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.turns = 0
        self._caches: weakref.WeakSet[TextCache[object]] = weakref.WeakSet()

    def join(self, cache: TextCache[object]) -> None:
        self._caches.add(cache)

    def spend(self, cost: int) -> None:
        self.used += cost
        if self.used > self.limit:
            self.used = 0
            self.turns += 1
            for cache in list(self._caches):
                cache.turn()


SHARED = _Budget(BUDGET)


class TextCache(_Generic[V]):
    """A dict from text to an answer that is never None, bounded by the shared budget."""

    __slots__ = ("__weakref__", "_budget", "_new", "_old")

    def __init__(self, budget: _Budget | None = None) -> None:
        self._budget = SHARED if budget is None else budget
        self._new: dict[str, V] = {}
        self._old: dict[str, V] = {}
        self._budget.join(self)  # type: ignore[arg-type]  # V is only stored, never read back

    def get(self, key: str) -> V | None:
        found = self._new.get(key)
        if found is None:
            found = self._old.pop(key, None)
            if found is not None:
                self.put(key, found)
        return found

    def put(self, key: str, value: V) -> V:
        self._new[key] = value
        self._budget.spend(len(key) + ENTRY_COST)
        return value

    def turn(self) -> None:
        self._old, self._new = self._new, {}

    def clear(self) -> None:
        self._new.clear()
        self._old.clear()

    def __len__(self) -> int:
        return len(self._new) + len(self._old)

    def chars(self) -> int:
        """What it holds, as the budget counts it."""
        return sum(len(k) + ENTRY_COST for d in (self._new, self._old) for k in d)
