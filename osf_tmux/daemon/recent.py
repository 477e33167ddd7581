"""What an agent pane drew lately, kept so that `osf-tmux capture` can write it out when the user
says osf-tmux is wrong: the bytes the daemon parsed into the pane's screen, when it parsed them,
and the screen they started from.

Bounded: at most `cap` bytes and `max_points` read times per pane, in two generations. When the
newer one holds half of either, the older is dropped and a new one starts from the screen as it
is then (rendered as bytes: `seed_bytes`), so the bytes kept always replay from a known screen.

Written from the daemon loop's thread and read from the capture server's: one lock each."""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass

from osf_tmux.vt.redraw import seed_bytes
from osf_tmux.vt.snapshot import Snapshot

DEFAULT_CAP = 256 * 1024
DEFAULT_POINTS = 8192


class _Generation:
    """A screen to start from, then the bytes parsed since, each read's end and time."""

    __slots__ = ("data", "ends", "seed", "started", "times")

    def __init__(self, seed: bytes, started: float) -> None:
        self.seed = seed
        self.started = started  # wall-clock seconds
        self.data = bytearray()
        self.ends = array("q")  # offset in `data` after each read
        self.times = array("d")  # wall-clock seconds of each read

    def size(self) -> int:
        return len(self.seed) + len(self.data) + 16 * len(self.ends)


@dataclass(frozen=True)
class Recording:
    """The kept bytes as one capture: `data` replays from a blank screen (the seed first);
    `timing` holds each read's end offset in `data` and its wall-clock time."""

    data: bytes
    timing: tuple[tuple[int, float], ...]
    started: float


class RecentBytes:
    def __init__(self, cap: int = DEFAULT_CAP, max_points: int = DEFAULT_POINTS) -> None:
        self.cap = cap
        self.max_points = max_points
        self._lock = threading.Lock()
        self._older: _Generation | None = None
        self._newer: _Generation | None = None

    def restart(self, snap: Snapshot, wall: float) -> None:
        """The screen was set from elsewhere (a seed from `capture-pane`, a resize): what was
        kept before no longer replays to it."""
        generation = _Generation(seed_bytes(snap), wall)
        with self._lock:
            self._older, self._newer = None, generation

    def add(self, data: bytes, wall: float) -> bool:
        """Bytes just parsed into the screen. True when the newer generation is full: the
        caller then hands over the screen as it is now (`rotate`)."""
        with self._lock:
            g = self._newer
            if g is None:
                return False
            g.data += data
            g.ends.append(len(g.data))
            g.times.append(wall)
            return len(g.data) >= self.cap // 2 or len(g.ends) >= self.max_points // 2

    def rotate(self, snap: Snapshot, wall: float) -> None:
        """Drop the older generation; the newer becomes the older; a new one starts at `snap`,
        the screen the newer generation's bytes led to."""
        generation = _Generation(seed_bytes(snap), wall)
        with self._lock:
            self._older, self._newer = self._newer, generation

    def memory(self) -> int:
        """Bytes held (data, seeds, read times), for the status file and the benchmark."""
        with self._lock:
            return sum(g.size() for g in (self._older, self._newer) if g is not None)

    def recording(self) -> Recording | None:
        """Everything kept, oldest first, as one replayable capture; None before any seed."""
        with self._lock:
            generations = [g for g in (self._older, self._newer) if g is not None]
            if not generations:
                return None
            first = generations[0]
            out = bytearray(first.seed)
            timing: list[tuple[int, float]] = [(len(out), first.started)]
            for g in generations:
                base = len(out)
                out += g.data
                timing.extend((base + end, t) for end, t in zip(g.ends, g.times, strict=True))
            return Recording(bytes(out), tuple(timing), first.started)
