"""osf-tmux's hooks for GitHub Copilot CLI: a hook file of our own in its user hooks folder,
the plugin `launch` hands it, and the states its real payloads report."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from osf_tmux.agents import copilot, report
from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from osf_tmux.agents.json_hooks import flat_document, flat_table
from osf_tmux.cli.app import cli

# A hook file of the person's own in the same folder: it must never be touched.
THEIRS = (
    '{\n  "version": 1,\n  "hooks": {"agentStop": [{"type": "command", "bash": "say done"}]}\n}\n'
)


def hooks_document(command: str | None = None) -> dict[str, Any]:
    return flat_document(copilot, command)


def hooks_table() -> dict[str, list[dict[str, Any]]]:
    return flat_table(copilot)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def hooks_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".copilot" / "hooks"


def install(env: dict[str, str]) -> agent_hooks.Plan:
    plan = plan_install("copilot", env)
    apply(plan)
    return plan


def uninstall(env: dict[str, str]) -> agent_hooks.Plan:
    plan = plan_uninstall("copilot", env)
    apply(plan)
    return plan


def our_entries(data: dict[str, Any]) -> dict[str, int]:
    return {
        event: sum("osf_tmux/agents/report.py copilot" in e.get("bash", "") for e in entries)
        for event, entries in data.get("hooks", {}).items()
    }


def test_a_file_of_our_own_beside_the_persons(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "mine.json").write_text(THEIRS)

    plan = install(env)
    ours = folder / "osf-tmux.json"
    assert [c.path for c in plan.changes] == [ours]
    data = json.loads(ours.read_text())
    assert data["version"] == 1
    assert our_entries(data) == {
        "UserPromptSubmit": 1,
        "PreToolUse": 1,
        "Notification": 1,
        "Stop": 1,
    }
    entry = data["hooks"]["Stop"][0]
    assert entry["type"] == "command" and entry["timeoutSec"] == copilot.HOOK_TIMEOUT
    assert stat.S_IMODE(ours.stat().st_mode) == 0o600
    assert (folder / "mine.json").read_text() == THEIRS
    assert not agent_hooks.backup_path(ours).exists()  # nothing of anyone's was there

    installed = ours.read_bytes()
    assert plan_install("copilot", env).changes == []  # a second install changes nothing
    assert agent_hooks.installed_files("copilot", env) == [ours]

    uninstall(env)
    assert sorted(p.name for p in folder.iterdir()) == ["mine.json"]  # ours gone, exactly
    assert (folder / "mine.json").read_text() == THEIRS
    assert plan_uninstall("copilot", env).changes == []
    assert installed.startswith(b"{")


def test_copilot_home_moves_the_folder(tmp_path: Path) -> None:
    env = env_for(tmp_path, COPILOT_HOME=str(tmp_path / "cphome"))
    install(env)
    assert (tmp_path / "cphome" / "hooks" / "osf-tmux.json").exists()
    assert not hooks_dir(tmp_path).exists()
    uninstall(env)
    assert list((tmp_path / "cphome" / "hooks").iterdir()) == []


def test_someone_elses_file_of_that_name_is_merged_into_and_given_back(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    path = folder / "osf-tmux.json"
    text = (
        '{"version": 1, "disableAllHooks": false, "hooks": {"Stop": [{"type": "command", '
        '"bash": "notify-send done", "timeoutSec": 5}], "preToolUse": [{"type": "command", '
        '"bash": "audit.sh", "matcher": "bash"}]}}'
    )
    path.write_text(text)
    install(env)
    data = json.loads(path.read_text())
    assert data["hooks"]["Stop"][0]["bash"] == "notify-send done"  # theirs first
    assert data["hooks"]["preToolUse"] == [
        {"type": "command", "bash": "audit.sh", "matcher": "bash"}
    ]
    assert data["disableAllHooks"] is False
    assert our_entries(data)["Stop"] == 1
    assert agent_hooks.backup_path(path).read_text() == text

    uninstall(env)
    assert path.read_text() == text  # byte for byte
    assert not agent_hooks.backup_path(path).exists()


def test_uninstall_keeps_what_they_added_to_our_file_since(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    install(env)
    path = hooks_dir(tmp_path) / "osf-tmux.json"
    data = json.loads(path.read_text())
    data["hooks"]["Stop"].append({"type": "command", "bash": "later.sh"})
    path.write_text(json.dumps(data))
    uninstall(env)
    assert json.loads(path.read_text()) == {
        "version": 1,
        "hooks": {"Stop": [{"type": "command", "bash": "later.sh"}]},
    }


def test_an_older_install_of_ours_is_replaced_without_a_backup(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    path = folder / "osf-tmux.json"
    old = hooks_document("/old/venv/bin/python -I -S /old/osf_tmux/agents/report.py copilot")
    path.write_text(json.dumps(old))
    install(env)
    assert "/old/venv" not in path.read_text()
    assert all(n == 1 for n in our_entries(json.loads(path.read_text())).values())
    assert not agent_hooks.backup_path(path).exists()
    uninstall(env)
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"version": 1, "hooks": {"Stop": [}', "not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"version": 1, "hooks": []}', "not an object of event lists"),
        ('{"version": 1, "hooks": {"Stop": {"bash": "x"}}}', "not an object of event lists"),
        ('{"version": 2, "hooks": {}}', "version 2"),
    ],
)
def test_a_file_copilot_could_not_read_is_refused_untouched(
    tmp_path: Path, text: str, says: str
) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "osf-tmux.json").write_text(text)
    with pytest.raises(HooksError, match=says):
        plan_install("copilot", env)
    with pytest.raises(HooksError):
        plan_uninstall("copilot", env)
    assert (folder / "osf-tmux.json").read_text() == text
    assert sorted(p.name for p in folder.iterdir()) == ["osf-tmux.json"]


def test_cli_install_and_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    runner = CliRunner()
    dry = runner.invoke(cli, ["hooks", "install", "--agent", "copilot", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would write" in dry.output and not hooks_dir(tmp_path).exists()
    done = runner.invoke(cli, ["hooks", "install", "--agent", "copilot"])
    assert done.exit_code == 0 and (hooks_dir(tmp_path) / "osf-tmux.json").exists()
    gone = runner.invoke(cli, ["hooks", "uninstall", "--agent", "copilot"])
    assert gone.exit_code == 0 and "remove" in gone.output
    assert list(hooks_dir(tmp_path).iterdir()) == []


# --- launch: a plugin for one run -----------------------------------------------------------


def test_launch_hands_copilot_a_plugin_of_ours(tmp_path: Path) -> None:
    env = env_for(tmp_path, XDG_STATE_HOME=str(tmp_path / "state"))
    argv, notes = agent_hooks.launch_argv("copilot", "/usr/bin/copilot", ["--resume"], env)
    folder = tmp_path / "state" / "osf-tmux" / "copilot-plugin"
    assert argv == ["/usr/bin/copilot", "--plugin-dir", str(folder), "--resume"] and not notes
    manifest = json.loads((folder / "plugin.json").read_text())
    assert manifest["name"] == "osf-tmux" and manifest["hooks"] == "hooks.json"
    assert json.loads((folder / "hooks.json").read_text()) == hooks_document()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "hooks.json").stat().st_mode) == 0o600
    assert not hooks_dir(tmp_path).exists()  # nothing of the person's touched
    # a second launch rewrites the same files
    agent_hooks.launch_argv("copilot", "/usr/bin/copilot", [], env)
    assert sorted(p.name for p in folder.iterdir()) == ["hooks.json", "plugin.json"]


def test_the_installed_command_runs_quietly() -> None:
    command = hooks_table()["Stop"][0]["bash"]
    proc = subprocess.run(
        ["bash", "-c", command],
        input=b'{"hook_event_name": "Stop", "stop_reason": "end_turn"}',
        capture_output=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=30,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


# --- the states real payloads report ---------------------------------------------------------

# Payloads as Copilot CLI 1.0.102 sent them to hooks configured under PascalCase event names
# (recorded in the lab: `clean the build directory`, approved; rules/NOTES-copilot.md).
SESSION = "e67202d9-5f66-4def-b75e-35456dbc349d"
RECORDED: list[tuple[dict[str, Any], str | None]] = [
    (
        {
            "hook_event_name": "SessionStart",
            "session_id": SESSION,
            "timestamp": "2026-12-01T15:38:04.565Z",
            "cwd": "/tmp/cop-lab/proj",
            "source": "new",
            "initial_prompt": "clean the build directory",
        },
        None,
    ),
    (
        {
            "hook_event_name": "UserPromptSubmit",
            "session_id": SESSION,
            "timestamp": "2026-12-01T15:38:04.674Z",
            "cwd": "/tmp/cop-lab/proj",
            "prompt": "clean the build directory",
        },
        "working",
    ),
    (
        {
            "hook_event_name": "PreToolUse",
            "session_id": SESSION,
            "timestamp": "2026-12-01T15:38:05.454Z",
            "cwd": "/tmp/cop-lab/proj",
            "tool_name": "Bash",
            "tool_input": {
                "command": "rm -rf build && sleep 2 && echo done",
                "description": "Remove the build directory",
            },
        },
        "working",
    ),
    (
        # PermissionRequest keeps the camelCase payload (no hook_event_name) even under its
        # PascalCase name, and fires also when no dialog is shown: not used
        {
            "hookName": "permissionRequest",
            "sessionId": SESSION,
            "timestamp": 1796139485593,
            "cwd": "/tmp/cop-lab/proj",
            "toolName": "bash",
            "toolInput": {"command": "rm -rf build && sleep 2 && echo done"},
            "permissionSuggestions": [],
        },
        None,
    ),
    (
        {
            "sessionId": SESSION,
            "timestamp": 1796139485649,
            "cwd": "/tmp/cop-lab/proj",
            "message": "Run command: rm -rf build && sleep 2 && echo done",
            "title": "Permission needed",
            "hook_event_name": "Notification",
            "notification_type": "permission_prompt",
        },
        "blocked",
    ),
    (
        {
            "hook_event_name": "PostToolUse",
            "session_id": SESSION,
            "timestamp": "2026-12-01T15:38:17.739Z",
            "cwd": "/tmp/cop-lab/proj",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf build && sleep 2 && echo done"},
            "tool_result": {"result_type": "success", "text_result_for_llm": "done\n"},
        },
        None,
    ),
    (
        {
            "hook_event_name": "Stop",
            "session_id": SESSION,
            "timestamp": "2026-12-01T15:38:19.543Z",
            "cwd": "/tmp/cop-lab/proj",
            "transcript_path": "/tmp/cop-lab/home/.copilot/session-state/x/events.jsonl",
            "stop_reason": "end_turn",
            "stop_hook_active": False,
        },
        "done",
    ),
]


def test_recorded_payloads() -> None:
    got = [report.state_for("copilot", payload) for payload, _ in RECORDED]
    assert got == [want for _, want in RECORDED]


def test_notifications_by_type() -> None:
    base = {"hook_event_name": "Notification", "message": "x", "sessionId": SESSION}
    # the ask_user form, as recorded: "Information requested"
    assert report.state_for("copilot", {**base, "notification_type": "elicitation_dialog"}) == (
        "blocked"
    )
    for background in ("shell_completed", "shell_detached_completed", "agent_completed",
                       "agent_idle"):  # fmt: skip
        assert report.state_for("copilot", {**base, "notification_type": background}) is None


def test_camel_case_payloads_say_nothing() -> None:
    """Hooks under camelCase names get payloads without an event name: not ours to guess."""
    stop = {"sessionId": SESSION, "timestamp": 1, "stopReason": "end_turn", "transcriptPath": "x"}
    assert report.state_for("copilot", stop) is None
