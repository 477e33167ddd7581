"""The foreground processes of a pane without /proc (macOS, the BSDs): from one `ps -A`, the
group's leader and its children in the group, as on Linux. Forced here by pointing the /proc
path at a directory that does not exist."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osf_tmux.daemon import process
from osf_tmux.daemon.process import ProcessTable, foreground_commands
from osf_tmux.judge.ruleset import load_rules
from tests.support.tmux_server import TmuxServer, retry_until

NO_PROC = Path("/nonexistent-proc")

# sh -c 'claude --x' without job control: sh leads the group, the agent is its child; a
# background job of the shell (its own group) is not what the terminal shows.
PS_OUTPUT = """\
    1     0     1    -1 /sbin/launchd
   30     1    30    30 sh -c claude --x
   31    30    30    30 claude --x
   32    31    30    30 rg --files
   33    30    33    30 codex
   40     1    40    -1 some daemon
"""


def test_ps_listing_parsed_and_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    table = ProcessTable.parse(PS_OUTPUT + "garbage line\n")
    assert table.tpgid(30) == 30 and table.tpgid(40) is None and table.tpgid(99) is None
    assert table.children(30) == [31, 33]
    monkeypatch.setattr(process.PS, "table", lambda: table)
    assert foreground_commands(30, NO_PROC) == [
        ["sh", "-c", "claude", "--x"],
        ["claude", "--x"],
        ["rg", "--files"],
    ]
    assert foreground_commands(99, NO_PROC) == []


def test_a_renamed_process_with_a_space_is_found_from_ps(monkeypatch: pytest.MonkeyPatch) -> None:
    # Kimi CLI renames itself `Kimi Code` (setproctitle): `ps` prints that as its command.
    table = ProcessTable.parse("   50    49    50    50 Kimi Code\n")
    monkeypatch.setattr(process.PS, "table", lambda: table)
    commands = foreground_commands(50, NO_PROC)
    assert commands == [["Kimi", "Code"]]
    manifest = load_rules().for_process(commands[0])
    assert manifest is not None and manifest.agent == "kimi"


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="compares with /proc")
def test_ps_finds_the_same_foreground_as_proc(tmux_server: TmuxServer) -> None:
    pane = tmux_server.new_pane(["sh", "-c", "sleep 100000; true"], 80, 24)
    pid = int(tmux_server.cmd("display-message", "-p", "-t", pane, "#{pane_pid}").strip())

    def both(proc: Path) -> list[list[str]] | None:
        # Until the child has exec'd, it is a second `sh -c …`: wait for `sleep` itself.
        found = foreground_commands(pid, proc)
        return found if len(found) == 2 and found[1][:1] == ["sleep"] else None

    by_proc = retry_until(lambda: both(process.PROC), timeout=5, what="sh and sleep, from /proc")
    assert by_proc[1] == ["sleep", "100000"]
    # The cached listing may predate the pane: the next one (half a second on) has it.
    by_ps = retry_until(lambda: both(NO_PROC), timeout=5, what="sh and sleep, from ps")
    assert [argv[0] for argv in by_ps] == [argv[0] for argv in by_proc]
    assert by_ps[1] == ["sleep", "100000"]
