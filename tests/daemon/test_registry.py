"""The pane registry alone (daemon/registry.py): a listing reconciled with the table, pipes
attached or left to their owners, panes identified. tmux is a stub that answers a listing we
write (ListingTmux); the scheduler is real, on a fake clock."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.registry import PaneRegistry
from osf_tmux.daemon.rule_budget import RuleGuard
from osf_tmux.daemon.scheduler import Scheduler
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import PaneTable, Settings
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import PANE_FIELDS, SEP, PaneInfo
from tests.daemon.test_daemon_loop_work import TOKEN, ListingTmux, pane


class ForeignTmux(ListingTmux):
    """Lists the panes in `foreign` as piped by some other program."""

    def __init__(self) -> None:
        super().__init__()
        self.foreign: set[str] = set()
        self.sent: list[list[str]] = []

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        self.sent.extend(list(c) for c in commands)
        return super().run_many(commands)

    def piped(self) -> set[str]:
        """The panes a pipe-pane went to (inside the if-shell that checks it has none)."""
        return {
            c[c.index("-t") + 1] for c in self.sent if c[0] == "if-shell" and "pipe-pane" in c[-1]
        }

    def _line(self, p: PaneInfo) -> str:
        fields = super()._line(p).split(SEP)
        if p.pane_id in self.foreign:
            fields[PANE_FIELDS.index("pane_pipe")] = "1"
        return SEP.join(fields)


@dataclasses.dataclass
class Rig:
    registry: PaneRegistry
    tmux: ForeignTmux
    table: PaneTable
    scheduler: Scheduler
    clock: FakeClock
    gone: list[str]

    def sweep(self, *panes: PaneInfo) -> None:
        self.tmux.panes = list(panes)
        self.registry.sweep()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    clock, table, tmux = FakeClock(), PaneTable(), ForeignTmux()
    settings = Settings()
    scheduler = Scheduler(settings, clock.now, table)
    pipes = PipeFactory(tmp_path / "run")
    pipes.prepare()
    gone: list[str] = []
    registry = PaneRegistry(
        tmux, pipes, TOKEN, settings=settings, clock=clock, table=table, scheduler=scheduler,
        guard=RuleGuard(load_rules(None)), identify=lambda pid: [],
        on_pane_gone=lambda info: gone.append(info.pane_id),
    )  # fmt: skip
    yield Rig(registry, tmux, table, scheduler, clock, gone)
    registry.close_all()


def test_a_new_pane_gets_a_pipe_and_the_sweep_comes_back_soon(rig: Rig) -> None:
    rig.sweep(pane(1), pane(2, current_command="claude"))
    assert set(rig.table.panes) == {"%1", "%2"}
    assert rig.tmux.piped() == {"%1", "%2"}
    w = rig.table.panes["%2"]
    assert w.mode == "pipe" and w.pipe is not None
    assert w.pipe.read_fd in rig.scheduler.selector.get_map()
    assert w.manifest is not None and w.manifest.agent == "claude" and w.needs_seed
    assert rig.table.active == {"%2"}  # the plain pane waits for nothing
    # Whether each pipe is ours is looked at again after retry_sweep, not sweep_interval.
    assert rig.scheduler.next_sweep == rig.clock.now() + rig.registry.settings.retry_sweep
    assert rig.table.counters["sweeps"] == 1


def test_a_pane_gone_from_the_listing_is_closed_and_published_at_once(rig: Rig) -> None:
    rig.sweep(pane(1), pane(2))
    pipe = rig.table.panes["%2"].pipe
    assert pipe is not None
    rig.table.publish_due = False
    rig.sweep(pane(1))
    assert set(rig.table.panes) == {"%1"} and rig.gone == ["%2"]
    assert pipe.read_fd not in rig.scheduler.selector.get_map()
    assert rig.table.publish_due and rig.table.status_dirty


def test_someone_elses_pipe_is_kept_and_an_agent_there_is_polled(rig: Rig) -> None:
    rig.tmux.foreign = {"%3"}
    rig.sweep(pane(3, current_command="claude"))
    w = rig.table.panes["%3"]
    assert w.mode == "foreign" and w.pipe is None and rig.tmux.piped() == set()
    assert rig.table.polled == {"%3"} and w.next_poll == rig.clock.now()
    rig.sweep(pane(3))  # the agent left: its screen is no longer captured
    assert rig.table.polled == set() and w.next_poll == float("inf")


def test_a_quiet_plain_pane_is_not_identified_again_at_every_sweep(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[int] = []

    def signature(pid: int) -> tuple[int, str]:
        read.append(pid)
        return pid, "sh"

    monkeypatch.setattr("osf_tmux.daemon.registry.foreground_signature", signature)
    rig.sweep(pane(1, pid=11))
    assert read == [11]
    rig.clock.advance(rig.registry.settings.quiet_identify)  # quiet since it was first seen
    rig.sweep(pane(1, pid=11))
    rig.clock.advance(1.0)
    rig.sweep(pane(1, pid=11))
    assert read == [11, 11]  # read again once quiet_identify passed, then not until the next
    rig.sweep(pane(1, pid=11, agent_override="claude"))  # tmux lists it otherwise: read now
    assert read == [11, 11, 11]
    assert rig.table.panes["%1"].manifest is not None


def test_a_new_pane_whose_agent_starts_after_the_first_read_is_found_at_the_next_sweep(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sh -c 'claude; …'` in a new pane: the first sweep may read the group before the
    wrapper has started the agent, and what the agent drew went out before our pipe was
    attached, so no bytes say the pane is busy. Its processes are read again at every sweep
    while the pane is new, not `quiet_identify` (10 s) later (a CI run caught it 6 s late)."""
    foreground = [(11, "sh -c claude")]
    monkeypatch.setattr("osf_tmux.daemon.registry.foreground_signature", lambda pid: foreground[-1])
    rig.registry.identify_argv = lambda pid: [
        line.split()[1:] for line in foreground[-1][1].splitlines()[1:]
    ]
    rig.sweep(pane(1, pid=11, current_command="sh"))
    w = rig.table.panes["%1"]
    assert w.mode == "pipe" and w.manifest is None
    rig.clock.advance(rig.registry.settings.sweep_interval)
    foreground.append((11, "sh -c claude\n12 /bin/sh /tmp/claude"))
    rig.sweep(pane(1, pid=11, current_command="sh"))
    assert w.manifest is not None and w.manifest.agent == "claude"


def test_an_agent_that_starts_after_the_first_look_is_starting_up(rig: Rig) -> None:
    """Its work before its first prompt is its start-up, not a turn (judge/combine.py); one
    found at the daemon's first look may be in a turn someone asked for."""
    rig.sweep(pane(1, current_command="claude"), pane(2))
    first = rig.table.panes["%1"]
    assert first.manifest is not None and not first.tracker.starting
    rig.clock.advance(rig.registry.settings.sweep_interval)
    rig.sweep(pane(1, current_command="claude"), pane(2, current_command="codex"))
    later = rig.table.panes["%2"]
    assert later.manifest is not None and later.manifest.agent == "codex"
    assert later.tracker.starting and not first.tracker.starting
    rig.clock.advance(rig.registry.settings.sweep_interval)
    rig.sweep(
        pane(1, current_command="claude"),
        pane(2, current_command="codex"),
        pane(3, current_command="gemini"),
    )
    assert rig.table.panes["%3"].tracker.starting  # a new pane, its agent new with it
    # Rules loaded again (new manifests, the same agents): nobody started anything.
    before = first.manifest
    rig.registry.guard = RuleGuard(load_rules(None))
    rig.registry.identify(first, rig.clock.now())
    assert first.manifest is not None and first.manifest is not before
    assert not first.tracker.starting


def test_a_respawned_pane_is_read_at_the_next_sweep(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`respawn-pane -k` keeps the pane's id and gives it a new process: an old, quiet pane
    whose new process is the agent's wrapper is read again at once, not 10 s later."""
    read: list[int] = []

    def signature(pid: int) -> tuple[int, str]:
        read.append(pid)
        return pid, "sh -c claude" if pid == 12 else "sh"

    monkeypatch.setattr("osf_tmux.daemon.registry.foreground_signature", signature)
    rig.registry.identify_argv = lambda pid: [["claude"]] if pid == 12 else [["sh"]]
    rig.sweep(pane(1, pid=11, current_command="sh"))
    rig.table.panes["%1"].first_seen -= rig.registry.settings.quiet_identify  # an old pane
    rig.clock.advance(rig.registry.settings.sweep_interval)
    rig.sweep(pane(1, pid=11, current_command="sh"))
    assert read == [11]  # quiet and listed as before: not read
    rig.sweep(pane(1, pid=12, current_command="sh"))
    assert read == [11, 12]
    assert rig.table.panes["%1"].manifest is not None


def test_a_plain_pane_with_someone_elses_pipe_is_identified_at_every_sweep(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its bytes never reach us, so nothing tells that it printed: an agent a launcher starts
    there (the launcher stays in the foreground, tmux lists the pane as before) is found at
    the next sweep, as in a pane whose pipe is ours, not `quiet_identify` (10 s) later."""
    foreground = [(11, "sh")]
    monkeypatch.setattr("osf_tmux.daemon.registry.foreground_signature", lambda pid: foreground[-1])
    rig.registry.identify_argv = lambda pid: [
        line.split()[1:] for line in foreground[-1][1].splitlines()[1:]
    ]
    rig.tmux.foreign = {"%1"}
    rig.sweep(pane(1, pid=11, current_command="sh"))
    w = rig.table.panes["%1"]
    assert w.mode == "foreign" and w.manifest is None
    rig.clock.advance(rig.registry.settings.sweep_interval)
    foreground.append((11, "sh -c launch\n12 node codex.js"))
    rig.sweep(pane(1, pid=11, current_command="sh"))
    assert w.manifest is not None and w.manifest.agent == "codex"
    assert rig.table.polled == {"%1"}


def test_an_agent_starting_in_a_new_pane_with_someone_elses_pipe_is_found_within_a_second(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex in a pane whose pipe another tool holds is at its prompt 0.4-0.8 s after the pane
    opens; no bytes reach us to say so. Found at the next periodic sweep (2 s), a prompt typed
    at once came before its first state, and its idle prompt was never shown (issue #30's
    soak: 12 of 95 such start-ups late). While new, the pane is listed again as often as a
    printing pane of ours is read again (`identify_interval`); later, at the usual pace."""
    s = rig.registry.settings
    foreground = [(11, "sh")]
    monkeypatch.setattr("osf_tmux.daemon.registry.foreground_signature", lambda pid: foreground[-1])
    rig.registry.identify_argv = lambda pid: [
        line.split()[1:] for line in foreground[-1][1].splitlines()[1:]
    ]
    rig.tmux.foreign = {"%1", "%2"}
    opened = rig.clock.now()
    rig.sweep(pane(1, pid=11, current_command="sh"))
    w = rig.table.panes["%1"]
    assert w.mode == "foreign" and w.manifest is None
    started = opened + 0.3  # the wrapper starts the agent after the first listing

    def sweeps_due() -> None:  # the loop: a sweep whenever the scheduler says one is due
        rig.clock.advance(rig.scheduler.next_sweep - rig.clock.now())
        rig.sweep(pane(1, pid=11, current_command="sh"))

    rig.clock.advance(started - rig.clock.now())
    foreground.append((11, "sh -c launch\n12 node codex.js"))
    while w.manifest is None:
        sweeps_due()
    assert w.manifest.agent == "codex" and rig.table.polled == {"%1"}
    assert rig.clock.now() - started <= s.identify_interval
    # An agent pane is captured on its own timer: no sweep sooner than usual for it.
    assert rig.scheduler.next_sweep == rig.clock.now() + s.sweep_interval

    # A plain pane with someone else's pipe is listed often only while it is new.
    foreground.append((11, "sh"))
    rig.tmux.panes = [pane(2, pid=13, current_command="sh")]
    rig.registry.sweep()
    assert rig.scheduler.next_sweep == rig.clock.now() + s.identify_interval
    rig.clock.advance(s.quiet_identify)
    rig.registry.sweep()
    assert rig.scheduler.next_sweep == rig.clock.now() + s.sweep_interval
