"""osf-tmux's hooks in Qwen Code's settings (~/.qwen/settings.json, or $QWEN_HOME): the user's
own hooks and keys kept, exact undo, a backup, a refusal on a broken file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import qwen
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from tests.support.hook_counts import ours

# A Qwen user's settings as Qwen writes them (two-space indent, its `$version` key), with a hook
# of their own on an event we use too and one we do not use.
USER_SETTINGS = (
    '{\n  "security": {\n    "auth": {\n      "selectedType": "openai"\n    }\n  },\n'
    '  "model": {\n    "name": "qwen3-coder-plus"\n  },\n'
    '  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],\n'
    '    "PostToolUse": [{"matcher": "run_shell_command", "hooks": [{"type": "command", '
    '"command": "audit.sh", "timeout": 5000}]}]\n  },\n  "$version": 4\n}\n'
)
EVENTS = {"UserPromptSubmit", "PreToolUse", "PermissionRequest", "Notification", "Stop"}


def settings_in(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = {"HOME": str(tmp_path / "home")}
    return env, tmp_path / "home" / ".qwen" / "settings.json"


def test_round_trip_keeps_the_users_settings_and_hooks(tmp_path: Path) -> None:
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS)
    original = settings.read_bytes()

    apply(plan_install("qwen", env))
    data = json.loads(settings.read_text())
    assert data["model"] == {"name": "qwen3-coder-plus"} and data["$version"] == 4
    assert ours(data["hooks"]) == {event: 1 for event in EVENTS} | {"PostToolUse": 0}
    assert data["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "say done"}]}
    assert data["hooks"]["PostToolUse"][0]["matcher"] == "run_shell_command"
    hook = data["hooks"]["Notification"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["timeout"] == 10_000  # Qwen: milliseconds
    assert hook["command"].endswith(" qwen")
    assert agent_hooks.backup_path(settings).read_bytes() == original

    installed = settings.read_bytes()
    assert plan_install("qwen", env).changes == []
    apply(plan_install("qwen", env))
    assert settings.read_bytes() == installed

    apply(plan_uninstall("qwen", env))
    assert settings.read_bytes() == original
    assert not agent_hooks.backup_path(settings).exists()
    assert plan_uninstall("qwen", env).changes == []


def test_uninstall_keeps_what_the_user_changed_since(tmp_path: Path) -> None:
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS)
    apply(plan_install("qwen", env))
    data = json.loads(settings.read_text())
    data["ui"] = {"theme": "Dracula"}
    settings.write_text(json.dumps(data))

    apply(plan_uninstall("qwen", env))
    expected = json.loads(USER_SETTINGS)
    expected["ui"] = {"theme": "Dracula"}
    assert json.loads(settings.read_text()) == expected


def test_qwen_home_wins_and_a_new_file_goes_again(tmp_path: Path) -> None:
    home = tmp_path / "qwen-home"
    env = {"HOME": str(tmp_path / "home"), "QWEN_HOME": str(home)}
    apply(plan_install("qwen", env))
    settings = home / "settings.json"
    assert set(json.loads(settings.read_text())["hooks"]) == EVENTS
    assert settings.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "home" / ".qwen").exists()
    apply(plan_uninstall("qwen", env))
    assert not settings.exists()


@pytest.mark.parametrize(
    "text",
    [
        '{"model": {"name": "x"},}',
        # Qwen reads settings with comments; we do not rewrite such a file (it would lose them).
        '{\n  // mine\n  "model": {"name": "x"}\n}',
        '{"hooks": []}',
    ],
)
def test_a_file_we_cannot_read_is_left_alone(tmp_path: Path, text: str) -> None:
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    with pytest.raises(HooksError, match=r"(?i)nothing was changed"):
        plan_install("qwen", env)
    assert settings.read_text() == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_no_launch_flag() -> None:
    with pytest.raises(HooksError, match="Qwen Code has no flag"):
        agent_hooks.launch_argv("qwen", "/usr/bin/qwen", [], {})


def test_the_events_report_the_states_qwen_means() -> None:
    assert qwen.EVENTS["PermissionRequest"] == "blocked"
    assert qwen.EVENTS["Stop"] == "done"
    assert qwen.NOTIFICATIONS == {"permission_prompt": "blocked", "idle_prompt": "idle"}


def test_recorded_payloads_report_the_turn() -> None:
    """The payloads Qwen Code 0.15.10 sent to the hook table osf-tmux installs, in a lab run of
    a shell command approved (captures/qwen-0.15.10-lab/hooks_bash-120x32.hooks.jsonl): the
    permission events come as the box opens, PreToolUse only once it is approved, a second
    UserPromptSubmit (empty prompt) when the tool result goes back, idle_prompt right after Stop."""
    from osf_tmux.agents.report import state_for

    path = (
        Path(__file__).resolve().parents[2]
        / "captures/qwen-0.15.10-lab/hooks_bash-120x32.hooks.jsonl"
    )
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    seen = [(row["event"], state_for("qwen", row["payload"])) for row in lines]
    assert seen == [
        ("UserPromptSubmit", "working"),
        ("PermissionRequest", "blocked"),
        ("Notification", "blocked"),
        ("PreToolUse", "working"),
        ("UserPromptSubmit", "working"),
        ("Stop", "done"),
        ("Notification", "idle"),
    ]
