"""`@osf-notify-command`: the event reaches the user's command as data only (environment and
stdin), under the notifier's rules, with a timeout, never holding the notifier up; failures are
logged and kept for doctor. (tests/plugin/test_notify_live.py runs it from the real daemon.)"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.plugin.notify import Notice, Notifier, NotifyConfig, NullBackend
from osf_tmux.plugin.notify_command import CommandRunner
from tests.plugin.test_notify import PANE, Recorder, transition

EVIL = Notice(
    pane_id="%5",
    pane_tty="",
    address="work:1.0",
    agent="claude",
    state="blocked",
    question="Do you want $(touch pwned1) `touch pwned2` \"q\" 'r'?",
    detail='echo "$(touch pwned3)"; touch pwned4 # \' `touch pwned5`',
    since=1_800_000_000.5,
)
DUMP = (
    'cd "{work}" && printf "%s\\n" "$OSF_AGENT" "$OSF_STATE" "$OSF_PANE" "$OSF_TARGET" '
    '"$OSF_QUESTION" "$OSF_DETAIL" "$OSF_SINCE" > env.txt && cat > stdin.json'
)


def config(command: str, timeout: float = 10.0) -> NotifyConfig:
    return NotifyConfig(command=command, command_timeout=timeout)


def test_the_event_is_data_never_code(tmp_path: Path) -> None:
    runner = CommandRunner()
    runner.run(EVIL, config(DUMP.format(work=tmp_path)))
    runner.wait_idle()
    assert (tmp_path / "env.txt").read_text().splitlines() == [
        "claude",
        "blocked",
        "%5",
        "work:1.0",
        EVIL.question,
        EVIL.detail,
        "1800000000",
    ]
    event = json.loads((tmp_path / "stdin.json").read_text())
    assert event["question"] == EVIL.question and event["detail"] == EVIL.detail
    assert event["target"] == "work:1.0" and event["title"] == EVIL.title
    assert event["since"] == 1_800_000_000.5  # a number, as `since` in list --json and events
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.txt", "stdin.json"]
    assert runner.status()["command"]["failures"] == 0


def test_a_slow_command_is_killed_at_its_timeout_without_holding_anyone_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runner = CommandRunner()
    late = tmp_path / "late"
    runner.run(EVIL, config(f'sleep 5; touch "{late}"', timeout=0.3))
    # run() only started it: it is still going, nothing recorded yet.
    assert runner.status()["command"]["last"] is None
    with caplog.at_level(logging.WARNING, logger="osf_tmux"):
        runner.wait_idle()
    failure = runner.status()["command"]["last_failure"]
    assert failure["error"] == "killed after 0.3s"
    assert "notify command for work:1.0 failed (killed after 0.3s)" in caplog.text
    assert not late.exists()


def test_a_failing_command_is_logged_with_its_stderr(caplog: pytest.LogCaptureFixture) -> None:
    runner = CommandRunner()
    with caplog.at_level(logging.WARNING, logger="osf_tmux"):
        runner.run(EVIL, config("echo 'ntfy: not found' >&2; exit 127"))
        runner.wait_idle()
    status = runner.status()["command"]
    assert status["runs"] == 1 and status["failures"] == 1
    assert status["last_failure"]["error"] == "exit status 127"
    assert status["last_failure"]["stderr"] == "ntfy: not found"
    assert "exit status 127" in caplog.text and "ntfy: not found" in caplog.text


def test_runs_past_the_limit_are_skipped_not_queued(tmp_path: Path) -> None:
    runner = CommandRunner(max_running=2)
    for _ in range(3):
        runner.run(EVIL, config("sleep 0.5", timeout=5))
    skipped = runner.status()["command"]["last_failure"]
    assert skipped["error"] == "skipped: earlier runs still going"
    runner.wait_idle()
    assert runner.status()["command"]["runs"] == 3  # two ran, one was skipped


def test_the_command_follows_the_notifiers_rules(tmp_path: Path) -> None:
    """Same cooldown and 'not the pane you are looking at' as the pop-ups."""
    runner = CommandRunner()
    cfg = config(f'echo "$OSF_PANE" >> "{tmp_path / "runs"}"')
    clock = FakeClock()
    n = Notifier(
        lambda: cfg, lambda c: [Recorder("terminal"), NullBackend()], clock=clock, inline=True,
        hooks=[runner],
    )  # fmt: skip
    n.on_transition(transition("blocked", replace(PANE, window_active=True)))  # looked at
    n.on_transition(transition("blocked"))
    n.on_transition(transition("blocked"))  # cooldown
    clock.advance(31)
    n.on_transition(transition("blocked"))
    runner.wait_idle()
    assert (tmp_path / "runs").read_text().splitlines() == ["%5", "%5"]
    n.on_transition(transition("done"))  # not a notifying state by default
    runner.wait_idle()
    assert len((tmp_path / "runs").read_text().splitlines()) == 2


def test_every_variable_is_documented() -> None:
    from osf_tmux.plugin.notify_command import event

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    missing = [
        k for k in event(EVIL) if f"`OSF_{k.upper()}`" not in readme or f"`{k}`" not in readme
    ]
    assert not missing, f"README's notify command table lacks {missing}"


def test_closing_ends_commands_still_running(tmp_path: Path) -> None:
    """The daemon stops: a command that outlives the grace is ended with it, not left over."""
    runner = CommandRunner()
    late = tmp_path / "late"
    runner.run(EVIL, config(f'sleep 3; touch "{late}"', timeout=60))
    runner.close(timeout=0.2)
    assert runner.status()["command"]["last_failure"]["error"].startswith("killed by signal")
    assert not late.exists()
