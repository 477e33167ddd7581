"""The CLI end to end through click's runner: output shapes and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from osf_tmux.cli.main import main

DEMO_RULES = """
agent = "demo"
processes = ["demo"]

[[rule]]
id = "ask"
state = "blocked"
region = "tail:3"
all = ['^Proceed\\?$', '^ 1\\. Yes']

[[rule]]
id = "busy"
state = "working"
region = "bottom:1"
all = ['working']
"""

# Cursor-addressed like a real TUI: the question is drawn with CUP, no newlines at all.
CAPTURE = b"\x1b]0;demo\x07\x1b[24;1Hworking" + b"\x1b[2J\x1b[22;1HProceed?\x1b[23;1H 1. Yes"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    rules = tmp_path / "config" / "rules"
    rules.mkdir(parents=True)
    (rules / "demo.toml").write_text(DEMO_RULES, encoding="utf-8")
    return {"OSF_TMUX_CONFIG_DIR": str(tmp_path / "config")}


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    path = tmp_path / "demo-40x24.bytes"
    path.write_bytes(CAPTURE)
    return path


def run(args: list[str], env: dict[str, str]) -> Result:
    return CliRunner().invoke(main, args, env=env)


def test_replay_json_at_offsets(capture: Path, env: dict[str, str]) -> None:
    mid = CAPTURE.index(b"\x1b[2J")
    res = run(["replay", str(capture), "--agent", "demo", "--at", f"0,{mid}", "--json"], env)
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.output.splitlines()]
    assert lines == [
        {"offset": 0, "state": "idle", "rule": None, "agent": "demo"},
        {"offset": mid, "state": "working", "rule": "busy", "agent": "demo"},
    ]
    # default: the end of the file, size taken from the name
    res = run(["replay", str(capture), "--agent", "demo"], env)
    assert res.exit_code == 0, res.output
    assert res.output.split("\t")[:3] == [str(len(CAPTURE)), "blocked", "ask\n"]


def test_explain_json(capture: Path, env: dict[str, str]) -> None:
    res = run(
        ["explain", "--file", str(capture), "--size", "40x24", "--agent", "demo", "--json"], env
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["state"] == "blocked" and out["rule"] == "ask"
    assert out["title"] == "demo" and out["alt_screen"] is False
    assert len(out["rows"]) == 24 and out["rows"][21] == "Proceed?"
    assert out["cursor"] == [7, 22]
    assert out["trace"][0]["matched"] is True


def test_explain_text_names_failing_conditions(capture: Path, env: dict[str, str]) -> None:
    mid = CAPTURE.index(b"\x1b[2J")
    res = run(["explain", "--file", str(capture), "--agent", "demo", "--at", str(mid)], env)
    assert res.exit_code == 0, res.output
    assert "ask [blocked]: all: /^Proceed\\?$/ not found in tail:3" in res.output
    assert "state: working (rule: busy)" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "{missing}", "--size", "80x24", "--agent", "demo"], "cannot read"),
        (["replay", "{capture}", "--size", "80by24", "--agent", "demo"], "not COLSxROWS"),
        (["replay", "{capture}", "--size", "0x24", "--agent", "demo"], "out of range"),
        (["replay", "{capture}", "--agent", "nobody"], "unknown agent 'nobody'"),
        (["replay", "{capture}", "--agent", "demo", "--at", "x"], "not a byte offset"),
        (["replay", "{capture}", "--agent", "demo", "--at", "99999"], "past the end"),
        (["replay", "{plain}", "--agent", "demo"], "give --size"),
        (["replay", "{plain}", "--size", "80x24"], "give --agent"),
    ],
)
def test_bad_input_is_one_line_error(
    args: list[str], message: str, capture: Path, env: dict[str, str], tmp_path: Path
) -> None:
    plain = tmp_path / "plain.bin"
    plain.write_bytes(b"x")
    names = {"missing": str(tmp_path / "nope.bytes"), "capture": str(capture), "plain": str(plain)}
    res = run([a.format(**names) for a in args], env)
    assert res.exit_code != 0
    assert message in res.output
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)


def test_rules_check(tmp_path: Path, env: dict[str, str]) -> None:
    good = Path(env["OSF_TMUX_CONFIG_DIR"]) / "rules" / "demo.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text('agent = "b"\n[[rule]]\nid = "x"\nstate = "nope"\nall = ["("]\n')
    res = run(["rules", "check", str(good), str(bad)], env)
    assert res.exit_code == 1
    assert f"ok: {good} (demo, 2 rules)" in res.output
    assert "rule x: state: must be one of" in res.output
    assert "rule x: all[1]: bad regex" in res.output
    assert "1 of 2 manifests have problems" in res.output
    # no files: the shipped manifests plus the user's, all valid
    res = run(["rules", "check"], env)
    assert res.exit_code == 0, res.output
    assert "(demo, 2 rules)" in res.output


def test_broken_user_manifest_warns_and_shipped_rules_stay(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "claude.toml").write_text("agent = ")
    res = run(["rules", "list"], {"OSF_TMUX_CONFIG_DIR": str(tmp_path)})
    assert res.exit_code == 0
    assert "warning:" in res.output and "not valid TOML" in res.output
    assert "claude\t" in res.output and "shipped:" in res.output


def _commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    out = []
    for name, cmd in group.commands.items():
        out.append([*prefix, name])
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, [*prefix, name]))
    return out


@pytest.mark.parametrize("path", _commands(main, []), ids=" ".join)
def test_every_command_has_help(path: list[str]) -> None:
    res = CliRunner().invoke(main, [*path, "--help"])
    assert res.exit_code == 0
    assert len(res.output.splitlines()) > 3
