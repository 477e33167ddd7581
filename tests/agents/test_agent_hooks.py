"""Installing and uninstalling osf-tmux's hooks in the agents' own settings files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from osf_tmux.agents.integration import agent_module
from osf_tmux.cli.app import cli as main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# A user's settings: their own hooks (one on an event we use too), other keys, odd formatting.
USER_SETTINGS = (
    '{\n\t"model":   "opus",\n\t"permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "default"},'
    '\n\t"hooks": {\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],'
    '\n\t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
    '"command": "audit.sh"}]}]\n\t},\n\t"statusLine": {"type": "command", "command": "ünïcode"}\n}'
)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def install(agent: str, env: dict[str, str]) -> agent_hooks.Plan:
    plan = plan_install(agent, env)
    apply(plan)
    return plan


def uninstall(agent: str, env: dict[str, str]) -> agent_hooks.Plan:
    plan = plan_uninstall(agent, env)
    apply(plan)
    return plan


def ours(hooks: dict[str, Any]) -> dict[str, int]:
    """How many of our hooks each event holds."""
    return {
        event: sum(
            "osf_tmux/agents/report.py" in h.get("command", "")
            for group in groups
            for h in group.get("hooks", [])
        )
        for event, groups in hooks.items()
    }


def test_claude_round_trip_keeps_everything_of_the_users(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS, encoding="utf-8")
    original = settings.read_bytes()

    install("claude", env)
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["model"] == "opus" and data["statusLine"]["command"] == "ünïcode"
    assert data["permissions"] == {"allow": ["Bash(ls:*)"], "defaultMode": "default"}
    assert ours(data["hooks"]) == {
        "Stop": 1,
        "PreToolUse": 1,
        "UserPromptSubmit": 1,
        "PermissionRequest": 1,
        "Notification": 1,
    }
    # the user's hooks stay, first
    assert data["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "say done"}]}
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    assert "SubagentStop" not in data["hooks"]
    assert "\n\t\t" in settings.read_text()  # the file's own indentation (tabs) is kept
    assert agent_hooks.backup_path(settings).read_bytes() == original

    installed = settings.read_bytes()
    assert plan_install("claude", env).changes == []  # a second install changes nothing
    install("claude", env)
    assert settings.read_bytes() == installed

    uninstall("claude", env)
    assert settings.read_bytes() == original  # byte for byte
    assert not agent_hooks.backup_path(settings).exists()
    assert plan_uninstall("claude", env).changes == []


def test_claude_uninstall_keeps_what_the_user_changed_since(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(USER_SETTINGS, encoding="utf-8")
    install("claude", env)
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "later.sh"}]})
    settings.write_text(json.dumps(data))

    uninstall("claude", env)
    after = json.loads(settings.read_text())
    expected = json.loads(USER_SETTINGS)
    expected["theme"] = "dark"
    expected["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "later.sh"}]})
    assert after == expected


def test_claude_settings_created_and_removed_again(tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    env = env_for(tmp_path, CLAUDE_CONFIG_DIR=str(config))
    install("claude", env)
    settings = config / "settings.json"
    assert set(json.loads(settings.read_text())["hooks"]) == {
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
        "Stop",
    }
    assert settings.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "home" / ".claude").exists()  # CLAUDE_CONFIG_DIR wins
    uninstall("claude", env)
    assert not settings.exists()


@pytest.mark.parametrize(
    "text",
    ['{"model": "opus",}', "{'single': 1}", '{"hooks": {"Stop": [}', "[1, 2]", '{"hooks": []}'],
)
def test_unreadable_settings_are_left_alone(tmp_path: Path, text: str) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    with pytest.raises(HooksError, match=r"(?i)nothing was changed"):
        plan_install("claude", env)
    with pytest.raises(HooksError):
        plan_uninstall("claude", env)
    assert settings.read_text() == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_invalid_json_error_says_where(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "a": 1,\n  "b": oops\n}')
    with pytest.raises(HooksError, match=r"settings\.json is not valid JSON \(line 3, column 8"):
        plan_install("claude", env)


def test_an_older_install_of_ours_is_replaced_not_doubled(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    old = agent_hooks.hooks_table("claude", "/old/venv/bin/python -m osf_tmux.agents.report claude")
    settings.write_text(json.dumps({"hooks": old}))
    install("claude", env)
    hooks = json.loads(settings.read_text())["hooks"]
    assert all(n == 1 for n in ours(hooks).values())
    assert "/old/venv" not in settings.read_text()


CODEX_CONFIG = """# my codex config
model = "gpt-5.5"
approval_policy = "on-request"

[model_providers.lab]
name = "lab"
base_url = "http://127.0.0.1:9/v1"
"""


def test_codex_hooks_and_notify_round_trip(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    env = env_for(tmp_path, CODEX_HOME=str(home))
    config = home / "config.toml"
    config.write_text(CODEX_CONFIG)
    plan = install("codex", env)
    assert any("/hooks" in note for note in plan.notes)  # Codex asks to trust new hooks
    parsed = tomllib.loads(config.read_text())
    assert parsed["notify"] == agent_hooks.notify_argv("codex")
    assert parsed["model_providers"]["lab"]["name"] == "lab"
    assert parsed["model"] == "gpt-5.5"
    hooks = json.loads((home / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"UserPromptSubmit", "PreToolUse", "PermissionRequest", "Stop"}
    assert plan_install("codex", env).changes == []

    uninstall("codex", env)
    assert config.read_text() == CODEX_CONFIG
    assert not (home / "hooks.json").exists()
    assert sorted(p.name for p in home.iterdir()) == ["config.toml"]


def test_codex_users_own_notify_is_kept(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    env = env_for(tmp_path, CODEX_HOME=str(home))
    config = home / "config.toml"
    text = 'notify = ["notify-send", "codex"]\n' + CODEX_CONFIG
    config.write_text(text)
    plan = install("codex", env)
    assert any("notify" in note for note in plan.notes)
    assert config.read_text() == text
    assert (home / "hooks.json").exists()  # hooks still go in
    argv, notes = agent_hooks.launch_argv("codex", "/bin/codex", ["--no-daemon"], env)
    assert argv == ["/bin/codex", "--no-daemon"]  # and launch leaves their notify in charge
    assert notes


def test_codex_invalid_toml_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    env = env_for(tmp_path, CODEX_HOME=str(home))
    (home / "config.toml").write_text("model = \n")
    with pytest.raises(HooksError, match="not valid TOML"):
        plan_install("codex", env)
    assert sorted(p.name for p in home.iterdir()) == ["config.toml"]


def test_gemini_hooks(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"security": {"auth": {"selectedType": "gemini-api-key"}}}')
    original = settings.read_bytes()
    install("gemini", env)
    hooks = json.loads(settings.read_text())["hooks"]
    assert set(hooks) == {"BeforeAgent", "BeforeTool", "Notification", "AfterAgent"}
    hook = hooks["Notification"][0]["hooks"][0]
    assert hook["name"] == "osf-tmux" and hook["timeout"] == 10_000  # Gemini: milliseconds
    uninstall("gemini", env)
    assert settings.read_bytes() == original


def test_launch_argv_for_claude_carries_the_hooks() -> None:
    argv, _ = agent_hooks.launch_argv("claude", "/usr/bin/claude", ["--resume", "x"], {})
    assert argv[0] == "/usr/bin/claude" and argv[1] == "--settings"
    assert argv[3:] == ["--resume", "x"]
    assert json.loads(argv[2]) == {"hooks": agent_hooks.hooks_table("claude")}
    with pytest.raises(HooksError, match="Gemini"):
        agent_hooks.launch_argv("gemini", "/usr/bin/gemini", [], {})


def test_launch_argv_for_codex_sets_notify(tmp_path: Path) -> None:
    env = env_for(tmp_path, CODEX_HOME=str(tmp_path / "none"))
    argv, notes = agent_hooks.launch_argv("codex", "/bin/codex", ["exec", "hi"], env)
    assert argv[:2] == ["/bin/codex", "-c"] and argv[3:] == ["exec", "hi"] and not notes
    assert tomllib.loads(argv[2])["notify"] == agent_hooks.notify_argv("codex")


def test_the_installed_command_runs(tmp_path: Path) -> None:
    command = agent_hooks.report_command("claude")
    proc = subprocess.run(
        command,
        shell=True,
        input=b'{"hook_event_name": "Stop"}',
        capture_output=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=30,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.fixture
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_symlinked_settings_file_is_written_through_and_keeps_its_mode(
    tmp_path: Path, usual_umask: None
) -> None:
    # A dotfile manager keeps the real file in a repository and links it into place.
    env = env_for(tmp_path)
    real = tmp_path / "dotfiles" / "claude" / "settings.json"
    real.parent.mkdir(parents=True)
    real.write_text(USER_SETTINGS)
    os.chmod(real, 0o660)  # group-writable: more than the umask lets a new file have
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)

    install("claude", env)
    assert link.is_symlink() and link.resolve() == real
    assert stat.S_IMODE(real.stat().st_mode) == 0o660
    assert sum(ours(json.loads(real.read_text())["hooks"]).values()) == 5
    backup = agent_hooks.backup_path(link)
    assert not backup.is_symlink() and backup.read_text() == USER_SETTINGS

    uninstall("claude", env)
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text() == USER_SETTINGS  # exact undo, through the link
    assert stat.S_IMODE(real.stat().st_mode) == 0o660
    assert not backup.exists()
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]


def test_a_dangling_link_gets_its_file_and_loses_it_again(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    install("claude", env)
    assert link.is_symlink() and "hooks" in json.loads(real.read_text())
    uninstall("claude", env)
    assert link.is_symlink() and not real.exists()


@pytest.mark.parametrize("linked", [False, True], ids=["file", "link"])
def test_a_read_only_settings_file_is_refused(tmp_path: Path, linked: bool) -> None:
    env = env_for(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    real = tmp_path / "dotfiles.json" if linked else settings
    real.write_text(USER_SETTINGS)
    os.chmod(real, 0o444)
    if linked:
        settings.symlink_to(real)
    with pytest.raises(HooksError, match=r"is read-only \(mode 444\).*Nothing was changed"):
        plan_install("claude", env)
    assert real.read_text() == USER_SETTINGS and stat.S_IMODE(real.stat().st_mode) == 0o444
    assert not agent_hooks.backup_path(settings).exists()
    assert settings.is_symlink() == linked


def test_hooks_install_says_why_a_read_only_file_stays(tmp_path: Path) -> None:
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{}\n")
    os.chmod(settings, 0o444)
    result = CliRunner().invoke(
        main, ["hooks", "install", "--agent", "claude"], env=env_for(tmp_path)
    )
    assert result.exit_code == 1
    assert "is read-only (mode 444)" in result.output and "chmod u+w" in result.output
    assert settings.read_text() == "{}\n"


def test_every_agent_module_names_itself_and_can_launch_or_says_why_not() -> None:
    """Each agent module is data the hook files are planned from: its NAME is its id (what the
    endpoint reports and `--agent` takes), and it either launches with our hooks or says why it
    cannot."""
    for agent in agent_hooks.AGENTS:
        module = agent_module(agent)
        assert agent == module.NAME
        reason = getattr(module, "NO_LAUNCH", "")
        assert (
            callable(getattr(module, "launch", None)) or f"hooks install --agent {agent}" in reason
        )
