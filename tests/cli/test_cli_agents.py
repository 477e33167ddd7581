"""The agent commands as a person runs them: hooks install/uninstall, launch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.cli.app import cli as main


def run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, list(args), env={"HOME": str(home), "CLAUDE_CONFIG_DIR": None}
    )
    return result.exit_code, result.output


def test_hooks_install_twice_then_uninstall(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}')
    code, out = run(tmp_path, "hooks", "install", "--agent", "claude", "--dry-run")
    assert code == 0 and f"would write {settings}" in out
    assert settings.read_text() == '{"model": "opus"}'
    code, out = run(tmp_path, "hooks", "install", "--agent", "claude")
    assert code == 0 and f"write {settings}" in out and "kept the original" in out
    assert json.loads(settings.read_text())["model"] == "opus"
    code, out = run(tmp_path, "hooks", "install", "--agent", "claude")
    assert code == 0 and "nothing to install" in out
    code, out = run(tmp_path, "hooks", "uninstall", "--agent", "claude")
    assert code == 0 and settings.read_text() == '{"model": "opus"}'


def test_hooks_install_refuses_a_broken_file(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",,}')
    code, out = run(tmp_path, "hooks", "install", "--agent", "claude")
    assert code == 1 and "is not valid JSON (line 1" in out and "Nothing was changed" in out
    assert settings.read_text() == '{"model": "opus",,}'


def test_hooks_agent_must_be_known(tmp_path: Path) -> None:
    code, out = run(tmp_path, "hooks", "install", "--agent", "aider")
    assert code == 2 and "aider" in out


def _osf(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "osf_tmux", *args], capture_output=True, text=True, env=env,
        timeout=60,
    )  # fmt: skip


def test_launch_execs_the_agent_with_our_hooks(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    argv_file = tmp_path / "argv.json"
    fake = bindir / "claude"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump(sys.argv[1:], open({str(argv_file)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}", "HOME": str(tmp_path)}
    proc = _osf(env, "launch", "claude", "--resume", "abc", "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    args = json.loads(argv_file.read_text())
    assert args[0] == "--settings" and args[2:] == ["--resume", "abc", "-p", "hi"]
    assert json.loads(args[1]) == {"hooks": agent_hooks.hooks_table("claude")}
    assert not (tmp_path / ".claude").exists()  # no file of the user's touched


def test_launch_without_the_agent_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path), "HOME": str(tmp_path)}
    proc = _osf(env, "launch", "claude")
    assert proc.returncode == 1 and "claude is not installed or not on PATH" in proc.stderr


def test_every_agent_command_has_help() -> None:
    for args in (["hooks", "install"], ["hooks", "uninstall"], ["launch"], ["send"], ["answer"]):
        result = CliRunner().invoke(main, [*args, "--help"])
        assert result.exit_code == 0 and len(result.output.splitlines()) > 4, args
