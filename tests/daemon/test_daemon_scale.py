"""Many panes: tmux takes at most 16 KB of commands per call, so the daemon's commands for a
large server must go in several calls, and every pane must still be watched."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.support.live import DaemonProcess
from tests.support.tmux_server import TmuxServer, retry_until

# A Claude-like screen at work: the input box between two rules, `esc to interrupt` below.
CLAUDE_WORKING = (
    "\x1b[2J\x1b[20;1H"
    + "─" * 60
    + "\x1b[21;1H❯ \x1b[22;1H"
    + "─" * 60
    + "\x1b[24;1H  esc to interrupt"
)


def agent_script(tmp: Path) -> str:
    screen = tmp / "working.txt"
    screen.write_text(CLAUDE_WORKING)
    return f"cat {screen}; exec sleep 100000"


def many_panes(server: TmuxServer, count: int, command: str, name: str) -> list[str]:
    """`count` panes in their own sessions, created a few dozen per tmux call."""
    before = set(server.cmd("list-panes", "-a", "-F", "#{pane_id}").split())
    for start in range(0, count, 25):
        args: list[str] = []
        for i in range(start, min(count, start + 25)):
            if args:
                args.append(";")
            args += ["new-session", "-d", "-s", f"{name}{i}", "-x", "80", "-y", "24", command]
        server.cmd(*args)
    return [
        p for p in server.cmd("list-panes", "-a", "-F", "#{pane_id}").split() if p not in before
    ]


@pytest.mark.slow
@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_every_pane_of_a_large_server_is_watched(tmux_server: TmuxServer, tmp_path: Path) -> None:
    """120 panes, 12 of them agents: each gets its pipe, each agent its state. Before, all the
    pipe commands went into one tmux call, tmux refused it (`command too long`) and no pane
    was watched at all."""
    server, tmp = tmux_server, tmp_path
    shells = many_panes(server, 108, "exec sleep 100000", "shell")
    agents = many_panes(server, 12, agent_script(tmp), "agent")
    for pane in agents:
        server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
    d = DaemonProcess(server, tmp)
    d.start()
    try:

        def watched() -> bool:
            panes = {p["pane"]: p for p in d.status().get("panes", [])}
            return all(p in panes and panes[p]["pipe"] == "pipe" for p in shells + agents) and all(
                panes[p]["state"] == "working" for p in agents
            )

        retry_until(watched, timeout=20, what="every pane piped, every agent working")
        piped = server.cmd("list-panes", "-a", "-F", "#{pane_id} #{pane_pipe}").split("\n")
        assert sum(1 for line in piped if line.endswith(" 1")) >= 120
        assert "command too long" not in d.stderr()
    finally:
        d.stop()
        print(d.stderr()[-600:], file=sys.stderr)
