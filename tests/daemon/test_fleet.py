"""The daemon's view of other machines (daemon/fleet.py), with a stand-in for ssh: the hosts
come from the options, the remote panes reach status.json (the contract `list` and the menu
read) and the counts of the status line, and never a pane option of this server."""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.fleet import Fleet
from osf_tmux.daemon.publish import Publisher
from osf_tmux.daemon.status import StatusFile, publish
from osf_tmux.daemon.watch import Settings
from osf_tmux.fleet.remote import PROTOCOL
from tests.daemon.test_daemon_settle import RecordingTmux
from tests.daemon.test_status import table_with
from tests.support.tmux_server import retry_until

LINES = [
    {"kind": "hello", "version": "0.1.0", "protocol": PROTOCOL},
    {"kind": "state", "time": 1_800_000_000.0, "pane": "%3", "target": "work:1.0",
     "agent": "claude", "before": None, "after": "blocked", "rule": "claude.permission",
     "question": "Do you want to proceed?"},
    {"kind": "state", "time": 1_800_000_001.0, "pane": "%1", "target": "work:0.0",
     "agent": "codex", "before": None, "after": "working", "rule": None, "question": ""},
    {"kind": "synced"},
]  # fmt: skip


class Rig:
    def __init__(self, runtime: Path, env: dict[str, str]) -> None:
        self.selector = selectors.DefaultSelector()
        self.changes = 0
        self.spawned: list[list[str]] = []
        script = "import sys, time\n" + "".join(
            f"print({json.dumps(json.dumps(line))}, flush=True)\n" for line in LINES
        ) + "time.sleep(60)\n"  # fmt: skip
        self.script = script
        self.fleet = Fleet(
            RecordingTmux(),
            runtime,
            clock=FakeClock(),
            watch=self,
            on_change=self._changed,
            env=env,
            spawn=self._spawn,
        )

    def _spawn(self, argv: Sequence[str], stderr: int) -> subprocess.Popen[bytes]:
        self.spawned.append(list(argv))
        return subprocess.Popen(
            [sys.executable, "-c", self.script], stdout=subprocess.PIPE, stderr=stderr
        )

    def _changed(self) -> None:
        self.changes += 1

    def watch(self, fd: int, on_ready: Callable[[], None]) -> None:
        self.selector.register(fd, selectors.EVENT_READ, on_ready)

    def unwatch(self, fd: int) -> None:
        self.selector.unregister(fd)

    def until(self, probe: Callable[[], bool], what: str) -> None:
        def step() -> bool:
            for key, _ in self.selector.select(0.05):
                key.data()
            self.fleet.tick()
            return probe()

        retry_until(step, timeout=20, interval=0, what=what)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with tempfile.TemporaryDirectory(prefix="osf-run-") as run:
        r = Rig(tmp_path, {"XDG_RUNTIME_DIR": run})
        try:
            yield r
        finally:
            r.fleet.close()


def test_remote_panes_reach_the_status_file_and_the_counts_only(rig: Rig, tmp_path: Path) -> None:
    rig.fleet.configure(
        {"@osf-hosts": "devbox", "@osf-remote-command": "osf-tmux -L work",
         "@osf-ssh-config": "/cfg"}
    )  # fmt: skip
    rig.fleet.tick()  # the first connection: at once
    [argv] = rig.spawned
    assert argv[:3] == ["ssh", "-F", "/cfg"] and argv[-3:] == [
        "--",
        "devbox",
        "osf-tmux -L work events --hello",
    ]
    rig.until(lambda: len(rig.fleet.panes()) == 2, "the remote panes")

    table = table_with("blocked", None)
    status = StatusFile(None, RecordingTmux(), settings=Settings(), clock=FakeClock(), table=table)
    status.remote = rig.fleet
    data = status.status()
    rows = {(p["host"], p["pane"]): p for p in data["panes"]}
    assert set(rows) == {(None, "%1"), (None, "%2"), ("devbox", "%1"), ("devbox", "%3")}
    local, remote = rows[(None, "%1")], rows[("devbox", "%3")]
    assert set(local) - {"host"} <= set(remote)  # the same keys, and host (and question)
    assert (remote["target"], remote["agent"], remote["state"], remote["since"]) == (
        "work:1.0",
        "claude",
        "blocked",
        1_800_000_000.0,
    )
    assert remote["question"] == "Do you want to proceed?"
    assert data["hosts"] == {
        "devbox": {
            "state": "online",
            "since": data["hosts"]["devbox"]["since"],
            "error": None,
            "version": "0.1.0",
            "remote_command": "osf-tmux -L work",
        }
    }

    tmux, publisher = RecordingTmux(), Publisher()
    publish(tmux, publisher, table, [], rig.fleet.states())
    assert ["set-option", "-g", "@osf_blocked_count", "2"] in tmux.sent
    assert ["set-option", "-g", "@osf_working_count", "1"] in tmux.sent
    assert ["set-option", "-g", "@osf_status", "2 blocked"] in tmux.sent
    # The remote %3 and %1 are no panes of this server: no pane option for them.
    assert not [c for c in tmux.sent if "-p" in c and c[c.index("-t") + 1] == "%3"]
    assert [c for c in tmux.sent if "-p" in c] == [
        ["set-option", "-p", "-t", "%1", "@osf_state", "blocked"],
        ["set-option", "-u", "-p", "-t", "%2", "@osf_state"],
    ]

    # The host leaves @osf-hosts: its link ends and its panes go.
    rig.fleet.configure({"@osf-hosts": "", "@osf-remote-command": "", "@osf-ssh-config": ""})
    assert rig.fleet.panes() == [] and rig.fleet.status() == {}


def test_bad_options_are_reported_and_reach_no_ssh(rig: Rig) -> None:
    rig.fleet.configure({"@osf-hosts": "-oProxyCommand=x devbox", "@osf-remote-command": ""})
    rig.fleet.tick()
    assert [a[-2] for a in rig.spawned] == ["devbox"]
    assert len(rig.fleet.problems) == 1 and "-oProxyCommand=x" in rig.fleet.problems[0]
    rig.fleet.configure({"@osf-hosts": "devbox", "@osf-remote-command": "osf-tmux 'open"})
    assert rig.fleet.links == {} and "No closing quotation" in rig.fleet.problems[0]
