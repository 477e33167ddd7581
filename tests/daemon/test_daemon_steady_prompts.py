"""No prompt is lost on the slower beat: for every agent, the labelled prompt that follows the
longest working stretch in its captures is replayed at its recorded pace into a pane while two
other panes spin (so that the beat is on), in process, with a fake clock and real FIFOs. The
pane must go onto the beat while it works (measured: 15 of the 16 agents' cases; generic's
`working` comes from output that flows, which the beat leaves alone) and show `blocked` within
`steady_read` plus the settle time of the read that brought the prompt (measured: 0-0.23 s)."""

from __future__ import annotations

import dataclasses
import os
import selectors
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.watch import PaneWatch
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.judge.corpus import Capture
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_settle import fake_daemon
from tests.daemon.test_daemon_steady import WORKING, _info, one_turn
from tests.support.corpus import captures

ROOT = Path(__file__).resolve().parents[2]
STEP = 0.01  # the simulated loop turns this often


def longest_lead_ins() -> list[tuple[Capture, int, int, list[tuple[float, int]]]]:
    """Per agent: (capture, working offset, blocked offset, reads in between as (seconds after
    the working cue's read, end offset)), the one with the longest stretch of reads."""
    best: dict[str, tuple[float, tuple[Capture, int, int, list[tuple[float, int]]]]] = {}
    for cap in captures(ROOT / "captures"):
        agent = cap.agent()
        if cap.labels_path is None or not agent:
            continue
        for working_at, blocked_at in cap.prompts_after_work():
            reads = cap.reads_after(working_at, blocked_at)
            if not reads or reads[-1][1] != blocked_at:
                continue  # the prompt's last byte must end a read
            span = reads[-1][0]
            if span > best.get(agent, (0.0,))[0]:
                best[agent] = (span, (cap, working_at, blocked_at, reads))
    return [case for _, case in sorted(best.values(), key=lambda v: v[1][0].name)]


CASES = longest_lead_ins()


class Loop:
    """Three panes: 0 replays the capture, 1 and 2 spin; `turn` is one pass of the loop."""

    def __init__(self, tmp: Path, size: tuple[int, int], agent: str) -> None:
        d, self.clock = fake_daemon(tmp)
        self.daemon = d
        d.scheduler.next_sweep = float("inf")  # no tmux here to list panes
        rules = d.guard.rules
        self.watches: list[PaneWatch] = []
        self.writers: list[int] = []
        panes = ((1, size, agent), (2, (120, 32), "claude"), (3, (120, 32), "claude"))
        for n, (cols, rows), name in panes:
            pipe = d.pipes.open(f"%{n}")
            d.scheduler.selector.register(pipe.read_fd, selectors.EVENT_READ, f"%{n}")
            info = _info(n)
            # Named by `@osf-agent`: the pane's process (none here) must not re-identify it.
            info = dataclasses.replace(info, width=cols, height=rows, agent_override=name)
            w = PaneWatch(
                info, PaneTracker(), pipe=pipe, mode="pipe", manifest=rules.get(name),
                screen=PaneScreen(cols, rows),
            )  # fmt: skip
            d.table.panes[f"%{n}"] = w
            self.watches.append(w)
            self.writers.append(os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK))

    def write(self, i: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.writers[i], view) :]
        pipe = self.watches[i].pipe
        assert pipe is not None
        stamp = int(self.clock.wall() * 1e9)
        os.utime(pipe.path, ns=(stamp, stamp))

    def turn(self) -> None:
        one_turn(self.daemon, self.watches, self.clock.now())

    def close(self) -> None:
        for fd in self.writers:
            os.close(fd)
        for w in self.watches:
            self.daemon.registry.close_pipe(w)


MakeLoop = Callable[[tuple[int, int], str], Loop]


@pytest.fixture
def make_loop(tmp_path: Path) -> Iterator[MakeLoop]:
    loops: list[Loop] = []

    def make(size: tuple[int, int], agent: str) -> Loop:
        loops.append(Loop(tmp_path / str(len(loops)), size, agent))
        return loops[-1]

    yield make
    for loop in loops:
        loop.close()


def test_there_is_a_case_for_every_agent_with_prompts() -> None:
    assert len(CASES) >= 10, [c[0].name for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=[c[0].name for c in CASES])
def test_a_prompt_that_comes_while_its_pane_is_on_the_beat_is_seen(
    case: tuple[Capture, int, int, list[tuple[float, int]]], make_loop: MakeLoop
) -> None:
    cap, working_at, blocked_at, reads = case
    size, agent = cap.size(), cap.agent()
    assert size and agent
    data = cap.bytes_path.read_bytes()
    loop = make_loop(size, agent)
    s = loop.daemon.settings
    w = loop.watches[0]
    loop.write(0, data[:working_at])
    # The spinners draw for a while first: the beat needs three panes that draw.
    next_spin = loop.clock.now()
    began = loop.clock.now() + 0.3
    done = working_at
    pending = list(reads)
    prompt_at: float | None = None
    parked_before = False
    deadline = began + reads[-1][0] + s.steady_read + 1.0
    while loop.clock.now() < deadline:
        now = loop.clock.now()
        if now >= next_spin:
            loop.write(1, WORKING)
            loop.write(2, WORKING)
            next_spin += 0.1
        while pending and now >= began + pending[0][0]:
            _, end = pending.pop(0)
            loop.write(0, data[done:end])
            done = end
            if end == blocked_at:
                prompt_at = now
        if prompt_at is None:
            parked_before = parked_before or w.parked
        loop.turn()
        if prompt_at is not None and w.tracker.current.state == "blocked":
            break
        loop.clock.advance(STEP)
    assert prompt_at is not None
    assert w.tracker.current.state == "blocked", cap.name
    waited = loop.clock.now() - prompt_at
    assert waited <= s.steady_read + s.settle + 2 * STEP, (cap.name, waited)
    # Every chosen stretch draws for 1.5 s or more under a verdict that holds. Only where
    # `working` comes from output that flows (a deadline of its own) does the beat stay off.
    assert w.manifest is not None
    assert parked_before or w.manifest.output_flow is not None, cap.name
