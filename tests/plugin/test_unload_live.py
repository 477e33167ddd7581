"""`stop` and `plugin unload` on a private tmux server: after `plugin unload --stop` every
option, key, hook, pipe and format is as it was before `plugin load`; `stop` alone with the
plugin loaded says what stays, and the keys still answer without an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.test_safe_input import CAPTURE, offsets
from tests.support.control_mode import ControlMode
from tests.support.live import Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

OSF_TMUX = Path(sys.executable).with_name("osf-tmux")


def everything(server: TmuxServer) -> dict[str, str]:
    """All of tmux's state a plugin could touch, as text."""
    out = {
        "global": server.cmd("show-options", "-g"),
        "window": server.cmd("show-options", "-gw"),
        "server": server.cmd("show-options", "-s"),
        "keys": server.cmd("list-keys"),
        "hooks": server.cmd("show-hooks", "-g"),
        "window hooks": server.cmd("show-hooks", "-gw"),  # pane-died, window-resized, ...
    }
    for pane in server.cmd("list-panes", "-a", "-F", "#{pane_id}").split():
        out[pane] = server.cmd("show-options", "-p", "-t", pane) + server.cmd(
            "display-message", "-p", "-t", pane, "pipe #{pane_pipe}"
        )
    for window in server.cmd("list-windows", "-a", "-F", "#{window_id}").split():
        out[window] = server.cmd("show-options", "-w", "-t", window)
    return out


def test_unload_with_stop_leaves_tmux_as_it_was(tmp_path: Path) -> None:
    if not OSF_TMUX.exists():
        pytest.skip(f"{OSF_TMUX} is not installed (pip install -e .)")
    server = TmuxServer()
    server.start()
    server.cmd("set-option", "-g", "status", "on")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    for name in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"):
        env[name] = str(tmp_path / name.lower())
        server.cmd("set-environment", "-g", name, env[name])

    def osf(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(OSF_TMUX), "-L", server.socket_name, *args], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip

    feeder = Feeder(server, tmp_path, 120, 32, "claude")
    control = None
    try:
        server.cmd("set-option", "-g", "@osf-icon-done", "+")  # the user's own value
        before = everything(server)
        assert osf("plugin", "load").returncode == 0
        retry_until(lambda: feeder.option("@osf_pipe"), timeout=10, what="the daemon's pipe")
        data = CAPTURE.joinpath("c_bash_yes-120x32.bytes").read_bytes()
        feeder.write(data[: offsets()["blocked"]])
        retry_until(lambda: feeder.state() == "blocked", timeout=20, what="blocked")
        loaded = everything(server)
        assert loaded != before

        stopped = osf("stop")
        assert stopped.returncode == 0 and "stopped (pid" in stopped.stdout
        assert "the plugin stays loaded: the format in status-right" in stopped.stdout
        assert (
            "prefix + A, prefix + W" in stopped.stdout and "plugin unload --stop" in stopped.stdout
        )
        assert feeder.state() is None and feeder.option("@osf_pipe") is None

        # the keys still answer, without an error, and say that the daemon is not running
        control = ControlMode(server)
        keys = server.cmd("list-keys", "-T", "prefix").splitlines()
        line = next(x for x in keys if "osf-tmux:next" in x)
        control.command(line[line.index("run-shell") :].replace("run-shell -b", "run-shell"))
        said = control.command("show-messages")
        assert any("the daemon is not running" in m for m in said), said
        assert not any("rror" in m for m in said), said

        unloaded = osf("plugin", "unload", "--stop")
        assert unloaded.returncode == 0, unloaded.stderr
        assert (
            "prefix + A" in unloaded.stdout
            and "@osf-* options at their defaults" in unloaded.stdout
        )
        control.close()
        control = None
        assert everything(server) == before
        assert server.cmd("show-options", "-gv", "@osf-icon-done").strip() == "+"
    finally:
        if control is not None:
            control.close()
        feeder.close()
        osf("stop")
        server.kill()
