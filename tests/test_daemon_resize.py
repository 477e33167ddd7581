"""A pane resized between the daemon's listing and its seed: the screen takes the capture's size,
and the next listing must notice that it differs from the pane's. Before, the sweep compared
the pane's size with the previous listing only, and a pane split and grown back to its size
kept a screen of the split size (a prompt drawn then went unseen until the 10 s cross-check)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_a_screen_of_the_wrong_size_is_noticed(tmux_server: TmuxServer, tmp_path: Path) -> None:
    server = tmux_server
    pane = server.new_pane(["sleep", "100000"], 100, 30)
    server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
    run = tmp_path / "run"
    daemon = Daemon(
        Tmux(ServerSpec(server.socket_name)), load_rules(None), PipeFactory(run), token=str(run)
    )
    daemon.pipes.prepare()
    try:
        daemon.sweep()  # lists the pane at 100x30
        server.cmd("split-window", "-d", "-t", pane, "sleep 100000")  # now 100x15
        daemon.process()  # seeds: the capture says 100x15
        screen = daemon.panes[pane].screen
        assert screen is not None and screen.size == (100, 15)
        server.cmd("resize-window", "-t", pane, "-x", "100", "-y", "61")
        server.cmd("resize-pane", "-t", pane, "-y", "30")  # back to the listed 100x30
        daemon.sweep()
        daemon.process()
        screen = daemon.panes[pane].screen
        assert screen is not None and screen.size == (100, 30)
        assert daemon.panes[pane].reseeds == 2
    finally:
        daemon._close_all()


def test_an_agent_started_by_a_wrapper_is_found_by_the_sweep(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """The sweep re-reads a pane's processes only when its foreground changed. A wrapper
    (`sh -c '...; claude'`) starting the agent as its child changes neither the foreground group
    nor the command tmux names, so the leader's children are part of what is compared; the
    agent here prints nothing that would make the daemon look again."""
    server = tmux_server
    flag = tmp_path / "go"
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nsleep 100000\n")
    fake.chmod(0o755)
    pane = server.new_pane(
        ["sh", "-c", f"while [ ! -e {flag} ]; do sleep 0.2; done; {fake}; true"], 80, 24
    )
    run = tmp_path / "run"
    daemon = Daemon(
        Tmux(ServerSpec(server.socket_name)), load_rules(None), PipeFactory(run), token=str(run)
    )
    daemon.pipes.prepare()
    try:
        daemon.sweep()
        assert daemon.panes[pane].manifest is None
        flag.touch()

        def found() -> bool:
            daemon.sweep()
            manifest = daemon.panes[pane].manifest
            return manifest is not None and manifest.agent == "claude"

        retry_until(found, timeout=5, what="the wrapper's agent found by a sweep")
    finally:
        daemon._close_all()
