"""The soak's start-up figure (bench/soak.py `first_idle_delay`): how soon after the lab saw an
agent's idle input its pane was published idle, and None when it was not before the lab typed
its first prompt (issue #30's late Codex start-ups in panes with someone else's pipe)."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.bench_scripts import bench_script
from tests.support.live_agents import Label, Sample

Delay = Callable[[list[Label], list[Sample]], "float | None"]


first_idle_delay: Delay = bench_script("soak").first_idle_delay
LABELS = [
    Label("idle", 100.0, "startup finished, composer ready"),
    Label("working", 101.2, "prompt submitted, agent working"),
    Label("idle", 104.0, "turn finished"),
]


def samples(*changes: tuple[float, str | None]) -> list[Sample]:
    """A sample every 0.1 s from 99.0 to 105.0, each the state of the last change before it."""
    out, k, state = [], 0, None
    for i in range(61):
        t = 99.0 + i / 10
        while k < len(changes) and changes[k][0] <= t:
            state = changes[k][1]
            k += 1
        out.append(Sample(t, state))
    return out


def test_idle_published_after_the_lab_saw_it() -> None:
    got = first_idle_delay(LABELS, samples((100.25, "idle"), (101.3, "working")))
    assert got is not None and abs(got - 0.3) < 1e-6


def test_found_only_after_the_first_prompt_is_never_shown() -> None:
    """The pane had no state until the agent was at work on the prompt: its idle is missing,
    and the `done` at the end of that turn is not it."""
    assert first_idle_delay(LABELS, samples((102.2, "working"), (104.5, "done"))) is None


def test_idle_shown_just_before_the_lab_saw_it_counts() -> None:
    got = first_idle_delay(LABELS, samples((99.8, "idle"), (101.3, "working")))
    assert got is not None and -0.5 <= got < 0
