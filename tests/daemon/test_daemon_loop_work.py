"""The loop's bookkeeping that keeps a wake-up cheap must not lose a pane: quiet plain panes leave
the active set but come back when they turn into an agent, a listing line seen before gives the
same pane info but a changed one is read anew (size, focus), panes that drew lately are
counted from what was read. In process: tmux is a stub that answers a listing we write."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import PANE_FIELDS, SEP, PaneInfo, ServerSpec, Tmux
from osf_tmux.vt.pane import PaneScreen

TOKEN = "token"


class ListingTmux(Tmux):
    """Answers `list-panes` with `panes` (as piped by us once the daemon attached), anything
    else with nothing: no server is started."""

    def __init__(self) -> None:
        super().__init__(ServerSpec("osf-test-never-started"))
        self.panes: list[PaneInfo] = []
        self.attached: set[str] = set()

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        if commands and commands[0][0] == "list-panes":
            return "".join(self._line(p) + "\n" for p in self.panes)
        for c in commands:
            if c[0] == "pipe-pane":
                self.attached.add(c[c.index("-t") + 1])
        return ""

    def _line(self, p: PaneInfo) -> str:
        piped = p.pane_id in self.attached
        f = {
            "pane_id": p.pane_id, "pane_pid": str(p.pid), "pane_tty": p.tty,
            "pane_width": str(p.width), "pane_height": str(p.height),
            "pane_pipe": "1" if piped else "0", "pane_dead": "0",
            "pane_active": "1" if p.active else "0",
            "window_active": "1" if p.window_active else "0", "window_id": p.window_id,
            "session_id": p.session_id, "session_name": p.session_name,
            "window_index": p.window_index, "pane_index": p.pane_index,
            "session_attached": str(p.session_attached),
            "pane_current_command": p.current_command, "@osf-agent": p.agent_override,
            "@osf-generic-processes": "", "@osf_report": p.report,
            "@osf_pipe": TOKEN if piped else "", "alternate_on": "0",
        }  # fmt: skip
        return SEP.join(f[k] for k in PANE_FIELDS)


def pane(n: int, **fields: object) -> PaneInfo:
    base = PaneInfo(
        pane_id=f"%{n}", pid=0, tty="/dev/pts/9", width=120, height=32, piped=False,
        dead=False, active=False, window_active=False, window_id=f"@{n}", session_id="$1",
        session_name="s", window_index=str(n), pane_index="0", session_attached=0,
        current_command="sleep", agent_override="", report="", our_pipe="", alt_screen=False,
    )  # fmt: skip
    return dataclasses.replace(base, **fields)  # type: ignore[arg-type]


@dataclasses.dataclass
class Rig:
    daemon: Daemon
    tmux: ListingTmux
    clock: FakeClock

    def sweep(self, *panes: PaneInfo) -> None:
        self.tmux.panes = list(panes)
        self.daemon.sweep()
        self.daemon.process()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    clock = FakeClock()
    tmux = ListingTmux()
    daemon = Daemon(
        tmux,
        load_rules(None),
        PipeFactory(tmp_path / "run"),
        TOKEN,
        clock=clock,
        status_file=tmp_path / "status.json",
        identify=lambda pid: [],
    )
    daemon.pipes.prepare()
    yield Rig(daemon, tmux, clock)
    for w in daemon.table.panes.values():
        daemon.registry.close_pipe(w)


def test_quiet_plain_panes_leave_the_active_set_and_agents_stay(rig: Rig) -> None:
    shells = [pane(n) for n in range(1, 6)]
    agent = pane(9, agent_override="claude")
    for _ in range(3):  # attach, then sweeps that find the pipes ours
        rig.sweep(*shells, agent)
    assert all(rig.daemon.table.panes[p.pane_id].mode == "pipe" for p in (*shells, agent))
    # The agent's seed (capture-pane) got no answer here: it must stay wanted.
    assert rig.daemon.table.active == {"%9"}
    assert rig.daemon.table.panes["%9"].needs_seed


def test_a_plain_pane_that_becomes_an_agent_is_seeded_and_judged(rig: Rig) -> None:
    shell = pane(1)
    for _ in range(2):
        rig.sweep(shell)
    assert rig.daemon.table.active == set()
    rig.sweep(dataclasses.replace(shell, agent_override="claude"))
    w = rig.daemon.table.panes["%1"]
    assert w.manifest is not None and w.manifest.agent == "claude"
    assert w.needs_seed and "%1" in rig.daemon.table.active


def test_a_listing_line_seen_before_gives_the_same_info_and_a_changed_one_is_read(
    rig: Rig,
) -> None:
    agent = pane(1, agent_override="claude")
    rig.sweep(agent)
    rig.sweep(agent)
    w = rig.daemon.table.panes["%1"]
    info = w.info
    rig.sweep(agent)
    assert w.info is info  # the same line: not parsed again
    # As after a seed: a screen of the listed size, nothing left to do.
    w.screen, w.needs_seed, w.dirty_since = PaneScreen(120, 32), False, None
    rig.daemon.process()
    assert "%1" not in rig.daemon.table.active
    # Resized: read anew, the screen follows and is seeded again.
    rig.sweep(dataclasses.replace(agent, width=100))
    assert w.info.width == 100 and w.screen is not None and w.screen.size == (100, 32)
    assert w.needs_seed and "%1" in rig.daemon.table.active
    # Looked at now (focus): judged again.
    w.needs_seed, w.dirty_since = False, None
    rig.daemon.process()
    seen = dataclasses.replace(
        agent, width=100, active=True, window_active=True, session_attached=1
    )
    rig.tmux.panes = [seen]
    rig.daemon.sweep()
    assert w.info.seen and w.dirty_since is not None and "%1" in rig.daemon.table.active


def test_panes_that_drew_in_the_last_second_are_counted(rig: Rig) -> None:
    panes = [pane(n, agent_override="claude") for n in (1, 2, 3)]
    rig.sweep(*panes)
    d = rig.daemon
    for n in (1, 2):
        d.judging.on_bytes(d.table.panes[f"%{n}"], b"x")
    assert d.table.drawing(rig.clock.now()) == 2
    rig.clock.advance(0.6)
    d.judging.on_bytes(d.table.panes["%3"], b"y")
    assert d.table.drawing(rig.clock.now()) == 3
    rig.clock.advance(0.5)  # %1 and %2 drew 1.1 s ago
    assert d.table.drawing(rig.clock.now()) == 1
    rig.sweep(*panes[:2])  # %3 closed: it no longer counts, whenever it drew
    assert d.table.drawing(rig.clock.now()) == 0


def test_the_status_file_holds_the_status(rig: Rig) -> None:
    rig.sweep(pane(1), pane(2, agent_override="claude", session_name="naïve ● s"))
    rig.daemon.write_status()
    assert rig.daemon.status_file is not None
    written = json.loads(rig.daemon.status_file.read_text(encoding="utf-8"))
    expected = rig.daemon.status()
    assert written == expected
    assert [p["address"] for p in written["panes"]] == ["s:1.0", "naïve ● s:2.0"]
