"""osf-tmux's Cline hooks: scripts named after Cline's events in ~/.cline/hooks, beside the
person's own hook files of the same events, and removed exactly."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from osf_tmux.agents import cline, report
from osf_tmux.agents.hooks import (
    HooksError,
    apply,
    installed_files,
    launch_argv,
    plan_install,
    plan_uninstall,
)

EVENTS = tuple(cline.EVENTS)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def hooks_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".cline" / "hooks"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


def test_install_writes_one_executable_script_per_event_and_uninstall_removes_them(
    tmp_path: Path,
) -> None:
    env = env_for(tmp_path)
    plan = plan_install("cline", env)
    apply(plan)
    folder = hooks_dir(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{e}.sh" for e in EVENTS)
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n") and "osf_tmux/agents/report.py" in text
        assert text.rstrip().endswith(" cline")
    assert installed_files("cline", env) == [folder]
    assert plan_install("cline", env).changes == []  # installing twice changes nothing

    apply(plan_uninstall("cline", env))
    assert snapshot(folder) == {}
    assert installed_files("cline", env) == []
    assert plan_uninstall("cline", env).changes == []


def test_the_persons_hooks_of_the_same_events_are_kept_and_ours_run_beside_them(
    tmp_path: Path,
) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "PreToolUse").write_text("#!/bin/bash\necho audit >> ~/audit.log\n")
    (folder / "PreToolUse.sh").write_text("#!/bin/sh\nexit 0\n")
    (folder / "taskcomplete.sh").write_text("#!/bin/sh\nnotify-send done\n")  # Cline ignores case
    (folder / "README.md").write_text("my hooks\n")
    before = snapshot(folder)

    plan = plan_install("cline", env)
    apply(plan)
    after = snapshot(folder)
    assert {k: after[k] for k in before} == before  # every file of theirs, byte for byte
    ours = set(after) - set(before)
    assert "PreToolUse.bash" in ours and "PreToolUse.sh" not in ours
    assert "TaskComplete.bash" in ours and "TaskComplete.sh" not in ours
    assert "TaskStart.sh" in ours
    assert any("PreToolUse" in note and "kept" in note for note in plan.notes)

    apply(plan_uninstall("cline", env))
    assert snapshot(folder) == before


def test_refuses_when_every_name_ours_could_take_is_the_persons(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = hooks_dir(tmp_path)
    folder.mkdir(parents=True)
    for suffix in (".sh", ".bash", ".zsh"):
        (folder / f"PostToolUse{suffix}").write_text("#!/bin/sh\n")
    before = snapshot(folder)
    with pytest.raises(HooksError, match="PostToolUse"):
        plan_install("cline", env)
    assert snapshot(folder) == before


def test_refuses_a_hooks_path_that_is_not_a_folder(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = hooks_dir(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("oops")
    with pytest.raises(HooksError, match="not a folder"):
        plan_install("cline", env)
    assert path.read_text() == "oops"


def test_an_outdated_script_of_ours_is_rewritten_and_its_backup_goes_on_uninstall(
    tmp_path: Path,
) -> None:
    env = env_for(tmp_path)
    apply(plan_install("cline", env))
    folder = hooks_dir(tmp_path)
    old = folder / "TaskStart.sh"
    old.write_text(old.read_text().replace("-I -S", "-I"))  # an older osf-tmux wrote it
    plan = plan_install("cline", env)
    assert [c.path.name for c in plan.changes] == ["TaskStart.sh"]
    apply(plan)
    apply(plan_uninstall("cline", env))
    assert snapshot(folder) == {}


def test_cline_dir_moves_the_hooks(tmp_path: Path) -> None:
    env = env_for(tmp_path, CLINE_DIR=str(tmp_path / "elsewhere"))
    apply(plan_install("cline", env))
    assert (tmp_path / "elsewhere" / "hooks" / "TaskStart.sh").exists()
    assert not hooks_dir(tmp_path).exists()


def test_launch_says_hooks_need_files() -> None:
    with pytest.raises(HooksError, match="hooks install --agent cline"):
        launch_argv("cline", "/bin/cline", [], {"HOME": "/nonexistent"})


@pytest.mark.parametrize(
    ("hook_name", "want"),
    [
        ("agent_start", "working"),
        ("agent_resume", "working"),
        ("prompt_submit", "working"),
        ("tool_call", "working"),
        ("tool_result", "working"),
        ("agent_end", "done"),
        ("agent_error", "done"),
        ("agent_abort", "idle"),
        ("session_shutdown", "idle"),
        ("pre_compact", None),
        ("something_new", None),
    ],
)
def test_payload_states(hook_name: str, want: str | None) -> None:
    assert report.state_for("cline", {"hookName": hook_name, "taskId": "t"}) == want


def test_installed_script_reports_the_payload_cline_writes(tmp_path: Path) -> None:
    """Run one installed script as Cline does (the interpreter of its #! line, the payload on
    stdin), with a stand-in `tmux` that records its arguments."""
    env = env_for(tmp_path)
    apply(plan_install("cline", env))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "tmux.args"
    fake = bin_dir / "tmux"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n')
    fake.chmod(0o755)
    payload = {
        "hookName": "tool_call",
        "taskId": "conv_1",
        "tool_call": {"id": "c1", "name": "run_commands", "input": {"commands": ["ls"]}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": '["ls"]'}},
    }
    script = hooks_dir(tmp_path) / "PreToolUse.sh"
    proc = subprocess.run(
        ["sh", str(script)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=20,
        env={
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "TMUX": "/tmp/osf-test-socket,1,0",
            "TMUX_PANE": "%7",
        },
    )
    assert proc.returncode == 0 and proc.stdout == b""  # Cline reads stdout as control JSON
    args = log.read_text().splitlines()
    assert args[:6] == ["-S", "/tmp/osf-test-socket", "set-option", "-p", "-t", "%7"]
    state, _, agent = args[7].split()
    assert (args[6], state, agent) == ("@osf_report", "working", "cline")
