"""Which panes the daemon watches, and how: the sweep that reconciles one `list-panes -a` with
the PaneTable (new, gone, moved, resized panes), each pane's pipe (ours, someone else's, or
none), and identification (which agent's rules a pane gets, read from its processes only when
they may have changed)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from osf_tmux.clock import Clock
from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.process import foreground_signature
from osf_tmux.daemon.rule_budget import RuleGuard
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings, wants_seed
from osf_tmux.judge.combine import PaneTracker, Report
from osf_tmux.judge.manifest import Manifest
from osf_tmux.tmux import SEP, PaneInfo, Tmux, list_panes_format, parse_pane_line

log = logging.getLogger("osf_tmux.daemon.registry")

_CLIENT_HEAD = "OSFCLIENT" + SEP


class PaneRegistry:
    def __init__(
        self,
        tmux: Tmux,
        pipes: PipeFactory,
        token: str,
        *,
        settings: Settings,
        clock: Clock,
        table: PaneTable,
        scheduler: Scheduler,
        guard: RuleGuard,
        identify: Callable[[int], list[list[str]]],
        on_pane_gone: Callable[[PaneInfo], None] | None = None,
    ) -> None:
        self.tmux = tmux
        self.pipes = pipes
        self.token = token  # marks the pipes that are ours (`@osf_pipe`)
        self.settings = settings
        self.clock = clock
        self.table = table
        self.scheduler = scheduler
        self.guard = guard
        self.identify_argv = identify
        self.on_pane_gone = on_pane_gone  # the sweep found a pane closed (the event feed)
        self.listed: dict[str, PaneInfo] = {}  # the last listing's lines, parsed
        self.clients: list[str] = []

    # ---- the sweep -------------------------------------------------------------------------

    def sweep(self) -> None:
        """One `list-panes -a` (plus clients): new, gone, resized, re-identified panes."""
        table, sched, s = self.table, self.scheduler, self.settings
        out = self.tmux.run_many(
            [
                ["list-panes", "-a", "-F", list_panes_format()],
                ["list-clients", "-F", _CLIENT_HEAD + "#{client_name}"],
            ]
        )
        table.counters["sweeps"] += 1
        now = self.clock.now()
        interval = (
            max(s.sweep_interval, s.sweep_interval_hooked)
            if sched.listening()
            else s.sweep_interval
        )
        sched.next_sweep = now + interval
        self.clients = [
            line[len(_CLIENT_HEAD) :] for line in out.splitlines() if line.startswith(_CLIENT_HEAD)
        ]
        infos = self._parse_listing(out)
        attach: list[list[list[str]]] = []
        for pane_id in list(table.panes):
            if pane_id not in infos:
                self._gone(table.panes[pane_id])
                self.close_pipe(table.panes.pop(pane_id))
                table.active.discard(pane_id)
                table.polled.discard(pane_id)
                table.recent.pop(pane_id, None)
                table.status_dirty = True
                # Its state leaves the counts and its window's mark now, not when some other
                # pane next changes.
                table.publish_due = True
        for pane_id, info in infos.items():
            w = table.panes.get(pane_id)
            if w is None:
                w = table.panes[pane_id] = PaneWatch(info, PaneTracker(s.timing), first_seen=now)
                table.status_dirty = True
            old = w.info
            w.info = info
            if old.window_id != info.window_id:
                table.publish_due = True  # moved to another window: both windows' marks change
            # Against the screen's own size, not the last listing's: a seed takes the size the
            # capture had, and a pane resized between a listing and the seed would otherwise
            # keep a screen of the wrong size until the next cross-check.
            if w.screen is not None and w.screen.size != (info.width, info.height):
                w.screen.resize(info.width, info.height)
                w.needs_seed = True  # tmux reflows; the app redraws only what it chooses to
            commands = self.reconcile_pipe(w)
            if commands:
                attach.append(commands)
            self.identify(w, now, if_changed=True)
            self._schedule_poll(w, now)
            if old is not info and (old.seen != info.seen or old.report != info.report):
                w.dirty_since = w.dirty_since or now  # re-judge: focus and reports matter
            if wants_seed(w) or w.dirty_since is not None:
                table.active.add(pane_id)
            if w.mode == "foreign" and w.manifest is None and now - w.first_seen < s.quiet_identify:
                # A new pane whose bytes go to someone else's pipe: none of them can tell us
                # that its agent started (with our pipe they do, and the pane is read again
                # within `identify_interval`). Listed only at the periodic sweep, an agent
                # that is at its prompt within a second (Codex) was found 2 s after its pane
                # opened, and the first prompt typed there was never shown idle (issue #30's
                # soak: 12 of 95 such start-ups).
                sched.sweep_soon(now + s.identify_interval)
        if table.counters["sweeps"] == 1:
            # An earlier daemon killed with -9 left FIFOs for panes that are gone by now.
            keep = {w.pipe.path for w in table.panes.values() if w.pipe is not None}
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
            sched.sweep_soon(now + s.retry_sweep)

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

    def _gone(self, w: PaneWatch) -> None:
        if self.on_pane_gone is not None:
            try:
                self.on_pane_gone(w.info)
            except Exception:  # a listener must never take the daemon down
                log.exception("%s: on_pane_gone failed", w.info.pane_id)

    def _schedule_poll(self, w: PaneWatch, now: float) -> None:
        """Someone else's pipe (tmux-logging, ...) stays; an agent in such a pane is watched by
        capturing its screen, often while it changes, works or waits."""
        pane_id, polled = w.info.pane_id, self.table.polled
        if w.mode == "foreign" and w.manifest is not None:
            if pane_id not in polled:
                polled.add(pane_id)
                w.next_poll = now
                w.needs_seed = False  # no emulator: tmux's own rendering is judged
                w.screen = w.recent = None
            return
        if pane_id in polled:
            polled.discard(pane_id)
            w.polled = None
            w.next_poll = float("inf")

    # ---- pipes -----------------------------------------------------------------------------

    def reconcile_pipe(self, w: PaneWatch) -> list[list[str]]:
        """Make the pane's pipe what it should be; the tmux commands that attach ours."""
        info = w.info
        if info.dead:
            self.close_pipe(w)
            w.mode = "none"
            return []
        ours = info.our_pipe == self.token
        if info.piped and not ours:
            if w.mode != "foreign":
                log.info("%s: keeps its own pipe-pane; watching it with capture-pane", info.pane_id)
                self.close_pipe(w)
                w.mode = "foreign"
            return []
        if info.piped and ours and w.pipe is not None:
            if not w.pipe.writer_gone():
                return []
            # tmux still has a pipe but our reader is gone: someone put their own in its place.
            log.info("%s: our pipe was replaced by another pipe-pane; keeping theirs", info.pane_id)
            self.close_pipe(w)
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
        self.close_pipe(w)
        w.pipe = self.pipes.open(info.pane_id)
        self.scheduler.listen(w.pipe, info.pane_id)
        w.mode = "pipe"
        w.needs_seed = True
        return self.pipes.attach_command(
            w.pipe, info.pane_id, self.token, take_over=info.piped and ours
        )

    def close_pipe(self, w: PaneWatch) -> None:
        self.scheduler.unpark(w, listen=False)
        if w.pipe is not None:
            self.scheduler.forget(w.pipe)
            w.pipe.close()
            w.pipe = None

    def close_all(self) -> None:
        for watch in self.table.panes.values():
            self.close_pipe(watch)
        self.table.panes.clear()
        self.scheduler.stop_waiter()

    # ---- identification --------------------------------------------------------------------

    def identify(self, w: PaneWatch, now: float, if_changed: bool = False) -> None:
        """Which agent's rules the pane gets. `if_changed` (the sweep): not again while the
        pane's foreground group, its leader's children, their command lines, tmux's command,
        the override and the report are what they were (reading a pane's whole process tree
        costs ~0.1 ms: 20 ms a sweep at 200 panes)."""
        info = w.info
        listed = (
            info.pid,  # respawn-pane keeps the pane's id and gives it a new process
            info.current_command,
            info.agent_override,
            info.generic_processes,
            info.report,
            info.dead,
        )
        if (
            if_changed
            and w.manifest is None
            # Someone else's pipe brings us none of its bytes: whether it printed lately is
            # unknown, so it is read at every sweep (an agent started by a launcher that stays
            # in the foreground changes nothing tmux lists; issue #30 found it 8.8 s late).
            and w.mode != "foreign"
            and w.identity[1:] == listed
            and now - w.signature_read < self.settings.quiet_identify
            and now - w.last_bytes >= self.settings.quiet_identify
            # A new pane's program drew before our pipe was there: no bytes say it is
            # starting, and the agent it runs may come after the first read.
            and now - w.first_seen >= self.settings.quiet_identify
            and not self._fresh_report(info)
        ):
            return  # not an agent, quiet, and tmux lists it as before
        w.signature_read = now
        identity = (foreground_signature(info.pid), *listed)
        if if_changed and identity == w.identity and not self._fresh_report(info):
            return
        w.identity = identity
        w.last_identify = now
        manifest = self.manifest_for(w.info)
        if manifest is w.manifest:
            return
        log.info(
            "%s %s: agent %s -> %s",
            w.info.pane_id,
            w.info.address,
            w.manifest.agent if w.manifest else None,
            manifest.agent if manifest else None,
        )
        started = manifest is not None and (
            w.manifest is None or w.manifest.agent != manifest.agent
        )
        if started and self.table.counters["sweeps"] > 1:
            # Not there at the daemon's first look: it starts now, and its start-up is no turn.
            # (One found at the first look may be in the middle of a turn someone asked for.)
            w.tracker.agent_started(now)
        w.manifest = manifest
        w.pending.clear()
        w.verdict = None
        w.screen = w.recent = None
        w.needs_seed = manifest is not None
        w.dirty_since = now
        self.table.active.add(w.info.pane_id)
        self.table.status_dirty = True

    def _fresh_report(self, info: PaneInfo) -> bool:
        """A report may name the agent until it goes stale: such panes are looked at anew."""
        report = Report.parse(info.report) if info.report else None
        age = self.clock.wall() - report.at if report is not None else -1.0
        return 0 <= age <= self.settings.timing.report_ttl

    def manifest_for(self, info: PaneInfo) -> Manifest | None:
        find = functools.partial(
            manifest_for,
            info=info,
            commands=self.identify_argv,
            wall=self.clock.wall(),
            report_ttl=self.settings.timing.report_ttl,
        )
        return self.guard.find(
            find, lambda: [*self.identify_argv(info.pid), [info.current_command]]
        )
