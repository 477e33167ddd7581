"""The fleet for real: a remote machine is this one again, reached through an sshd of the test's
own (its own host and user keys, 127.0.0.1), with a tmux server and an osf-tmux daemon of its
own. A Claude Code permission prompt replayed in a remote pane shows in the local `list --json`
with its host, counts in the local status line and notifies once (the notify command gets
OSF_HOST); the sshd killed, the host goes offline and its panes leave the list and the counts;
sshd back, the host comes back with its prompt, which does not notify again."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.live import DaemonProcess, Feeder
from tests.support.sshd import SshServer
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.xdist_group("fleet_live"),  # the tests go on from one another's state
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

CAPTURE = Path(__file__).resolve().parents[2] / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)
OSF_TMUX = Path(sys.executable).with_name("osf-tmux")  # this checkout's, as the remote runs it
NOTIFY = 'printf "%s|%s|%s|%s\\n" "$OSF_HOST" "$OSF_PANE" "$OSF_TARGET" "$OSF_QUESTION" >> "{runs}"'


@dataclass
class Fleet:
    sshd: SshServer
    remote: TmuxServer
    remote_daemon: DaemonProcess
    local: TmuxServer
    local_daemon: DaemonProcess
    home: Path
    runs: Path

    def list_json(self) -> list[dict[str, Any]]:
        out = self.local_daemon.cli("list", "--json")
        return list(json.loads(out.stdout)) if out.stdout.strip() else []

    def remote_rows(self) -> list[dict[str, Any]]:
        return [r for r in self.list_json() if r.get("host") is not None]

    def host(self) -> dict[str, Any]:
        return dict((self.local_daemon.status().get("hosts") or {}).get("devbox") or {})

    def count(self) -> str:
        return self.local.cmd("show-options", "-gqv", "@osf_blocked_count").strip()

    def notified(self) -> list[str]:
        return self.runs.read_text().splitlines() if self.runs.exists() else []


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    from tests.support.sshd import running_sshd

    home = tmp_path_factory.mktemp("fleet-live")
    with running_sshd(home / "sshd") as sshd:
        remote, local = TmuxServer(), TmuxServer()
        daemons: list[DaemonProcess] = []
        try:
            remote.start()
            remote_daemon = DaemonProcess(remote, home / "remote")
            (home / "remote").mkdir()
            remote_daemon.start()
            daemons.append(remote_daemon)
            local.start()
            local_daemon = DaemonProcess(local, home / "local")
            # Short: the ssh control socket lives in the runtime directory.
            local_daemon.env["XDG_RUNTIME_DIR"] = str(sshd.controls)
            local_daemon.env["OSF_SSH_CONFIG"] = str(sshd.client_config)
            local_daemon.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
            (home / "local").mkdir()
            # ssh gives the remote command a login environment: it names the remote daemon's
            # directories itself, as a user's `-L SOCKET` names a tmux server there.
            env = [f"{k}={remote_daemon.env[k]}" for k in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME")]
            command = shlex.join(["env", *env, str(OSF_TMUX), "-L", remote.socket_name])
            runs = home / "runs"
            for name, value in (
                ("@osf-hosts", "devbox"),
                ("@osf-remote-command", command),
                ("@osf-notify-desktop", "off"),
                ("@osf-notify-command", NOTIFY.format(runs=runs)),
            ):
                local.cmd("set-option", "-g", name, value)
            local_daemon.start()
            daemons.append(local_daemon)
            yield Fleet(sshd, remote, remote_daemon, local, local_daemon, home, runs)
        finally:
            for daemon in daemons[::-1]:
                daemon.stop()
            local.kill()
            remote.kill()


def test_a_remote_prompt_is_listed_counted_and_notified_once(fleet: Fleet) -> None:
    retry_until(lambda: fleet.host().get("state") == "online", timeout=20, what="devbox online")
    assert fleet.host()["version"] and fleet.host()["error"] is None
    feeder = Feeder(fleet.remote, fleet.home, 120, 32, "claude")
    retry_until(
        lambda: any(
            p.get("pane") == feeder.pane and p.get("pipe") == "pipe"
            for p in fleet.remote_daemon.status().get("panes", [])
        ),
        timeout=10,
        what="the remote daemon to take the pane",
    )
    feeder.write(CAPTURE.read_bytes()[:BLOCKED_AT])
    rows = retry_until(
        lambda: [r for r in fleet.remote_rows() if r["state"] == "blocked"] or None,
        timeout=10,
        what="the remote prompt in the local list",
    )
    target = fleet.remote.cmd(
        "display-message", "-p", "-t", feeder.pane, "#{session_name}:#{window_index}.#{pane_index}"
    ).strip()
    assert [(r["host"], r["pane"], r["target"], r["agent"]) for r in rows] == [
        ("devbox", feeder.pane, target, "claude")
    ]
    assert "proceed" in (rows[0]["question"] or "")
    # The local status line counts it, though no local pane carries it.
    retry_until(lambda: fleet.count() == "1", timeout=5, what="the local blocked count")
    assert "1 blocked" in fleet.local.cmd("show-options", "-gqv", "@osf_status")
    table = fleet.local_daemon.cli("list").stdout
    assert f"devbox:{target}" in table
    shown = fleet.local_daemon.cli("status").stdout
    assert f"devbox:{target}" in shown and "host devbox: online" in shown
    # status.json: the remote row next to local ones, the host's own record.
    status = fleet.local_daemon.status()
    (row,) = [p for p in status["panes"] if p["host"] == "devbox"]
    assert (row["pane"], row["target"], row["state"]) == (feeder.pane, target, "blocked")
    assert all(p["host"] is None for p in status["panes"] if p is not row)
    assert set(status["hosts"]["devbox"]) == {"state", "since", "error", "version",
                                              "remote_command"}  # fmt: skip
    assert "devbox: online" in fleet.local_daemon.cli("doctor").stdout
    # Notified once, with the host in OSF_HOST.
    (line,) = retry_until(fleet.notified, timeout=10, what="the notify command")
    host, pane, where, question = line.split("|")
    assert (host, pane, where) == ("devbox", feeder.pane, f"devbox:{target}")
    assert "proceed" in question


def test_a_host_that_goes_away_is_offline_and_comes_back(fleet: Fleet) -> None:
    assert fleet.count() == "1"  # the prompt of the test before still waits
    fleet.sshd.stop()  # the host is gone: its sshd, the connections and the sessions on them
    retry_until(lambda: fleet.host().get("state") == "offline", timeout=15, what="offline")
    assert fleet.host()["error"]
    assert "devbox: offline since" in fleet.local_daemon.cli("doctor").stdout
    assert "host devbox is offline" in fleet.local_daemon.cli("list").stderr
    # Its last states are not shown as current: out of the list and the counts.
    assert fleet.remote_rows() == []
    retry_until(lambda: fleet.count() == "0", timeout=5, what="the count without devbox")
    fleet.sshd.start()
    retry_until(lambda: fleet.host().get("state") == "online", timeout=30, what="online again")
    retry_until(
        lambda: [r for r in fleet.remote_rows() if r["state"] == "blocked"] or None,
        timeout=10,
        what="the prompt back in the list",
    )
    retry_until(lambda: fleet.count() == "1", timeout=5, what="the count back")
    # The same prompt, still waiting: not notified a second time.
    assert len(fleet.notified()) == 1


def test_a_host_without_osf_tmux_is_incompatible_and_says_so_once(fleet: Fleet) -> None:
    """The options read again after a plugin load (its stamp): a remote command that is not
    there makes the host incompatible, with why, and the log says it once."""
    from osf_tmux.daemon.lifecycle import DaemonFiles
    from osf_tmux.plugin.load import config_stamp
    from osf_tmux.tmux import ServerSpec

    fleet.local.cmd("set-option", "-g", "@osf-remote-command", "/nonexistent/osf-tmux")
    files = DaemonFiles.for_server(ServerSpec(fleet.local.socket_name), fleet.local_daemon.env)
    config_stamp(files.state).touch()
    retry_until(
        lambda: fleet.host().get("state") == "incompatible", timeout=20, what="incompatible"
    )
    assert "not installed there" in fleet.host()["error"]
    assert fleet.host()["remote_command"] == "/nonexistent/osf-tmux"
    assert fleet.remote_rows() == [] and fleet.count() == "0"
    log = files.log.read_text()
    assert log.count("host devbox: incompatible") == 1
    assert "devbox: incompatible since" in fleet.local_daemon.cli("doctor").stdout
