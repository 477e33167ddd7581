"""What the daemon leaves in tmux when it stops: nothing, even when a pane closed just before.

The daemon runs in this process against a private server, so the test decides exactly when the
pane closes and when the daemon stops (no sweep in between)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WORKING = "\x1b[2J\x1b[20;1H" + "─" * 60 + "\x1b[21;1H❯ \x1b[24;1H  esc to interrupt"


def agent_pane(server: TmuxServer, tmp: Path, name: str) -> str:
    screen = tmp / f"{name}.txt"
    screen.write_text(WORKING)
    pane = server.new_pane(["sh", "-c", f"cat {screen}; exec sleep 100000"], 80, 24)
    server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
    return pane


@pytest.fixture
def daemon(tmux_server: TmuxServer, tmp_path: Path) -> Iterator[Daemon]:
    run = tmp_path / "run"
    d = Daemon(
        Tmux(ServerSpec(tmux_server.socket_name)),
        load_rules(None),
        PipeFactory(run),
        token=str(run),
    )
    d.pipes.prepare()
    yield d
    d.registry.close_all()


def osf_globals(server: TmuxServer) -> list[str]:
    return [line for line in server.cmd("show-options", "-g").splitlines() if "@osf_" in line]


def test_stop_right_after_a_pane_closed_leaves_nothing(
    tmux_server: TmuxServer, tmp_path: Path, daemon: Daemon
) -> None:
    server = tmux_server
    first = agent_pane(server, tmp_path, "first")
    second = agent_pane(server, tmp_path, "second")

    def published() -> bool:
        daemon.step(max_wait=0.05)
        return server.cmd("show-options", "-gv", "@osf_working_count").strip() == "2"

    retry_until(published, timeout=10, what="both panes published as working")
    assert osf_globals(server)
    server.kill_pane(first)  # closed; the daemon has not swept since
    daemon.shutdown()
    assert osf_globals(server) == []
    assert server.cmd("display-message", "-p", "-t", second, "#{pane_pipe}").strip() == "0"
    left = server.cmd("show-options", "-p", "-t", second)
    assert "@osf_state" not in left and "@osf_pipe" not in left
