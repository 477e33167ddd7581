"""doctor's checks one by one, from files a test controls (the live plugin test runs it whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.agents import hooks
from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.plugin import doctor
from osf_tmux.plugin.doctor import Check
from osf_tmux.plugin.invoke import install_log, log_line, plugin_log
from osf_tmux.tmux import ServerSpec


def test_agent_hooks_found_in_claude_settings(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path), "HOME": "/nonexistent"}
    [missing] = doctor.agent_hooks(env)
    assert missing.level == "info" and "osf-tmux hooks install" in missing.fix
    hooks.apply(hooks.plan_install("claude", env))
    [found] = doctor.agent_hooks(env)
    assert found.level == "ok" and str(tmp_path / "settings.json") in found.message


def files_in(tmp_path: Path, name: str) -> DaemonFiles:
    return DaemonFiles.for_server(ServerSpec(name), {"XDG_STATE_HOME": str(tmp_path / "state")})


def test_the_plugin_log_is_this_servers_own(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    mine, theirs = files_in(tmp_path, "mine"), files_in(tmp_path, "theirs")
    [none] = doctor.plugin_log_check(mine, env)
    assert none.level == "info" and "no plugin load for this server yet" in none.message
    log_line(plugin_log(theirs.state), "load", "failed: something of theirs")
    assert doctor.plugin_log_check(mine, env)[0].level == "info"  # another server's load
    log_line(plugin_log(mine.state), "load", "ok for tmux -L mine: prefix + A next")
    [ok] = doctor.plugin_log_check(mine, env)
    assert ok.level == "ok" and "tmux -L mine" in ok.message
    [failed] = doctor.plugin_log_check(theirs, env)
    assert failed.level == "fail" and "something of theirs" in failed.message


def test_a_failed_install_fails_until_a_load_goes_well(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    mine = files_in(tmp_path, "mine")
    install = install_log(env)
    install.parent.mkdir(parents=True)
    install.write_text(
        "2026-01-01 10:00:00 bootstrap: installing osf-tmux into /p/osf-tmux/.venv with python3\n"
        "    | ERROR: Could not find a version that satisfies the requirement hatchling\n"
        "2026-01-01 10:00:09 bootstrap: failed: venv or pip install (output above)\n"
    )
    checks = doctor.plugin_log_check(mine, env)
    assert [c.name for c in checks] == ["plugin log", "plugin install"]
    assert checks[1].level == "fail" and "hatchling" in checks[1].message
    assert "pipx install /p/osf-tmux" in checks[1].fix and "osf-tmux install" not in checks[1].fix
    log = plugin_log(mine.state)
    log.parent.mkdir(parents=True)
    log.write_text("2026-01-01 10:05:00 load: ok for tmux -L mine: prefix + A next\n")
    assert [c.level for c in doctor.plugin_log_check(mine, env)] == ["ok"]


def test_broken_user_rules_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSF_TMUX_CONFIG_DIR", str(tmp_path))
    assert [c.level for c in doctor.rules()] == ["ok"]
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "mine.toml").write_text('agent = "claude"\n[[rule]]\nid = 3\n')
    checks = doctor.rules()
    assert checks and all(c.level == "fail" for c in checks)
    assert "mine.toml" in checks[0].message


def test_foreign_pipes_are_named() -> None:
    status = {
        "panes": [
            {"pane": "%1", "address": "a:0.0", "pipe": "pipe"},
            {"pane": "%2", "address": "a:1.0", "pipe": "foreign"},
        ]
    }
    ok, foreign = doctor.pipes(status)
    assert ok.level == "ok" and "1 panes" in ok.message
    assert foreign.level == "warn" and "a:1.0" in foreign.message


def test_render_shows_fixes_for_problems_only() -> None:
    text = doctor.render(
        [Check("a", "ok", "fine", "never shown"), Check("b", "fail", "broken\nmore", "do this")]
    )
    assert text.splitlines() == [
        "[ ok ] a: fine",
        "[FAIL] b: broken",
        "         more",
        "         -> do this",
    ]
