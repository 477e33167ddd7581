"""How tmux wakes the daemon: hooks that signal a tmux wait channel, never a process id.

A daemon killed with -9 leaves its hooks behind until the next one starts; before, they ran
`kill -USR1 <its pid>`, which hit whatever program got that pid next."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import Settings
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.live import DaemonProcess
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def in_process_daemon(server: TmuxServer, tmp: Path, settings: Settings | None = None) -> Daemon:
    run = tmp / "run"
    d = Daemon(
        Tmux(ServerSpec(server.socket_name)),
        load_rules(None),
        PipeFactory(run),
        token=str(run),
        settings=settings,
    )
    d.pipes.prepare()
    return d


@pytest.fixture
def canary() -> Iterator[subprocess.Popen[bytes]]:
    """A bystander that SIGUSR1 would kill."""
    proc = subprocess.Popen(["sleep", "3600"])
    yield proc
    proc.kill()
    proc.wait(timeout=10)


def test_hooks_left_by_a_dead_daemon_signal_no_process(
    tmux_server: TmuxServer,
    tmp_path: Path,
    canary: subprocess.Popen[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon's pid now belongs to another program (here: the canary's pid is what the
    daemon believes its own to be); the hooks it left behind must not touch it."""
    server = tmux_server
    daemon = in_process_daemon(server, tmp_path)
    with monkeypatch.context() as m:
        m.setattr(os, "getpid", lambda: canary.pid)
        daemon.install_hooks()
    assert "osf-tmux-wake" in server.cmd("show-hooks", "-g")
    # The daemon is gone without cleaning up (kill -9); panes and windows keep changing.
    pane = server.new_pane(["sleep", "3600"], 80, 24)
    server.cmd("split-window", "-t", pane, "sleep 3600")
    session = server.cmd("display-message", "-p", "-t", pane, "#{session_name}").strip()
    server.cmd("new-window", "-d", "-t", f"{session}:", "sleep 3600")
    server.cmd("select-window", "-t", pane)
    server.kill_pane(pane)
    time.sleep(0.5)  # what the hooks started has run by now
    assert canary.poll() is None, "a hook signalled another program"
    daemon.registry.close_all()


def test_a_new_pane_wakes_the_daemon(tmux_server: TmuxServer, tmp_path: Path) -> None:
    """With sweeps an hour apart, only the wake channel can tell the daemon about a pane."""
    server = tmux_server
    daemon = in_process_daemon(server, tmp_path, Settings(sweep_interval=3600))
    daemon.install_hooks()
    try:
        daemon.step(max_wait=0.05)  # the first sweep, which starts the waiter
        pane = server.new_pane(["sleep", "3600"], 80, 24)

        def noticed() -> bool:
            daemon.step(max_wait=0.05)
            return pane in daemon.table.panes

        retry_until(noticed, timeout=10, what="the new pane noticed without a timed sweep")
        server.kill_pane(pane)

        def dropped() -> bool:
            daemon.step(max_wait=0.05)
            return pane not in daemon.table.panes

        retry_until(dropped, timeout=10, what="the closed pane dropped without a timed sweep")
    finally:
        daemon.shutdown()
    assert "osf-tmux-wake" not in server.cmd("show-hooks", "-g")


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_a_killed_daemons_waiter_ends_at_the_next_event(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    d = DaemonProcess(tmux_server, tmp_path)
    d.start()
    assert d.proc is not None
    pid = d.proc.pid
    waiters = retry_until(
        lambda: [c for c in _children(pid) if b"wait-for" in _cmdline(c)] or None,
        timeout=5,
        what="the daemon's waiter",
    )
    d.kill9()
    tmux_server.new_pane(["sleep", "3600"], 80, 24)  # an event: the hooks signal the channel
    retry_until(lambda: not any(_alive(w) for w in waiters), timeout=5, what="the waiter to end")


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))


def _wake_entries(server: TmuxServer) -> dict[str, list[str]]:
    """Per hook, its entries, from both of tmux's global lists (sessions' and windows')."""
    out: dict[str, list[str]] = {}
    for flag in ("-g", "-gw"):
        for line in server.cmd("show-hooks", flag).splitlines():
            name, _, command = line.partition(" ")
            if command:
                out.setdefault(name.split("[")[0], []).append(command)
    return out


def test_restarts_and_stops_leave_one_hook_each_and_the_users_own(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """tmux 3.3a keeps pane and window hooks (pane-died, window-resized, ...) among the global
    window options, listed by `show-hooks -gw` only; a stop must remove ours from there too,
    and a restart (a watchdog's too) must not add a second set."""
    server = tmux_server
    for hook in ("pane-died", "window-resized", "after-new-window"):
        server.cmd("set-hook", "-ga", hook, "display-message users-own")
    for _ in range(3):  # a start, a restart over a killed daemon's hooks, another
        daemon = in_process_daemon(server, tmp_path)
        daemon.install_hooks()
        daemon.registry.close_all()
    entries = _wake_entries(server)
    ours = {h: [c for c in cs if "osf-tmux-wake" in c] for h, cs in entries.items()}
    assert {"pane-died", "pane-exited", "window-layout-changed", "window-pane-changed",
            "window-resized", "after-new-window"} <= set(ours)  # fmt: skip
    assert {h: len(cs) for h, cs in ours.items() if len(cs) != 1} == {}
    daemon = in_process_daemon(server, tmp_path)
    daemon.install_hooks()
    daemon.shutdown()
    entries = _wake_entries(server)
    assert not [c for cs in entries.values() for c in cs if "osf-tmux-wake" in c]
    users = {h: cs for h, cs in entries.items() if cs}
    assert users == {h: ["display-message users-own"]
                     for h in ("pane-died", "window-resized", "after-new-window")}  # fmt: skip
