"""The README's quick start, as written, in a fresh copy of the repository: the first command
outside tmux (it installs and says how to load) and inside tmux (it loads everything the README
shows into that server), and neither command makes the venv again once it exists (a second
`python3 -m venv` with another python3 first on PATH broke it). The second command is CI's:
`.ci/run` ends with it verbatim; here it runs up to the tests themselves."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles, running_pid
from osf_tmux.tmux import ServerSpec
from tests.support.tmux_server import TmuxServer, retry_until

ROOT = Path(__file__).resolve().parent.parent
GUARD = "test -x .venv/bin/python || python3 -m venv .venv && "

pytestmark = [
    pytest.mark.slow,
    # both commands in one fresh copy: under xdist, on one worker (else each worker makes its own)
    pytest.mark.xdist_group("quickstart"),
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git checkout"),
]


def quick_start() -> list[str]:
    """The command lines of the README's quick start, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for b in blocks for line in b.splitlines() if line and not line.startswith("#")]


def test_the_second_command_is_what_ci_runs() -> None:
    install, tests = quick_start()
    ci = (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()[-1]
    assert tests == ci
    assert install.startswith(GUARD) and tests.startswith(GUARD)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """The working tree as a clone would have it (tracked and new files, nothing ignored), and
    an environment of its own: files, tmux sockets (TMUX_TMPDIR: the "default" server there is
    a private one) and a python3 first on PATH that is not the one that made the venv."""
    base = tmp_path_factory.mktemp("quickstart")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    copy = base / "osf-tmux"
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE", "VIRTUAL_ENV")}
    env.update(HOME=str(base / "home"), XDG_STATE_HOME=str(base / "state"),
               XDG_RUNTIME_DIR=str(base / "run"), XDG_CONFIG_HOME=str(base / "config"),
               TMUX_TMPDIR=str(base / "tmux"))  # fmt: skip
    (base / "tmux").mkdir()
    yield copy, env


def sh(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)  # fmt: skip


def other_python3(base: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """A python3 first on PATH that records being run (and fails, as a broken one would)."""
    bin_dir = base / "other-python"
    bin_dir.mkdir(exist_ok=True)
    called = base / "other-python3-ran"
    (bin_dir / "python3").write_text(f'#!/bin/sh\necho "$@" >> {called}\nexit 1\n')
    (bin_dir / "python3").chmod(0o755)
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}, called


def test_the_first_command_outside_then_inside_tmux(clone: tuple[Path, dict[str, str]]) -> None:
    copy, env = clone
    install, _ = quick_start()
    outside = sh(install, copy, env)
    assert outside.returncode == 0, outside.stdout + outside.stderr
    assert "no tmux server is running here to load it into" in outside.stdout
    assert f"run-shell -b '{copy}/.venv/bin/osf-tmux plugin load'" in outside.stdout

    # again, inside a tmux server (its own socket): this time it loads into it; and the venv
    # that is there now is used, not made again by whatever python3 comes first on PATH
    again, called = other_python3(copy.parent, env)
    server = TmuxServer()
    server.start()
    for name in ("HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "PATH"):
        server.cmd("set-environment", "-g", name, again[name])
    done = copy.parent / "inside.rc"
    try:
        server.cmd("new-window", "-d", "-t", "osf-base:", "-c", str(copy),
                   f"sh -c '{install} > ../inside.out 2>&1; echo $? > {done}'")  # fmt: skip
        retry_until(lambda: done.exists() and done.read_text().strip(), timeout=600, what="rc")
        said = (copy.parent / "inside.out").read_text()
        assert done.read_text().strip() == "0", said
        assert (
            "osf-tmux loaded into tmux -S " in said and "prefix + A next, prefix + W menu" in said
        )
        assert not called.exists(), called.read_text()
        keys = server.cmd("list-keys", "-T", "prefix")
        assert "osf-tmux:next" in keys and "osf-tmux:menu" in keys
        assert "#{E:@osf-status-format}" in server.cmd("show-options", "-gv", "status-right")
        socket = server.cmd("display-message", "-p", "#{socket_path}").strip()
        assert running_pid(DaemonFiles.for_server(ServerSpec(None, socket), env)) is not None
    finally:
        unload = ["plugin", "unload", "--stop"]
        subprocess.run([str(copy / ".venv" / "bin" / "osf-tmux"), "-L", server.socket_name,
                        *unload], env=env, capture_output=True, timeout=60)  # fmt: skip
        server.kill()


def test_the_second_command_up_to_the_tests(clone: tuple[Path, dict[str, str]]) -> None:
    copy, env = clone
    _, tests = quick_start()
    setup, _, run_tests = tests.rpartition(" && ")
    assert run_tests.startswith(".venv/bin/pytest")
    if not (copy / ".venv" / "bin" / "python").exists():  # alone: the first command made none
        assert sh(install_venv_only(), copy, env).returncode == 0
    again, called = other_python3(copy.parent, env)
    out = sh(setup, copy, again)
    assert out.returncode == 0, out.stdout + out.stderr
    assert not called.exists()
    out = sh(".venv/bin/pytest -q -p no:cacheprovider tests/plugin/test_jump.py", copy, env)
    assert out.returncode == 0 and "passed" in out.stdout, out.stdout + out.stderr


def install_venv_only() -> str:
    return GUARD.removesuffix(" && ")
