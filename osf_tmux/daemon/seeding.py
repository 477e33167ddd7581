"""The screens tmux itself shows, read with `capture-pane`: a pane's screen seeded from it (a new
pipe, a resize, a dropped flood, a mismatch), the screens of panes whose bytes we do not get
(someone else's pipe) captured on a timer, and the cross-check of our screens against tmux's
that puts a screen that went astray right."""

from __future__ import annotations

import logging

from osf_tmux.clock import Clock
from osf_tmux.daemon.recent import RecentBytes
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.source import PaneCapture, capture_panes, tabs_as_spaces
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings
from osf_tmux.tmux import NoServerError, Tmux, TmuxError
from osf_tmux.vt.grid import BLANK
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot

log = logging.getLogger("osf_tmux.daemon.seeding")


class ScreenSync:
    def __init__(
        self,
        tmux: Tmux,
        *,
        settings: Settings,
        clock: Clock,
        table: PaneTable,
        scheduler: Scheduler,
    ) -> None:
        self.tmux = tmux
        self.settings = settings
        self.clock = clock
        self.table = table
        self.scheduler = scheduler
        self.next_check = clock.now() + settings.check_interval

    def seed(self, watches: list[PaneWatch]) -> None:
        """Set screens from `capture-pane -e`: bytes already read are part of what it shows."""
        s, table = self.settings, self.table
        for w in watches:
            if w.pipe is not None:
                w.pipe.read()  # drained: what they drew is in the capture
        try:
            captures = capture_panes(
                self.tmux,
                [w.info.pane_id for w in watches],
                escapes=True,
                alt=frozenset(w.info.pane_id for w in watches if w.info.alt_screen),
            )
        except NoServerError:
            raise
        except TmuxError as exc:
            # Most likely a pane left (or entered) the alternate screen or went away since the
            # last sweep: sweep now, and do not hammer tmux until then.
            log.debug("seed: %s", exc)
            self.scheduler.next_sweep = self.clock.now()
            for w in watches:
                w.seed_not_before = self.clock.now() + s.settle
            return
        now = self.clock.now()
        for w in watches:
            cap = captures.get(w.info.pane_id)
            if cap is None:  # gone since the sweep, most likely: the next sweep tells
                self.scheduler.sweep_soon(now + s.retry_sweep)
                w.seed_not_before = now + s.retry_sweep
                continue
            w.screen = screen_from_capture(cap)
            if s.recent_bytes > 0:
                # What was kept led to the old screen: it starts again from this one.
                w.recent = w.recent or RecentBytes(s.recent_bytes)
                w.recent.restart(w.screen.snapshot(), self.clock.wall())
            self.scheduler.unpark(w)
            w.pending.clear()
            w.needs_seed = False
            w.dropping_since = None
            w.reseeds += 1
            table.status_dirty = True
            w.dirty_since = now
            w.last_bytes = min(w.last_bytes, now - s.settle)
            table.counters["reseeds"] += 1

    def poll(self, watches: list[PaneWatch], now: float) -> None:
        """Capture panes whose bytes we do not get; a screen that changed counts as output."""
        s = self.settings
        try:
            captures = capture_panes(self.tmux, [w.info.pane_id for w in watches], escapes=False)
        except NoServerError:
            raise
        except TmuxError as exc:
            log.debug("poll: %s", exc)
            captures = {}
        for w in watches:
            cap = captures.get(w.info.pane_id)
            if cap is not None:
                snap = Snapshot(
                    cols=cap.cols,
                    rows=tuple(line.rstrip() for line in cap.lines),
                    cursor=cap.cursor,
                    cursor_visible=cap.cursor_visible,
                    title=cap.title,
                    alt_screen=cap.alt_screen,
                )
                if snap != w.polled:
                    w.polled = snap
                    # It changed within the last interval; judged at once, being a whole frame.
                    w.last_bytes = now - s.settle
                    w.last_read = self.table.recent[w.info.pane_id] = now
                    w.dirty_since = w.dirty_since or now
                    self.table.active.add(w.info.pane_id)
            hot = now - w.last_bytes < s.foreign_hot or w.tracker.current.state in (
                "blocked",
                "working",
            )
            w.next_poll = now + (s.foreign_poll if hot else s.foreign_poll_idle)

    def check_if_due(self, now: float) -> None:
        """The cross-check, every `check_interval`."""
        if now >= self.next_check:
            self.cross_check()
            self.next_check = now + self.settings.check_interval

    def cross_check(self) -> None:
        """Compare the screens of panes that printed and then went quiet with tmux's; one that
        differs is seeded again, unless it drew while the capture was taken (bytes came into
        its FIFO since just before it, or wait there unread): tmux's screen then holds what
        ours has yet to read, a race and not a screen astray. Races are counted
        (`check_races`) and the pane compared again at the next check."""
        due = [
            w
            for w in self.table.panes.values()
            if w.mode == "pipe"
            and w.screen is not None
            and w.checked_bytes
            and not w.parked  # bytes may wait in its FIFO
            and not w.pending
            and w.dropping_since is None
            and self.clock.now() - w.last_bytes > 0.5
        ]
        if not due:
            return
        # A FIFO's stamp comes from a coarse clock, a tick or two behind.
        before = self.clock.wall() - self.settings.stamp_slack
        try:
            captures = capture_panes(self.tmux, [w.info.pane_id for w in due], escapes=False)
        except NoServerError:
            raise
        except TmuxError as exc:
            log.debug("cross-check: %s", exc)
            return
        for w in due:
            cap = captures.get(w.info.pane_id)
            if cap is None or w.screen is None:
                continue
            w.checked_bytes = False
            mine = w.screen.snapshot().rows
            stops, cols = w.screen.tab_stops(), w.screen.size[0]
            # Only blanks: tmux keeps other trailing spaces (Claude Code's prompt is `❯` and a
            # no-break space, U+00A0), and so does our screen.
            theirs = tuple(tabs_as_spaces(line, stops, cols).rstrip(BLANK) for line in cap.lines)
            if mine == theirs:
                continue
            if w.pipe is not None and w.pipe.written_since(before):
                self.table.counters["check_races"] += 1
                w.checked_bytes = True
                log.debug(
                    "%s: drew while its screen was captured; compared again later", w.info.pane_id
                )
                continue
            w.mismatches += 1
            self.table.counters["mismatches"] += 1
            w.needs_seed = True
            self.table.active.add(w.info.pane_id)
            bad = (
                next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b)
                if len(mine) == len(theirs)
                else -1
            )
            log.warning(
                "%s: screen differs from capture-pane (row %d); re-seeding", w.info.pane_id, bad
            )


def screen_from_capture(cap: PaneCapture) -> PaneScreen:
    """A screen seeded from what `capture-pane` showed (also used by agents/safe_input.py)."""
    screen = PaneScreen(max(cap.cols, 2), max(cap.rows_count, 2))
    screen.seed(
        list(cap.lines),
        cap.cursor,
        cap.alt_screen,
        cap.title,
        cap.cursor_visible,
        None if cap.main_lines is None else list(cap.main_lines),
    )
    return screen
