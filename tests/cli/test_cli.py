"""The CLI end to end through click's runner: output shapes and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from osf_tmux.cli import keys
from osf_tmux.cli.app import cli as main
from tests.support.tmux_server import TmuxServer

DEMO_RULES = """
agent = "demo"
name = "Demo Agent"
aliases = ["demo-cli"]
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
    res = run(["explain", str(capture), "--size", "40x24", "--agent", "demo", "--json"], env)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["state"] == "blocked" and out["rule"] == "ask"
    assert out["title"] == "demo" and out["alt_screen"] is False
    assert len(out["rows"]) == 24 and out["rows"][21] == "Proceed?"
    assert out["cursor"] == [7, 22]
    assert out["trace"][0]["matched"] is True


def test_explain_text_names_failing_conditions(capture: Path, env: dict[str, str]) -> None:
    mid = CAPTURE.index(b"\x1b[2J")
    res = run(["explain", str(capture), "--agent", "demo", "--at", str(mid)], env)
    assert res.exit_code == 0, res.output
    assert "ask [blocked]: all: /^Proceed\\?$/ not found in tail:3" in res.output
    assert "state: working (rule: busy)" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "{missing}", "--size", "80x24", "--agent", "demo"], "cannot read"),
        # a missing file is the first thing said, before any option it would need
        (["replay", "{missing}"], "cannot read"),
        (["explain", "{missing}"], "cannot read"),
        (["explain", "{plain}"], "give --size"),
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


def test_explain_takes_a_list_of_offsets_like_replay(capture: Path, env: dict[str, str]) -> None:
    mid = CAPTURE.index(b"\x1b[2J")
    res = run(["explain", str(capture), "--agent", "demo", "--at", f"{mid},0", "--json"], env)
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.output.splitlines()]
    assert [(x["offset"], x["state"]) for x in lines] == [(mid, "working"), (0, "idle")]
    text = run(["explain", str(capture), "--agent", "demo", "--at", f"{mid},0"], env).output
    assert text.count("offset ") == 2 and "state: working" in text and "state: idle" in text


def test_explain_without_an_agent_shows_the_screen_unjudged(tmp_path: Path) -> None:
    plain = tmp_path / "plain.bin"
    plain.write_bytes(b"hello\r\nworld")
    res = run(["explain", str(plain), "--size", "20x3"], {})
    assert res.exit_code == 0, res.output
    assert "0|hello" in res.output and "1|world" in res.output
    assert "state: not judged (no agent" in res.output
    res = run(["explain", str(plain), "--size", "20x3", "--json"], {})
    out = json.loads(res.output)
    assert out["agent"] is None and out["state"] is None and out["rows"][:2] == ["hello", "world"]


@pytest.mark.parametrize("name", ["demo", "DEMO", "Demo Agent", "demo-agent", "demo_cli"])
def test_agent_names_in_any_case_and_by_alias(
    name: str, capture: Path, env: dict[str, str]
) -> None:
    res = run(["replay", str(capture), "--agent", name, "--json"], env)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["agent"] == "demo"


def test_an_unknown_agent_lists_the_known_ones(capture: Path, env: dict[str, str]) -> None:
    res = run(["replay", str(capture), "--agent", "demo-code"], env)
    assert res.exit_code == 2 and "unknown agent 'demo-code'" in res.output
    assert "claude" in res.output and "demo" in res.output


def test_claude_code_names_the_shipped_claude_rules() -> None:
    bytes_ = Path(__file__).resolve().parents[2] / "captures" / "claude-2.1.328"
    path = bytes_ / "c_bash_yes-120x32.bytes"
    res = run(["replay", str(path), "--agent", "claude-code", "--at", "5676"], {})
    assert res.exit_code == 0, res.output
    assert res.output.split("\t")[1] == "blocked"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["status", "-L", "osf-no-such-server"], "tmux -L osf-no-such-server"),
        (["-L", "osf-no-such-server", "status"], "tmux -L osf-no-such-server"),
        (["status", "-S", "/nonexistent/osf-sock"], "tmux -S /nonexistent/osf-sock"),
    ],
)
def test_socket_options_before_or_after_the_command(args: list[str], said: str) -> None:
    res = run(args, {"TMUX": ""})
    assert res.exit_code == 3 and said in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-L", "a", "status", "-L", "b"], "-L given twice"),
        (["-L", "a", "status", "-S", "/b"], "not both"),
        (["status", "-L", "a", "-S", "/b"], "not both"),
    ],
)
def test_socket_options_that_contradict_each_other(args: list[str], message: str) -> None:
    res = run(args, {"TMUX": ""})
    assert res.exit_code == 2 and message in res.output


def test_hooks_take_the_agent_by_any_of_its_names(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": ""}
    for name in ("Claude", "claude-code", "Claude Code"):
        res = run(["hooks", "install", "--agent", name, "--dry-run"], env)
        assert res.exit_code == 0, res.output
        assert "would write" in res.output and ".claude" in res.output
    res = run(["hooks", "install", "--agent", "aider", "--dry-run"], env)
    assert res.exit_code == 2 and "hooks for claude, codex, gemini" in res.output


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("command", [["next"], ["start"], ["answer", "%1", "yes"]])
def test_commands_without_a_tmux_server_say_so_in_one_line(command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    out = subprocess.run(
        [sys.executable, "-m", "osf_tmux", "-L", "osf-test-no-such-server", *command],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert out.returncode == 1
    said = (out.stdout + out.stderr).strip()
    assert "no tmux server running for tmux -L osf-test-no-such-server" in said
    assert len(said.splitlines()) == 1 and "list-panes" not in said and "Traceback" not in said


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_doctor_without_a_tmux_server_names_it_plainly() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    out = subprocess.run(
        [sys.executable, "-m", "osf_tmux", "doctor", "-L", "osf-test-no-such-server"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert out.returncode == 1
    first = out.stdout.splitlines()[0]
    assert first.startswith("[FAIL] tmux: no tmux server running for tmux -L osf-test-no-such")
    assert "display-message" not in out.stdout


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_without_a_daemon_every_command_that_reports_its_view_exits_3(
    tmux_server: TmuxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One rule: no daemon for the server, exit status 3 (after saying so), as `status` and
    `wait` always did; `list` and `next` used to exit 0."""
    for name in ("TMUX", "TMUX_PANE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    said = {}
    for command in (["status"], ["list"], ["list", "--json"], ["next"],
                    ["wait", "--any", "--until", "blocked"], ["events"],
                    ["events", "--hello"]):  # fmt: skip
        res = CliRunner().invoke(main, ["-L", tmux_server.socket_name, *command])
        said[" ".join(command)] = (res.exit_code, res.output)
    # `next` as typed in a shell takes the short way (cli/keys.py); `menu` needs a client
    code = keys.run(keys.KeyCall("next", tmux_server.socket_name, None, None))
    said["next (short way)"] = (code, capsys.readouterr().out)
    assert {c: code for c, (code, _) in said.items() if code != 3} == {}
    assert "the daemon is not running" in said["list"][1]
    assert json.loads(said["list --json"][1]) == []
    assert "the daemon is not running" in said["next"][1]
    assert "the daemon is not running" in said["next (short way)"][1]
    # Another machine's link gets no hello from a machine whose daemon does not run.
    assert '"hello"' not in said["events --hello"][1]


@pytest.mark.parametrize(
    "args",
    [
        ["plugin", "-L", "osf-no-such-server", "load"],
        ["plugin", "load", "-L", "osf-no-such-server"],
        ["-L", "osf-no-such-server", "plugin", "unload"],
        ["plugin", "-L", "osf-no-such-server", "unload", "--stop"],
    ],
)
def test_the_plugin_group_takes_the_server_where_people_type_it(args: list[str]) -> None:
    res = run(args, {"TMUX": ""})
    assert "No such option" not in res.output
    assert res.exit_code == 1 and "no tmux server running for tmux -L osf-no-such-server" in (
        res.output
    )


def test_a_server_given_twice_to_the_plugin_group_is_refused() -> None:
    res = run(["-L", "a", "plugin", "-L", "b", "load"], {"TMUX": ""})
    assert res.exit_code == 2 and "-L given twice" in res.output


@pytest.mark.parametrize("state", ["BLOCKED", "Done", "idle"])
def test_until_takes_a_state_in_any_case_as_agent_takes_a_name(state: str, tmp_path: Path) -> None:
    env = {"TMUX": "", "XDG_RUNTIME_DIR": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    res = run(["-L", "osf-no-such-server", "wait", "--any", "--until", state], env)
    assert res.exit_code == 3 and "daemon is not running" in res.output  # not a usage error
