"""osf-tmux's hooks as `[[hooks]]` TOML tables: Kimi CLI's ~/.kimi/config.toml and Mistral Vibe's
~/.vibe/hooks.toml. The user's own hooks, keys and comments kept byte for byte, exact undo, a
backup, a refusal on a broken file or on hooks given in a form we do not append to."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import kimi, report, vibe
from osf_tmux.agents.hooks import HooksError, apply, installed_files, plan_install, plan_uninstall
from osf_tmux.agents.toml_hooks import render, strip_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# A Kimi user's config: top-level keys, a hook of their own, tables after it, comments.
KIMI_CONFIG = """\
default_model = "kimi-k2"   # the model I use
default_yolo = false

[[hooks]]
event = "Stop"
command = "notify-send 'kimi done'"

# my providers
[providers.moonshot]
type = "kimi"
base_url = "https://api.example.invalid/v1"
api_key = "sk-secret"

[models.kimi-k2]
provider = "moonshot"
model = "kimi-k2"
max_context_size = 128000
"""
VIBE_HOOKS = """\
[[hooks]]
name = "lint"
type = "post_agent"
command = "eslint --quiet ."

[[hooks]]
name = "deny-rm-rf"
type = "pre_tool"
match = "bash"
strict = true
command = "guard-bash"
"""


def home(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home")}


def kimi_file(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".kimi" / "config.toml"


def vibe_file(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".vibe" / "hooks.toml"


def ours(path: Path) -> list[dict[str, Any]]:
    hooks = tomllib.loads(path.read_text()).get("hooks", [])
    return [h for h in hooks if agent_hooks.is_our_command(h["command"])]


@pytest.mark.parametrize(
    ("agent", "where", "text"),
    [("kimi", kimi_file, KIMI_CONFIG), ("vibe", vibe_file, VIBE_HOOKS)],
)
def test_round_trip_keeps_the_users_file_byte_for_byte(
    tmp_path: Path, agent: str, where: Any, text: str
) -> None:
    env, path = home(tmp_path), where(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    original = path.read_bytes()

    apply(plan_install(agent, env))
    after = path.read_text()
    assert after.startswith(text)  # the user's part untouched, ours appended
    data = tomllib.loads(after)
    theirs = [h for h in data["hooks"] if not agent_hooks.is_our_command(h["command"])]
    assert theirs == tomllib.loads(text)["hooks"]
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in tomllib.loads(text).items() if k != "hooks"
    }
    assert len(ours(path)) == 3 if agent == "vibe" else len(kimi.EVENTS)
    assert agent_hooks.backup_path(path).read_bytes() == original
    assert installed_files(agent, env) == [path]

    installed = path.read_bytes()
    assert plan_install(agent, env).changes == []  # twice changes nothing
    apply(plan_install(agent, env))
    assert path.read_bytes() == installed

    apply(plan_uninstall(agent, env))
    assert path.read_bytes() == original
    assert not agent_hooks.backup_path(path).exists()
    assert plan_uninstall(agent, env).changes == []
    assert installed_files(agent, env) == []


def test_kimi_tables_name_its_events_and_our_endpoint(tmp_path: Path) -> None:
    env, path = home(tmp_path), kimi_file(tmp_path)
    apply(plan_install("kimi", env))
    tables = ours(path)
    assert [t["event"] for t in tables] == list(kimi.EVENTS)
    for t in tables:
        assert set(t) == {"event", "command", "timeout"}  # only keys Kimi's HookDef knows
        assert t["timeout"] == kimi.HOOK_TIMEOUT and 1 <= t["timeout"] <= 600
        assert t["command"].endswith(" kimi") and "report.py" in t["command"]


def test_vibe_tables_have_unique_names_and_its_hook_types(tmp_path: Path) -> None:
    env, path = home(tmp_path), vibe_file(tmp_path)
    apply(plan_install("vibe", env))
    tables = ours(path)
    assert [t["type"] for t in tables] == ["pre_tool", "post_tool", "post_agent"]
    assert len({t["name"] for t in tables}) == 3
    assert all("match" not in t for t in tables)  # match is refused on post_agent
    assert all(isinstance(t["timeout"], float) for t in tables)


def test_a_file_we_created_goes_again(tmp_path: Path) -> None:
    env, path = home(tmp_path), vibe_file(tmp_path)
    apply(plan_install("vibe", env))
    assert path.stat().st_mode & 0o777 == 0o600
    assert not agent_hooks.backup_path(path).exists()  # nothing of the user's to keep
    apply(plan_uninstall("vibe", env))
    assert not path.exists()


def test_uninstall_keeps_what_the_user_changed_since(tmp_path: Path) -> None:
    env, path = home(tmp_path), kimi_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(KIMI_CONFIG)
    apply(plan_install("kimi", env))
    # the user adds a table after ours
    path.write_text(path.read_text() + '\n[[hooks]]\nevent = "PreToolUse"\ncommand = "audit"\n')
    apply(plan_uninstall("kimi", env))
    data = tomllib.loads(path.read_text())
    assert [h["command"] for h in data["hooks"]] == ["notify-send 'kimi done'", "audit"]
    assert data["models"]["kimi-k2"]["max_context_size"] == 128000
    assert not ours(path)


def test_tables_rewritten_by_the_agent_are_still_found(tmp_path: Path) -> None:
    """Kimi may save its config itself (comments gone, keys reordered): ours are found by their
    command, not by our comment."""
    env, path = home(tmp_path), kimi_file(tmp_path)
    command = agent_hooks.report_command("kimi")
    rewritten = 'default_model = "k"\n' + "".join(
        f"[[hooks]]\ncommand = {tomllib_str(command)}\nevent = {tomllib_str(e)}\ntimeout = 10\n"
        'matcher = ""\n'
        for e in kimi.EVENTS
    )
    path.parent.mkdir(parents=True)
    path.write_text(rewritten)
    apply(plan_uninstall("kimi", env))
    assert path.read_text() == 'default_model = "k"\n'


def tomllib_str(value: str) -> str:
    import json

    return json.dumps(value)


@pytest.mark.parametrize(
    "broken",
    [
        "default_model = \n",  # not TOML
        'hooks = "nope"\n',  # not an array of tables
        b"\xff\xfe".decode("latin-1"),
    ],
)
def test_a_broken_file_is_refused_and_left_alone(tmp_path: Path, broken: str) -> None:
    env, path = home(tmp_path), kimi_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(broken.encode("latin-1") if broken.startswith("\xff") else broken.encode())
    before = path.read_bytes()
    with pytest.raises(HooksError, match=r"[Nn]othing was changed"):
        plan_install("kimi", env)
    assert path.read_bytes() == before
    assert not agent_hooks.backup_path(path).exists()


@pytest.mark.parametrize(
    "other_form",
    [
        'hooks = [{event = "Stop", command = "x"}]\n',  # an inline array: no [[hooks]] after it
        "a = 1\n[hooks]\n",  # hmm: a table
    ],
)
def test_hooks_in_another_form_are_refused(tmp_path: Path, other_form: str) -> None:
    env, path = home(tmp_path), kimi_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(other_form)
    with pytest.raises(HooksError):
        plan_install("kimi", env)
    assert path.read_text() == other_form


def test_a_file_without_a_final_newline_comes_back_exactly(tmp_path: Path) -> None:
    env, path = home(tmp_path), vibe_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(VIBE_HOOKS.rstrip("\n"))
    original = path.read_bytes()
    apply(plan_install("vibe", env))
    assert tomllib.loads(path.read_text())["hooks"][1]["command"] == "guard-bash"
    apply(plan_uninstall("vibe", env))
    assert path.read_bytes() == original  # from the backup


def test_strip_leaves_a_lookalike_table_of_the_users() -> None:
    text = VIBE_HOOKS + render(vibe.toml_entries("report.sh"))  # not our endpoint
    assert strip_text(Path("x"), text) == text


def test_each_event_reports_its_state() -> None:
    assert report.state_for("kimi", {"hook_event_name": "UserPromptSubmit"}) == "working"
    assert report.state_for("kimi", {"hook_event_name": "PreToolUse"}) == "working"
    assert report.state_for("kimi", {"hook_event_name": "Stop"}) == "done"
    # background-task notifications for the model, not for the person
    payload = {"hook_event_name": "Notification", "notification_type": "task"}
    assert report.state_for("kimi", payload) is None
    assert report.state_for("vibe", {"hook_event_name": "pre_tool"}) == "working"
    assert report.state_for("vibe", {"hook_event_name": "post_agent"}) == "done"
    assert report.state_for("vibe", {"hook_event_name": "PreToolUse"}) is None


@pytest.mark.parametrize("agent", ["kimi", "vibe"])
def test_no_launch_without_a_file(agent: str) -> None:
    with pytest.raises(HooksError, match="hooks install --agent " + agent):
        agent_hooks.launch_argv(agent, agent, [], {"HOME": "/nonexistent"})
