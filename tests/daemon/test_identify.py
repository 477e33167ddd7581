"""Which rules apply to a pane: override, processes, tmux's command name, then a fresh report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.tmux import PaneInfo, ServerSpec, Tmux

WALL = 1_800_000_000.0
TTL = 30.0


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(None)


def pane(**fields: object) -> PaneInfo:
    base = PaneInfo(
        pane_id="%1", pid=123, tty="/dev/pts/9", width=120, height=32, piped=False, dead=False,
        active=True, window_active=True, window_id="@1", session_id="$1", session_name="s",
        window_index="0", pane_index="0", session_attached=1, current_command="python3",
        agent_override="", report="", our_pipe="", alt_screen=False,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


def agent(rules: RuleSet, info: PaneInfo, commands: list[list[str]] | None = None) -> str | None:
    found = manifest_for(rules, info, lambda pid: commands or [], WALL, TTL)
    return found.agent if found else None


def test_a_fresh_report_names_the_agent_when_nothing_else_does(rules: RuleSet) -> None:
    assert agent(rules, pane()) is None
    assert agent(rules, pane(report=f"working {WALL - 1} claude")) == "claude"
    assert agent(rules, pane(report=f"blocked {WALL - 5} gemini")) == "gemini"
    # stale, from the future, without an agent, or an agent we have no rules for: nothing
    assert agent(rules, pane(report=f"working {WALL - TTL - 1} claude")) is None
    assert agent(rules, pane(report=f"working {WALL + 60} claude")) is None
    assert agent(rules, pane(report=f"working {WALL}")) is None
    assert agent(rules, pane(report=f"working {WALL} nosuchagent")) is None


def test_the_report_comes_last(rules: RuleSet) -> None:
    report = f"working {WALL} claude"
    assert agent(rules, pane(report=report, agent_override="aider")) == "aider"
    assert agent(rules, pane(report=report), [["codex", "--no-daemon"]]) == "codex"
    assert agent(rules, pane(report=report, current_command="gemini")) == "gemini"
    assert agent(rules, pane(report=report, dead=True)) is None


def test_the_daemon_identifies_a_pane_by_its_report(rules: RuleSet, tmp_path: Path) -> None:
    clock = FakeClock()
    daemon = Daemon(
        Tmux(ServerSpec("osf-test-never-started")),
        rules,
        PipeFactory(tmp_path),
        "token",
        clock=clock,
        identify=lambda pid: [["python3", "wrapper.py"]],
    )
    info = pane(report=f"working {clock.wall() - 2} claude")
    found = daemon.registry.manifest_for(info)
    assert found is not None and found.agent == "claude"
    clock.advance(daemon.settings.timing.report_ttl)
    assert (
        daemon.registry.manifest_for(info) is None
    )  # the report went stale: back to the processes
