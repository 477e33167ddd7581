"""What the daemon tells the world: the panes' states as tmux options (`publish`, through
publish.Publisher, which writes only what changed), and the status file (`osf-tmux status`,
`list`, `doctor` read it): every pane's state and the daemon's counters, rewritten at most every
`status_interval` while something changes and at least every `status_refresh`."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from osf_tmux.clock import Clock
from osf_tmux.daemon.publish import PanePlace, Publisher
from osf_tmux.daemon.watch import PaneTable, Settings
from osf_tmux.paths import write_private
from osf_tmux.tmux import Tmux

log = logging.getLogger("osf_tmux.daemon.status")


def publish(
    tmux: Tmux,
    publisher: Publisher,
    table: PaneTable,
    clients: Sequence[str],
    remote: Iterable[str] = (),
) -> None:
    """Write the table's states into tmux, and have the clients redraw their status lines.
    `remote`: other machines' panes' states, for the counts."""
    table.publish_due = False
    states = {pid: w.tracker.current.state for pid, w in table.panes.items()}
    places = {pid: PanePlace(pid, w.info.window_id) for pid, w in table.panes.items()}
    commands = publisher.commands(states, places, remote)
    if not commands:
        return
    table.counters["publishes"] += 1
    refresh = [["refresh-client", "-S", "-t", c] for c in clients]
    # A pane or client that went away in between fails alone; the next sweep catches up.
    errors = tmux.run_each(commands + refresh).errors
    if errors:
        log.debug("publish: %s", "; ".join(str(e) for e in errors))
    table.status_dirty = True


class RemoteRows(Protocol):
    """What status.json shows of other machines (daemon/fleet.py's Fleet)."""

    def status_panes(self) -> list[dict[str, Any]]: ...

    def status(self) -> dict[str, Any]: ...


class StatusFile:
    def __init__(
        self,
        path: Path | None,
        tmux: Tmux,
        *,
        settings: Settings,
        clock: Clock,
        table: PaneTable,
        extra: Mapping[str, Callable[[], Any]] | None = None,
    ) -> None:
        self.path = path  # None: kept in memory only
        self.tmux = tmux
        self.settings = settings
        self.clock = clock
        self.table = table
        self.extra = dict(extra or {})  # more sections of status.json (notify, events)
        self.remote: RemoteRows | None = None  # other machines' panes and hosts (the fleet)
        self.started = clock.wall()
        self.last_write = float("-inf")

    def status(self, running: bool = True) -> dict[str, Any]:
        panes = []
        for pid, w in sorted(self.table.panes.items(), key=lambda kv: _pane_order(kv[0])):
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
                    "starting": w.tracker.starting,  # started here, its first prompt not seen
                    "pipe": w.mode,
                    "reseeds": w.reseeds,
                    "mismatches": w.mismatches,
                    "dropped_bytes": w.dropped,
                    "parked": w.parks,
                    "host": None,  # this machine's; other machines' panes name theirs
                }
            )
        hosts: dict[str, Any] = {}
        if self.remote is not None:
            panes += self.remote.status_panes()
            hosts = self.remote.status()
        data = {
            "pid": os.getpid(),
            "running": running,
            "server": self.tmux.server.describe(),
            "started": self.started,
            "updated": self.clock.wall(),
            "counters": {**self.table.counters, "tmux_calls": self.tmux.calls},
            "panes": panes,
            "hosts": hosts,
        }
        for name, section in self.extra.items():
            try:
                data[name] = section()
            except Exception as exc:  # a section must never keep the status from being written
                data[name] = {"error": str(exc)}
        return data

    def due(self) -> float:
        """When a status that changed may be written next."""
        return self.last_write + self.settings.status_interval

    def write_if_due(self, now: float) -> None:
        s = self.settings
        if now - self.last_write >= s.status_refresh:
            self.table.status_dirty = True
        if self.table.status_dirty and now - self.last_write >= s.status_interval:
            self.write()

    def write(self, running: bool = True) -> None:
        self.last_write = self.clock.now()
        self.table.status_dirty = False
        if self.path is None:
            return
        write_private(self.path, status_json(self.status(running)))


def status_json(data: Mapping[str, Any]) -> bytes:
    """The status file's text, on one line (`osf-tmux status` prints it indented). With
    `indent`, json falls back to its Python encoder: ~1.6 ms of CPU a write at 200 panes against
    ~0.4 ms with its C encoder (a write every 5 s, and at most every 0.2 s while states change)."""
    return json.dumps(data).encode()


def _pane_order(pane_id: str) -> int:
    digits = pane_id.lstrip("%")
    return int(digits) if digits.isdigit() else 0
