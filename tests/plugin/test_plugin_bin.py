"""bin/osf-tmux, the command TPM users run (osf-tmux is not on their PATH): it runs the program
the plugin installed into its own venv, by its own path or through a link to it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def plugin(tmp_path: Path) -> Path:
    copy = tmp_path / "plugins" / "osf-tmux"
    (copy / "bin").mkdir(parents=True)
    shutil.copy2(ROOT / "bin" / "osf-tmux", copy / "bin")
    return copy


def test_without_the_venv_it_says_how_to_get_it(tmp_path: Path) -> None:
    copy = plugin(tmp_path)
    out = subprocess.run([str(copy / "bin" / "osf-tmux"), "doctor"], capture_output=True,
                         text=True, timeout=10)  # fmt: skip
    assert out.returncode == 127 and out.stdout == ""
    assert f"not installed in {copy}/.venv yet" in out.stderr
    assert f'"{copy}/.venv/bin/pip" install -e "{copy}"' in out.stderr


def test_it_runs_the_plugins_program_directly_and_through_a_link(tmp_path: Path) -> None:
    copy = plugin(tmp_path)
    program = copy / ".venv" / "bin" / "osf-tmux"
    program.parent.mkdir(parents=True)
    program.write_text('#!/bin/sh\necho "ran with: $*"\n')
    program.chmod(0o755)
    link = tmp_path / "local" / "bin" / "osf-tmux"
    link.parent.mkdir(parents=True)
    link.symlink_to(copy / "bin" / "osf-tmux")
    relative = tmp_path / "local" / "bin" / "rel"
    relative.symlink_to(Path("..") / ".." / "plugins" / "osf-tmux" / "bin" / "osf-tmux")
    for entry in (copy / "bin" / "osf-tmux", link, relative):
        out = subprocess.run([str(entry), "doctor", "--json"], capture_output=True, text=True,
                             timeout=10)  # fmt: skip
        assert out.returncode == 0 and out.stdout == "ran with: doctor --json\n", entry
