"""osf-tmux's hooks for Grok Build (a file of our own, ~/.grok/hooks/osf-tmux.json, or under
$GROK_HOME): installed and removed without touching the person's hook files; its envelope
(camelCase, snake-case event names) read into states, as recorded in the lab."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import grok_build
from osf_tmux.agents.hooks import HooksError, apply, launch_argv, plan_install, plan_uninstall
from osf_tmux.agents.report import state_for
from tests.support.hook_counts import ours

CAPTURES = Path(__file__).resolve().parents[2] / "captures" / "grok-build-0.2.111-lab"
EVENTS = {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop"}
# A hook file of the person's own in the same folder, which must stay as it is.
THEIRS = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n'


def recorded(name: str) -> list[dict[str, Any]]:
    text = (CAPTURES / name).read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_install_writes_a_file_of_its_own_and_uninstall_removes_it(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    folder = tmp_path / ".grok" / "hooks"
    folder.mkdir(parents=True)
    (folder / "mine.json").write_text(THEIRS)

    apply(plan_install("grok-build", env))
    data = json.loads((folder / "osf-tmux.json").read_text())
    assert ours(data["hooks"]) == {event: 1 for event in EVENTS}
    hook = data["hooks"]["Notification"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["timeout"] == 10  # seconds
    assert hook["command"].endswith(" grok-build")
    assert (folder / "mine.json").read_text() == THEIRS

    installed = (folder / "osf-tmux.json").read_bytes()
    assert plan_install("grok-build", env).changes == []
    apply(plan_uninstall("grok-build", env))
    assert not (folder / "osf-tmux.json").exists()
    assert (folder / "mine.json").read_text() == THEIRS
    assert installed  # it was there in between


def test_grok_home_wins(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "GROK_HOME": str(tmp_path / "g")}
    apply(plan_install("grok-build", env))
    assert (tmp_path / "g" / "hooks" / "osf-tmux.json").exists()
    assert not (tmp_path / "home").exists()


def test_no_launch_flag() -> None:
    with pytest.raises(HooksError, match="hooks install --agent grok-build"):
        launch_argv("grok-build", "grok", [], {})


def test_recorded_payloads_report_the_turn() -> None:
    """A command approved (hooks_bash): prompt and tool before the panel, the permission
    notification with the panel, the tool's end, the turn's end."""
    states = [state_for("grok-build", p) for p in recorded("hooks_bash-120x32.hooks.jsonl")]
    assert states == [None, "working", "working", "blocked", "working", "done"]


def test_recorded_rejection_reports_nothing_after_the_panel() -> None:
    """Rejected (hooks_no): `permission_denied` and no `stop`; the screen says idle."""
    payloads = recorded("hooks_no-120x32.hooks.jsonl")
    assert payloads[-1]["hookEventName"] == "permission_denied"
    states = [state_for("grok-build", p) for p in payloads]
    assert states == [None, "working", "working", "blocked", None]


def test_session_end_stop_is_not_a_turn_end() -> None:
    stop = recorded("hooks_bash-120x32.hooks.jsonl")[-1]
    assert state_for("grok-build", stop) == "done"
    for reason in ("shutdown", "channel_closed"):
        assert state_for("grok-build", {**stop, "reason": reason}) is None


def test_claude_hooks_that_grok_build_runs_report_nothing() -> None:
    """Grok Build runs ~/.claude/settings.json's hooks too, with its own envelope
    (hooks_bash-120x32.claude-hooks.jsonl): osf-tmux's Claude hook must not report a Grok Build
    pane as Claude Code."""
    payloads = recorded("hooks_bash-120x32.claude-hooks.jsonl")
    assert payloads and all("hook_event_name" not in p for p in payloads)
    assert [state_for("claude", p) for p in payloads] == [None] * len(payloads)


def test_unknown_payloads_say_nothing() -> None:
    for payload in ({}, {"hookEventName": 3}, {"hookEventName": "session_start"}):
        assert grok_build.payload_state(payload) is None
    note = {"hookEventName": "notification", "notificationType": "something_else"}
    assert grok_build.payload_state(note) is None
