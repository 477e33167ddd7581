"""doctor's checks one by one, from files a test controls (the live plugin test runs it whole)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import hooks
from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.plugin import doctor
from osf_tmux.plugin.doctor import Check, Probe
from osf_tmux.plugin.invoke import install_log, link_command, log_line, plugin_log
from osf_tmux.tmux import ServerSpec, Tmux


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


# ---- notifications: the daemon's own path, from its status.json ---------------------------

NOW = 1_800_000_000.0
NO_TMUX = Tmux(ServerSpec("osf-no-such-server-for-doctor"))  # options read fail: defaults


def daemon_status(notify: dict[str, Any]) -> dict[str, Any]:
    return {"running": True, "panes": [], "notify": notify}


def answers(bus: str, env: Any) -> Probe:
    return Probe(True, "", "a notification service answers", "dunst")


def dead(bus: str, env: Any) -> Probe:
    return Probe(False, "no-service", "no notification service answers (DBusError: gone)")


def test_notifications_report_the_daemons_desktop_path() -> None:
    status = daemon_status(
        {
            "path": "desktop",
            "backends": {
                "desktop": {
                    "bus": "unix:path=/run/user/1/bus",
                    "bus_from": "tmux's global environment",
                    "last_ok": NOW - 12,
                }
            },
        }
    )
    [check] = doctor.notifications(NO_TMUX, status, {}, NOW, probe=answers)
    assert check.level == "ok"
    assert "through the desktop" in check.message and "unix:path=/run/user/1/bus" in check.message
    assert "service dunst answers now" in check.message and "12s ago" in check.message


def test_notifications_say_why_the_daemon_uses_the_terminal_and_what_to_set() -> None:
    status = daemon_status(
        {
            "path": "terminal",
            "backends": {
                "desktop": {
                    "bus": "",
                    "bus_from": "nowhere",
                    "reason": "no notification service answers (no session bus address)",
                    "last_ok": NOW - 600,
                    "last_error": "DBusError: gone",
                    "last_error_at": NOW - 5,
                }
            },
        }
    )
    env = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus"}
    [check] = doctor.notifications(NO_TMUX, status, env, NOW, probe=dead)
    assert check.level == "warn"
    assert "not the desktop: no session bus address" in check.message
    assert "its session bus: none (from nowhere)" in check.message
    assert "this shell's bus is unix:path=/run/user/1/bus" in check.message
    assert "DBusError: gone" in check.message
    assert "set-environment -g DBUS_SESSION_BUS_ADDRESS" in check.fix
    assert "update-environment DBUS_SESSION_BUS_ADDRESS" in check.fix
    # Headless and never worked: a fact, not a problem.
    quiet = daemon_status({"path": "terminal", "backends": {"desktop": {"reason": "no bus"}}})
    assert doctor.notifications(NO_TMUX, quiet, {}, NOW, probe=dead)[0].level == "info"


def test_notifications_are_asked_now_not_read_from_the_last_one() -> None:
    """The last notification went through the desktop, but the service died since: a warning
    now, whose hint is the service, not the bus. The last one failed, but the service is back:
    ok. And doctor's exit status says there is a warning."""
    bus = {"bus": "unix:path=/run/user/1/bus", "bus_from": "tmux's global environment"}
    worked = daemon_status({"path": "desktop", "backends": {"desktop": {**bus, "last_ok": NOW}}})
    [check] = doctor.notifications(NO_TMUX, worked, {}, NOW, probe=dead)
    assert check.level == "warn" and "DBusError: gone" in check.message
    assert check.fix == doctor.SERVICE_FIX and "DBUS_SESSION_BUS_ADDRESS" not in check.fix
    assert doctor.exit_status([Check("x", "ok", ""), check]) == 2
    failed = {**bus, "last_error": "DBusError: gone", "last_error_at": NOW - 5}
    recovered = daemon_status({"path": "terminal", "backends": {"desktop": failed}})
    [check] = doctor.notifications(NO_TMUX, recovered, {}, NOW, probe=answers)
    assert check.level == "ok"
    assert doctor.exit_status([check]) == 0
    hung = Probe(False, "hung", "no notification service answers (no answer within 0.5s)")
    [check] = doctor.notifications(NO_TMUX, worked, {}, NOW, probe=lambda b, e: hung)
    assert check.level == "warn" and check.fix == doctor.HUNG_FIX
    nobus = daemon_status({"path": "terminal", "backends": {"desktop": {"last_ok": NOW - 60}}})
    [check] = doctor.notifications(NO_TMUX, nobus, {}, NOW, probe=answers)
    assert check.level == "warn" and check.fix == doctor.BUS_FIX  # no bus: nothing to ask


def test_notifications_probe_from_here_only_without_a_daemon(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    stopped = {"running": False, "notify": {"path": "desktop"}}
    [check] = doctor.notifications(NO_TMUX, stopped, {}, NOW)
    assert "checked from this shell" in check.message and check.level == "info"


def test_a_failing_notify_command_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from osf_tmux.plugin import notify

    config = notify.NotifyConfig(command="ntfy publish mytopic")
    monkeypatch.setattr(notify, "read_config", lambda tmux: config)
    failure = {
        "at": NOW - 3,
        "address": "work:1.0",
        "error": "exit status 127",
        "stderr": "sh: 1: ntfy: not found",
    }
    status = daemon_status(
        {
            "path": "terminal",
            "backends": {},
            "command": {"runs": 2, "failures": 1, "last": failure, "last_failure": failure},
        }
    )
    checks = {c.name: c for c in doctor.notifications(NO_TMUX, status, {}, NOW)}
    command = checks["notify command"]
    assert command.level == "warn"
    assert "exit status 127" in command.message and "ntfy: not found" in command.message
    ok = {**failure, "at": NOW - 1, "error": "", "stderr": ""}
    status["notify"]["command"]["last"] = ok
    checks = {c.name: c for c in doctor.notifications(NO_TMUX, status, {}, NOW)}
    assert checks["notify command"].level == "ok"


def _files(tmp_path: Path) -> DaemonFiles:
    return DaemonFiles(tmp_path / "state", tmp_path / "run")


def test_a_daemon_that_died_is_named(tmp_path: Path) -> None:
    """Its status file still says running, but nobody holds the lock."""
    files = _files(tmp_path)
    status = {"pid": 4242, "running": True, "updated": 1000.0, "panes": []}
    [check] = doctor.daemon(files, status, now=1030.0)
    assert check.level == "fail" and "died without stopping" in check.message
    assert "4242" in check.message and "30 s ago" in check.message
    [gave_up] = doctor.daemon(files, {**status, "running": False}, 1030.0, down="daemon down")
    assert gave_up.level == "fail" and "again and again" in gave_up.message
    [stopped] = doctor.daemon(files, {**status, "running": False}, 1030.0)
    assert "not running" in stopped.message


class _Hooks:
    """Stands in for Tmux: `show-hooks -g` (sessions' hooks) and `show-hooks -gw` (windows'
    and panes', which tmux 3.3a lists only there) answer with these lines."""

    def __init__(self, sessions: str, windows: str = "") -> None:
        self.listings: dict[tuple[str, ...], str] = {
            ("show-hooks", "-g"): sessions,
            ("show-hooks", "-gw"): windows,
        }

    def run(self, *args: str) -> str:
        return self.listings[args]


def test_hooks_of_a_dead_daemon_are_reported(tmp_path: Path) -> None:
    listing = "after-new-window[0] wait-for -S osf-tmux-wake\n"
    files = _files(tmp_path)
    [stale] = doctor.hooks(_Hooks(listing), files, running=False)  # type: ignore[arg-type]
    assert stale.level == "warn" and "daemon that is gone" in stale.message
    [fine] = doctor.hooks(_Hooks(listing), files, running=True)  # type: ignore[arg-type]
    assert fine.level == "ok"


def test_window_hooks_left_behind_are_seen(tmp_path: Path) -> None:
    files = _files(tmp_path)
    windows = "pane-died[0] display-message mine\npane-died[1] wait-for -S osf-tmux-wake\n"
    [stale] = doctor.hooks(_Hooks("", windows), files, running=False)  # type: ignore[arg-type]
    assert stale.level == "warn" and "1 hooks of a daemon that is gone" in stale.message
    sessions = "after-new-window[0] wait-for -S osf-tmux-wake\n"
    again = windows + "pane-died[2] wait-for -S osf-tmux-wake\n"
    [twice] = doctor.hooks(_Hooks(sessions, again), files, running=True)  # type: ignore[arg-type]
    assert twice.level == "warn" and "more than once (pane-died)" in twice.message
    assert "osf-tmux stop && osf-tmux start" in twice.fix


def test_the_link_command_puts_osf_tmux_on_path(tmp_path: Path) -> None:
    """After the quick start (a venv) or TPM's install, `osf-tmux` is not on PATH while the
    README types it bare: one command links it, into a folder of yours on PATH if there is
    one, ~/.local/bin first."""
    home = tmp_path / "home"
    local, cargo = home / ".local" / "bin", home / ".cargo" / "bin"
    for folder in (local, cargo):
        folder.mkdir(parents=True)
    venv = tmp_path / "clone" / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "osf-tmux").write_text("#!/bin/sh\n")
    (venv / "osf-tmux").chmod(0o755)
    program = str(venv / "osf-tmux")
    env = {"HOME": str(home), "PATH": f"{cargo}:/usr/bin:{local}"}
    assert link_command(program, env) == f"ln -s {program} {local}/osf-tmux"
    bare = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    said = link_command(program, bare)
    assert said is not None and said.startswith(f"mkdir -p ~/.local/bin && ln -s {program} ")
    assert "put ~/.local/bin on your PATH" in said
    (local / "osf-tmux").symlink_to(program)  # linked: nothing more to say
    assert link_command(program, env) is None
    [fine] = doctor.command_on_path(env, program)
    assert fine.level == "ok"
    [check] = doctor.command_on_path(bare, program)
    assert check.level == "info" and check.fix == said and program in check.message


def test_load_by_hand_prints_the_one_command_that_links_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from osf_tmux.cli import plugin
    from osf_tmux.cli.app import cli

    # the program as the quick start runs it (under pytest, argv[0] is pytest's own)
    program = str(tmp_path / "clone" / ".venv" / "bin" / "osf-tmux")
    monkeypatch.setattr(plugin, "own_command", lambda: [program])
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    env = {"TMUX": "", "TMUX_TMPDIR": str(tmp_path), "HOME": str(home),
           "PATH": f"{home}/.local/bin:/usr/bin:/bin"}  # fmt: skip
    res = CliRunner().invoke(cli, ["plugin", "load"], env=env)  # outside tmux, no server
    assert res.exit_code == 0, res.output
    assert "no tmux server is running here" in res.output
    assert f"to type it as `osf-tmux`, run: ln -s {program} {home}/.local/bin/osf-tmux" in (
        res.output
    )
