"""Publishing and the status file alone (daemon/status.py): a table of panes, tmux a recorder,
a fake clock."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.publish import Publisher
from osf_tmux.daemon.status import StatusFile, publish
from osf_tmux.daemon.watch import PaneTable, PaneWatch, Settings
from osf_tmux.judge.combine import PaneState, PaneTracker
from tests.daemon.test_daemon_loop_work import pane
from tests.daemon.test_daemon_settle import RecordingTmux


def table_with(*states: str | None) -> PaneTable:
    table = PaneTable()
    for n, state in enumerate(states, 1):
        w = PaneWatch(pane(n), PaneTracker())
        w.tracker.current = PaneState(state, 1.0, None, "screen")
        table.panes[f"%{n}"] = w
    return table


def test_publish_writes_what_changed_and_refreshes_the_clients() -> None:
    tmux, publisher = RecordingTmux(), Publisher()
    table = table_with("blocked", None)
    table.publish_due, table.status_dirty = True, False
    publish(tmux, publisher, table, ["/dev/pts/3"])
    assert ["set-option", "-p", "-t", "%1", "@osf_state", "blocked"] in tmux.sent
    assert ["set-option", "-g", "@osf_blocked_count", "1"] in tmux.sent
    assert tmux.sent[-1] == ["refresh-client", "-S", "-t", "/dev/pts/3"]
    assert not table.publish_due and table.status_dirty and table.counters["publishes"] == 1
    tmux.sent.clear()
    publish(tmux, publisher, table, ["/dev/pts/3"])  # nothing changed: no call at all
    assert tmux.sent == [] and table.counters["publishes"] == 1


def test_the_status_file_is_written_when_due_and_private(tmp_path: Path) -> None:
    clock, table = FakeClock(), table_with("working")
    s = Settings()
    path = tmp_path / "status.json"
    status = StatusFile(
        path, RecordingTmux(), settings=s, clock=clock, table=table,
        extra={"notify": lambda: {"ok": True}, "broken": lambda: 1 / 0},
    )  # fmt: skip
    status.write_if_due(clock.now())  # dirty from the start
    data = json.loads(path.read_text())
    assert data["panes"][0]["pane"] == "%1" and data["panes"][0]["state"] == "working"
    assert data["notify"] == {"ok": True} and "error" in data["broken"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert not table.status_dirty and status.due() == clock.now() + s.status_interval
    path.unlink()
    table.status_dirty = True
    status.write_if_due(clock.now() + s.status_interval / 2)  # too soon after the last
    assert not path.exists()
    clock.advance(s.status_refresh)  # nothing changed, but counters go stale: written
    table.status_dirty = False
    status.write_if_due(clock.now())
    assert path.exists()
