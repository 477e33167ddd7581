"""osf-tmux's hooks in Droid's hooks.json (~/.factory/hooks.json, or the legacy
~/.factory/hooks/hooks.json Droid reads while that does not exist; $FACTORY_HOME_OVERRIDE moves
the home): the person's own hooks and flags kept, exact undo, a backup, a refusal on a broken
file, and no install that would hide their hooks in settings.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from osf_tmux.agents import droid
from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from tests.support.hook_counts import ours

# A Droid user's hooks.json as its /hooks editor writes it: the events at the top level, a hook
# of their own on an event we use and on one we do not, and its flags.
USER_HOOKS = (
    "{\n"
    '  "Stop": [\n    {\n      "hooks": [\n        {\n          "type": "command",\n'
    '          "command": "say done"\n        }\n      ]\n    }\n  ],\n'
    '  "PostToolUse": [\n    {\n      "matcher": "Execute",\n      "hooks": [\n        {\n'
    '          "type": "command",\n          "command": "audit.sh",\n'
    '          "timeout": 5\n        }\n      ]\n    }\n  ],\n'
    '  "showHookOutput": true\n'
    "}"
)
EVENTS = {"UserPromptSubmit", "PreToolUse", "Notification", "Stop"}


def factory(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = {"HOME": str(tmp_path / "home")}
    folder = tmp_path / "home" / ".factory"
    folder.mkdir(parents=True)
    return env, folder


def test_round_trip_keeps_the_users_hooks_and_flags(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    hooks_json = folder / "hooks.json"
    hooks_json.write_text(USER_HOOKS)
    original = hooks_json.read_bytes()

    apply(plan_install("droid", env))
    data = json.loads(hooks_json.read_text())
    assert "hooks" not in data  # the events stay at the top level, as Droid reads them
    assert ours(data) == {event: 1 for event in EVENTS} | {"PostToolUse": 0}
    assert data["showHookOutput"] is True
    assert data["Stop"][0] == {"hooks": [{"type": "command", "command": "say done"}]}
    assert data["PostToolUse"][0]["matcher"] == "Execute"
    hook = data["Notification"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["timeout"] == 10  # seconds
    assert hook["command"].endswith(" droid")
    assert agent_hooks.backup_path(hooks_json).read_bytes() == original
    assert agent_hooks.installed_files("droid", env) == [hooks_json]

    installed = hooks_json.read_bytes()
    assert plan_install("droid", env).changes == []
    apply(plan_install("droid", env))
    assert hooks_json.read_bytes() == installed

    apply(plan_uninstall("droid", env))
    assert hooks_json.read_bytes() == original
    assert not agent_hooks.backup_path(hooks_json).exists()
    assert plan_uninstall("droid", env).changes == []
    assert agent_hooks.installed_files("droid", env) == []


def test_uninstall_keeps_what_the_user_changed_since(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    hooks_json = folder / "hooks.json"
    hooks_json.write_text(USER_HOOKS)
    apply(plan_install("droid", env))
    data = json.loads(hooks_json.read_text())
    data["hooksDisabled"] = False
    data["SessionStart"] = [{"hooks": [{"type": "command", "command": "hello.sh"}]}]
    hooks_json.write_text(json.dumps(data, indent=2))

    apply(plan_uninstall("droid", env))
    expected = json.loads(USER_HOOKS)
    expected["hooksDisabled"] = False
    expected["SessionStart"] = [{"hooks": [{"type": "command", "command": "hello.sh"}]}]
    assert json.loads(hooks_json.read_text()) == expected


def test_a_new_file_is_private_and_goes_again(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    apply(plan_install("droid", env))
    hooks_json = folder / "hooks.json"
    assert set(json.loads(hooks_json.read_text())) == EVENTS
    assert hooks_json.stat().st_mode & 0o777 == 0o600
    apply(plan_uninstall("droid", env))
    assert not hooks_json.exists()
    assert not agent_hooks.backup_path(hooks_json).exists()


def test_factory_home_override_wins(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    env = {"HOME": str(tmp_path / "home"), "FACTORY_HOME_OVERRIDE": str(other)}
    apply(plan_install("droid", env))
    assert (other / ".factory" / "hooks.json").exists()
    assert not (tmp_path / "home").exists()


def test_the_legacy_file_is_used_while_hooks_json_does_not_exist(tmp_path: Path) -> None:
    # Droid reads ~/.factory/hooks/hooks.json only while ~/.factory/hooks.json is missing:
    # creating the latter would switch the person's legacy hooks off.
    env, folder = factory(tmp_path)
    legacy = folder / "hooks" / "hooks.json"
    legacy.parent.mkdir()
    legacy.write_text(USER_HOOKS)
    apply(plan_install("droid", env))
    assert not (folder / "hooks.json").exists()
    assert ours(json.loads(legacy.read_text()))["Notification"] == 1
    apply(plan_uninstall("droid", env))
    assert legacy.read_text() == USER_HOOKS


def test_hooks_in_settings_json_that_ours_would_hide_are_refused(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    settings = folder / "settings.json"
    text = json.dumps(
        {"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ding"}]}]}}
    )
    settings.write_text(text)
    with pytest.raises(HooksError, match=r"(?s)Stop.*Nothing was changed"):
        plan_install("droid", env)
    assert settings.read_text() == text
    assert sorted(p.name for p in folder.iterdir()) == ["settings.json"]
    # Once hooks.json has its own Stop list, settings.json's is hidden already: nothing of
    # theirs changes by our entry, so the install goes ahead.
    (folder / "hooks.json").write_text(USER_HOOKS)
    apply(plan_install("droid", env))
    assert ours(json.loads((folder / "hooks.json").read_text()))["Stop"] == 1


def test_disabled_hooks_are_said(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    (folder / "hooks.json").write_text('{"hooksDisabled": true}')
    plan = plan_install("droid", env)
    assert any("hooksDisabled" in note for note in plan.notes)


@pytest.mark.parametrize(
    "text",
    [
        '{"Stop": [],}',
        '{\n  // mine\n  "Stop": []\n}',
        '{"Stop": {"hooks": []}}',
        '{"PreToolUse": ["audit.sh"]}',
        "[]",
    ],
)
def test_a_file_we_cannot_read_is_left_alone(tmp_path: Path, text: str) -> None:
    env, folder = factory(tmp_path)
    hooks_json = folder / "hooks.json"
    hooks_json.write_text(text)
    with pytest.raises(HooksError, match=r"(?i)nothing was changed"):
        plan_install("droid", env)
    assert hooks_json.read_text() == text
    assert sorted(p.name for p in folder.iterdir()) == ["hooks.json"]


def test_launch_hands_a_private_settings_file_for_this_run(tmp_path: Path) -> None:
    env, folder = factory(tmp_path)
    argv, notes = agent_hooks.launch_argv("droid", "/usr/bin/droid", ["--auto", "low"], env)
    settings = Path(droid.runtime_settings(env))
    assert argv == ["/usr/bin/droid", "--settings", str(settings), "--auto", "low"] and not notes
    assert settings.is_relative_to(tmp_path / "home" / ".local" / "state" / "osf-tmux")
    assert settings.stat().st_mode & 0o777 == 0o600
    data = json.loads(settings.read_text())
    assert set(data) == {"hooks"} and ours(data["hooks"]) == {event: 1 for event in EVENTS}
    assert list(folder.iterdir()) == []  # nothing of the person's touched


def test_launch_when_installed_or_given_settings(tmp_path: Path) -> None:
    env, _ = factory(tmp_path)
    with pytest.raises(HooksError, match="--settings yourself"):
        agent_hooks.launch_argv("droid", "droid", ["--settings", "mine.json"], env)
    apply(plan_install("droid", env))
    argv, notes = agent_hooks.launch_argv("droid", "droid", ["--use-spec"], env)
    assert argv == ["droid", "--use-spec"] and "Droid runs them itself" in notes[0]


def test_a_hooks_file_without_events_holds_none_of_ours(tmp_path: Path) -> None:
    """A hooks.json with flags but no event lists is not an install of ours: launch still hands
    Droid our hooks (before, it took the file for ours and launched without them)."""
    env, folder = factory(tmp_path)
    (folder / "hooks.json").write_text('{"hooksDisabled": false}')
    assert agent_hooks.installed_files("droid", env) == []
    argv, notes = agent_hooks.launch_argv("droid", "droid", [], env)
    assert argv[1] == "--settings" and not notes


def test_the_events_report_the_states_droid_means() -> None:
    from osf_tmux.agents.report import state_for

    def note(kind: str) -> dict[str, str]:
        return {"hook_event_name": "Notification", "notification_type": kind}

    assert state_for("droid", note("permission_prompt")) == "blocked"
    assert state_for("droid", note("elicitation_dialog")) == "blocked"
    assert state_for("droid", note("idle_prompt")) == "idle"
    assert state_for("droid", {"hook_event_name": "Stop"}) == "done"
    assert state_for("droid", {"hook_event_name": "PostToolUse"}) is None
    assert droid.HOOK_TIMEOUT == 10


def test_recorded_payloads_report_the_turn() -> None:
    """The payloads Droid 0.225.2 sent to the hook table osf-tmux installs, in a lab run of a
    command approved (captures/droid-0.225.2-lab/hooks_bash-120x32.hooks.jsonl): PreToolUse
    comes before the approval is asked for, the permission_prompt notification right after it
    (before the box is drawn), Stop when the answer is complete."""
    from osf_tmux.agents.report import state_for

    path = (
        Path(__file__).resolve().parents[2]
        / "captures/droid-0.225.2-lab/hooks_bash-120x32.hooks.jsonl"
    )
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    seen = [(row["event"], state_for("droid", row["payload"])) for row in lines]
    assert seen == [
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("Notification", "blocked"),
        ("Stop", "done"),
    ]
    labels = json.loads(path.with_name("hooks_bash-120x32.labels.json").read_text())
    blocked = next(s["offset"] for s in labels["segments"] if s["state"] == "blocked")
    notified = next(row["bytes_offset"] for row in lines if row["event"] == "Notification")
    assert notified <= blocked
