"""After a daemon dies without stopping (kill -9, the OOM killer, a bug), nothing it left may
mislead: the next daemon takes back its pipes and removes its files, the status file does not
say it runs, and the watchdog `start` sets up restarts it, or clears its states and says so."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.tmux import ServerSpec
from tests.daemon.test_daemon_live import claude_prompt, pane_status, wait_agent_pane
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def files_of(d: DaemonProcess) -> DaemonFiles:
    return DaemonFiles.for_server(ServerSpec(d.server.socket_name), d.env)


@pytest.mark.slow
def test_a_pipe_whose_cat_died_with_its_daemon_is_taken_back(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """The pane printed while no daemon ran: its `cat` found no reader and died, tmux still
    has the pipe open. Before, the next daemon took that for someone else's pipe and polled
    the pane every 2 s; it is the dead daemon's, and is taken back."""
    server = tmux_server
    capture, point, size = claude_prompt()
    d = DaemonProcess(server, tmp_path)
    d.start()
    feeder = Feeder(server, tmp_path, size[0], size[1], "claude")
    try:
        wait_agent_pane(d, feeder.pane, "claude")
        d.kill9()
        feeder.write(b"printed while no daemon ran\r\n")
        time.sleep(0.3)  # tmux hands it to cat, which finds no reader
        assert server.cmd("display-message", "-p", "-t", feeder.pane, "#{pane_pipe}")[0] == "1"
        d.start()
        retry_until(
            lambda: (s := pane_status(d, feeder.pane)) and s["pipe"] == "pipe",
            timeout=5,
            what="the dead daemon's pipe taken back",
        )
        feeder.write(capture.bytes_path.read_bytes()[: point.offset])
        retry_until(lambda: feeder.state() == "blocked", timeout=5, what="blocked, streamed")
    finally:
        d.stop()
        feeder.close()
        server.kill_pane(feeder.pane)


@pytest.mark.slow
def test_files_of_panes_gone_meanwhile_are_removed(tmux_server: TmuxServer, tmp_path: Path) -> None:
    server = tmux_server
    d = DaemonProcess(server, tmp_path)
    d.start()
    stays = Feeder(server, tmp_path, 80, 24, "claude")
    goes = Feeder(server, tmp_path, 80, 24, "claude")
    runtime = files_of(d).runtime
    try:
        wait_agent_pane(d, stays.pane, "claude")
        wait_agent_pane(d, goes.pane, "claude")
        pids = [runtime / f"pane-{f.pane.lstrip('%')}.pid" for f in (stays, goes)]
        retry_until(lambda: all(p.exists() for p in pids), timeout=5, what="both pipes up")
        d.kill9()
        server.kill_pane(goes.pane)
        d.start()
        wait_agent_pane(d, stays.pane, "claude")
        gone = goes.pane.lstrip("%")
        retry_until(
            lambda: not [p for p in runtime.iterdir() if p.name.split(".")[0] == f"pane-{gone}"],
            timeout=5,
            what=f"the files of {goes.pane} removed",
        )
        assert (runtime / f"pane-{stays.pane.lstrip('%')}").exists()
    finally:
        d.stop()
        for f in (stays, goes):
            f.close()
            server.kill_pane(f.pane)


def test_the_status_file_says_stopped_when_the_server_went(tmp_path: Path) -> None:
    srv = TmuxServer()
    srv.start()
    d = DaemonProcess(srv, tmp_path)
    try:
        d.start()
        srv.kill()
        assert d.proc is not None
        d.proc.wait(timeout=10)
        status = json.loads(files_of(d).status.read_text())
        assert status["running"] is False
    finally:
        d.stop()
        srv.kill()


def _daemon_pid(d: DaemonProcess) -> int | None:
    pid = d.status().get("pid")
    return pid if isinstance(pid, int) and d.status().get("running") else None


@pytest.mark.slow
def test_the_watchdog_restarts_a_killed_daemon_and_gives_up_after_a_few(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    server = tmux_server
    capture, point, size = claude_prompt()
    d = DaemonProcess(server, tmp_path)
    out = d.cli("start")
    assert out.returncode == 0, out.stderr
    feeder = Feeder(server, tmp_path, size[0], size[1], "claude")

    def blocked_count() -> str:
        return server.cmd("show-options", "-gqv", "@osf_blocked_count").strip()

    try:
        wait_agent_pane(d, feeder.pane, "claude")
        feeder.write(capture.bytes_path.read_bytes()[: point.offset])
        retry_until(lambda: blocked_count() == "1", timeout=5, what="blocked counted")
        for _ in range(3):  # restarted each time
            pid = retry_until(lambda: _daemon_pid(d), timeout=10, what="a daemon")
            os.kill(pid, signal.SIGKILL)
            retry_until(
                lambda p=pid: _daemon_pid(d) not in (None, p),  # type: ignore[misc]
                timeout=10,
                what="a new daemon after kill -9",
            )
            retry_until(
                lambda: (
                    (s := pane_status(d, feeder.pane))
                    and s["state"] == "blocked"
                    and s["pipe"] == "pipe"
                ),
                timeout=10,
                what="the pane blocked again, streamed",
            )
            assert blocked_count() == "1"
        # Once more: too many deaths in a row. It stays down, and says so.
        pid = retry_until(lambda: _daemon_pid(d), timeout=10, what="a daemon")
        os.kill(pid, signal.SIGKILL)
        retry_until(
            lambda: server.cmd("show-options", "-gqv", "@osf_daemon_down").strip() != "",
            timeout=10,
            what="the status line told the daemon is down",
        )
        assert blocked_count() == ""
        assert feeder.state() is None
        assert server.cmd("display-message", "-p", "-t", feeder.pane, "#{pane_pipe}")[0] == "0"
        assert "osf-tmux-wake" not in server.cmd("show-hooks", "-g")
        assert "osf-tmux-wake" not in server.cmd("show-hooks", "-gw")
        doctor = d.cli("doctor")
        assert "died again and again" in doctor.stdout
        # A person starts it again: it runs, and the status line says nothing more.
        assert d.cli("start").returncode == 0
        retry_until(lambda: blocked_count() == "1", timeout=10, what="blocked again")
        assert server.cmd("show-options", "-gqv", "@osf_daemon_down").strip() == ""
    finally:
        d.cli("stop")
        feeder.close()
        server.kill_pane(feeder.pane)


@pytest.mark.slow
def test_stop_after_a_crash_clears_what_the_daemon_left(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    server = tmux_server
    capture, point, size = claude_prompt()
    d = DaemonProcess(server, tmp_path)
    d.start()
    feeder = Feeder(server, tmp_path, size[0], size[1], "claude")
    try:
        wait_agent_pane(d, feeder.pane, "claude")
        feeder.write(capture.bytes_path.read_bytes()[: point.offset])
        retry_until(lambda: feeder.state() == "blocked", timeout=5, what="blocked")
        d.kill9()
        assert "died without stopping" in d.cli("status").stdout
        assert "died without stopping" in d.cli("doctor").stdout
        assert "of a daemon that is gone" in d.cli("doctor").stdout  # its hooks
        out = d.cli("stop")
        assert out.returncode == 0 and "had died" in out.stdout
        assert feeder.state() is None
        assert server.cmd("show-options", "-gqv", "@osf_blocked_count").strip() == ""
        assert "osf-tmux-wake" not in server.cmd("show-hooks", "-g")
        assert "osf-tmux-wake" not in server.cmd("show-hooks", "-gw")
        assert not list(files_of(d).runtime.glob("pane-*"))
    finally:
        d.stop()
        feeder.close()
        server.kill_pane(feeder.pane)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
