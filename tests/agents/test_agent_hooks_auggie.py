"""osf-tmux's hooks in Auggie's settings (~/.augment/settings.json): the user's own hooks and
keys kept, exact undo, a backup, a refusal on a broken file; the events and what they report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import auggie
from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from osf_tmux.agents.report import state_for
from tests.support.hook_counts import ours

# An Auggie user's settings as the CLI writes them (two-space indent; `indexingDenyDirs` is what
# answering the indexing screen with "Never" stores), with a hook of their own on an event we
# use too and one on an event we do not use.
USER_SETTINGS = (
    '{\n  "indexingDenyDirs": [\n    "/home/u/scratch"\n  ],\n'
    '  "model": "sonnet4.5",\n'
    '  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],\n'
    '    "SessionStart": [{"hooks": [{"type": "command", "command": "motd.sh", '
    '"timeout": 5000}]}]\n  }\n}\n'
)
EVENTS = {"PromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop"}


def settings_in(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = {"HOME": str(tmp_path / "home")}
    return env, tmp_path / "home" / ".augment" / "settings.json"


def test_round_trip_keeps_the_users_settings_and_hooks(tmp_path: Path) -> None:
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS)
    original = settings.read_bytes()

    apply(plan_install("auggie", env))
    data = json.loads(settings.read_text())
    assert data["indexingDenyDirs"] == ["/home/u/scratch"] and data["model"] == "sonnet4.5"
    assert ours(data["hooks"]) == {event: 1 for event in EVENTS} | {"SessionStart": 0}
    assert data["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "say done"}]}
    hook = data["hooks"]["PreToolUse"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["timeout"] == 10_000  # Auggie: milliseconds
    assert hook["command"].endswith(" auggie")
    assert agent_hooks.backup_path(settings).read_bytes() == original

    installed = settings.read_bytes()
    assert plan_install("auggie", env).changes == []
    apply(plan_install("auggie", env))
    assert settings.read_bytes() == installed

    apply(plan_uninstall("auggie", env))
    assert settings.read_bytes() == original
    assert not agent_hooks.backup_path(settings).exists()
    assert plan_uninstall("auggie", env).changes == []


def test_uninstall_keeps_what_auggie_wrote_since(tmp_path: Path) -> None:
    # Auggie writes this file itself (a workspace answered "Never index" adds itself here).
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS)
    apply(plan_install("auggie", env))
    data = json.loads(settings.read_text())
    data["indexingDenyDirs"].append("/home/u/proj")
    settings.write_text(json.dumps(data, indent=2))

    apply(plan_uninstall("auggie", env))
    expected = json.loads(USER_SETTINGS)
    expected["indexingDenyDirs"].append("/home/u/proj")
    assert json.loads(settings.read_text()) == expected


def test_a_new_file_is_private_and_goes_again(tmp_path: Path) -> None:
    env, settings = settings_in(tmp_path)
    apply(plan_install("auggie", env))
    assert set(json.loads(settings.read_text())["hooks"]) == EVENTS
    assert settings.stat().st_mode & 0o777 == 0o600
    apply(plan_uninstall("auggie", env))
    assert not settings.exists()


@pytest.mark.parametrize(
    "text",
    ['{"model": "x",}', '{\n  // mine\n  "model": "x"\n}', '{"hooks": []}', "[1, 2]"],
)
def test_a_file_we_cannot_read_is_left_alone(tmp_path: Path, text: str) -> None:
    env, settings = settings_in(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    with pytest.raises(HooksError, match=r"(?i)nothing was changed"):
        plan_install("auggie", env)
    assert settings.read_text() == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_no_launch_flag() -> None:
    with pytest.raises(HooksError, match="Auggie takes hooks only from its settings file"):
        agent_hooks.launch_argv("auggie", "/usr/bin/auggie", [], {})


def test_no_permission_event() -> None:
    # The CLI's hook events (its validator's list): none fires for the approval popover.
    assert set(auggie.EVENTS) <= {
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionStart",
        "SessionEnd",
        "Notification",
        "PromptSubmit",
    }
    assert "blocked" not in auggie.EVENTS.values()
    assert auggie.EVENTS["Stop"] == "done"


@pytest.mark.parametrize(
    ("payload", "state"),
    [
        ({"hook_event_name": "PromptSubmit", "user_prompt": "clean"}, "working"),
        ({"hook_event_name": "PreToolUse", "tool_name": "launch-process"}, "working"),
        ({"hook_event_name": "Stop", "agent_stop_cause": "end_turn"}, "done"),
        ({"hook_event_name": "SessionStart"}, None),
        ({"hook_event_name": "Notification", "notification_type": "anything"}, None),
    ],
)
def test_payloads_report(payload: dict[str, Any], state: str | None) -> None:
    assert state_for("auggie", payload) == state


def test_recorded_payloads_report_the_turn() -> None:
    """The payloads Auggie 0.36.0 sent to the hook table osf-tmux installs, in a lab run of a
    command approved (captures/auggie-0.36.0-lab/hooks_bash-120x32.hooks.jsonl; the lab's fake
    server turns the tenant's `enable_hooks` flag on, without which no hook runs): PreToolUse
    comes before the approval popover is drawn (the screen's blocked rule wins there), nothing
    while it shows, PostToolUse once the command ran, Stop at the end of the turn."""
    import json

    path = (
        Path(__file__).resolve().parents[2]
        / "captures/auggie-0.36.0-lab/hooks_bash-120x32.hooks.jsonl"
    )
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    seen = [(row["event"], state_for("auggie", row["payload"])) for row in lines]
    assert seen == [
        ("PromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("PostToolUse", "working"),
        ("Stop", "done"),
    ]
    labels = json.loads(path.with_name("hooks_bash-120x32.labels.json").read_text())
    blocked = [s["offset"] for s in labels["segments"] if s["state"] == "blocked"]
    pre = next(row["bytes_offset"] for row in lines if row["event"] == "PreToolUse")
    assert blocked and pre < blocked[0]
