"""The plugin's first load when osf-tmux is not installed: it installs it into a venv inside
the plugin directory, in the background, and says how that ended.

A real `pip install` needs the package index, so these tests stand a fake python in for
python3 (OSF_TMUX_PYTHON): its `-m venv` and `-m pip install` make a venv whose osf-tmux is
the one under test. What is tested is the plugin's side: finding nothing, running in the
background, the log, the messages, loading afterwards, and a failure `doctor` reports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.tmux import ServerSpec
from tests.plugin.test_plugin_live import OSF_TMUX, ROOT, isolated_env, run_plugin
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

FAKE_PYTHON = """#!/bin/sh
# python3 without a network: a venv whose osf-tmux is the one under test, or a failure.
case "$1 $2" in
-c*) exit 0 ;;
"-m venv") [ -n "$FAIL" ] && { echo "Error: no module named venv" >&2; exit 1; }
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
"-m pip") bin="$(dirname "$0")/osf-tmux"
    printf '#!/bin/sh\\nexec %s "$@"\\n' "{real}" >"$bin" && chmod +x "$bin" ;;
*) exit 2 ;;
esac
"""


def plugin_copy(tmp: Path) -> Path:
    """The plugin's files without a venv in them (the checkout has one)."""
    plugin = tmp / "osf-tmux"
    (plugin / "tmux").mkdir(parents=True)
    shutil.copy2(ROOT / "osf-tmux.tmux", plugin)
    shutil.copy2(ROOT / "tmux" / "osf.tmux", plugin / "tmux")
    shutil.copytree(ROOT / "bin", plugin / "bin")
    return plugin


def path_without_osf_tmux() -> str:
    dirs = os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not (Path(d) / "osf-tmux").exists())


@pytest.fixture
def server() -> Iterator[TmuxServer]:
    if not OSF_TMUX.exists():
        pytest.skip(f"{OSF_TMUX} is not installed (pip install -e .)")
    srv = TmuxServer()
    srv.start()
    try:
        yield srv
    finally:
        srv.kill()


def bootstrap(server: TmuxServer, tmp: Path, fail: bool) -> tuple[Path, dict[str, str]]:
    fake = tmp / "python3"
    fake.write_text(FAKE_PYTHON.replace("{real}", str(OSF_TMUX)))
    fake.chmod(0o755)
    extra = {"OSF_TMUX_PYTHON": str(fake), "PATH": path_without_osf_tmux()}
    if fail:
        extra["FAIL"] = "1"
    env = isolated_env(server, tmp / "home", extra)
    plugin = plugin_copy(tmp)
    run_plugin(plugin / "osf-tmux.tmux", env)  # returns at once: the work is in the background
    return plugin, env


def test_first_load_installs_then_loads(server: TmuxServer, tmp_path: Path) -> None:
    plugin, env = bootstrap(server, tmp_path, fail=False)
    log = tmp_path / "home" / "state" / "osf-tmux" / "plugin.log"  # the install's, per user
    loads = DaemonFiles.for_server(ServerSpec(server.socket_name), env).state / "plugin.log"
    try:
        retry_until(
            lambda: loads.exists() and " load: ok" in loads.read_text(), timeout=30, what="load"
        )
        text = log.read_text()
        assert "bootstrap: installing" in text
        assert f"bootstrap: ok: the command is {plugin}/bin/osf-tmux" in text
        # not on PATH (as after every TPM install): the one command that links it
        link = f"mkdir -p ~/.local/bin && ln -s {plugin}/bin/osf-tmux ~/.local/bin/osf-tmux"
        assert f"(to type it as osf-tmux: {link}, and put ~/.local/bin on PATH)" in text
        assert (plugin / ".venv" / "bin" / "osf-tmux").exists()
        # what a TPM user runs (osf-tmux is not on their PATH): the plugin's bin/osf-tmux
        out = subprocess.run([str(plugin / "bin" / "osf-tmux"), "-L", server.socket_name,
                              "doctor", "--json"], env=env, capture_output=True, text=True,
                             timeout=60)  # fmt: skip
        assert {"tmux", "daemon", "plugin"} <= {c["name"] for c in json.loads(out.stdout)}
        retry_until(lambda: not (plugin / ".venv.lock").exists(), timeout=10, what="unlock")
        keys = server.cmd("list-keys", "-T", "prefix")
        assert str(plugin / ".venv" / "bin" / "osf-tmux") in keys
    finally:
        subprocess.run(
            [str(OSF_TMUX), "-L", server.socket_name, "stop"], env=env, capture_output=True
        )


def test_failed_install_is_logged_and_doctor_says_so(server: TmuxServer, tmp_path: Path) -> None:
    plugin, env = bootstrap(server, tmp_path, fail=True)
    log = tmp_path / "home" / "state" / "osf-tmux" / "plugin.log"
    retry_until(
        lambda: log.exists() and "bootstrap: failed" in log.read_text(),
        timeout=30,
        what="the failure in the log",
    )
    assert "no module named venv" in log.read_text()
    retry_until(lambda: not (plugin / ".venv.lock").exists(), timeout=10, what="unlock")
    out = subprocess.run(
        [str(OSF_TMUX), "-L", server.socket_name, "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1
    assert "[FAIL] plugin install: the plugin could not install osf-tmux" in out.stdout
    assert f"pipx install {plugin}" in out.stdout  # what works today: not a PyPI name


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def start_time(pid: int) -> str:
    out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True)
    return " ".join(out.stdout.split())


def bootstrap_with_lock(
    server: TmuxServer, tmp: Path, holder: str | None, age: float = 0.0
) -> tuple[Path, dict[str, str], Path]:
    """The first load, with a `.venv.lock` already there (what an interrupted one leaves)."""
    fake = tmp / "python3"
    fake.write_text(FAKE_PYTHON.replace("{real}", str(OSF_TMUX)))
    fake.chmod(0o755)
    env = isolated_env(
        server, tmp / "home", {"OSF_TMUX_PYTHON": str(fake), "PATH": path_without_osf_tmux()}
    )
    plugin = plugin_copy(tmp)
    lock = plugin / ".venv.lock"
    lock.mkdir()
    if holder is not None:
        (lock / "holder").write_text(holder + "\n")
    if age:
        then = time.time() - age
        os.utime(lock, (then, then))
    run_plugin(plugin / "osf-tmux.tmux", env)
    return plugin, env, tmp / "home" / "state" / "osf-tmux" / "plugin.log"


@pytest.mark.parametrize(
    "holder",
    ["dead", "reused", "none-old"],
    ids=["holder-gone", "pid-reused", "older-version-lock"],
)
def test_a_lock_whose_holder_is_gone_is_taken_over(
    server: TmuxServer, tmp_path: Path, holder: str
) -> None:
    # An install interrupted by a reboot or an OOM kill left its lock: the plugin must not stay
    # unloaded forever.
    if holder == "dead":
        plugin, env, log = bootstrap_with_lock(server, tmp_path, f"{dead_pid()} Mon Jan 1 2024")
    elif holder == "reused":  # its pid now belongs to a process that started later
        plugin, env, log = bootstrap_with_lock(server, tmp_path, f"{os.getpid()} Mon Jan 1 2024")
    else:  # no holder written (an older plugin's lock), 20 minutes old
        plugin, env, log = bootstrap_with_lock(server, tmp_path, None, age=1200)
    try:
        loads = DaemonFiles.for_server(ServerSpec(server.socket_name), env).state / "plugin.log"
        retry_until(
            lambda: loads.exists() and " load: ok" in loads.read_text(), timeout=30, what="load"
        )
        assert "bootstrap: taking over" in log.read_text()
        retry_until(lambda: not (plugin / ".venv.lock").exists(), timeout=10, what="unlock")
        assert not list(plugin.glob(".venv.lock.stale.*"))
    finally:
        subprocess.run(
            [str(OSF_TMUX), "-L", server.socket_name, "stop"], env=env, capture_output=True
        )


def test_a_lock_whose_holder_runs_is_respected(server: TmuxServer, tmp_path: Path) -> None:
    holder = subprocess.Popen(["sleep", "60"])
    try:
        me = f"{holder.pid} {start_time(holder.pid)}"
        plugin, _env, log = bootstrap_with_lock(server, tmp_path, me)
        retry_until(
            lambda: log.exists() and "bootstrap: already running" in log.read_text(),
            timeout=30,
            what="the bootstrap to step back",
        )
        assert (plugin / ".venv.lock" / "holder").read_text().strip() == me
        assert not (plugin / ".venv").exists()
    finally:
        holder.kill()
        holder.wait()
