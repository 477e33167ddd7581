"""ssh_argv against a real sshd of the test's own: the remote words arrive as they were, the
connection is shared through the control socket, and a host ssh does not trust fails at once
instead of asking."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from osf_tmux.fleet.hosts import parse_host
from osf_tmux.fleet.ssh import ssh_argv
from tests.support.sshd import SshServer

# A real sshd of the test's own: the live tier.
pytestmark = pytest.mark.live


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
    )


def test_remote_words_arrive_intact_over_one_shared_connection(
    sshd: SshServer,
    tmp_path: Path,
) -> None:
    controls = sshd.controls
    host = parse_host(sshd.name)
    words = ["a b", "it's", "$(echo pwned)", "`id`", "x;y", "*", "%3"]
    code = "import sys; print(repr(sys.argv[1:]))"
    argv = ssh_argv(
        host, ["python3", "-c", code, *words], config=str(sshd.client_config), controls=controls
    )
    proc = _run(argv)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == repr(words)


def test_a_control_directory_too_long_for_a_socket_means_no_sharing_not_no_connection(
    sshd: SshServer,
    tmp_path: Path,
) -> None:
    controls = tmp_path / ("d" * 80)
    controls.mkdir(mode=0o700)
    argv = ssh_argv(
        parse_host(sshd.name), ["echo", "ok"], config=str(sshd.client_config), controls=controls
    )
    proc = _run(argv)
    assert (proc.returncode, proc.stdout) == (0, "ok\n"), proc.stderr


def test_a_host_with_an_unknown_key_fails_without_asking(
    sshd: SshServer,
    tmp_path: Path,
) -> None:
    sshd.known_hosts.write_text("")
    controls = sshd.controls
    argv = ssh_argv(
        parse_host(sshd.name), ["true"], config=str(sshd.client_config), controls=controls
    )
    proc = _run(argv)
    assert proc.returncode == 255
    assert "Host key verification failed" in proc.stderr
    assert os.listdir(controls) == []  # no master left behind
