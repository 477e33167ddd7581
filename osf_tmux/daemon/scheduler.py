"""When the loop wakes: one selector over every pane's FIFO (plus the wake pipe of signals and
the tmux hooks' waiter), the next sweep, the deadlines of the panes with work, the wait that
gathers the frames of several drawing panes into one wake-up, and the slower beat of the panes
that keep drawing while their verdict holds (Settings.steady_read).

It knows panes only as PaneWatch records in the PaneTable; what their bytes mean is the judging
step's business (`read_parked` hands them on)."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import selectors
import time
from collections.abc import Callable

from osf_tmux.daemon import tmux_hooks
from osf_tmux.daemon.source import PanePipe
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings

log = logging.getLogger("osf_tmux.daemon.scheduler")

_WAKE = "\0wake"  # selector data of the wake-up waiter (pane ids start with %)

OnBytes = Callable[[PaneWatch, bytes], None]


class Scheduler:
    def __init__(
        self,
        settings: Settings,
        now: Callable[[], float],
        table: PaneTable,
        status_due: Callable[[], float] = lambda: float("inf"),
    ) -> None:
        self.settings = settings
        self.now = now
        self.table = table
        self.status_due = status_due  # when the status file is next to be written
        self.selector = selectors.DefaultSelector()
        self.parked: dict[str, PaneWatch] = {}  # read on the slower beat (Settings.steady_read)
        self.next_sweep = float("-inf")
        self.woke = float("-inf")
        self.waiter: tmux_hooks.Waiter | None = None  # listens on the wake channel (with hooks)
        self.waiting = False  # a waiter listens: it is restarted at the next sweep
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)
        # Other things the loop waits for (the fleet's links): their own reading, and deadlines.
        self.timers: list[Callable[[], float]] = []

    # ---- what wakes the loop ---------------------------------------------------------------

    @property
    def wake_fd(self) -> int:
        """Written to wake the loop (signal.set_wakeup_fd)."""
        return self._wake_w

    def sweep_soon(self, at: float) -> None:
        """Sweep no later than `at`."""
        self.next_sweep = min(self.next_sweep, at)

    def listen(self, pipe: PanePipe, pane_id: str) -> None:
        self.selector.register(pipe.read_fd, selectors.EVENT_READ, pane_id)

    def forget(self, pipe: PanePipe) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(pipe.read_fd)

    def watch(self, fd: int, on_ready: Callable[[], None]) -> None:
        """Call `on_ready` from `wait` whenever `fd` is readable (a link's ssh output)."""
        self.selector.register(fd, selectors.EVENT_READ, _Ready(on_ready))

    def unwatch(self, fd: int) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(fd)

    def arm_waiter(self) -> None:
        """Before a listing: whatever changes after it wakes the loop (with tmux hooks)."""
        if self.waiter is not None and not self.waiting:
            self._start_waiter()
            self.waiting = True

    def listening(self) -> bool:
        """Whether a hooks' waiter listens now."""
        return self.waiting and self.waiter is not None and self.waiter.proc is not None

    def _start_waiter(self) -> None:
        if self.waiter is None:
            return
        self.stop_waiter()
        if self.waiter.start():
            self.selector.register(self.waiter.fileno(), selectors.EVENT_READ, _WAKE)

    def stop_waiter(self) -> None:
        if self.waiter is not None and self.waiter.proc is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(self.waiter.fileno())
            self.waiter.close()

    def _on_waiter(self) -> None:
        assert self.waiter is not None
        if self.waiter.woken():
            self.stop_waiter()
            self.next_sweep = float("-inf")  # a hook or a report: panes, focus or a report
            self.waiting = False

    def wait(self, max_wait: float = float("inf")) -> list[str]:
        """Wait for bytes or the next deadline; the panes whose FIFOs have bytes."""
        table, s = self.table, self.settings
        now = self.now()
        # Panes that drew in the last second, not the active set: a pane judged at once leaves
        # that set, which would shorten the very wait that gathers it.
        drawing = table.drawing(now)
        if self.parked:
            # Panes on the slower beat are read at its instants, not gathered by waiting: a
            # wait for them would only hold back the frames of the others (a prompt's among
            # them).
            drawing = sum(1 for p in table.recent if p not in self.parked)
        # One pane alone gains nothing from waiting; a flooding pane must be drained, since
        # tmux buffers whatever is not read, without bound.
        if drawing > 1 and not any(w.dropping_since is not None for w in table.busy()):
            hold = min(max_wait, self.woke + min(s.batch, s.batch_per_pane * drawing) - now)
            if hold > 0:
                time.sleep(hold)  # bytes wait in their FIFOs; a deadline due meanwhile waits too
                now = self.now()
        timeout = max(0.0, min(max_wait, self.next_deadline(now) - now))
        ready = self.selector.select(timeout)
        self.woke = self.now()
        table.counters["wakeups"] += 1
        panes: list[str] = []
        for key, _ in ready:
            if key.data is None:
                _drain(self._wake_r)
            elif key.data == _WAKE:
                self._on_waiter()
            elif isinstance(key.data, _Ready):
                key.data.on_ready()
            else:
                panes.append(key.data)
        return panes

    def next_deadline(self, now: float) -> float:
        s, table = self.settings, self.table
        if table.publish_due:
            return now  # a sweep dropped a pane: its state leaves the counts right away
        # The cross-check and the status file's refresh wait for a wake-up that has another
        # reason (at rest: the sweep), so that nothing but the sweep wakes an idle daemon.
        times = [self.next_sweep, *(timer() for timer in self.timers)]
        for w in table.busy():
            if w.pending:
                return now
            if w.dirty_since is not None:
                if w.hurry:
                    return now
                due = min(w.last_bytes + s.settle, w.dirty_since + s.ceiling)
                if due <= now:
                    return now  # the usual case while panes draw: no need to look further
                times.append(due)
            if w.dropping_since is not None:
                times.append(min(w.last_bytes + s.reseed_quiet, w.dropping_since + s.reseed_every))
            deadline = w.tracker.deadline()
            if deadline is not None:
                times.append(deadline)
        times += [table.panes[p].next_poll for p in table.polled]
        times += [w.next_read for w in self.parked.values()]
        if table.status_dirty:
            times.append(self.status_due())
        return min(times)

    # ---- the slower beat -------------------------------------------------------------------

    def read_parked(self, now: float, on_bytes: OnBytes) -> None:
        """Read the panes on the slower beat whose turn it is, and hand on what they drew."""
        s = self.settings
        drawing = self.table.drawing(now)
        # One next instant for all: a pane leaving meanwhile can only make the beat faster, and
        # a slower beat's instants are the faster one's.
        beat = self._beat(now)
        for w in [w for w in self.parked.values() if now >= w.next_read]:
            assert w.pipe is not None  # closing a pipe takes its pane off the beat
            data = w.pipe.read()
            w.quiet_beats = 0 if data else w.quiet_beats + 1
            if w.quiet_beats >= s.steady_quiet or drawing < s.steady_min_drawing:
                self.unpark(w)  # quiet now (or few panes draw): its next bytes wake the loop
            else:
                w.next_read = beat
                w.hurry = bool(data)
            on_bytes(w, data)

    def _beat(self, now: float) -> float:
        """The next instant of the slower beat, the same for every pane on it."""
        step = self.beat_step()
        return (now // step + 1) * step

    def beat_step(self) -> float:
        """How often the panes on the beat are read (Settings.steady_looks)."""
        s = self.settings
        beats = max(1, math.ceil(len(self.parked) / (s.steady_looks * s.steady_read)))
        return min(beats * s.steady_read, max(s.steady_read, s.steady_read_max))

    def park(self, w: PaneWatch, now: float) -> None:
        """Take the pane's FIFO off the selector: it is read at the beat's instants."""
        assert w.pipe is not None
        self.forget(w.pipe)
        step = self.beat_step()
        w.parked = True
        w.quiet_beats = 0
        self.parked[w.info.pane_id] = w
        beat = self._beat(now)
        w.next_read = beat
        if self.beat_step() != step:
            # A slower beat: the others move to its next instant too, so all stay on one.
            for other in self.parked.values():
                other.next_read = beat
        w.parks += 1
        self.table.counters["parked"] += 1

    def unpark(self, w: PaneWatch, listen: bool = True) -> None:
        """Off the beat; with `listen`, its FIFO back on the selector (not for a pipe about to
        close)."""
        if not w.parked:
            return
        w.parked = False
        w.next_read = float("inf")
        self.parked.pop(w.info.pane_id, None)
        if listen and w.pipe is not None:
            self.listen(w.pipe, w.info.pane_id)


class _Ready:
    """Selector data of a descriptor read by someone else (pane ids are strings)."""

    __slots__ = ("on_ready",)

    def __init__(self, on_ready: Callable[[], None]) -> None:
        self.on_ready = on_ready


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass
