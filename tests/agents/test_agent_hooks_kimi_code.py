"""Kimi Code CLI's hooks: `[[hooks]]` tables in `$KIMI_CODE_HOME/config.toml` (default
`~/.kimi-code/config.toml`), the same machinery as Kimi CLI's (tests/agents/test_agent_hooks_toml.py
covers the file handling); here what is Kimi Code's own: where the file is, its events
(a permission request among them), and the payloads a lab run recorded."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import kimi_code
from osf_tmux.agents.hooks import HooksError, apply, installed_files, plan_install, plan_uninstall
from osf_tmux.agents.report import state_for

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG = """\
default_model = "kimi-code/kimi-for-coding"   # mine

[[hooks]]
event = "Stop"
command = "notify-send 'kimi done'"

[providers.kimi]
type = "kimi"
base_url = "https://api.example.invalid/coding/v1"
"""
CAPTURE = Path(__file__).resolve().parents[2] / "captures" / "kimi-code-2.1.0-lab"


def ours(path: Path) -> list[dict[str, Any]]:
    hooks = tomllib.loads(path.read_text()).get("hooks", [])
    return [h for h in hooks if agent_hooks.is_our_command(h["command"])]


@pytest.mark.parametrize("kimi_home", [None, "kc"])
def test_install_goes_where_kimi_code_reads_and_comes_back_out(
    tmp_path: Path, kimi_home: str | None
) -> None:
    env = {"HOME": str(tmp_path / "home")}
    if kimi_home:
        env["KIMI_CODE_HOME"] = str(tmp_path / kimi_home)
        path = tmp_path / kimi_home / "config.toml"
    else:
        path = tmp_path / "home" / ".kimi-code" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CONFIG)
    apply(plan_install("kimi-code", env))
    assert path.read_text().startswith(CONFIG)
    tables = ours(path)
    assert [t["event"] for t in tables] == list(kimi_code.EVENTS)
    for t in tables:
        assert set(t) == {"event", "command", "timeout"}  # Kimi Code's HookDef is strict
        assert 1 <= t["timeout"] <= 600
        assert t["command"].endswith(" kimi-code") and "report.py" in t["command"]
    assert installed_files("kimi-code", env) == [path]
    # the older Kimi CLI's file is not touched
    assert not (tmp_path / "home" / ".kimi" / "config.toml").exists()
    apply(plan_uninstall("kimi-code", env))
    assert path.read_text() == CONFIG


def test_no_launch_flag() -> None:
    with pytest.raises(HooksError, match="hooks install --agent kimi-code"):
        agent_hooks.launch_argv("kimi-code", "kimi", [], {"HOME": "/nonexistent"})


@pytest.mark.parametrize(
    ("event", "state"),
    [
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("PermissionRequest", "blocked"),
        ("PermissionResult", "working"),
        ("PostToolUse", "working"),
        ("Stop", "done"),
        ("StopFailure", "done"),
        ("Interrupt", "idle"),
        ("SessionStart", None),
        ("Notification", None),
    ],
)
def test_events_report(event: str, state: str | None) -> None:
    assert state_for("kimi-code", {"hook_event_name": event}) == state


def test_recorded_payloads_report_the_turn() -> None:
    """The payloads Kimi Code 2.1.0 sent to the hook tables osf-tmux installs, in a lab run of a
    command approved (hooks_bash-120x32.hooks.jsonl): the permission request comes while the
    approval panel is labelled blocked, its result once the panel is answered."""
    path = CAPTURE / "hooks_bash-120x32.hooks.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line]
    seen = [(row["event"], state_for("kimi-code", row["payload"])) for row in rows]
    assert seen == [
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("PermissionRequest", "blocked"),
        ("PermissionResult", "working"),
        ("PostToolUse", "working"),
        ("Stop", "done"),
    ]
    labels = json.loads(path.with_name("hooks_bash-120x32.labels.json").read_text())
    segments = labels["segments"]
    blocked = next(i for i, s in enumerate(segments) if s["state"] == "blocked")
    asked = next(r["bytes_offset"] for r in rows if r["event"] == "PermissionRequest")
    answered = next(r["bytes_offset"] for r in rows if r["event"] == "PermissionResult")
    # asked before the panel is drawn or while it shows; answered after it was
    assert asked <= segments[blocked + 1]["offset"]
    assert answered >= segments[blocked]["offset"]
