"""What the sweep compares before it reads a pane's processes again (`foreground_signature`).

An `exec` keeps the pid: a program that draws and then execs the agent, or a wrapper's child
read between its fork and its exec, leaves the group and the children as they were. Only the
command lines tell (issue #29). A /proc of the test's own, and a `ps` listing, stand in for
the system's."""

from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.daemon import process
from osf_tmux.daemon.process import ProcessTable, foreground_signature


def _proc_entry(proc: Path, pid: int, tpgid: int, argv: list[str], children: list[int]) -> None:
    d = proc / str(pid)
    (d / "task" / str(pid)).mkdir(parents=True, exist_ok=True)
    # pid (comm) state ppid pgrp session tty_nr tpgid ...
    comm = Path(argv[0]).name[:15]
    (d / "stat").write_text(f"{pid} ({comm}) S 1 {pid} {pid} 34816 {tpgid} 0 0\n")
    (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    (d / "task" / str(pid) / "children").write_text("".join(f"{c} " for c in children))


@pytest.fixture
def proc(tmp_path: Path) -> Path:
    root = tmp_path / "proc"
    root.mkdir()
    return root


def test_an_exec_of_the_group_leader_changes_the_signature(proc: Path) -> None:
    _proc_entry(proc, 10, 20, ["bash"], [20])
    _proc_entry(proc, 20, 20, ["python3", "menu.py"], [])
    before = foreground_signature(10, proc)
    assert before[0] == 20
    assert foreground_signature(10, proc) == before  # nothing changed: the same
    _proc_entry(proc, 20, 20, ["python3", "/opt/bin/claude"], [])  # exec: same pid
    after = foreground_signature(10, proc)
    assert after[0] == 20 and after != before


def test_a_child_that_execs_after_it_was_read_changes_the_signature(proc: Path) -> None:
    # sh -c '...; claude' leads the group; its child was read between fork and exec.
    _proc_entry(proc, 10, 30, ["bash"], [30])
    _proc_entry(proc, 30, 30, ["sh", "-c", "prepare; claude"], [31])
    _proc_entry(proc, 31, 30, ["sh", "-c", "prepare; claude"], [])
    before = foreground_signature(10, proc)
    _proc_entry(proc, 31, 30, ["claude"], [])
    assert foreground_signature(10, proc) != before


def test_the_panes_own_process_exec_ing_changes_the_signature(proc: Path) -> None:
    # A shell at its prompt is told by its name alone (no second read); `exec claude` renames it.
    _proc_entry(proc, 10, 10, ["-bash"], [])
    shell = foreground_signature(10, proc)
    _proc_entry(proc, 10, 10, ["claude"], [])
    agent = foreground_signature(10, proc)
    assert agent != shell
    # Not a shell: the command line, since an exec under the same interpreter keeps the name.
    _proc_entry(proc, 10, 10, ["node", "menu.js"], [])
    menu = foreground_signature(10, proc)
    _proc_entry(proc, 10, 10, ["node", "/opt/claude-code/cli.js"], [])
    assert foreground_signature(10, proc) != menu


def test_a_gone_pane_has_no_signature(proc: Path) -> None:
    assert foreground_signature(99, proc) == (None, "")


def test_without_proc_the_listing_gives_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    no_proc = Path("/nonexistent-proc")
    head = "   10     1    10    20 bash\n"
    table = ProcessTable.parse(head + "   20    10    20    20 python3 menu.py\n")
    monkeypatch.setattr(process.PS, "table", lambda: table)
    before = foreground_signature(10, no_proc)
    assert before[0] == 20
    table = ProcessTable.parse(head + "   20    10    20    20 python3 /opt/bin/claude\n")
    assert foreground_signature(10, no_proc) != before
