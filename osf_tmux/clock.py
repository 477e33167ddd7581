"""The one place time comes from, injectable so that tests never sleep."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch, for what people read (since when) and for hook reports."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: float = 1000.0, wall_offset: float = 1_800_000_000.0) -> None:
        self.t = start
        self.wall_offset = wall_offset

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.t + self.wall_offset

    def advance(self, seconds: float) -> None:
        self.t += seconds
