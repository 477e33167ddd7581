"""The ssh command line: never a prompt, one connection per host, the remote words intact."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from osf_tmux.fleet.hosts import parse_host
from osf_tmux.fleet.ssh import control_dir, ssh_argv, ssh_config


def _options(argv: list[str]) -> dict[str, str]:
    return dict(argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "-o")


CONTROLS = Path("/run/user/1000/osf-tmux/ssh")


def test_ssh_never_prompts_and_shares_one_connection() -> None:
    argv = ssh_argv(parse_host("devbox"), ["osf-tmux", "events"], controls=CONTROLS)
    opts = _options(argv)
    assert opts["BatchMode"] == "yes"
    assert int(opts["ConnectTimeout"]) > 0
    assert int(opts["ServerAliveInterval"]) > 0 and int(opts["ServerAliveCountMax"]) > 0
    assert opts["ControlMaster"] == "auto"
    assert opts["ControlPath"] == f"{CONTROLS}/%C"
    assert int(opts["ControlPersist"]) > 0
    assert argv[0] == "ssh"
    assert "-T" in argv and "-t" not in argv and "-F" not in argv and "-p" not in argv
    assert argv[-3:] == ["--", "devbox", "osf-tmux events"]


def test_no_sharing_where_a_socket_path_would_be_too_long() -> None:
    opts = _options(ssh_argv(parse_host("devbox"), ["x"], controls=Path("/" + "d" * 60)))
    assert opts["ControlPath"] == "none" and "ControlMaster" not in opts


def test_port_user_tty_and_config(tmp_path: Path) -> None:
    argv = ssh_argv(
        parse_host("me@box:2222"), ["tmux", "attach"], tty=True, config="/c/cfg", controls=tmp_path
    )
    assert argv[1:3] == ["-F", "/c/cfg"]
    assert argv[argv.index("-p") + 1] == "2222"
    assert "-t" in argv and "-T" not in argv
    assert argv[-3:] == ["--", "me@box", "tmux attach"]
    # Without a remote command: a login (the attach window's ssh may want one).
    assert ssh_argv(parse_host("devbox"), [], controls=tmp_path)[-2:] == ["--", "devbox"]


@pytest.mark.parametrize(
    "word", ["work:1.0", "a b", "it's", "$(touch /tmp/pwned)", "`id`", "x;y", "\\n", "", "%3"]
)
def test_each_remote_word_reaches_the_remote_shell_as_itself(tmp_path: Path, word: str) -> None:
    argv = ssh_argv(parse_host("devbox"), ["osf-tmux", "answer", word], controls=tmp_path)
    # What a POSIX shell on the other end splits the one string into.
    assert shlex.split(argv[-1]) == ["osf-tmux", "answer", word]


def test_the_ssh_config_comes_from_the_option_then_the_environment() -> None:
    assert ssh_config("", {}) is None
    assert ssh_config("", {"OSF_SSH_CONFIG": "/e/cfg"}) == "/e/cfg"
    assert ssh_config("/o/cfg", {"OSF_SSH_CONFIG": "/e/cfg"}) == "/o/cfg"


def test_the_control_directory_is_private(tmp_path: Path) -> None:
    path = control_dir({"XDG_RUNTIME_DIR": str(tmp_path)})
    assert path == tmp_path / "osf-tmux" / "ssh"
    assert path.stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "osf-tmux").stat().st_mode & 0o777 == 0o700
