"""Parsing what tmux prints, and selecting a server like tmux does (no tmux needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.daemon.process import foreground_commands, foreground_pgid
from osf_tmux.daemon.source import parse_captures
from osf_tmux.tmux import PANE_FIELDS, SEP, ServerSpec, parse_panes


def test_server_selection() -> None:
    assert ServerSpec.select("x", None).args() == ["-L", "x"]
    assert ServerSpec.select(None, "/s").args() == ["-S", "/s"]
    inside = ServerSpec.select(None, None, {"TMUX": "/tmp/tmux-1/work,123,0"})
    assert inside.args() == ["-S", "/tmp/tmux-1/work"]
    assert ServerSpec.select(None, None, {}).args() == []
    with pytest.raises(ValueError):
        ServerSpec.select("x", "/s")


def test_server_keys_differ_and_are_file_names() -> None:
    a, b = ServerSpec("one"), ServerSpec("two")
    assert a.key() != b.key()
    assert "/" not in a.key() and a.key().startswith("one-")
    assert ServerSpec(None, "/tmp/tmux-0/one").key() == ServerSpec(None, "/tmp/tmux-0/one").key()


def test_parse_panes() -> None:
    values = {f: "" for f in PANE_FIELDS}
    values.update(
        {
            "pane_id": "%3",
            "pane_pid": "42",
            "pane_width": "120",
            "pane_height": "32",
            "pane_pipe": "1",
            "pane_active": "1",
            "window_active": "1",
            "session_attached": "2",
            "session_name": "work: odd",
            "window_index": "1",
            "pane_index": "0",
            "@osf_report": "blocked 1.5",
        }
    )
    line = SEP.join(values[f] for f in PANE_FIELDS)
    (pane,) = parse_panes(line + "\nnot a pane line\n")
    assert (pane.pane_id, pane.pid, pane.width, pane.height) == ("%3", 42, 120, 32)
    assert pane.piped and pane.seen and not pane.dead
    assert pane.address == "work: odd:1.0"
    assert pane.report == "blocked 1.5"


def test_parse_captures_keeps_rows_per_pane() -> None:
    head = "OSFCAP" + SEP
    out = (
        head
        + SEP.join(["%1", "5", "3", "2", "1", "1", "0", "t1"])
        + "\nab\n\ncd\n"
        + head
        + SEP.join(["%2", "4", "2", "0", "0", "0", "1", ""])
        + "\nxy\n"
    )
    caps = parse_captures(out)
    assert caps["%1"].lines == ("ab", "", "cd")
    assert caps["%1"].cursor == (2, 1) and caps["%1"].title == "t1"
    assert caps["%2"].lines == ("xy", "")  # short output padded to the pane's height
    assert caps["%2"].alt_screen and not caps["%2"].cursor_visible


def test_foreground_from_proc(tmp_path: Path) -> None:
    (tmp_path / "10").mkdir()
    (tmp_path / "20").mkdir()
    # comm with spaces and parentheses must not confuse the parser; tpgid is field 8
    (tmp_path / "10" / "stat").write_text("10 (ba sh) (x)) S 1 10 10 34816 20 4194304 0\n")
    (tmp_path / "20" / "cmdline").write_bytes(b"node\0/usr/lib/gemini/cli.js\0--yolo\0")
    assert foreground_pgid(10, tmp_path) == 20
    assert foreground_commands(10, tmp_path) == [["node", "/usr/lib/gemini/cli.js", "--yolo"]]
    assert foreground_commands(99, tmp_path) == []


def test_only_our_hook_entries_are_found() -> None:
    from osf_tmux.daemon.tmux_hooks import CHANNEL, ours

    listing = "\n".join(
        [
            "after-new-window[0] display-message hi",
            f"after-new-window[1] wait-for -S {CHANNEL}",
            "after-new-window[2] wait-for -S someone-elses-channel",
            # what an older daemon installed: found, so that it is removed
            'client-attached[3] run-shell -b "kill -USR1 5 2>/dev/null || true '
            '# osf-tmux-wake:/run/a"',
            "session-closed",
        ]
    )
    assert ours(listing) == [("after-new-window", 1), ("client-attached", 3)]


def test_hooks_name_no_process() -> None:
    """A hook that signals a process id signals whatever program has that id once the daemon
    is gone; ours only signal a tmux wait channel, and start no process."""
    from osf_tmux.daemon.tmux_hooks import CHANNEL, install_commands

    commands = install_commands()
    assert commands and all(c[:2] == ["set-hook", "-ga"] for c in commands)
    assert all(c[3] == f"wait-for -S {CHANNEL}" for c in commands)
    assert {"pane-exited", "after-kill-pane", "window-unlinked", "session-closed"} <= {
        c[2] for c in commands
    }


def test_parse_captures_with_the_main_screen_behind_the_alternate_one() -> None:
    head = "OSFCAP" + SEP + SEP.join(["%7", "4", "2", "0", "0", "1", "1", ""])
    caps = parse_captures(head + "\nalt\n\nOSFMAIN" + SEP + "\nmain\nrow2\n")
    assert caps["%7"].lines == ("alt", "")
    assert caps["%7"].main_lines == ("main", "row2")


def test_foreground_descendants(tmp_path: Path) -> None:
    # sh -c 'claude' without job control: sh leads the group, the agent is its child
    procs = {
        30: (b"sh\0-c\0claude --x\0", "30 (sh) S 1 30 30 34816 30 0", "31 33"),
        31: (b"claude\0--x\0", "31 (claude) S 30 30 30 34816 30 0", "32"),
        32: (b"rg\0", "32 (rg) S 31 30 30 34816 30 0", ""),
        33: (b"codex\0", "33 (codex) S 30 33 30 34816 30 0", ""),  # a background job
    }
    for pid, (cmdline, stat, children) in procs.items():
        (tmp_path / str(pid) / "task" / str(pid)).mkdir(parents=True)
        (tmp_path / str(pid) / "cmdline").write_bytes(cmdline)
        (tmp_path / str(pid) / "stat").write_text(stat + "\n")
        (tmp_path / str(pid) / "task" / str(pid) / "children").write_text(children)
    assert foreground_commands(30, tmp_path) == [
        ["sh", "-c", "claude --x"],
        ["claude", "--x"],
        ["rg"],
    ]
