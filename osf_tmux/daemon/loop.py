"""The sidecar: one screen per pane of a tmux server, judged as bytes arrive, published to tmux.

Single-threaded: one selector over every pane's FIFO, timers computed from the panes' own
deadlines. Data flows one way: source -> screen -> classify -> combine -> publish."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import math
import os
import selectors
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.daemon import tmux_hooks
from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.process import foreground_commands, foreground_signature
from osf_tmux.daemon.publish import PanePlace, Publisher
from osf_tmux.daemon.rule_budget import (
    OverBudget,
    RuleBudget,
    drop_slow_process_args,
    drop_slow_rules,
)
from osf_tmux.daemon.source import (
    PaneCapture,
    PanePipe,
    PipeFactory,
    capture_panes,
    detach_commands,
    tabs_as_spaces,
)
from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.combine import Observation, PaneState, PaneTracker, Report, Timing
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.judge.screen_judge import ScreenJudge
from osf_tmux.paths import write_private
from osf_tmux.tmux import (
    SEP,
    NoServerError,
    PaneInfo,
    Tmux,
    TmuxError,
    list_panes_format,
    parse_pane_line,
)
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot

log = logging.getLogger("osf_tmux.daemon.loop")

_CLIENT_HEAD = "OSFCLIENT" + SEP
_WAKE = "\0wake"  # selector data of the wake-up waiter (pane ids start with %)


@dataclass(frozen=True)
class Settings:
    sweep_interval: float = 2.0  # list-panes: new and gone panes, sizes, focus, reports
    # With tmux hooks, most changes of panes, sizes or focus, and every agent report, wake the
    # daemon for a sweep at once; the periodic one catches what no hook reports (an
    # `@osf-agent` set by hand, a process change in a pane that prints nothing, and, in tmux
    # 3.3a, `resize-window` on a one-pane window with no client: no hook fires). A longer
    # interval would leave such a pane's screen at its old size that much longer, so it
    # stays at the plain interval; raise it only where every resize is known to be hooked.
    sweep_interval_hooked: float = 2.0
    # An agent pane that prints has its processes re-read this often: an agent that exits
    # leaves its shell's prompt, so the pane stops being judged as the agent's without waiting
    # for a sweep.
    agent_identify: float = 2.0
    retry_sweep: float = 0.25  # after a tmux call failed (a pane closed meanwhile), look again
    # (tmux hooks wake the daemon for a sweep at once when panes or focus change)
    settle: float = 0.03  # a pane quiet this long has finished drawing its frame
    ceiling: float = 0.25  # judge at least this often while output keeps coming
    max_pending: int = 256 * 1024  # unparsed bytes past this are dropped and the pane re-seeded
    feed_budget: int = 64 * 1024  # bytes parsed per pane per loop turn, so no pane starves others
    reseed_quiet: float = 0.1  # after a dropped flood, re-seed once the pane is this quiet
    reseed_every: float = 1.0  # ... or this often while the flood goes on
    check_interval: float = 10.0  # cross-check screens against capture-pane
    # An agent pane whose pipe is someone else's (tmux-logging, a recorder) gets no bytes: its
    # screen is captured this often while it changes, works or waits for an answer ...
    foreign_poll: float = 0.1
    foreign_poll_idle: float = 0.5  # ... and this often while it sits unchanged, idle or done
    foreign_hot: float = 2.0  # "changes": its screen changed this recently
    identify_interval: float = 0.5  # re-read a non-agent pane's process when it prints
    # ... and, once it has printed nothing for this long, let the sweep re-read it only this
    # often: a quiet shell's process tree costs a few /proc reads per sweep (~60 % of a sweep
    # of 200 panes). A pane that printed lately is re-read at every sweep: an agent may start
    # without drawing, exec'd by the program that just drew (issue #29). Agent panes are
    # re-read at every sweep.
    quiet_identify: float = 10.0
    status_interval: float = 0.2  # at most this often rewrite the status file
    status_refresh: float = 5.0  # ... and at least this often (fresh counters for `status`)
    # While several panes draw, one wake-up gathers the frames of all of them: a wake-up costs
    # about as much CPU as a frame (measured ~0.1-0.3 ms on a VM, even with nothing to do). The
    # loop waits `batch_per_pane` per pane that drew in the last second, at most `batch`. A
    # frame read at a wake-up is judged at once if its FIFO's write stamp shows it settled
    # already, else at the next one, so the wait costs latency only for frames still moving.
    batch: float = 0.09
    batch_per_pane: float = 0.03
    stamp_slack: float = 0.01  # FIFO write stamps come from a coarse clock that lags a tick or two
    # A pane that keeps drawing while its verdict and state hold (a spinner, an answer that
    # streams under the same status row) is read on a slower beat once at least
    # `steady_min_drawing` panes draw: its FIFO leaves the selector and is read every
    # `steady_read` seconds, all such panes at the same instants (one wake-up for all of
    # them). Each such read is judged at once, and a verdict or state that changes, or
    # `steady_quiet` reads in a row that find the pane quiet, put it back on the selector
    # (agents pause 0.3-1.4 s between a spinner's frames now and then). Measured with 10 panes of
    # every agent's frames: a frame looked at costs ~100 µs however small (a wake-up's cold
    # caches), so the beat, not the bytes, sets the CPU. It costs a prompt that comes while
    # its pane still draws up to `steady_read` of latency (bench/RESULTS.md, session 7).
    steady_after: float = 1.0
    steady_read: float = 0.25
    steady_min_drawing: int = 3
    steady_quiet: int = 2
    # Every read on the beat costs about the same, so with many panes on it their reads are
    # what the CPU goes on: past `steady_looks` reads a second in all (more than 25 panes at
    # 0.25 s), the beat goes to the next multiple of `steady_read` that keeps them so few (50
    # panes: 0.5 s, a prompt seen up to that late), never slower than `steady_read_max`.
    # Multiples keep one grid: the slower beat's instants are the faster one's.
    steady_looks: float = 100.0
    steady_read_max: float = 1.0
    timing: Timing = field(default_factory=Timing)


@dataclass(frozen=True)
class Transition:
    """A pane's published state changed (what notifications are made of)."""

    pane: PaneInfo
    agent: str | None
    before: PaneState
    after: PaneState
    snapshot: Snapshot | None  # the screen that decided it, when the screen did
    # Whether `before` and `after` only stand in for a prompt that went, not confirmed yet
    # (PaneTracker.standing_in): notifications tell an answer from a redraw by it.
    standing_in: tuple[bool, bool] = (False, False)


@dataclass
class PaneWatch:
    """Everything the daemon holds for one pane."""

    info: PaneInfo
    tracker: PaneTracker
    pipe: PanePipe | None = None
    mode: str = "none"  # pipe | foreign | none
    manifest: Manifest | None = None
    screen: PaneScreen | None = None
    pending: bytearray = field(default_factory=bytearray)
    dropping_since: float | None = None
    needs_seed: bool = False
    last_bytes: float = float("-inf")  # when the pane last wrote (monotonic)
    # When the bytes last changed the screen's text, and that text: a blinking cursor drawn
    # as a reverse-video cell (Mistral Vibe, every 0.2-0.5 s) writes bytes without end, and
    # a pane that only blinks has stopped printing.
    last_change: float = float("-inf")
    shown: tuple[str, ...] | None = None
    last_read: float = float("-inf")  # when its FIFO was last read with bytes in it
    dirty_since: float | None = None
    checked_bytes: bool = False
    verdict: Verdict | None = None
    judge: ScreenJudge | None = None  # classifies this pane's screens, one after another
    report: tuple[str, Report | None] = ("", None)  # `@osf_report` as read, and parsed
    last_identify: float = float("-inf")
    identity: tuple[object, ...] = ()  # what identified it last (see Daemon._identify)
    signature_read: float = float("-inf")  # when its foreground processes were last read
    seed_not_before: float = float("-inf")
    # Someone else's pipe: the screen as the last capture showed it, and when to capture next.
    polled: Snapshot | None = None
    next_poll: float = float("inf")
    reseeds: int = 0
    mismatches: int = 0
    dropped: int = 0
    # The slower beat (Settings.steady_read): since when the verdict and state have been what
    # they are (`steady`), whether the FIFO is off the selector, when it is read next, and
    # whether the bytes that read brought are to be judged without waiting for them to settle.
    steady: tuple[object, ...] = ()
    steady_since: float = float("-inf")
    parked: bool = False
    next_read: float = float("inf")
    hurry: bool = False
    quiet_beats: int = 0  # reads in a row on the beat that found nothing
    parks: int = 0  # times it went onto the slower beat


class Daemon:
    def __init__(
        self,
        tmux: Tmux,
        rules: RuleSet,
        pipes: PipeFactory,
        token: str,
        *,
        clock: Clock | None = None,
        settings: Settings | None = None,
        status_file: Path | None = None,
        identify: Callable[[int], list[list[str]]] = foreground_commands,
        on_transition: Callable[[Transition], None] | None = None,
        on_pane_gone: Callable[[PaneInfo], None] | None = None,
        extra_status: Mapping[str, Callable[[], Any]] | None = None,
    ) -> None:
        self.tmux = tmux
        self.rules = rules
        self.pipes = pipes
        self.token = token
        self.clock = clock or SystemClock()
        self.settings = settings or Settings()
        self.status_file = status_file
        self.identify_argv = identify
        self.on_transition = on_transition
        self.on_pane_gone = on_pane_gone  # the sweep found a pane closed (the event feed)
        self.extra_status = dict(extra_status or {})  # more sections of status.json (notify)
        self.panes: dict[str, PaneWatch] = {}
        self.budget = RuleBudget()  # CPU per classification: no rule can stall the daemon
        # Panes with something to do (bytes to parse, a frame to judge, a seed, a deadline):
        # the loop visits only these, so quiet panes cost nothing per turn.
        self.active: set[str] = set()
        self.polled: set[str] = set()  # panes captured on a timer (someone else's pipe)
        # When each pane that drew lately last did (its `last_read`): the wait that gathers
        # frames counts these, and counting them over every pane cost a pass over 200 panes
        # at every wake-up. Entries older than a second are dropped as they are counted.
        self.recent: dict[str, float] = {}
        self.parked: dict[str, PaneWatch] = {}  # read on the slower beat (Settings.steady_read)
        self.listed: dict[str, PaneInfo] = {}  # the last listing's lines, parsed
        self.clients: list[str] = []
        self.publisher = Publisher()
        self.selector = selectors.DefaultSelector()
        self.stopping = False
        self.hooks_installed = False
        self.waiter: tmux_hooks.Waiter | None = None  # listens on the wake channel (with hooks)
        self.waiting = False  # a waiter listens: it is restarted at the next sweep
        self.started = self.clock.wall()
        self.next_sweep = float("-inf")
        self.next_check = self.clock.now() + self.settings.check_interval
        self.status_dirty = True
        self.publish_due = False  # panes went away: counts and marks must be written again
        self.last_status_write = float("-inf")
        self.woke = float("-inf")
        self.counters = {
            "sweeps": 0,
            "publishes": 0,
            "reseeds": 0,
            "mismatches": 0,
            "wakeups": 0,  # loop turns that waited for bytes or a deadline
            "judged": 0,  # screens judged; of them, classified (the rest kept their verdict)
            "classified": 0,
            "parked": 0,  # times a pane went onto the slower beat
        }
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)

    # ---- lifecycle -------------------------------------------------------------------------

    def install_signal_handlers(self) -> None:
        signal.set_wakeup_fd(self._wake_w)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        signal.signal(signal.SIGUSR1, self._on_wake)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.stopping = True

    def _on_wake(self, signum: int, frame: Any) -> None:
        self.next_sweep = float("-inf")  # an older agent hook endpoint still sends SIGUSR1

    def install_hooks(self) -> None:
        """tmux hooks that signal our wake channel, and the waiter that listens on it (agent
        hook reports signal it too). No process id is published: see tmux_hooks."""
        try:
            # An older daemon published its pid for agent hooks to signal: a pid that may
            # belong to another program once that daemon is gone.
            self.tmux.run("set-option", "-gu", "@osf_daemon_pid")
            tmux_hooks.install(self.tmux)
            tmux_hooks.release(self.tmux)  # a killed daemon's last waiter, if any, ends
            self.hooks_installed = True
            self.waiter = tmux_hooks.Waiter(self.tmux.argv())
        except TmuxError as exc:
            log.warning(
                "could not install tmux hooks (sweeping every %.1fs instead): %s",
                self.settings.sweep_interval,
                exc,
            )

    def _start_waiter(self) -> None:
        if self.waiter is None:
            return
        self._stop_waiter()
        if self.waiter.start():
            self.selector.register(self.waiter.fileno(), selectors.EVENT_READ, _WAKE)

    def _stop_waiter(self) -> None:
        if self.waiter is not None and self.waiter.proc is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(self.waiter.fileno())
            self.waiter.close()

    def _on_waiter(self) -> None:
        assert self.waiter is not None
        if self.waiter.woken():
            self._stop_waiter()
            self.next_sweep = float("-inf")  # a hook or a report: panes, focus or a report
            self.waiting = False

    def run(self) -> None:
        self.pipes.prepare()
        try:
            while not self.stopping:
                try:
                    self.step()
                except NoServerError:
                    raise
                except TmuxError as exc:
                    # A call that failed for another reason (tmux busy, a timeout): the daemon
                    # goes on, unless the server turns out to be gone.
                    if not self.tmux.alive():
                        raise NoServerError(str(exc)) from None
                    log.warning("tmux: %s", exc)
                    time.sleep(self.settings.retry_sweep)
        except NoServerError as exc:
            log.info("tmux server is gone (%s); exiting", exc)
            self._close_all()
            self.write_status(force=True, running=False)
            return
        self.shutdown()

    def shutdown(self) -> None:
        """Give the panes back as they were: our pipes closed, our options unset."""
        commands = [
            c
            for w in self.panes.values()
            if w.mode == "pipe"
            for c in detach_commands(w.info.pane_id)
        ]
        commands += self.publisher.clear_commands()
        if self.hooks_installed:
            try:
                tmux_hooks.remove(self.tmux)
            except TmuxError as exc:
                log.warning("could not remove tmux hooks: %s", exc)
        if commands:
            # Each command on its own account: a pane that closed a moment ago must not keep
            # the global options that follow it from being unset.
            try:
                errors = self.tmux.run_each(commands).errors
            except TmuxError as exc:
                errors = [exc]
            if errors:
                log.info("clean-up: %s", "; ".join(str(e) for e in errors))
        self._close_all()
        self.write_status(force=True, running=False)

    def _close_all(self) -> None:
        for watch in self.panes.values():
            self._close_pipe(watch)
        self.panes.clear()
        self._stop_waiter()

    # ---- the loop --------------------------------------------------------------------------

    def step(self, max_wait: float = float("inf")) -> None:
        """One turn: wait for bytes or the next deadline, then do what is due."""
        now = self.clock.now()
        if now >= self.next_sweep:
            self.sweep()
            now = self.clock.now()
        # Panes that drew in the last second, not the active set: a pane judged at once leaves
        # that set, which would shorten the very wait that gathers it.
        drawing = self._drawing(now)
        if self.parked:
            # Panes on the slower beat are read at its instants, not gathered by waiting: a
            # wait for them would only hold back the frames of the others (a prompt's among
            # them).
            drawing = sum(1 for p in self.recent if p not in self.parked)
        # One pane alone gains nothing from waiting; a flooding pane must be drained, since
        # tmux buffers whatever is not read, without bound.
        if drawing > 1 and not any(w.dropping_since is not None for w in self._busy()):
            s = self.settings
            hold = min(max_wait, self.woke + min(s.batch, s.batch_per_pane * drawing) - now)
            if hold > 0:
                time.sleep(hold)  # bytes wait in their FIFOs; a deadline due meanwhile waits too
                now = self.clock.now()
        timeout = max(0.0, min(max_wait, self._next_deadline(now) - now))
        ready = self.selector.select(timeout)
        self.woke = self.clock.now()
        self.counters["wakeups"] += 1
        for key, _ in ready:
            if key.data is None:
                _drain(self._wake_r)
                continue
            if key.data == _WAKE:
                self._on_waiter()
                continue
            watch = self.panes.get(key.data)
            if watch is not None and watch.pipe is not None:
                # A pane whose flood is being dropped is drained hard: tmux buffers what we do
                # not read without bound, and its backlog delays the right state.
                limit = 64 if watch.dropping_since is not None else 8
                self._on_bytes(watch, watch.pipe.read(limit))
        if self.parked:
            self._read_parked(self.woke)
        self.process()

    def _read_parked(self, now: float) -> None:
        """Read the panes on the slower beat whose turn it is (Settings.steady_read)."""
        s = self.settings
        drawing = self._drawing(now)
        # One next instant for all: a pane leaving meanwhile can only make the beat faster, and
        # a slower beat's instants are the faster one's.
        beat = self._beat(now)
        for w in [w for w in self.parked.values() if now >= w.next_read]:
            assert w.pipe is not None  # closing a pipe takes its pane off the beat
            data = w.pipe.read()
            w.quiet_beats = 0 if data else w.quiet_beats + 1
            if w.quiet_beats >= s.steady_quiet or drawing < s.steady_min_drawing:
                self._unpark(w)  # quiet now (or few panes draw): its next bytes wake the loop
            else:
                w.next_read = beat
                w.hurry = bool(data)
            self._on_bytes(w, data)

    def _beat(self, now: float) -> float:
        """The next instant of the slower beat, the same for every pane on it."""
        step = self.beat_step()
        return (now // step + 1) * step

    def beat_step(self) -> float:
        """How often the panes on the beat are read (Settings.steady_looks)."""
        s = self.settings
        beats = max(1, math.ceil(len(self.parked) / (s.steady_looks * s.steady_read)))
        return min(beats * s.steady_read, max(s.steady_read, s.steady_read_max))

    def _park(self, w: PaneWatch, now: float) -> None:
        assert w.pipe is not None
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(w.pipe.read_fd)
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
        self.counters["parked"] += 1

    def _unpark(self, w: PaneWatch, listen: bool = True) -> None:
        """Off the beat; with `listen`, its FIFO back on the selector (not for a pipe about to
        close)."""
        if not w.parked:
            return
        w.parked = False
        w.next_read = float("inf")
        self.parked.pop(w.info.pane_id, None)
        if listen and w.pipe is not None:
            self.selector.register(w.pipe.read_fd, selectors.EVENT_READ, w.info.pane_id)

    def _drawing(self, now: float) -> int:
        """How many panes read bytes in the last second."""
        recent = self.recent
        stale = [p for p, t in recent.items() if now - t >= 1.0]
        for p in stale:
            del recent[p]
        return len(recent)

    def _busy(self) -> list[PaneWatch]:
        return [w for p in self.active if (w := self.panes.get(p)) is not None]

    def _next_deadline(self, now: float) -> float:
        s = self.settings
        if self.publish_due:
            return now  # a sweep dropped a pane: its state leaves the counts right away
        # The cross-check and the status file's refresh wait for a wake-up that has another
        # reason (at rest: the sweep), so that nothing but the sweep wakes an idle daemon.
        times = [self.next_sweep]
        for w in self._busy():
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
        times += [self.panes[p].next_poll for p in self.polled]
        times += [w.next_read for w in self.parked.values()]
        if self.status_dirty:
            times.append(self.last_status_write + s.status_interval)
        return min(times)

    def _on_bytes(self, watch: PaneWatch, data: bytes) -> None:
        if not data:
            return
        now = self.clock.now()
        watch.last_bytes = self._written_at(watch, now)
        watch.last_read = self.recent[watch.info.pane_id] = now
        watch.checked_bytes = True
        if watch.manifest is None:
            # Not an agent (yet): the bytes are not parsed, but an agent may just have started.
            if now - watch.last_identify >= self.settings.identify_interval:
                self._identify(watch, now)
            return
        if now - watch.signature_read >= self.settings.agent_identify:
            self._identify(watch, now, if_changed=True)
            if watch.manifest is None:
                return  # the agent is gone: its shell's output is not parsed
        if watch.dropping_since is not None:
            watch.dropped += len(data)
            return
        watch.pending += data
        self.active.add(watch.info.pane_id)
        if len(watch.pending) > self.settings.max_pending:
            watch.dropped += len(watch.pending)
            watch.pending.clear()
            watch.dropping_since = now
            self._unpark(watch)  # a flood is drained at every wake-up
            log.info(
                "%s: output faster than it can be parsed; dropping until it calms down",
                watch.info.pane_id,
            )

    def _written_at(self, watch: PaneWatch, now: float) -> float:
        """When the bytes just read from `watch` were written (monotonic): from the FIFO's write
        stamp when it tells, else the time of reading, which is never too early."""
        pipe = watch.pipe
        # Bytes still in the FIFO are newer than the ones read, whatever the stamp says.
        stamp = pipe.write_stamp() if pipe is not None and pipe.drained else None
        if stamp is None:
            return now
        age = self.clock.wall() - stamp - self.settings.stamp_slack
        if age <= 0:
            return now
        # Whatever was in the FIFO at the last read was read then: the bytes are newer.
        return max(now - age, watch.last_read)

    def process(self) -> None:
        """Parse pending bytes, re-seed and judge what is due, publish what changed."""
        s = self.settings
        now = self.clock.now()
        to_seed: list[PaneWatch] = []
        busy = self._busy()
        for w in busy:
            if w.screen is not None and w.pending:
                chunk = bytes(w.pending[: s.feed_budget])
                del w.pending[: s.feed_budget]
                w.screen.feed(chunk)
                if w.dirty_since is None:
                    w.dirty_since = now
            if w.dropping_since is not None and (
                now - w.last_bytes >= s.reseed_quiet or now - w.dropping_since >= s.reseed_every
            ):
                w.needs_seed = True
            if w.needs_seed and w.manifest is not None and now >= w.seed_not_before:
                if w.info.pane_id in self.polled:
                    w.needs_seed = False  # its captures are its screen
                else:
                    to_seed.append(w)
        if to_seed:
            self._seed(to_seed)
        polls = [self.panes[p] for p in self.polled if now >= self.panes[p].next_poll]
        if polls:
            self._poll(polls, now)
            busy = self._busy()
        changed = False
        now = self.clock.now()
        for w in busy:
            due = (
                w.dirty_since is not None
                and not w.pending
                and (w.hurry or now - w.last_bytes >= s.settle or now - w.dirty_since >= s.ceiling)
            )
            deadline = w.tracker.deadline()
            if due or (deadline is not None and now >= deadline):
                changed |= self._judge(w)
            if not (
                w.pending
                or w.dirty_since is not None
                or w.dropping_since is not None
                or _wants_seed(w)
                or w.tracker.deadline() is not None
            ):
                self.active.discard(w.info.pane_id)
        if now >= self.next_check:
            self._cross_check()
            self.next_check = now + s.check_interval
        if changed or self.publish_due:
            self.publish()
        if now - self.last_status_write >= s.status_refresh:
            self.status_dirty = True
        if self.status_dirty and now - self.last_status_write >= s.status_interval:
            self.write_status()

    # ---- judging ---------------------------------------------------------------------------

    def _judge(self, w: PaneWatch) -> bool:
        """Classify the pane's screen and run it through its tracker; True if its state changed."""
        w.dirty_since = None
        w.hurry = False
        snap = None
        polled = w.polled if w.info.pane_id in self.polled else None
        if w.manifest is not None and (w.screen is not None or polled is not None):
            if w.judge is None or w.judge.manifest is not w.manifest:
                w.judge = ScreenJudge(w.manifest)
            snap = polled if polled is not None else w.screen.snapshot()  # type: ignore[union-attr]
            judge, classified = w.judge, w.judge.classified
            try:
                w.verdict = self.budget.run(functools.partial(judge.verdict, snap))
            except OverBudget:  # the last verdict stands until the next turn judges again
                self._drop_slow_rules(w.manifest, snap)
            self.counters["judged"] += 1
            self.counters["classified"] += judge.classified - classified
        else:
            w.verdict = None
        before, stood_in = w.tracker.current, w.tracker.standing_in
        now = self.clock.now()
        after = w.tracker.update(self._observe(w, snap), now, self.clock.wall())
        if after != before:
            self.status_dirty = True
        self._pace(w, after, now)
        if after.state == before.state:
            return False
        log.info(
            "%s %s: %s -> %s (%s)",
            w.info.pane_id,
            w.info.address,
            before.state,
            after.state,
            after.rule,
        )
        if self.on_transition is not None:
            agent = w.manifest.agent if w.manifest else None
            try:
                stand_ins = (stood_in, w.tracker.standing_in)
                self.on_transition(Transition(w.info, agent, before, after, snap, stand_ins))
            except Exception:  # a notifier must never take the daemon down
                log.exception("%s: on_transition failed", w.info.pane_id)
        return True

    def _pace(self, w: PaneWatch, after: PaneState, now: float) -> None:
        """Whether the pane goes onto the slower beat (Settings.steady_read) or off it."""
        s = self.settings
        # States, not rules: some agents' frames take turns between two rules of one state.
        steady = (w.verdict.state if w.verdict else None, after.state, after.source)
        if steady != w.steady:
            w.steady, w.steady_since = steady, now
            self._unpark(w)
            return
        if (
            not w.parked
            and w.manifest is not None  # a plain pane's bytes are not parsed: nothing to save
            and w.mode == "pipe"
            and w.pipe is not None
            and w.dropping_since is None
            and not w.needs_seed
            and now - w.steady_since >= s.steady_after
            and now - w.last_read < s.steady_read  # it draws, and this is what it drew
            and w.tracker.deadline() is None
            and self._drawing(now) >= s.steady_min_drawing
        ):
            self._park(w, now)

    def _observe(self, w: PaneWatch, snap: Snapshot | None) -> Observation:
        text = w.info.report
        if w.report[0] != text:
            w.report = (text, Report.parse(text))
        if snap is None:
            w.last_change, w.shown = w.last_bytes, None
        elif snap.rows is not w.shown and snap.rows != w.shown:
            # Changed by some write up to the last one: the last is the safe end to count from.
            w.last_change, w.shown = w.last_bytes, snap.rows
        return Observation(
            is_agent=w.manifest is not None,
            screen=w.verdict,
            seen=w.info.seen,
            report=w.report[1],
            quiet=self.clock.now() - w.last_change,
            output_flow=w.manifest.output_flow if w.manifest is not None else None,
            snapshot=snap,
            holds=w.manifest.holds if w.manifest is not None else (),
        )

    def _gone(self, w: PaneWatch) -> None:
        if self.on_pane_gone is not None:
            try:
                self.on_pane_gone(w.info)
            except Exception:  # a listener must never take the daemon down
                log.exception("%s: on_pane_gone failed", w.info.pane_id)

    def states(self) -> dict[str, PaneState]:
        return {pid: w.tracker.current for pid, w in self.panes.items()}

    def publish(self) -> None:
        self.publish_due = False
        states = {pid: w.tracker.current.state for pid, w in self.panes.items()}
        places = {pid: PanePlace(pid, w.info.window_id) for pid, w in self.panes.items()}
        commands = self.publisher.commands(states, places)
        if not commands:
            return
        self.counters["publishes"] += 1
        refresh = [["refresh-client", "-S", "-t", c] for c in self.clients]
        # A pane or client that went away in between fails alone; the next sweep catches up.
        errors = self.tmux.run_each(commands + refresh).errors
        if errors:
            log.debug("publish: %s", "; ".join(str(e) for e in errors))
        self.status_dirty = True

    # ---- the sweep -------------------------------------------------------------------------

    def sweep(self) -> None:
        """One `list-panes -a` (plus clients): new, gone, resized, re-identified panes."""
        if self.hooks_installed and not self.waiting:
            # Listening again before listing: whatever changes after the listing wakes us.
            self._start_waiter()
            self.waiting = True
        out = self.tmux.run_many(
            [
                ["list-panes", "-a", "-F", list_panes_format()],
                ["list-clients", "-F", _CLIENT_HEAD + "#{client_name}"],
            ]
        )
        self.counters["sweeps"] += 1
        now = self.clock.now()
        s = self.settings
        listening = self.waiting and self.waiter is not None and self.waiter.proc is not None
        interval = max(s.sweep_interval, s.sweep_interval_hooked) if listening else s.sweep_interval
        self.next_sweep = now + interval
        self.clients = [
            line[len(_CLIENT_HEAD) :] for line in out.splitlines() if line.startswith(_CLIENT_HEAD)
        ]
        infos = self._parse_listing(out)
        attach: list[list[list[str]]] = []
        for pane_id in list(self.panes):
            if pane_id not in infos:
                self._gone(self.panes[pane_id])
                self._close_pipe(self.panes.pop(pane_id))
                self.active.discard(pane_id)
                self.polled.discard(pane_id)
                self.recent.pop(pane_id, None)
                self.status_dirty = True
                # Its state leaves the counts and its window's mark now, not when some other
                # pane next changes.
                self.publish_due = True
        for pane_id, info in infos.items():
            w = self.panes.get(pane_id)
            if w is None:
                w = self.panes[pane_id] = PaneWatch(info, PaneTracker(self.settings.timing))
                self.status_dirty = True
            old = w.info
            w.info = info
            if old.window_id != info.window_id:
                self.publish_due = True  # moved to another window: both windows' marks change
            # Against the screen's own size, not the last listing's: a seed takes the size the
            # capture had, and a pane resized between a listing and the seed would otherwise
            # keep a screen of the wrong size until the next cross-check.
            if w.screen is not None and w.screen.size != (info.width, info.height):
                w.screen.resize(info.width, info.height)
                w.needs_seed = True  # tmux reflows; the app redraws only what it chooses to
            commands = self._reconcile_pipe(w)
            if commands:
                attach.append(commands)
            self._identify(w, now, if_changed=True)
            self._schedule_poll(w, now)
            if old is not info and (old.seen != info.seen or old.report != info.report):
                w.dirty_since = w.dirty_since or now  # re-judge: focus and reports matter
            if _wants_seed(w) or w.dirty_since is not None:
                self.active.add(pane_id)
        if self.counters["sweeps"] == 1:
            # An earlier daemon killed with -9 left FIFOs for panes that are gone by now.
            keep = {w.pipe.path for w in self.panes.values() if w.pipe is not None}
            removed = self.pipes.remove_leftovers(keep)
            if removed:
                log.info("removed %d files an earlier daemon left behind", removed)
        if attach:
            errors = self.tmux.run_batched(attach).errors
            if errors:
                # Most likely a pane closed since the listing: the calls that held no such pane
                # went through.
                log.warning("attaching pipes: %s", "; ".join(str(e) for e in errors))
            # Look again soon: whether each pipe is ours (someone may have been first), and
            # the panes a failed call left unattached.
            self.next_sweep = min(self.next_sweep, now + self.settings.retry_sweep)

    def _parse_listing(self, out: str) -> dict[str, PaneInfo]:
        """The panes of a listing by id. A line the last listing held too gives the very same
        PaneInfo (lines rarely change from one sweep to the next: parsing 200 of them was ~40 %
        of a sweep's CPU)."""
        before, listed = self.listed, {}
        infos: dict[str, PaneInfo] = {}
        for line in out.splitlines():
            info = before.get(line)
            if info is None:
                info = parse_pane_line(line)
                if info is None:
                    continue  # a client's line, or none of ours
            listed[line] = infos[info.pane_id] = info
        self.listed = listed
        return infos

    def _schedule_poll(self, w: PaneWatch, now: float) -> None:
        """Someone else's pipe (tmux-logging, ...) stays; an agent in such a pane is watched by
        capturing its screen, often while it changes, works or waits."""
        pane_id = w.info.pane_id
        if w.mode == "foreign" and w.manifest is not None:
            if pane_id not in self.polled:
                self.polled.add(pane_id)
                w.next_poll = now
                w.needs_seed = False  # no emulator: tmux's own rendering is judged
                w.screen = None
            return
        if pane_id in self.polled:
            self.polled.discard(pane_id)
            w.polled = None
            w.next_poll = float("inf")

    def _poll(self, watches: list[PaneWatch], now: float) -> None:
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
                    w.last_read = self.recent[w.info.pane_id] = now
                    w.dirty_since = w.dirty_since or now
                    self.active.add(w.info.pane_id)
            hot = now - w.last_bytes < s.foreign_hot or w.tracker.current.state in (
                "blocked",
                "working",
            )
            w.next_poll = now + (s.foreign_poll if hot else s.foreign_poll_idle)

    def _reconcile_pipe(self, w: PaneWatch) -> list[list[str]]:
        info = w.info
        if info.dead:
            self._close_pipe(w)
            w.mode = "none"
            return []
        ours = info.our_pipe == self.token
        if info.piped and not ours:
            if w.mode != "foreign":
                log.info("%s: keeps its own pipe-pane; watching it with capture-pane", info.pane_id)
                self._close_pipe(w)
                w.mode = "foreign"
            return []
        if info.piped and ours and w.pipe is not None:
            if not w.pipe.writer_gone():
                return []
            # tmux still has a pipe but our reader is gone: someone put their own in its place.
            log.info("%s: our pipe was replaced by another pipe-pane; keeping theirs", info.pane_id)
            self._close_pipe(w)
            w.mode = "foreign"
            return [["set-option", "-p", "-u", "-t", info.pane_id, "@osf_pipe"]]
        if info.piped and ours:
            fate = self.pipes.earlier_pipe(info.pane_id)
            if fate == "replaced":
                if w.mode != "foreign":
                    log.info("%s: an earlier daemon's pipe was replaced; keeping it", info.pane_id)
                    w.mode = "foreign"
                return [["set-option", "-p", "-u", "-t", info.pane_id, "@osf_pipe"]]
            log.info("%s: taking back an earlier daemon's pipe (%s)", info.pane_id, fate)
        # No pipe, or one of ours from an earlier daemon: (re)attach, which replaces it.
        self._close_pipe(w)
        w.pipe = self.pipes.open(info.pane_id)
        self.selector.register(w.pipe.read_fd, selectors.EVENT_READ, info.pane_id)
        w.mode = "pipe"
        w.needs_seed = True
        return self.pipes.attach_command(
            w.pipe, info.pane_id, self.token, take_over=info.piped and ours
        )

    def _close_pipe(self, w: PaneWatch) -> None:
        self._unpark(w, listen=False)
        if w.pipe is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(w.pipe.read_fd)
            w.pipe.close()
            w.pipe = None

    def _identify(self, w: PaneWatch, now: float, if_changed: bool = False) -> None:
        """Which agent's rules the pane gets. `if_changed` (the sweep): not again while the
        pane's foreground group, its leader's children, their command lines, tmux's command,
        the override and the report are what they were (reading a pane's whole process tree
        costs ~0.1 ms: 20 ms a sweep at 200 panes)."""
        info = w.info
        listed = (
            info.current_command,
            info.agent_override,
            info.generic_processes,
            info.report,
            info.dead,
        )
        if (
            if_changed
            and w.manifest is None
            and w.identity[1:] == listed
            and now - w.signature_read < self.settings.quiet_identify
            and now - w.last_bytes >= self.settings.quiet_identify
            and not self._fresh_report(info)
        ):
            return  # not an agent, quiet, and tmux lists it as before
        w.signature_read = now
        identity = (foreground_signature(info.pid), *listed)
        if if_changed and identity == w.identity and not self._fresh_report(info):
            return
        w.identity = identity
        w.last_identify = now
        manifest = self._manifest_for(w.info)
        if manifest is w.manifest:
            return
        log.info(
            "%s %s: agent %s -> %s",
            w.info.pane_id,
            w.info.address,
            w.manifest.agent if w.manifest else None,
            manifest.agent if manifest else None,
        )
        w.manifest = manifest
        w.pending.clear()
        w.verdict = None
        w.screen = None
        w.needs_seed = manifest is not None
        w.dirty_since = now
        self.active.add(w.info.pane_id)
        self.status_dirty = True

    def _fresh_report(self, info: PaneInfo) -> bool:
        """A report may name the agent until it goes stale: such panes are looked at anew."""
        report = Report.parse(info.report) if info.report else None
        age = self.clock.wall() - report.at if report is not None else -1.0
        return 0 <= age <= self.settings.timing.report_ttl

    def _manifest_for(self, info: PaneInfo) -> Manifest | None:
        find = functools.partial(
            manifest_for,
            info=info,
            commands=self.identify_argv,
            wall=self.clock.wall(),
            report_ttl=self.settings.timing.report_ttl,
        )
        try:
            return self.budget.run(functools.partial(find, self.rules))
        except OverBudget:
            argvs = [*self.identify_argv(info.pid), [info.current_command]]
            self.rules, dropped = drop_slow_process_args(self.budget, self.rules, argvs)
            log.warning("process patterns too slow to run, dropped: %s", "; ".join(dropped))
            try:
                return self.budget.run(functools.partial(find, self.rules))
            except OverBudget:
                return None

    def _drop_slow_rules(self, manifest: Manifest, snap: Snapshot) -> None:
        """A rule of `manifest` took more CPU than the budget on `snap`: go on without it."""
        self.rules, fixed, slow = drop_slow_rules(self.budget, self.rules, manifest, snap)
        log.warning(
            "rules %s of %s took more than %.2fs of CPU on one screen: dropped until the daemon "
            "restarts (check them: osf-tmux rules check %s)",
            ", ".join(slow),
            manifest.source or manifest.agent,
            self.budget.seconds,
            manifest.source,
        )
        for w in self.panes.values():
            if w.manifest is manifest:
                w.manifest, w.judge = fixed, None
                w.dirty_since = w.dirty_since or self.clock.now()
                self.active.add(w.info.pane_id)

    # ---- seeding and cross-checks ----------------------------------------------------------

    def _seed(self, watches: list[PaneWatch]) -> None:
        """Set screens from `capture-pane -e`: bytes already read are part of what it shows."""
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
            self.next_sweep = self.clock.now()
            for w in watches:
                w.seed_not_before = self.clock.now() + self.settings.settle
            return
        now = self.clock.now()
        for w in watches:
            cap = captures.get(w.info.pane_id)
            if cap is None:  # gone since the sweep, most likely: the next sweep tells
                self.next_sweep = min(self.next_sweep, now + self.settings.retry_sweep)
                w.seed_not_before = now + self.settings.retry_sweep
                continue
            w.screen = screen_from_capture(cap)
            self._unpark(w)
            w.pending.clear()
            w.needs_seed = False
            w.dropping_since = None
            w.reseeds += 1
            self.status_dirty = True
            w.dirty_since = now
            w.last_bytes = min(w.last_bytes, now - self.settings.settle)
            self.counters["reseeds"] += 1

    def _cross_check(self) -> None:
        due = [
            w
            for w in self.panes.values()
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
            theirs = tuple(tabs_as_spaces(line, stops, cols).rstrip() for line in cap.lines)
            if mine != theirs:
                w.mismatches += 1
                self.counters["mismatches"] += 1
                w.needs_seed = True
                self.active.add(w.info.pane_id)
                bad = (
                    next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b)
                    if len(mine) == len(theirs)
                    else -1
                )
                log.warning(
                    "%s: screen differs from capture-pane (row %d); re-seeding", w.info.pane_id, bad
                )

    # ---- status file -----------------------------------------------------------------------

    def status(self, running: bool = True) -> dict[str, Any]:
        panes = []
        for pid, w in sorted(self.panes.items(), key=lambda kv: _pane_order(kv[0])):
            st = w.tracker.current
            panes.append(
                {
                    "pane": pid,
                    "target": w.info.address,  # as `list`, `events` and `wait` call it
                    "address": w.info.address,  # the same: what older readers of this file read
                    "agent": w.manifest.agent if w.manifest else None,
                    "state": st.state,
                    "since": st.since if st.state else None,
                    "rule": st.rule,
                    "source": st.source,
                    "pipe": w.mode,
                    "reseeds": w.reseeds,
                    "mismatches": w.mismatches,
                    "dropped_bytes": w.dropped,
                    "parked": w.parks,
                }
            )
        data = {
            "pid": os.getpid(),
            "running": running,
            "server": self.tmux.server.describe(),
            "started": self.started,
            "updated": self.clock.wall(),
            "counters": {**self.counters, "tmux_calls": self.tmux.calls},
            "panes": panes,
        }
        for name, section in self.extra_status.items():
            try:
                data[name] = section()
            except Exception as exc:  # a section must never keep the status from being written
                data[name] = {"error": str(exc)}
        return data

    def status_changed(self) -> None:
        """Another thread's section of the status changed: written at the loop's next turn."""
        self.status_dirty = True

    def write_status(self, force: bool = False, running: bool = True) -> None:
        self.last_status_write = self.clock.now()
        self.status_dirty = False
        if self.status_file is None:
            return
        write_private(self.status_file, status_json(self.status(running)))


def status_json(data: Mapping[str, Any]) -> bytes:
    """The status file's text, on one line (`osf-tmux status` prints it indented). With
    `indent`, json falls back to its Python encoder: ~1.6 ms of CPU a write at 200 panes against
    ~0.4 ms with its C encoder (a write every 5 s, and at most every 0.2 s while states change)."""
    return json.dumps(data).encode()


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


def _wants_seed(w: PaneWatch) -> bool:
    """A seed is taken only for an agent's pane (a plain pane has no screen): the flag a new
    pipe sets on every pane must not keep 180 quiet shells in the loop's active set, each
    visited three times at every wake-up (measured: most of a wake-up's CPU at 200 panes)."""
    return w.needs_seed and w.manifest is not None


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass


def _pane_order(pane_id: str) -> int:
    digits = pane_id.lstrip("%")
    return int(digits) if digits.isdigit() else 0
