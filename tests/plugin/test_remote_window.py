"""Going to a pane on another machine, against a real local tmux and a fake ssh: the window
runs ssh + tmux attach with the pane selected, is found again by its options (not its name),
and the remote's text never becomes a format or a shell line here."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.plugin.remote_window import (
    HOST_OPTION,
    PANE_OPTION,
    SESSION_OPTION,
    RemotePlace,
    attach_argv,
    go_remote,
    remote_tmux,
)
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.control_mode import ControlMode
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# Stands in for ssh: writes its argv where the test reads it; a tty session (the attach) stays,
# as an attached tmux client would.
FAKE_SSH = """
import json, sys, time
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(sys.argv[2:]) + "\\n")
if sys.argv[2] == "-t":
    time.sleep(3600)
"""


# Stands in for an ssh that cannot reach its host.
FAILING_SSH = """
import sys
print("ssh: connect to host devbox port 22: Connection refused", file=sys.stderr)
sys.exit(255)
"""


def test_remote_tmux_takes_the_server_of_the_remote_command() -> None:
    assert remote_tmux(["osf-tmux"]) == ["tmux"]
    assert remote_tmux(["osf-tmux", "-L", "work"]) == ["tmux", "-L", "work"]
    assert remote_tmux(["/opt/bin/osf-tmux", "-S/tmp/s"]) == ["tmux", "-S", "/tmp/s"]
    assert remote_tmux(["env", "X=1", "osf-tmux", "-S", "/run/t s"]) == ["tmux", "-S", "/run/t s"]


def test_attach_selects_the_window_and_pane_of_that_session_exactly() -> None:
    place = RemotePlace("devbox", "work", "%3")
    assert attach_argv(["tmux", "-L", "w"], place) == [
        "tmux", "-L", "w", "attach-session", "-t", "=work", ";",
        "select-window", "-t", "%3", ";", "select-pane", "-t", "%3"]  # fmt: skip


@pytest.fixture
def local(tmp_path: Path) -> Iterator[tuple[TmuxServer, ControlMode]]:
    server = TmuxServer()
    server.start()
    client = ControlMode(server)
    try:
        yield server, client
    finally:
        client.close()
        server.kill()


class FakeSsh:
    def __init__(self, tmp: Path) -> None:
        self.script = tmp / "fake_ssh.py"
        self.script.write_text(FAKE_SSH)
        self.log = tmp / "ssh.log"
        self.selects: list[list[str]] = []

    def __call__(self, remote_argv: Sequence[str], tty: bool) -> list[str]:
        return [sys.executable, str(self.script), str(self.log), "-t" if tty else "-T",
                *remote_argv]  # fmt: skip

    def run(self, argv: Sequence[str], timeout: float) -> tuple[int, str]:
        self.selects.append(list(argv[4:]))
        return 0, ""

    def attaches(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [line[1:] for line in lines if line[0] == "-t"]


def test_a_window_is_opened_once_and_reused_for_the_same_host_and_session(
    local: tuple[TmuxServer, ControlMode], tmp_path: Path
) -> None:
    server, client = local
    tmux = Tmux(ServerSpec(server.socket_name))
    ssh = FakeSsh(tmp_path)
    remote = ["osf-tmux", "-L", "far"]
    first = RemotePlace("devbox", "work", "%3", "devbox:work:1.0")
    go_remote(tmux, client.name, first, ssh, remote, ssh.run)
    attach = ["tmux", "-L", "far", "attach-session", "-t", "=work", ";",
              "select-window", "-t", "%3", ";", "select-pane", "-t", "%3"]  # fmt: skip
    retry_until(lambda: ssh.attaches() == [attach], what="the window's ssh to start")
    fmt = f"#{{window_id}} #{{{HOST_OPTION}}} #{{{SESSION_OPTION}}} #{{{PANE_OPTION}}}"
    window = client.run("display-message", "-p", fmt)[0].split(" ")
    assert window[1:] == ["devbox", "work", "%3"]  # the client shows it
    # renamed by its user: found all the same, by its options; the pane is selected through ssh
    server.cmd("rename-window", "-t", window[0], "mine")
    client.run("select-window", "-t", "osf-base:0")
    go_remote(tmux, client.name, RemotePlace("devbox", "work", "%7"), ssh, remote, ssh.run)
    assert ssh.selects == [["tmux", "-L", "far", "select-window", "-t", "%7", ";",
                            "select-pane", "-t", "%7"]]  # fmt: skip
    shown = client.run("display-message", "-p", fmt)[0].split(" ")
    assert shown == [window[0], "devbox", "work", "%7"]
    assert len(ssh.attaches()) == 1
    # another session there, or another host: a window of its own
    go_remote(tmux, client.name, RemotePlace("devbox", "play", "%9"), ssh, remote, ssh.run)
    go_remote(tmux, client.name, RemotePlace("gpu", "work", "%3"), ssh, remote, ssh.run)
    retry_until(lambda: len(ssh.attaches()) == 3, what="two more windows")
    windows = server.cmd("list-windows", "-a", "-F", f"#{{{HOST_OPTION}}}:#{{{SESSION_OPTION}}}")
    assert sorted(windows.split()) == [":", "devbox:play", "devbox:work", "gpu:work"]


def test_remote_names_stay_words_and_text(
    local: tuple[TmuxServer, ControlMode], tmp_path: Path
) -> None:
    server, client = local
    tmux = Tmux(ServerSpec(server.socket_name))
    ssh = FakeSsh(tmp_path)
    hostile = "#(touch owned);$(id) `x`;"
    place = RemotePlace("devbox", hostile, "%3", f"devbox:{hostile}:1.0")
    go_remote(tmux, client.name, place, ssh, ["osf-tmux"], ssh.run)
    retry_until(lambda: len(ssh.attaches()) == 1, what="the window's ssh to start")
    assert ssh.attaches()[0][3] == f"={hostile}"  # one word, as it was
    fmt = f"#{{window_name}}\t#{{{SESSION_OPTION}}}"
    name, session = client.run("display-message", "-p", fmt)[0].split("\t")
    assert (name, session) == (f"devbox:{hostile}", hostile)
    assert not (tmp_path / "owned").exists() and not Path("owned").exists()
    # found again by its options, however odd the name
    go_remote(tmux, client.name, place, ssh, ["osf-tmux"], ssh.run)
    assert len(ssh.attaches()) == 1 and len(ssh.selects) == 1


def test_an_ssh_that_fails_keeps_its_window_which_is_started_again_in_place(
    local: tuple[TmuxServer, ControlMode], tmp_path: Path
) -> None:
    server, client = local
    tmux = Tmux(ServerSpec(server.socket_name))
    ssh = FakeSsh(tmp_path)
    ssh.script.write_text(FAILING_SSH + FAKE_SSH)
    place = RemotePlace("devbox", "work", "%3")
    go_remote(tmux, client.name, place, ssh, ["osf-tmux"], ssh.run)
    window = client.run("display-message", "-p", "#{window_id}")[0]
    retry_until(lambda: server.cmd("display-message", "-p", "-t", window,
                                   "#{pane_dead} #{pane_dead_status}").split() == ["1", "255"],
                what="ssh to fail")  # fmt: skip
    # kept (tmux says `Pane is dead (status 255)`; what ssh printed when it took a moment, as a
    # real one does: tmux 3.3a can lose the output of a process that ends at once), found by its
    # options: the next go starts it again
    ssh.script.write_text(FAKE_SSH)
    go_remote(tmux, client.name, place, ssh, ["osf-tmux"], ssh.run)
    retry_until(lambda: len(ssh.attaches()) == 1, what="ssh to start again")  # the first failed
    assert server.cmd("display-message", "-p", "-t", window, "#{pane_dead}").strip() == "0"
    assert ssh.selects == []
    # an attach that ends well (a detach there) closes its window: tmux's remain-on-exit
    # `failed` (set when the window was made). Checked as the option, not by respawning a
    # process that exits 0: tmux 3.3a kept such a respawned pane in 2 runs of 3.
    assert server.cmd("show-options", "-wv", "-t", window, "remain-on-exit").strip() == "failed"
