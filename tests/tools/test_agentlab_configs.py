"""The lab's named configurations and releases (tools/agentlab, `record --config/--agent-version`):
what a configuration changes in the scenarios and in the agent's seeded HOME. No agent runs."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tools.agentlab import claude as lab_claude
from tools.agentlab import fakeserver
from tools.agentlab.actions import Expect
from tools.agentlab.base import RunDirs
from tools.agentlab.claude import Claude
from tools.agentlab.dialect import offered_tools
from tools.agentlab.driver import Recorder
from tools.agentlab.script import Script, Tool, Turn


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


def test_mode_configs_set_the_permission_mode(tmp_path: Path) -> None:
    agent = Claude()
    agent.pinned = None
    for config, mode in (("plan", "plan"), ("acceptedits", "acceptEdits"), ("auto", "auto")):
        (tmp_path / config).mkdir()
        argv, _, _ = _launch(tmp_path / config, config)
        assert argv[argv.index("--permission-mode") + 1] == mode


def test_a_2_0_release_is_played_with_the_spinner_row_cue() -> None:
    """2.0.x keeps `esc to interrupt` on the spinner row above the box, not in the footer: the
    footer cue of 2.1.x would never see a 2.0.x turn working."""
    agent = Claude()
    agent.pinned = "2.0.77"
    cues = _cues(agent, "plan", "plan_approve")
    assert lab_claude.LEGACY_UI.working.pattern in cues
    assert lab_claude.WORKING.pattern not in cues
    assert agent.configured_scenarios(None)["question"].actions  # plain build works too
    agent.pinned = "2.1.116"
    assert lab_claude.WORKING.pattern in _cues(agent, "plan", "plan_approve")
    assert lab_claude.legacy_release("1.0.128") and not lab_claude.legacy_release("2.1.25")


def test_the_fake_server_writes_the_plan_where_plan_mode_says(tmp_path: Path) -> None:
    """Plan mode names its plan file only in a reminder inside the request; a `plan_file` step
    writes there (so ExitPlanMode shows the plan), or into the project without a reminder."""
    server = fakeserver.FakeModelServer(Script(list(lab_claude.Claude.turns)), tmp_path)
    try:
        step = Tool("plan_file", {"plan": "# Plan"})
        assert fakeserver._claude_tool(server, step)[1]["file_path"] == str(tmp_path / "PLAN.md")
        reminder = (
            "<system-reminder>Plan mode is active. No plan file exists yet. You should create "
            "your plan at /home/u/.claude/plans/brave-blue-fox.md using the Write tool."
            "</system-reminder>"
        )
        body = {
            "tools": [{"name": "Write"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": reminder}]},
                {"role": "user", "content": [{"type": "text", "text": lab_claude.P_PLAN_FILE}]},
            ],
        }
        fakeserver._anthropic_reply(server, body)
        name, args = fakeserver._claude_tool(server, step)
        assert (name, args["file_path"]) == ("Write", "/home/u/.claude/plans/brave-blue-fox.md")
        assert args["content"] == "# Plan"
    finally:
        server.httpd.server_close()


def test_a_request_offering_only_a_side_tool_is_a_side_request(tmp_path: Path) -> None:
    """Grok Build names its session with a request that offers only `session_title`: with the
    adapter's dialect it gets the side text, never the scripted turn (whose tool it lacks)."""
    from tools.agentlab import stories as st
    from tools.agentlab.grok_build import GrokBuild

    server = fakeserver.FakeModelServer(Script(list(st.ALL_TURNS)), tmp_path)
    try:
        title = {"type": "function", "function": {"name": "session_title", "parameters": {}}}
        body = {"messages": [{"role": "user", "content": st.P_BASH}], "tools": [title]}
        offered = offered_tools(body)
        turn = fakeserver._chat_reply(server, body, offered)
        assert any(isinstance(step, Tool) for step in turn)  # default dialect: the turn
        server.dialect = GrokBuild.dialect
        side = fakeserver._chat_reply(server, body, offered)
        assert not any(isinstance(step, Tool) for step in side)
    finally:
        server.httpd.server_close()


def test_grok_build_remember_config_seeds_the_scope_rows(tmp_path: Path) -> None:
    from tools.agentlab.grok_build import GrokBuild

    agent = GrokBuild()
    played = agent.configured_scenarios("remember")["bash_yes"]
    dirs = RunDirs(tmp_path, tmp_path / "home", tmp_path / "proj")
    dirs.home.mkdir()
    agent.launch(dirs, "http://127.0.0.1:9", played)
    config = (dirs.home / ".grok" / "config.toml").read_text()
    assert "remember_tool_approvals = true" in config
    assert 'base_url = "http://127.0.0.1:9/v1"' in config
    keys = [a.keys for a in played.actions if hasattr(a, "keys")]
    assert ("3",) in keys  # `3 Yes, proceed` once the Always allow row is option 2
    assert agent.remember is False  # the plain build is left as it was


def test_chat_prompt_found_among_reminder_parts() -> None:
    """Qwen Code 0.2x sends its context reminders and the prompt as parts of one user message:
    the prompt is still the turn's (before, the whole message counted as a reminder)."""
    from tools.agentlab import stories as st

    script = Script(list(st.ALL_TURNS))
    parts = [
        {"type": "text", "text": "<system-reminder>\nskills ...\n</system-reminder>"},
        {"type": "text", "text": "<system-reminder>\nThe current date is ...</system-reminder>"},
        {"type": "text", "text": st.P_BASH},
    ]
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are Qwen Code"}]
    messages.append({"role": "user", "content": parts})
    assert fakeserver._chat_position(messages, script) == (st.P_BASH, 0)
    # an assistant tool call after it is the turn's next step
    messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]})
    assert fakeserver._chat_position(messages, script) == (st.P_BASH, 1)


def test_a_chat_agent_writes_the_plan_where_plan_mode_says(tmp_path: Path) -> None:
    """Kimi Code's plan mode names its plan file in a reminder of a chat completions request
    (`Plan file: …/plans/<name>.md`): the `plan_file` step is the agent's own write tool aimed
    there, so ExitPlanMode finds a plan to show."""
    plan = "# Plan: --greeting option\n\n1. Parse arguments with argparse\n"
    prompt = "plan a --greeting option for app.py"
    turn = Turn(prompt, [[Tool("plan_file", {"plan": plan})], [Tool("plan", {"plan": plan})]])
    server = fakeserver.FakeModelServer(Script([turn]), tmp_path / "proj")
    try:
        write = {"type": "object", "properties": {"path": {}, "content": {}}}
        body = {
            "tools": [
                {"type": "function", "function": {"name": "Write", "parameters": write}},
                {"type": "function", "function": {"name": "ExitPlanMode", "parameters": {}}},
            ],
            "messages": [
                {"role": "system", "content": "Plan mode is active."},
                {
                    "role": "user",
                    "content": "Plan file: /home/u/.kimi-code/sessions/wd_proj_1/session_2/"
                    "agents/main/plans/superboy-karnak-killer-frost.md",
                },
                {"role": "user", "content": prompt},
            ],
        }
        offered = offered_tools(body)
        step = next(s for s in fakeserver._chat_reply(server, body, offered) if isinstance(s, Tool))
        call = fakeserver._chat_call(server, step, offered)
        assert call is not None and call["function"]["name"] == "Write"
        args = json.loads(call["function"]["arguments"])
        assert args["path"].endswith("/agents/main/plans/superboy-karnak-killer-frost.md")
        assert args["content"] == plan
        # without a reminder: PLAN.md in the project
        server.plan_file = None
        call = fakeserver._chat_call(server, step, offered)
        assert call is not None
        assert json.loads(call["function"]["arguments"])["path"] == str(tmp_path / "proj/PLAN.md")
    finally:
        server.httpd.server_close()
