"""The lab's named configurations and releases (tools/agentlab, `record --config/--agent-version`):
what a configuration changes in the scenarios and in the agent's seeded HOME. No agent runs."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tools.agentlab import claude as lab_claude
from tools.agentlab.actions import Expect
from tools.agentlab.base import RunDirs
from tools.agentlab.claude import Claude
from tools.agentlab.driver import Recorder


def _cues(agent: Claude, config: str | None, scenario: str) -> list[str]:
    played = agent.configured_scenarios(config)[scenario]
    return [a.cue.pattern for a in played.actions if isinstance(a, Expect)]


def test_status_line_config_swaps_the_cues_and_rides_in_the_options() -> None:
    agent = Claude()
    plain = agent.configured_scenarios(None)["text"]
    dressed = agent.configured_scenarios("statusline2")["text"]
    assert "config" not in plain.options
    assert dressed.options["config"] == "statusline2"
    assert dressed.options["statusline"] == "two"
    # the footer hint is gone with a status line: the spinner row tells working instead
    assert lab_claude.STATUS_WORKING.pattern in _cues(agent, "statusline2", "text")
    assert lab_claude.WORKING.pattern in _cues(agent, None, "text")
    # the adapter is left as it was: the next plain build uses the footer cues again
    assert agent.ui is lab_claude.DEFAULT_UI


def test_unknown_config_is_refused() -> None:
    with pytest.raises(SystemExit, match="unknown config"):
        Claude().configured_scenarios("no-such-config")


def _launch(tmp_path: Path, config: str) -> tuple[list[str], dict[str, str], RunDirs]:
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    dirs.proj.mkdir()
    agent = Claude()
    scenario = agent.configured_scenarios(config)["text"]
    argv, env = agent.launch(dirs, "http://127.0.0.1:9", scenario)
    return argv, env, dirs


def test_status_line_config_writes_an_executable_script(tmp_path: Path) -> None:
    _, _, dirs = _launch(tmp_path, "statusline-color")
    settings = json.loads((dirs.home / ".claude" / "settings.json").read_text())
    script = Path(settings["statusLine"]["command"])
    assert settings["statusLine"]["type"] == "command"
    assert script.parent == dirs.home / ".claude"
    assert script.stat().st_mode & stat.S_IXUSR
    assert "\\033[" in script.read_text()  # the coloured variant


def test_bypass_config_adds_the_flag_and_the_sandbox_marker(tmp_path: Path) -> None:
    argv, env, dirs = _launch(tmp_path, "bypass")
    assert "--dangerously-skip-permissions" in argv
    assert env["IS_SANDBOX"] == "1"
    state = json.loads((dirs.home / ".claude.json").read_text())
    assert state["bypassPermissionsModeAccepted"] is True


def test_vim_and_theme_configs_seed_the_state_file(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    _, _, dirs = _launch(tmp_path / "a", "vim")
    assert json.loads((dirs.home / ".claude.json").read_text())["editorMode"] == "vim"
    (tmp_path / "b").mkdir()
    _, _, dirs = _launch(tmp_path / "b", "theme-light-daltonized")
    assert json.loads((dirs.home / ".claude.json").read_text())["theme"] == "light-daltonized"


def test_run_directory_names_the_config(tmp_path: Path) -> None:
    agent = Claude()
    agent.pinned = None  # the default install, whatever OSF_LAB_CLAUDE_VERSION says
    scenario = agent.configured_scenarios("statusline1")["text"]
    rec = Recorder(agent, scenario, 80, 24, tmp_path, verbose=False)
    assert rec.run_name() == "claude-statusline1"
    plain = Recorder(agent, agent.configured_scenarios(None)["text"], 80, 24, tmp_path)
    assert plain.run_name() == "claude"  # the plain runs' paths (in banners) do not move


def test_a_release_that_is_not_installed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path))
    with pytest.raises(SystemExit, match="not installed"):
        Claude().use_version("2.1.0")
