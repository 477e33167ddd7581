"""`answer`, `send`, `wait`, `events --host` and `go` with a pane on another machine, through a
fake ssh on PATH: the command that runs there, its words intact; what it says and its exit
status coming back as they are, as text; a local target never leaving this machine."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from osf_tmux.cli.app import cli
from tests.support.tmux_server import TmuxServer

pytestmark = pytest.mark.tmux

FAKE_SSH = """#!{python}
import json, os, sys
with open(os.environ["FAKE_SSH_LOG"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
sys.stdout.write(os.environ.get("FAKE_SSH_OUT", ""))
sys.stderr.write(os.environ.get("FAKE_SSH_ERR", ""))
sys.exit(int(os.environ.get("FAKE_SSH_CODE", "0")))
"""


class Fake:
    def __init__(self, server: TmuxServer, tmp: Path) -> None:
        self.server = server
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        ssh = bin_dir / "ssh"
        ssh.write_text(FAKE_SSH.format(python=sys.executable))
        ssh.chmod(0o755)
        self.log = tmp / "ssh.log"
        self.env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "FAKE_SSH_LOG": str(self.log),
            "XDG_RUNTIME_DIR": str(tmp / "run"),
            "TMUX": None,
            "TMUX_PANE": None,
        }

    def osf(self, *args: str, out: str = "", err: str = "", code: int = 0) -> tuple[int, str, str]:
        env = {**self.env, "FAKE_SSH_OUT": out, "FAKE_SSH_ERR": err, "FAKE_SSH_CODE": str(code)}
        result = CliRunner().invoke(cli, ["-L", self.server.socket_name, *args], env=env)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def remote(self) -> list[list[str]]:
        """What each ssh ran there, split back into words; and where."""
        return [[c[c.index("--") + 1], *shlex.split(c[-1])] for c in self.calls()]


@pytest.fixture
def fake(tmux_server: TmuxServer, tmp_path: Path) -> Iterator[Fake]:
    tmux_server.cmd("set-option", "-g", "@osf-hosts", "devbox me@gpu:2222")
    tmux_server.cmd("set-option", "-g", "@osf-remote-command", "osf-tmux -L far")
    yield Fake(tmux_server, tmp_path)


def test_answer_runs_there_and_its_words_and_exit_status_come_back(fake: Fake) -> None:
    code, out, err = fake.osf("answer", "devbox:work:1.0", "yes", out="answered yes (1)\n")
    assert (code, out, err) == (0, "answered yes (1)\n", "")
    assert fake.remote() == [["devbox", "osf-tmux", "-L", "far", "answer", "work:1.0", "yes"]]
    ssh = fake.calls()[0]
    assert "BatchMode=yes" in ssh and "-T" in ssh
    # refused there (the prompt is gone): its message and its exit status, as they are
    said = "Error: nothing typed: %3 shows no prompt now\n"
    assert fake.osf("answer", "devbox:%3", "2", err=said, code=1) == (1, "", said)
    assert fake.remote()[-1][-2:] == ["%3", "2"]


def test_what_a_host_prints_is_text_never_terminal_control(fake: Fake) -> None:
    hostile = "answered\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\r\x9b1m\n"
    code, out, _ = fake.osf("answer", "devbox:%3", "yes", out=hostile)
    assert code == 0
    assert out == "answered^[]52;c;cm0gLXJmIH4=^G ^[[2J^M\\x9b1m\n"


def test_host_with_a_port_and_a_user_and_words_that_a_shell_would_take(fake: Fake) -> None:
    text = "$(touch owned); rm -rf ~ `id`"
    code, _, _ = fake.osf("send", "me@gpu:2222:work:1.0", text)
    assert code == 0
    call = fake.calls()[0]
    assert call[call.index("-p") + 1] == "2222" and call[call.index("--") + 1] == "me@gpu"
    assert fake.remote()[0][1:] == ["osf-tmux", "-L", "far", "send", "work:1.0", "--", text]


def test_ssh_failing_is_exit_status_255_and_says_so(fake: Fake) -> None:
    code, out, err = fake.osf("answer", "devbox:%3", "yes", err="Connection refused\n", code=255)
    assert code == 255 and out == ""
    assert err == "osf-tmux: ssh to devbox failed: Connection refused\n"


def test_a_local_target_stays_here(fake: Fake) -> None:
    code, _, err = fake.osf("answer", "work:1.0", "yes")  # `work` is no host
    assert code == 1 and "work:1.0" in err
    code, _, _ = fake.osf("answer", "devbox:", "yes")  # a host, but no pane named
    assert code == 2
    assert fake.calls() == []


def test_wait_and_events_are_streamed_from_there(fake: Fake) -> None:
    line = "%3\twork:1.0\tclaude\tblocked\n"
    code, out, _ = fake.osf("wait", "devbox:work:1.0", "--until", "blocked", "--until", "done",
                            "--timeout", "5", "--next", "--json", out=line)  # fmt: skip
    assert (code, out) == (0, line)
    assert fake.remote()[-1][1:] == ["osf-tmux", "-L", "far", "wait", "work:1.0", "--until",
                                     "blocked", "--until", "done", "--timeout", "5.0", "--next",
                                     "--json"]  # fmt: skip
    said = "osf-tmux: timed out after 5 s\n"
    assert fake.osf("wait", "devbox:%3", "--until", "idle", err=said, code=124) == (124, "", said)
    code, out, _ = fake.osf("events", "--host", "devbox", "--json", out='{"kind": "x"}\n')
    assert (code, out) == (0, '{"kind": "x"}\n')
    assert fake.remote()[-1][1:] == ["osf-tmux", "-L", "far", "events", "--json"]
    code, _, err = fake.osf("events", "--host", "nowhere")
    assert code == 1 and "nowhere is not in @osf-hosts" in err


def test_a_bad_remote_command_runs_nothing(fake: Fake) -> None:
    fake.server.cmd("set-option", "-g", "@osf-remote-command", "'osf-tmux")
    code, _, err = fake.osf("answer", "devbox:%3", "yes")
    assert code == 1 and "@osf-remote-command" in err
    assert fake.calls() == []
