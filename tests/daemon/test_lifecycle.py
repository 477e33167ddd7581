"""start / stop / status through the real CLI against a private tmux server."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def server(tmux_server: TmuxServer) -> TmuxServer:
    return tmux_server


@pytest.fixture
def cli(server: TmuxServer, tmp_path: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(server, tmp_path)
    try:
        yield d
    finally:
        d.cli("stop")


@pytest.mark.slow
def test_start_twice_stop_and_status(
    server: TmuxServer, cli: DaemonProcess, tmp_path: Path
) -> None:
    first = cli.cli("start")
    assert first.returncode == 0, first.stderr
    assert "started (pid" in first.stdout
    second = cli.cli("start")
    assert second.returncode == 0 and "already running" in second.stdout
    pid = int(first.stdout.split("pid ")[1].rstrip(")\n"))
    assert str(pid) in second.stdout

    # no process id is published (a dead daemon's would name another program one day)
    assert "@osf_daemon_pid" not in server.cmd("show-options", "-g")
    hooks = server.cmd("show-hooks", "-g")
    assert hooks.count("osf-tmux-wake") >= 5  # wakes the daemon when panes or focus change
    feeder = Feeder(server, tmp_path, 100, 30, "claude")
    try:
        # hooks make a new pane known well before the next periodic sweep (2 s)
        retry_until(
            lambda: any(
                p["pane"] == feeder.pane and p["agent"] == "claude"
                for p in cli.status().get("panes", [])
            ),
            timeout=5,
        )
        table = cli.cli("status")
        assert table.returncode == 0
        assert "PANE" in table.stdout and feeder.pane in table.stdout and "claude" in table.stdout
        data = json.loads(cli.cli("status", "--json").stdout)
        mine = next(p for p in data["panes"] if p["pane"] == feeder.pane)
        assert mine["address"].endswith(":0.0") and mine["state"] == "idle"
        assert mine["target"] == mine["address"]  # `target`, as list, events and wait say
        assert mine["pipe"] == "pipe"
        assert server.cmd("display-message", "-p", "-t", feeder.pane, "#{pane_pipe}").strip() == "1"
    finally:
        feeder.close()

    stopped = cli.cli("stop")
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout
    # the pane is given back as it was: no pipe, no options of ours
    assert server.cmd("display-message", "-p", "-t", feeder.pane, "#{pane_pipe}").strip() == "0"
    assert server.cmd("show-options", "-p", "-t", feeder.pane).find("@osf_state") == -1
    assert "@osf_status" not in server.cmd("show-options", "-g")
    assert "osf-tmux-wake" not in server.cmd("show-hooks", "-g")
    assert "osf-tmux-wake" not in server.cmd("show-hooks", "-gw")  # pane-died, window-resized
    assert "@osf_daemon_pid" not in server.cmd("show-options", "-g")
    again = cli.cli("status")
    assert again.returncode == 3 and "not running" in again.stdout
    assert cli.cli("stop").stdout.strip() == "osf-tmux daemon was not running"


def test_start_without_server_is_a_clear_error(tmp_path: Path) -> None:
    srv = TmuxServer()  # never started
    d = DaemonProcess(srv, tmp_path)
    res = d.cli("start")
    assert res.returncode == 1
    assert "no tmux server running" in res.stderr
    assert "Traceback" not in res.stderr


def test_conflicting_server_flags(tmp_path: Path, server: TmuxServer) -> None:
    d = DaemonProcess(server, tmp_path)
    res = d.cli("-S", "/tmp/elsewhere", "status")
    assert res.returncode == 2 and "not both" in res.stderr
