"""A pane that closes takes its state out of the counts and its window's mark at once, however
it closes: kill-pane, its program ending, its window or its session killed.

Before, the sweep dropped the pane but published nothing until another pane changed, so
`● 1 blocked` stayed on the status line of a server whose blocked agent was gone."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.daemon.test_daemon_live import claude_prompt, wait_agent_pane
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def kill_pane(server: TmuxServer, pane: str) -> None:
    server.kill_pane(pane)


def program_ends(server: TmuxServer, pane: str) -> None:
    pid = int(server.cmd("display-message", "-p", "-t", pane, "#{pane_pid}").strip())
    os.kill(pid, signal.SIGTERM)


def kill_window(server: TmuxServer, pane: str) -> None:
    server.cmd("kill-window", "-t", pane)


def kill_session(server: TmuxServer, pane: str) -> None:
    server.cmd("kill-session", "-t", pane)


def blocked_count(server: TmuxServer) -> str:
    return server.cmd("show-options", "-gqv", "@osf_blocked_count").strip()


@pytest.mark.parametrize("close", [kill_pane, program_ends, kill_window, kill_session])
def test_a_closed_blocked_pane_leaves_the_counts(
    server: TmuxServer,
    daemon: DaemonProcess,
    tmp_path: Path,
    close: Callable[[TmuxServer, str], None],
) -> None:
    capture, point, size = claude_prompt()
    feeder = Feeder(server, tmp_path, size[0], size[1], "claude")
    # A second window beside the blocked pane's, so that closing the pane alone leaves its
    # session and window list otherwise as they were.
    session = server.cmd("display-message", "-p", "-t", feeder.pane, "#{session_name}").strip()
    server.cmd("new-window", "-d", "-t", f"{session}:", "sleep 100000")
    try:
        wait_agent_pane(daemon, feeder.pane, "claude")
        feeder.write(capture.bytes_path.read_bytes()[: point.offset])
        retry_until(lambda: blocked_count(server) == "1", timeout=5, what="blocked counted")
        close(server, feeder.pane)
        retry_until(
            lambda: blocked_count(server) == "0",
            timeout=5,
            what=f"the count to drop after {close.__name__}",
        )
        assert "blocked" not in server.cmd("show-options", "-gqv", "@osf_status")
    finally:
        feeder.close()
        server.cmd("kill-session", "-t", session, check=False)


def test_a_window_keeps_no_mark_of_a_closed_pane(
    server: TmuxServer, daemon: DaemonProcess, tmp_path: Path
) -> None:
    capture, point, size = claude_prompt()
    feeder = Feeder(server, tmp_path, size[0], size[1], "claude")
    # A second pane below, the window grown so that the agent's pane keeps its size.
    server.cmd("split-window", "-d", "-t", feeder.pane, "sleep 100000")
    server.cmd("resize-window", "-t", feeder.pane, "-x", str(size[0]), "-y", str(2 * size[1] + 1))
    server.cmd("resize-pane", "-t", feeder.pane, "-y", str(size[1]))
    want = f"{size[0]}x{size[1]}"
    retry_until(
        lambda: (
            server.cmd(
                "display-message", "-p", "-t", feeder.pane, "#{pane_width}x#{pane_height}"
            ).strip()
            == want
        ),
        timeout=5,
        what="the agent's pane at its size",
    )
    window = server.cmd("display-message", "-p", "-t", feeder.pane, "#{window_id}").strip()

    def mark() -> str:
        return server.cmd("show-options", "-wqv", "-t", window, "@osf_window_state").strip()

    try:
        wait_agent_pane(daemon, feeder.pane, "claude")
        feeder.write(capture.bytes_path.read_bytes()[: point.offset])
        retry_until(lambda: mark() == "blocked", timeout=5, what="the window marked")
        server.kill_pane(feeder.pane)
        retry_until(lambda: mark() != "blocked", timeout=5, what="the mark gone with the pane")
    finally:
        feeder.close()
        server.cmd("kill-window", "-t", window, check=False)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
