"""Going to and answering a pane on another machine, for real: a private sshd on 127.0.0.1
(tests/support/sshd.py), a second tmux server with its own daemon as the remote, two panes
there showing the same Claude Code permission prompt (a capture's bytes), and a local tmux
server with an attached client whose `@osf-hosts` names the remote.

`answer` on one remote pane types into that pane only, through the osf-tmux there; `wait` is
answered by the daemon there; `next` opens a local window running ssh + tmux attach with that
pane shown there, and choosing the pane again reuses the window and selects the pane there."""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from osf_tmux.cli.app import cli
from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.paths import private_dir
from osf_tmux.plugin.jump import go_next
from osf_tmux.plugin.overview import show_menu
from osf_tmux.plugin.remote_go import go_to_waiting
from osf_tmux.plugin.remote_window import HOST_OPTION, PANE_OPTION, SESSION_OPTION
from osf_tmux.tmux import ServerSpec, Tmux
from tests.agents.test_safe_input import CAPTURE, RecordingPane, offsets
from tests.support.control_mode import ControlMode, Terminal, shown_pane
from tests.support.live import DaemonProcess
from tests.support.sshd import SshServer, running_sshd
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

PROMPT = "Do you want to proceed?"


def typed(keys: bytes) -> bytes:
    """What was typed, less the focus reports tmux sends a pane that asked for them (Claude
    does) once a client is attached to the remote tmux."""
    return keys.replace(b"\x1b[I", b"").replace(b"\x1b[O", b"")


@dataclass
class World:
    sshd: SshServer
    far: TmuxServer  # the remote machine's tmux
    near: TmuxServer  # this machine's
    client: ControlMode  # a client attached to `near`
    asking: RecordingPane  # two remote panes with the same prompt
    other: RecordingPane
    env: dict[str, str | None]

    def osf(self, *args: str) -> tuple[int, str, str]:
        """`osf-tmux -L NEAR ARGS` in this process, outside any tmux client."""
        result = CliRunner().invoke(cli, ["-L", self.near.socket_name, *args], env=self.env)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    def target(self, pane: RecordingPane) -> str:
        fmt = "#{session_name}:#{window_index}.#{pane_index}"
        return self.far.cmd("display-message", "-p", "-t", pane.pane, fmt).strip()

    def status(self) -> Mapping[str, Any]:
        """status.json as the local daemon writes it for an online host (the contract with the
        link: remote panes with `host`, and `hosts`): the first pane waits longest."""
        panes = [
            {
                "host": "devbox",
                "pane": p.pane,
                "target": self.target(p),
                "agent": "claude",
                "state": "blocked",
                "since": since,
                "question": PROMPT,
            }
            for p, since in ((self.asking, time.time() - 90), (self.other, time.time() - 30))
        ]
        return {"hosts": {"devbox": {"state": "online", "since": 50.0}}, "panes": panes}

    def far_clients(self) -> list[tuple[str, str]]:
        """(session, pane shown) of each client attached to the remote tmux."""
        out = self.far.cmd("list-clients", "-F", "#{client_session} #{pane_id}")
        return [tuple(line.split(" ", 1)) for line in out.splitlines()]  # type: ignore[misc]

    def remote_windows(self) -> list[str]:
        fmt = f"#{{window_id}} #{{{HOST_OPTION}}} #{{{SESSION_OPTION}}}"
        out = self.near.cmd("list-windows", "-a", "-F", fmt)
        return [line for line in out.splitlines() if " devbox " in line]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One remote and one local side for the module's tests (each starts in about 5 s)."""
    tmp_path = tmp_path_factory.mktemp("remote")
    with running_sshd(tmp_path / "sshd") as sshd, pytest.MonkeyPatch.context() as monkeypatch:
        yield from _world(sshd, tmp_path, monkeypatch)


def _world(sshd: SshServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    far, near = TmuxServer(), TmuxServer()
    far.start()
    near.start()
    panes: list[RecordingPane] = []
    (tmp_path / "far").mkdir()
    daemon = DaemonProcess(far, tmp_path / "far")
    client = None
    try:
        data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()[: offsets()["blocked"]]
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            pane = RecordingPane(far, tmp_path / name)
            panes.append(pane)
            pane.write(data)
            pane.ready(PROMPT)
        daemon.start(timeout=60)  # a loaded machine starts it slowly
        # osf-tmux there: this one, with the remote daemon's files (sshd gives a bare env)
        dirs = [f"{k}={daemon.env[k]}" for k in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR",
                                                  "XDG_CONFIG_HOME")]  # fmt: skip
        there = ["env", *dirs, sys.executable, "-m", "osf_tmux", "-L", far.socket_name]
        near.cmd("set-option", "-g", "@osf-hosts", sshd.name)
        near.cmd("set-option", "-g", "@osf-remote-command", shlex.join(there))
        near.cmd("set-option", "-g", "@osf-ssh-config", str(sshd.client_config))
        # ssh's control sockets: a short directory (a socket path has ~100 bytes)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(sshd.controls))
        client = ControlMode(near)
        env: dict[str, str | None] = {"TMUX": None, "TMUX_PANE": None,
                                      "XDG_RUNTIME_DIR": str(sshd.controls)}  # fmt: skip
        yield World(sshd, far, near, client, panes[0], panes[1], env)
    finally:
        if client is not None:
            client.close()
        near.kill()  # its windows' ssh first, then the remote
        daemon.stop()
        for pane in panes:
            pane.close()
        far.kill()


def test_answer_reaches_that_remote_pane_only(world: World) -> None:
    code, out, err = world.osf("answer", f"devbox:{world.target(world.asking)}", "yes")
    assert code == 0, err
    assert out.startswith("answered yes")
    assert typed(world.asking.keys()) == b"1"  # Claude's `❯ 1. Yes`
    assert typed(world.other.keys()) == b""  # the same prompt, another pane: untouched
    # by pane id too, and an option number
    code, _, err = world.osf("answer", f"devbox:{world.other.pane}", "3")
    assert code == 0, err
    assert (typed(world.other.keys()), typed(world.asking.keys())) == (b"3", b"")


def test_a_refusal_there_comes_back_as_it_is(world: World) -> None:
    code, out, err = world.osf("answer", f"devbox:{world.asking.pane}", "perhaps")
    assert code == 1 and out == ""
    assert "yes, no or an option number" in err
    code, out, err = world.osf("send", f"devbox:{world.asking.pane}", "go", "on")
    assert code == 1 and "waiting for an answer" in err and "nothing was typed" in err
    assert typed(world.asking.keys()) == b""


def test_wait_is_answered_by_the_daemon_there(world: World) -> None:
    target = world.target(world.asking)
    code, out, err = world.osf("wait", f"devbox:{target}", "--until", "blocked", "--timeout", "20")
    assert code == 0, err
    assert out.split("\t")[:2] == [world.asking.pane, target]
    code, _, err = world.osf("wait", f"devbox:{target}", "--until", "done", "--timeout", "0")
    assert code == 124, err  # as the osf-tmux there exits


def test_next_opens_a_window_attached_there_and_choosing_the_pane_again_reuses_it(
    world: World,
) -> None:
    tmux = Tmux(ServerSpec(world.near.socket_name))
    name = world.client.name
    said = go_next(tmux, world.status(), True, name, go_to_waiting)
    target = world.target(world.asking)
    assert said == f"osf-tmux: devbox:{target} blocked (1 of 2)"
    fmt = f"#{{window_id}}\t#{{{HOST_OPTION}}}\t#{{{PANE_OPTION}}}\t#{{pane_start_command}}"
    window, host, pane, command = world.client.run("display-message", "-p", fmt)[0].split("\t")
    assert (host, pane) == ("devbox", world.asking.pane)
    assert "ssh" in command and "-t" in command and "attach-session" in command
    session = target.split(":")[0]
    retry_until(lambda: world.far_clients() == [(session, world.asking.pane)],
                timeout=20, what="the window's ssh to attach there")  # fmt: skip

    # there, another window of that session is shown; here, another window
    world.far.cmd("new-window", "-t", f"{session}:", "sleep 600")
    retry_until(lambda: world.far_clients() != [(session, world.asking.pane)],
                what="the remote client to show the new window")  # fmt: skip
    world.client.run("select-window", "-t", "osf-base:0")
    code, _, err = world.osf("go", "--client", name, f"devbox:{target}")
    assert code == 0, err
    assert world.client.run("display-message", "-p", "#{window_id}")[0] == window
    assert world.far_clients() == [(session, world.asking.pane)]  # selected there, through ssh
    assert len(world.remote_windows()) == 1

    # pressed again: the other waiting pane, in a session of its own there: a window of its own
    said = go_next(tmux, world.status(), True, name, go_to_waiting)
    assert said.startswith(f"osf-tmux: devbox:{world.target(world.other)} blocked (2 of 2)")
    assert len(world.remote_windows()) == 2
    retry_until(lambda: len(world.far_clients()) == 2, timeout=20, what="a second attach")


def test_the_menus_answer_row_for_a_remote_prompt_types_into_that_pane_only(
    world: World,
) -> None:
    outer = TmuxServer()
    outer.start()
    terminal = Terminal(world.near, outer, 120, 24)
    tmux = Tmux(ServerSpec(world.near.socket_name))
    files = DaemonFiles.for_server(tmux.server)
    try:
        status = dict(world.status())
        owned = Path(f"/tmp/osf-owned-{uuid.uuid4().hex[:8]}")
        hostile = f"#(touch {owned}) {PROMPT}"
        status["panes"] = [{**p, "question": hostile} for p in status["panes"]]
        private_dir(files.state)  # the rows' errors go to its plugin.log (plugin load makes it)
        show_menu(tmux, files, status, terminal.name, [sys.executable, "-m", "osf_tmux"])
        screen = terminal.wait_for(" osf-tmux · ")
        rows = [r for r in screen if f"devbox:{world.target(world.asking)}" in r]
        assert rows and f"#(touch {owned})" in rows[0]  # shown, never run
        assert any("↳ yes (1)" in r for r in screen)
        terminal.press("2")  # the first remote row's `yes`
        retry_until(lambda: typed(world.asking.record.read_bytes()) == b"1", timeout=30,
                    what="the answer typed there")  # fmt: skip
        assert typed(world.asking.keys()) == b"1"
        assert typed(world.other.keys()) == b""
        assert not owned.exists()
    finally:
        terminal.close()
        outer.kill()
        shutil.rmtree(files.state, ignore_errors=True)


@pytest.mark.skipif(
    importlib.util.find_spec("osf_tmux.daemon.fleet") is None,
    reason="the local daemon's link to other machines (fleet's half of #32) is not here",
)
def test_the_next_key_goes_to_a_remote_prompt_the_local_daemon_reports(
    world: World, tmp_path: Path
) -> None:
    daemon = DaemonProcess(world.near, tmp_path)
    daemon.env["XDG_RUNTIME_DIR"] = str(world.sshd.controls)  # short: ssh's control sockets
    daemon.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    daemon.start(timeout=60)
    try:
        retry_until(
            lambda: {(p.get("host"), p.get("pane"), p.get("state"))
                     for p in daemon.status().get("panes", [])}
            >= {("devbox", world.asking.pane, "blocked"), ("devbox", world.other.pane, "blocked")},
            timeout=60, what="the local daemon to report both remote prompts",
        )  # fmt: skip
        world.client.run("select-window", "-t", "osf-base:0")
        # as prefix + A runs it: the keys' short way, in a process of its own
        argv = [sys.executable, "-m", "osf_tmux", "-L", world.near.socket_name, "next",
                "--client", world.client.name]  # fmt: skip
        key = subprocess.run(argv, env=daemon.env, capture_output=True, text=True, timeout=60)
        assert key.returncode == 0, key.stderr
        assert " blocked (" in key.stdout and "devbox:case" in key.stdout
        fmt = f"#{{{HOST_OPTION}}} #{{{PANE_OPTION}}}"
        shown = shown_pane(world.near, world.client.name)
        host, pane = world.near.cmd("display-message", "-p", "-t", shown, fmt).split()
        assert host == "devbox" and pane in (world.asking.pane, world.other.pane)
    finally:
        daemon.stop()
