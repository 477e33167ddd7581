"""The capture corpus as the tests read it: each capture's labels, timing, agent and points
parsed once per test process, however many test modules ask (at collection, before this, the
labels files were parsed ~7,000 times, the rules folder listed for each capture's agent, and
a timing file parsed again for each prompt of its capture). The files under captures/ do not
change during a run; what is kept is never changed by its readers."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from osf_tmux.judge.corpus import Capture, LabelPoint, find_captures

ROOT = Path(__file__).resolve().parents[2] / "captures"

T = TypeVar("T")


class ParsedCapture(Capture):
    """A Capture that keeps what it parsed (in its instance dict: the dataclass is frozen)."""

    def _kept(self, key: str, make: Callable[[], T]) -> T:
        kept = self.__dict__
        key = "_kept_" + key  # not the method's own name, which an instance entry would hide
        if key not in kept:
            kept[key] = make()
        value: T = kept[key]
        return value

    def labels(self) -> dict[str, Any]:
        return self._kept("labels", super().labels)

    def timing(self) -> list[tuple[int, float]] | None:
        return self._kept("timing", super().timing)

    def size(self) -> tuple[int, int] | None:
        return self._kept("size", super().size)

    def agent(self) -> str | None:
        return self._kept("agent", super().agent)

    def points(self) -> list[LabelPoint]:
        return self._kept("points", super().points)


@functools.cache
def _all() -> tuple[ParsedCapture, ...]:
    return tuple(ParsedCapture(c.bytes_path, c.labels_path) for c in find_captures(ROOT))


def captures(folder: Path = ROOT) -> list[Capture]:
    """What `find_captures(folder)` finds, for a folder under captures/, in the same order."""
    folder = folder.resolve()
    if folder == ROOT:
        return list(_all())
    under = f"{folder}{os.sep}"
    return [c for c in _all() if str(c.bytes_path).startswith(under)]
