"""The real daemon and the real hook endpoint on a private tmux server: a pane whose process
name says nothing becomes a Claude pane through its hook reports, and its screen is judged
with Claude's rules from then on."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from osf_tmux.agents import hooks as agent_hooks
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = pytest.mark.tmux

CLAUDE = Path(__file__).resolve().parents[2] / "captures" / "claude-2.1.328"


def payload(event: str) -> bytes:
    for line in (CLAUDE / "j_hooks_bash-120x32.hooks.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["event"] == event:
            return json.dumps(record["payload"]).encode()
    raise AssertionError(event)


def hook(server: TmuxServer, pane: str, event: str) -> None:
    """Run the endpoint the way Claude Code runs a hook in that pane."""
    socket = server.cmd("display-message", "-p", "#{socket_path}").strip()
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env.update(TMUX=f"{socket},{server.pid},0", TMUX_PANE=pane)
    command = agent_hooks.report_command("claude")
    proc = subprocess.run(command, shell=True, input=payload(event), env=env, timeout=30)
    assert proc.returncode == 0


def published(daemon: DaemonProcess, pane: str) -> dict[str, object] | None:
    for entry in daemon.status().get("panes", []):
        if entry.get("pane") == pane:
            return dict(entry)
    return None


def test_a_pane_named_by_its_hooks_is_judged_by_its_screen(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    daemon = DaemonProcess(tmux_server, tmp_path / "daemon")
    (tmp_path / "daemon").mkdir()
    daemon.start()
    feeder = Feeder(tmux_server, tmp_path, 120, 32, agent=None)  # a python relay: no agent name
    try:
        labels = json.loads((CLAUDE / "c_bash_yes-120x32.labels.json").read_text())
        data = (CLAUDE / "c_bash_yes-120x32.bytes").read_bytes()
        working = next(s for s in labels["segments"] if s["state"] == "working")
        feeder.write(data[: working["offset"]])
        seen = retry_until(lambda: published(daemon, feeder.pane), what="the daemon to see it")
        assert seen["agent"] is None

        hook(tmux_server, feeder.pane, "UserPromptSubmit")
        retry_until(lambda: feeder.state() == "working", what="the report to be published")
        retry_until(lambda: (published(daemon, feeder.pane) or {}).get("agent") == "claude",
                    what="the daemon to take Claude's rules")  # fmt: skip

        # The prompt comes up without a hook (say, one that failed): the screen alone, judged
        # with Claude's rules, which the daemon took from the report.
        blocked = next(s for s in labels["segments"] if s["state"] == "blocked")
        feeder.write(data[feeder.offset : blocked["offset"]])
        retry_until(lambda: feeder.state() == "blocked", what="the prompt on screen")
        retry_until(lambda: (published(daemon, feeder.pane) or {}).get("rule")
                    == "dialog-menu-below-rule",
                    what="the screen rule to decide")  # fmt: skip
    finally:
        feeder.close()
        daemon.stop()
