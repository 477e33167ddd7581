"""A pane resized between the daemon's listing and its seed: the screen takes the capture's size,
and the next listing must notice that it differs from the pane's. Before, the sweep compared
the pane's size with the previous listing only, and a pane split and grown back to its size
kept a screen of the split size (a prompt drawn then went unseen until the 10 s cross-check)."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import Settings
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.tmux_server import TmuxServer, retry_until

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
        screen = daemon.table.panes[pane].screen
        assert screen is not None and screen.size == (100, 15)
        server.cmd("resize-window", "-t", pane, "-x", "100", "-y", "61")
        server.cmd("resize-pane", "-t", pane, "-y", "30")  # back to the listed 100x30
        daemon.sweep()
        daemon.process()
        screen = daemon.table.panes[pane].screen
        assert screen is not None and screen.size == (100, 30)
        assert daemon.table.panes[pane].reseeds == 2
    finally:
        daemon.registry.close_all()


# A wrapper that forks, and whose child waits (after the fork, before its exec) until the test
# says go: the moment the flaky version of the test below hit now and then, held on purpose.
WRAPPER = """\
import os, sys, time
where = sys.argv[1]
pid = os.fork()
if pid == 0:
    open(os.path.join(where, "forked"), "w").close()
    while not os.path.exists(os.path.join(where, "go")):
        time.sleep(0.02)
    agent = os.path.join(where, "claude")
    os.execv(agent, [agent])
os.waitpid(pid, 0)
"""

# A program that draws, waits until the test says go, then execs a quiet agent under the same
# interpreter: tmux names the pane's command `python3` before and after.
DRAW_THEN_EXEC = """\
import os, sys, time
where = sys.argv[1]
def wait(name):
    while not os.path.exists(os.path.join(where, name)):
        time.sleep(0.02)
wait("draw")
sys.stdout.write("pick a project\\r\\n")
sys.stdout.flush()
wait("go")
os.execv(sys.executable, [sys.executable, os.path.join(where, "claude")])
"""


def test_an_agent_started_by_a_wrapper_is_found_by_the_sweep(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """The sweep re-reads a pane's processes only when its foreground changed. A wrapper
    (`sh -c '...; claude'`) starts the agent as its child; read between its fork and its exec,
    the child is still the wrapper, and the exec changes neither its pid, the group, nor the
    command tmux names: the children's command lines are part of what is compared (issue #29;
    before, this test failed whenever a sweep fell in that moment)."""
    server = tmux_server
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nsleep 100000\n")
    fake.chmod(0o755)
    script = tmp_path / "wrapper.py"
    script.write_text(WRAPPER)
    pane = server.new_pane([sys.executable, str(script), str(tmp_path)], 80, 24)
    retry_until(lambda: (tmp_path / "forked").exists(), timeout=10, what="the wrapper's fork")
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
        assert daemon.table.panes[pane].manifest is None  # the child is still the wrapper
        (tmp_path / "go").touch()

        def found() -> bool:
            daemon.sweep()
            manifest = daemon.table.panes[pane].manifest
            return manifest is not None and manifest.agent == "claude"

        retry_until(found, timeout=10, what="the wrapper's agent found by a sweep")
    finally:
        daemon.registry.close_all()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="waits for the exec in /proc")
def test_an_agent_execd_by_a_program_that_drew_is_found_by_the_next_sweep(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """A program draws a screen, then execs the agent, which prints nothing: same pid, same
    group, same command name for tmux. A pane that printed lately is not quiet, so the next
    sweep reads its processes, and the exec shows in their command lines (issue #29: before,
    no state after 10 s, 4 of 4). The clock is the test's: only its sweeps happen."""
    server = tmux_server
    (tmp_path / "claude").write_text("import time\ntime.sleep(100000)\n")
    script = tmp_path / "draw.py"
    script.write_text(DRAW_THEN_EXEC)
    pane = server.new_pane([sys.executable, str(script), str(tmp_path)], 80, 24)
    clock = FakeClock(wall_offset=time.time() - 1000.0)
    run = tmp_path / "run"
    daemon = Daemon(
        Tmux(ServerSpec(server.socket_name)),
        load_rules(None),
        PipeFactory(run),
        token=str(run),
        clock=clock,
    )
    daemon.pipes.prepare()
    try:
        daemon.sweep()  # attaches the pipe; reads the drawing program: no agent
        watch = daemon.table.panes[pane]
        assert watch.manifest is None
        retry_until(
            lambda: server.cmd("display-message", "-p", "-t", pane, "#{pane_pipe}").strip() == "1",
            timeout=10,
            what="the pipe",
        )
        clock.advance(1.0)
        (tmp_path / "draw").touch()

        def drawn() -> bool:
            daemon.step(max_wait=0.1)
            return watch.last_bytes > float("-inf")

        retry_until(drawn, timeout=10, what="the program's screen read")
        assert watch.manifest is None  # still the program that drew
        pid = int(server.cmd("display-message", "-p", "-t", pane, "#{pane_pid}").strip())
        (tmp_path / "go").touch()
        retry_until(
            lambda: str(tmp_path / "claude").encode() in Path(f"/proc/{pid}/cmdline").read_bytes(),
            timeout=10,
            what="the exec",
        )
        clock.advance(2.0)  # the next periodic sweep, well within quiet_identify
        daemon.sweep()
        assert watch.manifest is not None and watch.manifest.agent == "claude"
    finally:
        daemon.registry.close_all()


def test_the_sweep_leaves_quiet_shells_processes_unread(
    tmux_server: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #15: a sweep of 200 panes spent most of its time reading the process tree of every
    pane. A pane that is no agent and prints nothing is re-read only every `quiet_identify`; an
    agent's pane at every sweep."""
    import osf_tmux.daemon.registry as registry
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

    monkeypatch.setattr(registry, "foreground_signature", counted)
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
        # A pane listed for the first time less than quiet_identify ago is read at every
        # sweep (its program may start the agent after the first read); these are older.
        assert {daemon.table.panes[p].info.pid for p in shells} <= set(read)
        for w in daemon.table.panes.values():
            w.first_seen -= daemon.settings.quiet_identify
        read.clear()
        daemon.sweep()
        daemon.sweep()
        pids = {daemon.table.panes[p].info.pid for p in [*shells, agent]}
        assert daemon.table.panes[agent].info.pid in read
        assert len(read) == 2  # the agent's pane, twice; no shell
        assert not (pids - {daemon.table.panes[agent].info.pid}) & set(read)
        for p in shells:
            daemon.table.panes[p].signature_read -= daemon.settings.quiet_identify
        read.clear()
        daemon.sweep()
        assert {daemon.table.panes[p].info.pid for p in shells} <= set(read)
    finally:
        daemon.registry.close_all()
