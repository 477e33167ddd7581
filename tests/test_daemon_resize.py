"""A pane resized between the daemon's listing and its seed: the screen takes the capture's size,
and the next listing must notice that it differs from the pane's. Before, the sweep compared
the pane's size with the previous listing only, and a pane split and grown back to its size
kept a screen of the split size (a prompt drawn then went unseen until the 10 s cross-check)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osf_tmux.daemon.loop import Daemon, Settings
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
    # A pane that is no agent and prints nothing has its processes re-read by the sweep only
    # every `quiet_identify` (10 s); this test is about what a re-read compares, so at once.
    daemon = Daemon(
        Tmux(ServerSpec(server.socket_name)),
        load_rules(None),
        PipeFactory(run),
        token=str(run),
        settings=Settings(quiet_identify=0.0),
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


def test_the_sweep_leaves_quiet_shells_processes_unread(
    tmux_server: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #15: a sweep of 200 panes spent most of its time reading the process tree of every
    pane. A pane that is no agent and prints nothing is re-read only every `quiet_identify`; an
    agent's pane at every sweep."""
    import osf_tmux.daemon.loop as loop
    from osf_tmux.daemon import process

    server = tmux_server
    shells = [server.new_pane(["sleep", "100000"], 80, 24) for _ in range(3)]
    agent = server.new_pane(["sleep", "100000"], 80, 24)
    server.cmd("set-option", "-p", "-t", agent, "@osf-agent", "claude")
    read: list[int] = []
    real = process.foreground_signature

    def counted(pid: int) -> tuple[int | None, str]:
        read.append(pid)
        return real(pid)

    monkeypatch.setattr(loop, "foreground_signature", counted)
    run = tmp_path / "run"
    daemon = Daemon(
        Tmux(ServerSpec(server.socket_name)), load_rules(None), PipeFactory(run), token=str(run)
    )
    daemon.pipes.prepare()
    try:
        daemon.sweep()
        first = len(read)
        assert first >= 4  # every pane once (the server's first pane too)
        read.clear()
        daemon.sweep()
        daemon.sweep()
        pids = {daemon.panes[p].info.pid for p in [*shells, agent]}
        assert daemon.panes[agent].info.pid in read
        assert len(read) == 2  # the agent's pane, twice; no shell
        assert not (pids - {daemon.panes[agent].info.pid}) & set(read)
        for p in shells:
            daemon.panes[p].signature_read -= daemon.settings.quiet_identify
        read.clear()
        daemon.sweep()
        assert {daemon.panes[p].info.pid for p in shells} <= set(read)
    finally:
        daemon._close_all()
