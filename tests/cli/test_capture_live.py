"""`osf-tmux capture` against the real daemon: a replayed Claude Code permission prompt in a
private tmux server's pane, captured, replays to tmux's own screen and to the state osf-tmux
showed; a pane that is no agent's and a server without a daemon say so with their exit codes."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

CAPTURE = Path(__file__).resolve().parents[2] / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TmuxServer, DaemonProcess]]:
    home = tmp_path_factory.mktemp("capture-live")
    server = TmuxServer()
    server.start()
    daemon = DaemonProcess(server, home)
    try:
        daemon.start()
        yield server, daemon
    finally:
        daemon.stop()
        server.kill()


def test_a_live_pane_captured_replays_to_its_screen_and_state(
    live: tuple[TmuxServer, DaemonProcess], tmp_path: Path
) -> None:
    server, daemon = live
    feeder = Feeder(server, tmp_path, 120, 32, "claude")
    try:
        retry_until(lambda: feeder.state() is not None, timeout=20, what="claude's pane judged")
        feeder.write(CAPTURE.read_bytes()[:BLOCKED_AT])
        retry_until(lambda: feeder.state() == "blocked", timeout=20, what="the prompt blocked")
        out = tmp_path / "caps"
        res = daemon.cli("capture", feeder.pane, "--state", "blocked", "--note", "a test", "--out",
                         str(out))  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert "osf-tmux showed blocked; you say blocked" in res.stdout
        assert "secrets" in res.stderr
        (labels_path,) = out.glob("*.labels.json")
        assert stat.S_IMODE(out.stat().st_mode) == 0o700
        for f in out.iterdir():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
        labels = json.loads(labels_path.read_text())
        assert labels["shown"]["state"] == "blocked" and labels["agent"] == "claude"
        assert (labels["cols"], labels["rows"]) == (120, 32)
        bytes_path = labels_path.with_name(labels_path.name.replace(".labels.json", ".bytes"))
        replayed = daemon.cli("replay", str(bytes_path), "--json")
        assert json.loads(replayed.stdout)["state"] == "blocked", replayed.stderr
        explained = json.loads(daemon.cli("explain", str(bytes_path), "--json").stdout)
        tmux_rows = server.cmd("capture-pane", "-p", "-t", feeder.pane).split("\n")[:32]
        assert [r.rstrip() for r in explained["rows"]] == [r.rstrip() for r in tmux_rows]
        # Counted in status.json at its next rewrite (at least every status_refresh).
        retry_until(
            lambda: daemon.status().get("capture", {}).get("captures", 0) >= 1,
            timeout=15,
            what="the capture counted in status.json",
        )
    finally:
        feeder.close()


def test_a_pane_without_an_agent_and_a_server_without_a_daemon(
    live: tuple[TmuxServer, DaemonProcess], tmp_path: Path
) -> None:
    server, daemon = live
    plain = server.new_pane(["sleep", "600"], 80, 24)
    res = daemon.cli("capture", plain, "--out", str(tmp_path))
    assert res.returncode == 4 and "no agent pane" in res.stderr, res.stderr
    assert daemon.cli("capture", "%99999", "--out", str(tmp_path)).returncode == 4
    other = TmuxServer()
    other.start()
    try:
        alone = DaemonProcess(other, tmp_path / "alone")
        pane = other.new_pane(["sleep", "600"], 80, 24)
        res = alone.cli("capture", pane, "--out", str(tmp_path))
        assert res.returncode == 3 and "not running" in res.stderr, res.stderr
    finally:
        other.kill()
