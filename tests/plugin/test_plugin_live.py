"""The plugin loaded into a private tmux server the way TPM loads it: the root *.tmux file run
with $TMUX pointing at the server, twice (a config reload). Then a real Claude Code capture
blocks in a pane: the status line and the window list show it, `next` moves a control-mode
client there, and the daemon notifies without a desktop session."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles, running_pid
from osf_tmux.plugin.load import STATUS_FRAGMENT, WINDOW_FRAGMENT
from osf_tmux.tmux import ServerSpec
from tests.support.control_mode import ControlMode, shown_pane
from tests.support.live import Feeder
from tests.support.tmux_server import TmuxServer, WaitTimeout, outside_env, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "captures" / "claude-2.1.328"
# (capture, offset of its first blocked label)
BASH_PROMPT = (CAPTURES / "c_bash_yes-120x32.bytes", 5676)
OSF_TMUX = Path(sys.executable).with_name("osf-tmux")


@dataclass
class Loaded:
    server: TmuxServer
    env: dict[str, str]
    home: Path

    def tmux(self, *args: str) -> str:
        return self.server.cmd(*args)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(OSF_TMUX), "-L", self.server.socket_name, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    @property
    def log(self) -> Path:
        """This server's plugin log (loads, and errors of what its keys run)."""
        return self.files().state / "plugin.log"

    def files(self) -> DaemonFiles:
        return DaemonFiles.for_server(ServerSpec(self.server.socket_name), self.env)


def isolated_env(server: TmuxServer, home: Path, extra: dict[str, str]) -> dict[str, str]:
    """Files under `home`; the same values set in the server, since run-shell jobs (where the
    plugin's work and the daemon run) take the server's environment, not ours."""
    env = outside_env()
    mine = {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "HOME": str(home),
        **extra,
    }
    for name, value in mine.items():
        server.cmd("set-environment", "-g", name, value)
    env.update(mine)
    sock = server.cmd("display-message", "-p", "#{socket_path},#{pid},0").strip()
    env["TMUX"] = sock
    return env


def run_plugin(entry: Path, env: dict[str, str]) -> None:
    """What TPM does: run the file, output thrown away; it must return at once."""
    subprocess.run(
        [str(entry)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=10,
        check=True,
    )


def loads(log: Path) -> int:
    return log.read_text().count(" load: ok") if log.exists() else 0


def loaded_times(log: Path, n: int) -> bool:
    return loads(log) >= n


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loaded]:
    if not OSF_TMUX.exists():
        pytest.skip(f"{OSF_TMUX} is not installed (pip install -e .)")
    home = tmp_path_factory.mktemp("plugin")
    server = TmuxServer()
    server.start()
    server.cmd("set-option", "-g", "status", "on")
    env = isolated_env(server, home, {"OSF_TMUX_BIN": str(OSF_TMUX)})
    it = Loaded(server, env, home)
    try:
        for n in (1, 2):  # the second time is a config reload
            run_plugin(ROOT / "osf-tmux.tmux", env)
            retry_until(functools.partial(loaded_times, it.log, n), timeout=20, what=f"load {n}")
        yield it
    finally:
        it.cli("stop")
        server.kill()


def test_loaded_twice_changes_nothing_more(loaded: Loaded) -> None:
    assert "failed" not in loaded.log.read_text()
    keys = loaded.tmux("list-keys", "-T", "prefix")
    assert sum("osf-tmux:next" in line for line in keys.splitlines()) == 1
    assert sum("osf-tmux:menu" in line for line in keys.splitlines()) == 1
    assert re.search(r"-T prefix\s+A\s+run-shell -b .*osf-tmux:next", keys)
    assert re.search(r"-T prefix\s+W\s+run-shell -b .*osf-tmux:menu", keys)
    right = loaded.tmux("show-options", "-gv", "status-right")
    assert right.count(STATUS_FRAGMENT) == 1 and right.startswith(STATUS_FRAGMENT)
    for name in ("window-status-format", "window-status-current-format"):
        assert loaded.tmux("show-options", "-gv", name).count(WINDOW_FRAGMENT) == 1
    assert loaded.tmux("show-options", "-gv", "@osf-notify-cooldown").strip() == "30"
    pid = running_pid(loaded.files())
    assert pid is not None and pid > 0
    assert f"daemon pid {pid} (already running)" in loaded.log.read_text()


def test_user_value_wins_and_reload_applies_it(loaded: Loaded) -> None:
    loaded.tmux("set-option", "-g", "@osf-icon-blocked", "!!")
    run_plugin(ROOT / "osf-tmux.tmux", loaded.env)
    retry_until(lambda: loads(loaded.log) >= 3, timeout=20, what="third load")
    assert loaded.tmux("show-options", "-gv", "@osf-icon-blocked").strip() == "!!"
    loaded.tmux("set-option", "-g", "@osf-icon-blocked", "●")


class ControlClient:
    """`tmux -C attach`: a client with a name that `next` can move, no terminal needed."""

    def __init__(self, server: TmuxServer) -> None:
        self.server = server
        before = set(self.names())
        self.proc = subprocess.Popen(
            [server.tmux, "-L", server.socket_name, "-C", "attach", "-t", "osf-base"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=outside_env(),
        )
        self.name = retry_until(
            lambda: next(iter(set(self.names()) - before), None), timeout=10, what="client"
        )

    def names(self) -> list[str]:
        return self.server.cmd("list-clients", "-F", "#{client_name}").split()

    def pane(self) -> str:
        return shown_pane(self.server, self.name)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command.encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def client(loaded: Loaded) -> Iterator[ControlClient]:
    c = ControlClient(loaded.server)
    try:
        yield c
    finally:
        c.close()


def test_next_says_so_when_nothing_waits(loaded: Loaded, client: ControlClient) -> None:
    out = loaded.cli("next", "--client", client.name)
    assert out.returncode == 0 and "no agent is waiting" in out.stdout


def test_a_key_press_writes_no_log_line(loaded: Loaded) -> None:
    before = loaded.log.read_text()
    keys = loaded.tmux("list-keys", "-T", "prefix").splitlines()
    control = ControlMode(loaded.server)
    try:
        for marker in ("osf-tmux:next", "osf-tmux:menu"):
            line = next(x for x in keys if marker in x)
            # What the key runs, as the key runs it (-b), then a signal once it has ended: a
            # client's run-shell answers at once, before its command ends (every tmux). The
            # client stays until then: tmux 3.5a to 3.7c die when a client whose run-shell
            # (without -b) prints goes first.
            done = f"osf-test-key-{marker.rsplit(':', 1)[1]}"
            signal = f"; {loaded.server.tmux} wait-for -S {done} ##{marker}"
            command = line[line.index("run-shell") :].replace(f" ##{marker}", signal, 1)
            assert signal in command, line
            control.command(command)
            loaded.tmux("wait-for", done)
    finally:
        control.close()
    assert loaded.log.read_text() == before


def test_doctor_passes_on_a_loaded_server(loaded: Loaded) -> None:
    """No warning either (doctor exits 2 on one), once the daemon the load started is up: under
    load it may not have written its status or set its hooks yet."""
    last: list[subprocess.CompletedProcess[str]] = []

    def clean() -> bool:
        last[:] = [loaded.cli("doctor", "--json")]
        return last[0].returncode == 0

    try:
        retry_until(clean, timeout=30, interval=0.5, what="doctor to pass")
    except WaitTimeout:
        bad = [c for c in json.loads(last[0].stdout) if c["level"] not in ("ok", "info")]
        raise AssertionError(f"doctor exits {last[0].returncode}: {bad}") from None
    out = last[0]
    checks = json.loads(out.stdout)
    names = {c["name"] for c in checks}
    assert {"tmux", "daemon", "tmux hooks", "plugin", "notifications", "rules"} <= names
    assert not [c for c in checks if c["level"] == "fail"]


def test_doctor_runs_from_the_command_prompt(loaded: Loaded) -> None:
    """prefix + : osf-doctor (a command alias) shows doctor's output in the current pane."""
    assert "osf-doctor=run-shell -b" in loaded.tmux("show-options", "-s", "command-alias")
    control = ControlMode(loaded.server)
    try:
        control.command("osf-doctor")
        retry_until(
            lambda: (
                loaded.tmux("display-message", "-p", "-t", "osf-base:", "#{pane_mode}").strip()
                == "view-mode"
            ),
            timeout=20,
            what="doctor's output in view mode",
        )
        control.command("send-keys -t osf-base: -X cancel")
    finally:
        control.close()


@pytest.fixture(scope="module")
def blocked(loaded: Loaded, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Feeder]:
    """One pane blocked at a real permission prompt, for the rest of the module (the tests
    that need no waiting pane come before the first that asks for this one)."""
    path, offset = BASH_PROMPT
    feeder = Feeder(loaded.server, tmp_path_factory.mktemp("feed"), 120, 32, "claude")
    try:
        retry_until(lambda: feeder.option("@osf_pipe"), timeout=10, what="daemon to pipe the pane")
        feeder.write(path.read_bytes()[:offset])
        retry_until(lambda: feeder.state() == "blocked", timeout=10, what="blocked")
        yield feeder
    finally:
        feeder.close()
        loaded.server.kill_pane(feeder.pane)


def test_status_line_and_window_list_show_a_blocked_agent(loaded: Loaded, blocked: Feeder) -> None:
    right = loaded.tmux("display-message", "-p", "-t", blocked.pane, "#{E:status-right}")
    assert right.startswith("#[fg=brightwhite bg=red bold] ● 1 blocked #[default] ")
    window = loaded.tmux("display-message", "-p", "-t", blocked.pane, "#{E:window-status-format}")
    assert window.rstrip("\n").endswith("#[fg=brightwhite bg=red bold]●#[default]")
    other = loaded.tmux("display-message", "-p", "-t", "osf-base:", "#{E:window-status-format}")
    assert "●" not in other


def test_daemon_notifies_without_a_desktop(loaded: Loaded, blocked: Feeder) -> None:
    log = loaded.files().log
    line = retry_until(
        lambda: next(
            (
                x
                for x in log.read_text().splitlines()
                if "notified via terminal" in x and "Do you want to proceed?" in x
            ),
            None,
        ),
        timeout=10,
        what="a notification in the daemon log",
    )
    assert "claude is waiting for you in" in line and "rm -rf build" in line


def test_next_moves_the_client_to_the_blocked_pane(
    loaded: Loaded, blocked: Feeder, client: ControlClient
) -> None:
    assert client.pane() != blocked.pane
    out = loaded.cli("next", "--client", client.name)
    assert out.returncode == 0, out.stderr
    assert client.pane() == blocked.pane
    assert "1 of 1" in out.stdout


def test_the_bound_key_runs_next_for_the_client_that_pressed_it(
    loaded: Loaded, blocked: Feeder, client: ControlClient
) -> None:
    line = next(
        x for x in loaded.tmux("list-keys", "-T", "prefix").splitlines() if "osf-tmux:next" in x
    )
    command = line[line.index("run-shell") :]
    client.send(command)  # what pressing prefix + A makes tmux run, with this client current
    retry_until(lambda: client.pane() == blocked.pane, timeout=10, what="client at the pane")


@pytest.fixture
def second_blocked(loaded: Loaded, tmp_path: Path) -> Iterator[Feeder]:
    path, offset = BASH_PROMPT
    feeder = Feeder(loaded.server, tmp_path, 120, 32, "claude")
    try:
        retry_until(lambda: feeder.option("@osf_pipe"), timeout=10, what="daemon to pipe the pane")
        feeder.write(path.read_bytes()[:offset])
        retry_until(lambda: feeder.state() == "blocked", timeout=10, what="blocked")
        yield feeder
    finally:
        feeder.close()
        loaded.server.kill_pane(feeder.pane)


def test_next_cycles_whatever_pane_its_caller_inherited(
    loaded: Loaded, blocked: Feeder, second_blocked: Feeder, client: ControlClient
) -> None:
    # A server started from inside tmux gives its $TMUX_PANE to every run-shell job: `next`
    # must read where the client is from the client, or every press lands on the first pane.
    env = {**loaded.env, "TMUX_PANE": "%0"}
    seen = []
    for _ in range(3):
        out = subprocess.run(
            [str(OSF_TMUX), "-L", loaded.server.socket_name, "next", "--client", client.name],
            env=env, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        seen.append(client.pane())
    assert set(seen[:2]) == {blocked.pane, second_blocked.pane}
    assert seen[2] == seen[0]


def test_the_bound_key_cycles_in_a_server_started_inside_tmux(
    loaded: Loaded, blocked: Feeder, second_blocked: Feeder, client: ControlClient
) -> None:
    line = next(
        x for x in loaded.tmux("list-keys", "-T", "prefix").splitlines() if "osf-tmux:next" in x
    )
    command = line[line.index("run-shell") :]
    loaded.tmux("set-environment", "-g", "TMUX_PANE", "%0")
    try:
        waiting = {blocked.pane, second_blocked.pane}
        client.send(command)
        first = retry_until(lambda: (p := client.pane()) in waiting and p, what="first press")
        client.send(command)
        retry_until(lambda: client.pane() == (waiting - {first}).pop(), what="second press")
    finally:
        loaded.tmux("set-environment", "-g", "-u", "TMUX_PANE")
