"""`doctor` on the fleet: each host of @osf-hosts as the daemon's link to it stands."""

from __future__ import annotations

from typing import Any

from osf_tmux.plugin import doctor
from osf_tmux.tmux import ServerSpec, Tmux


class Options(Tmux):
    def __init__(self, hosts: str) -> None:
        super().__init__(ServerSpec("unused"))
        self.hosts = hosts

    def run(self, *args: str) -> str:
        assert args == ("display-message", "-p", "#{@osf-hosts}")
        return self.hosts + "\n"


NOW = 1_800_000_100.0


def _host(state: str, error: str | None = None) -> dict[str, Any]:
    return {"state": state, "since": NOW - 40, "error": error, "version": "0.1.0",
            "remote_command": "osf-tmux"}  # fmt: skip


def test_each_host_says_how_it_stands() -> None:
    status = {
        "panes": [{"pane": "%1", "host": None}, {"pane": "%3", "host": "devbox"}],
        "hosts": {
            "devbox": _host("online"),
            "gpu:2222": _host("offline", "ssh: connect to host gpu port 2222: No route to host"),
            "old": _host("incompatible", "the osf-tmux there is older than this one"),
        },
    }
    checks = doctor.hosts(Options("devbox gpu:2222, old new -oProxyCommand=x"), status, NOW)
    by = [(c.level, c.message.split(":", 1)[0]) for c in checks]
    assert by == [
        ("warn", "@osf-hosts"),
        ("ok", "devbox"),
        ("warn", "gpu"),
        ("warn", "old"),
        ("info", "new"),
    ]
    assert "1 agent panes" in checks[1].message
    assert "No route to host" in checks[2].message and "BatchMode" in checks[2].fix
    assert "ssh -o BatchMode=yes -p 2222 gpu true" in checks[2].fix
    assert "older" in checks[3].message
    assert doctor.exit_status(checks) == 2


def test_no_hosts_no_check_and_no_daemon_said_so() -> None:
    assert doctor.hosts(Options(""), None, NOW) == []
    [check] = doctor.hosts(Options("devbox"), None, NOW)
    assert (check.level, check.message) == ("info", "devbox: the daemon is not running")
