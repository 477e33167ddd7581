"""The real GitHub Copilot CLI with osf-tmux's hooks (opt-in, like the live-agents lane): run
offline against the agent lab's fake model server in a pane of a private tmux server, once with
the hooks installed by `osf-tmux hooks install --agent copilot` and once started through
`osf-tmux launch copilot` (its plugin), and check that each hook reports the state the screen
shows: working after the prompt, blocked at the permission dialog and at the ask_user form,
done when the turn ends.

    OSF_LIVE_AGENTS=copilot .venv/bin/pytest tests/agents/test_copilot_hooks_live.py -rs"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.agents.hooks import apply, plan_install
from tests.support.tmux_server import TmuxServer, retry_until
from tools.agentlab import stories as st
from tools.agentlab.agents import AGENTS
from tools.agentlab.base import RunDirs
from tools.agentlab.driver import reap_strays
from tools.agentlab.fakeserver import FakeModelServer

pytestmark = [pytest.mark.live_agents, pytest.mark.slow, pytest.mark.tmux]

ENV = "OSF_LIVE_AGENTS"
OSF_TMUX = Path(sys.executable).with_name("osf-tmux")


def wanted() -> bool:
    value = os.environ.get(ENV, "").strip().lower()
    return value in ("1", "yes", "true", "all") or "copilot" in value.split(",")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[RunDirs, FakeModelServer]]:
    if not wanted():
        pytest.skip(f"opt-in: {ENV}=copilot (the real agent, from tools/agentlab/install.sh)")
    agent = AGENTS["copilot"]
    if not agent.installed():
        pytest.skip(f"copilot is not installed ({agent.binary()} missing)")
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    dirs.proj.mkdir()
    scenario = agent.scenarios()["bash_yes"]
    server = FakeModelServer(scenario.script, dirs.proj, tmp_path / "requests.jsonl", agent.dialect)
    server.start()
    try:
        yield dirs, server
    finally:
        server.stop()
        reap_strays(tmp_path)


def start(tmux: TmuxServer, dirs: RunDirs, server: FakeModelServer, how: str) -> str:
    """The pane running Copilot; the hooks come from the installed file or from `launch`."""
    agent = AGENTS["copilot"]
    argv, env = agent.prepare(dirs, server.url, agent.scenarios()["bash_yes"])
    if how == "installed":
        apply(plan_install("copilot", {"HOME": str(dirs.home)}))
    else:
        # `launch` finds copilot on PATH, as a person's shell would
        env["PATH"] = f"{Path(argv[0]).parent}:{env['PATH']}"
        argv = [str(OSF_TMUX), "launch", "copilot", *argv[1:]]
    launcher = dirs.root / "launch.sh"
    env_args = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    # env -i as the lab does, but the pane's TMUX and TMUX_PANE pass through: hooks need them
    launcher.write_text(
        f"#!/bin/sh\ncd {shlex.quote(str(dirs.proj))} || exit 1\n"
        f'exec env -i {env_args} TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" {shlex.join(argv)}\n'
    )
    launcher.chmod(0o755)
    return tmux.new_pane([str(launcher)], 120, 32)


def screen(tmux: TmuxServer, pane: str) -> str:
    return tmux.cmd("capture-pane", "-p", "-t", pane)


def reported(tmux: TmuxServer, pane: str) -> str:
    value = tmux.cmd("show-options", "-pqv", "-t", pane, "@osf_report").split()
    return value[0] if value and value[-1] == "copilot" else ""


def ask(tmux: TmuxServer, pane: str, prompt: str) -> None:
    tmux.cmd("send-keys", "-t", pane, "-l", prompt)
    retry_until(lambda: prompt in screen(tmux, pane), what="the prompt typed")
    tmux.cmd("send-keys", "-t", pane, "Enter")


def footer_idle(tmux: TmuxServer, pane: str) -> bool:
    rows = [r for r in screen(tmux, pane).splitlines() if r.strip()]
    return bool(rows) and re.search(r"(Interactive|Plan|Autopilot) · ", rows[-1]) is not None


@pytest.mark.parametrize("how", ["installed", "launch"])
def test_hooks_report_each_state(
    how: str, lab: tuple[RunDirs, FakeModelServer], tmux_server: TmuxServer
) -> None:
    dirs, server = lab
    pane = start(tmux_server, dirs, server, how)
    retry_until(lambda: footer_idle(tmux_server, pane), timeout=90, what="Copilot's input box")
    assert reported(tmux_server, pane) == ""  # nothing before the first prompt

    ask(tmux_server, pane, st.P_BASH)
    retry_until(lambda: reported(tmux_server, pane) in ("working", "blocked"), timeout=20,
                what="a working report")  # fmt: skip
    retry_until(lambda: "Do you want to run this command?" in screen(tmux_server, pane),
                timeout=20, what="the permission dialog")  # fmt: skip
    retry_until(lambda: reported(tmux_server, pane) == "blocked", timeout=10,
                what="the dialog reported")  # fmt: skip
    tmux_server.cmd("send-keys", "-t", pane, "Enter")
    retry_until(lambda: reported(tmux_server, pane) == "done", timeout=30, what="the turn's end")
    # Stop fires as the turn ends; the footer is redrawn a moment later
    retry_until(lambda: footer_idle(tmux_server, pane), timeout=10, what="the input box back")

    ask(tmux_server, pane, st.P_QUESTION)
    retry_until(lambda: "needs information." in screen(tmux_server, pane), timeout=20,
                what="the ask_user form")  # fmt: skip
    retry_until(lambda: reported(tmux_server, pane) == "blocked", timeout=10,
                what="the form reported")  # fmt: skip
    tmux_server.cmd("send-keys", "-t", pane, "Enter")
    retry_until(lambda: reported(tmux_server, pane) == "done", timeout=30, what="the turn's end")
