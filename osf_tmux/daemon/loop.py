"""The sidecar: one screen per pane of a tmux server, judged as bytes arrive, published to tmux.

Single-threaded: one selector over every pane's FIFO, timers computed from the panes' own
deadlines. Data flows one way: source -> screen -> classify -> combine -> publish. This module
only wires the parts, each in its own module and each driven by its tests without tmux:

- watch.py: the Settings, one PaneWatch per pane, and the PaneTable of them (what the parts
  tell each other: which panes have work, what drew lately, the counters);
- scheduler.py: the selector, the wait that gathers frames, deadlines, the slower beat;
- registry.py: the sweep (`list-panes` against the table), pipes, identification;
- seeding.py: `capture-pane`: seeds, the panes watched by polling, the cross-check;
- judging.py: bytes into screens, classification under the rule budget (rule_budget.py),
  the trackers, and pacing onto or off the slower beat;
- status.py: publishing the states into tmux, and the status file."""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.daemon import tmux_hooks
from osf_tmux.daemon.fleet import Fleet
from osf_tmux.daemon.judging import JudgingStep
from osf_tmux.daemon.process import foreground_commands
from osf_tmux.daemon.publish import Publisher
from osf_tmux.daemon.recent import Recording
from osf_tmux.daemon.registry import PaneRegistry
from osf_tmux.daemon.rule_budget import RuleGuard
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.seeding import ScreenSync
from osf_tmux.daemon.source import PipeFactory, detach_commands
from osf_tmux.daemon.status import StatusFile, publish
from osf_tmux.daemon.watch import PaneTable, Settings, Transition
from osf_tmux.fleet.link import Spawn, spawn
from osf_tmux.fleet.remote import RemoteTransition
from osf_tmux.judge.combine import PaneState
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.tmux import NoServerError, PaneInfo, Tmux, TmuxError

log = logging.getLogger("osf_tmux.daemon.loop")


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
        self.pipes = pipes
        self.token = token
        self.clock = clock = clock or SystemClock()
        self._settings = settings = settings or Settings()
        self.status_file = status_file
        self.guard = RuleGuard(rules)  # CPU per classification: no rule can stall the daemon
        self.table = table = PaneTable()
        self.status_writer = StatusFile(
            status_file, tmux, settings=settings, clock=clock, table=table, extra=extra_status
        )
        self.scheduler = scheduler = Scheduler(
            settings, clock.now, table, status_due=self.status_writer.due
        )
        self.registry = PaneRegistry(
            tmux,
            pipes,
            token,
            settings=settings,
            clock=clock,
            table=table,
            scheduler=scheduler,
            guard=self.guard,
            identify=identify,
            on_pane_gone=on_pane_gone,
        )
        self.screens = ScreenSync(
            tmux, settings=settings, clock=clock, table=table, scheduler=scheduler
        )
        self.judging = JudgingStep(
            settings=settings,
            clock=clock,
            table=table,
            scheduler=scheduler,
            guard=self.guard,
            identify=self.registry.identify,
            on_transition=on_transition,
        )
        self.publisher = Publisher()
        self.fleet: Fleet | None = None
        self.stopping = False
        self.hooks_installed = False

    @property
    def settings(self) -> Settings:
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        """New settings, for every part at once (tests change them on a running daemon)."""
        self._settings = settings
        for part in (self.status_writer, self.scheduler, self.registry, self.screens, self.judging):
            part.settings = settings

    def attach_fleet(
        self,
        runtime: Path,
        *,
        stamp: Path | None = None,
        on_transition: Callable[[RemoteTransition], None] | None = None,
        env: Mapping[str, str] | None = None,
        spawn: Spawn = spawn,
    ) -> Fleet:
        """Other machines' panes too (`@osf-hosts`): links read by this loop, counted and
        shown with this server's panes."""
        self.fleet = fleet = Fleet(
            self.tmux,
            runtime,
            clock=self.clock,
            watch=self.scheduler,
            on_change=self._fleet_changed,
            on_transition=on_transition,
            stamp=stamp,
            env=env,
            spawn=spawn,
        )
        self.scheduler.timers.append(fleet.deadline)
        self.status_writer.remote = fleet
        fleet.configure()
        return fleet

    def _fleet_changed(self) -> None:
        self.table.publish_due = True  # the counts include the remote panes
        self.table.status_dirty = True

    # ---- lifecycle -------------------------------------------------------------------------

    def install_signal_handlers(self) -> None:
        signal.set_wakeup_fd(self.scheduler.wake_fd)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        signal.signal(signal.SIGUSR1, self._on_wake)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.stopping = True

    def _on_wake(self, signum: int, frame: Any) -> None:
        self.scheduler.next_sweep = float("-inf")  # an older agent hook endpoint sends SIGUSR1

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
            self.scheduler.waiter = tmux_hooks.Waiter(self.tmux.argv())
        except TmuxError as exc:
            log.warning(
                "could not install tmux hooks (sweeping every %.1fs instead): %s",
                self.settings.sweep_interval,
                exc,
            )

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
            if self.fleet is not None:
                self.fleet.close()
            self.registry.close_all()
            self.write_status(running=False)
            return
        self.shutdown()

    def shutdown(self) -> None:
        """Give the panes back as they were: our pipes closed, our options unset."""
        commands = [
            c
            for w in self.table.panes.values()
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
        if self.fleet is not None:
            self.fleet.close()
        self.registry.close_all()
        self.write_status(running=False)

    # ---- the loop --------------------------------------------------------------------------

    def step(self, max_wait: float = float("inf")) -> None:
        """One turn: wait for bytes or the next deadline, then do what is due."""
        scheduler = self.scheduler
        if self.clock.now() >= scheduler.next_sweep:
            self.sweep()
        for pane_id in scheduler.wait(max_wait):
            watch = self.table.panes.get(pane_id)
            if watch is not None and watch.pipe is not None:
                # A pane whose flood is being dropped is drained hard: tmux buffers what we do
                # not read without bound, and its backlog delays the right state.
                limit = 64 if watch.dropping_since is not None else 8
                self.judging.on_bytes(watch, watch.pipe.read(limit))
        if scheduler.parked:
            scheduler.read_parked(scheduler.woke, self.judging.on_bytes)
        if self.fleet is not None:
            self.fleet.tick()
        self.process()

    def sweep(self) -> None:
        """One `list-panes -a` (plus clients): new, gone, resized, re-identified panes."""
        self.scheduler.arm_waiter()  # listening again before listing: what changes after wakes us
        self.registry.sweep()
        if self.fleet is not None:
            self.fleet.reload_if_changed()

    def process(self) -> None:
        """Parse pending bytes, re-seed and judge what is due, publish what changed."""
        table, now = self.table, self.clock.now()
        busy = table.busy()
        to_seed = self.judging.feed(busy, now)
        if to_seed:
            self.screens.seed(to_seed)
        polls = [table.panes[p] for p in table.polled if now >= table.panes[p].next_poll]
        if polls:
            self.screens.poll(polls, now)
            busy = table.busy()
        now = self.clock.now()
        changed = self.judging.judge_due(busy, now)
        self.screens.check_if_due(now)
        if changed or table.publish_due:
            self.publish()
        self.status_writer.write_if_due(now)

    def publish(self) -> None:
        remote = self.fleet.states() if self.fleet is not None else ()
        publish(self.tmux, self.publisher, self.table, self.registry.clients, remote)

    def recorded(self, pane_id: str) -> tuple[dict[str, Any], Recording | None] | None:
        """What `osf-tmux capture` asks of an agent pane: its state as published and the bytes
        kept (read from the capture server's thread: plain reads, the recording under its lock).
        None: no agent pane by that id."""
        w = self.table.panes.get(pane_id)
        if w is None or w.manifest is None:
            return None
        st, screen = w.tracker.current, w.screen
        cols, rows = screen.size if screen is not None else (w.info.width, w.info.height)
        info = {
            "target": w.info.address,
            "agent": w.manifest.agent,
            "cols": cols,
            "rows": rows,
            "state": st.state,
            "rule": st.rule,
            "source": st.source,
            "since": st.since,
            "pipe": w.mode,
        }
        return info, (w.recent.recording() if w.recent is not None else None)

    def states(self) -> dict[str, PaneState]:
        return self.table.states()

    # ---- the status file -------------------------------------------------------------------

    def status(self, running: bool = True) -> dict[str, Any]:
        return self.status_writer.status(running)

    def status_changed(self) -> None:
        """Another thread's section of the status changed: written at the loop's next turn."""
        self.table.status_dirty = True

    def write_status(self, running: bool = True) -> None:
        self.status_writer.write(running)
