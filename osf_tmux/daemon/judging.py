"""The judging step: bytes a pane wrote go into its screen, the screen is classified under the
CPU budget once it settled (or the ceiling passed), and the verdict runs through the pane's
tracker; then whether the pane goes onto the scheduler's slower beat or off it.

Classification is the rules' work and runs under the budget (RuleGuard), holds included: the
tracker is handed only the ids of the holds whose conditions match (judge/holds.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from osf_tmux.clock import Clock
from osf_tmux.daemon.rule_budget import OverBudget, RuleGuard
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings, Transition, wants_seed
from osf_tmux.judge.combine import Observation, PaneState, Report
from osf_tmux.judge.screen_judge import ScreenJudge
from osf_tmux.vt.snapshot import Snapshot

log = logging.getLogger("osf_tmux.daemon.judging")

# PaneRegistry.identify: (watch, now, if_changed)
Identify = Callable[[PaneWatch, float, bool], None]


class JudgingStep:
    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        table: PaneTable,
        scheduler: Scheduler,
        guard: RuleGuard,
        identify: Identify,
        on_transition: Callable[[Transition], None] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.table = table
        self.scheduler = scheduler
        self.guard = guard
        self.identify = identify
        self.on_transition = on_transition

    # ---- bytes in --------------------------------------------------------------------------

    def on_bytes(self, watch: PaneWatch, data: bytes) -> None:
        """Bytes read from the pane's FIFO: kept for parsing (an agent's pane), or a hint that
        an agent may have started (any other)."""
        if not data:
            return
        s, table = self.settings, self.table
        now = self.clock.now()
        watch.last_bytes = self._written_at(watch, now)
        watch.last_read = table.recent[watch.info.pane_id] = now
        watch.checked_bytes = True
        if watch.manifest is None:
            # Not an agent (yet): the bytes are not parsed, but an agent may just have started.
            if now - watch.last_identify >= s.identify_interval:
                self.identify(watch, now, False)
            return
        if now - watch.signature_read >= s.agent_identify:
            self.identify(watch, now, True)
            if watch.manifest is None:
                return  # the agent is gone: its shell's output is not parsed
        if watch.dropping_since is not None:
            watch.dropped += len(data)
            return
        watch.pending += data
        table.active.add(watch.info.pane_id)
        if len(watch.pending) > s.max_pending:
            watch.dropped += len(watch.pending)
            watch.pending.clear()
            watch.dropping_since = now
            self.scheduler.unpark(watch)  # a flood is drained at every wake-up
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

    def feed(self, busy: list[PaneWatch], now: float) -> list[PaneWatch]:
        """Parse some of each busy pane's pending bytes (`feed_budget`, so no pane starves the
        others); the panes whose screens are to be seeded now."""
        s, polled = self.settings, self.table.polled
        to_seed: list[PaneWatch] = []
        for w in busy:
            if w.screen is not None and w.pending:
                chunk = bytes(w.pending[: s.feed_budget])
                del w.pending[: s.feed_budget]
                w.screen.feed(chunk)
                if w.recent is not None and w.recent.add(chunk, wall := self.clock.wall()):
                    w.recent.rotate(w.screen.snapshot(), wall)
                if w.dirty_since is None:
                    w.dirty_since = now
            if w.dropping_since is not None and (
                now - w.last_bytes >= s.reseed_quiet or now - w.dropping_since >= s.reseed_every
            ):
                w.needs_seed = True
            if w.needs_seed and w.manifest is not None and now >= w.seed_not_before:
                if w.info.pane_id in polled:
                    w.needs_seed = False  # its captures are its screen
                else:
                    to_seed.append(w)
        return to_seed

    # ---- judging ---------------------------------------------------------------------------

    def judge_due(self, busy: list[PaneWatch], now: float) -> bool:
        """Judge the panes whose frame settled or whose tracker asked to be asked again; panes
        left with nothing to do leave the active set. True if a pane's state changed."""
        s, active = self.settings, self.table.active
        changed = False
        for w in busy:
            due = (
                w.dirty_since is not None
                and not w.pending
                and (w.hurry or now - w.last_bytes >= s.settle or now - w.dirty_since >= s.ceiling)
            )
            deadline = w.tracker.deadline()
            if due or (deadline is not None and now >= deadline):
                changed |= self.judge(w)
            if not (
                w.pending
                or w.dirty_since is not None
                or w.dropping_since is not None
                or wants_seed(w)
                or w.tracker.deadline() is not None
            ):
                active.discard(w.info.pane_id)
        return changed

    def judge(self, w: PaneWatch) -> bool:
        """Classify the pane's screen and run it through its tracker; True if its state changed."""
        table = self.table
        w.dirty_since = None
        w.hurry = False
        snap = None
        polled = w.polled if w.info.pane_id in table.polled else None
        if w.manifest is not None and (w.screen is not None or polled is not None):
            if w.judge is None or w.judge.manifest is not w.manifest:
                w.judge = ScreenJudge(w.manifest)
            snap = polled if polled is not None else w.screen.snapshot()  # type: ignore[union-attr]
            judge, classified = w.judge, w.judge.classified
            try:
                w.verdict, w.holding = self.guard.judge(judge, snap, w.tracker.current.state)
            except OverBudget:  # the last verdict stands until the next turn judges again
                self._drop_slow_rules(w, snap)
            table.counters["judged"] += 1
            table.counters["classified"] += judge.classified - classified
        else:
            w.verdict = None
        before, stood_in = w.tracker.current, w.tracker.standing_in
        now = self.clock.now()
        after = w.tracker.update(self._observe(w, snap), now, self.clock.wall())
        if after != before:
            table.status_dirty = True
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

    def _drop_slow_rules(self, w: PaneWatch, snap: Snapshot) -> None:
        """A rule of the pane's manifest took more CPU than the budget on `snap`: every pane
        with that manifest goes on without it."""
        manifest = w.manifest
        assert manifest is not None
        fixed = self.guard.drop_slow(manifest, snap)
        for other in self.table.panes.values():
            if other.manifest is manifest:
                other.manifest, other.judge = fixed, None
                other.dirty_since = other.dirty_since or self.clock.now()
                self.table.active.add(other.info.pane_id)

    def _pace(self, w: PaneWatch, after: PaneState, now: float) -> None:
        """Whether the pane goes onto the slower beat (Settings.steady_read) or off it."""
        s = self.settings
        # States, not rules: some agents' frames take turns between two rules of one state.
        steady = (w.verdict.state if w.verdict else None, after.state, after.source)
        if steady != w.steady:
            w.steady, w.steady_since = steady, now
            self.scheduler.unpark(w)
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
            and self.table.drawing(now) >= s.steady_min_drawing
        ):
            self.scheduler.park(w, now)

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
            holding=w.holding,
        )
