"""The tiers: what the fast tier (`-m "not slow"`) holds and what it leaves to the whole suite."""

from __future__ import annotations

import pytest

from tests.rules import test_captures
from tests.support.examples import in_fast_tier, sampled


def test_every_test_that_drives_tmux_is_live_and_every_live_test_slow(
    request: pytest.FixtureRequest,
) -> None:
    """Checked on whatever this run selected: the fast tier selects none of them, the whole
    suite all of them, marked as the tiers say."""
    items = request.session.items
    live = [i for i in items if i.get_closest_marker("live")]
    assert all(i.get_closest_marker("live") for i in items if i.get_closest_marker("tmux"))
    assert all(i.get_closest_marker("slow") for i in live)
    if in_fast_tier():
        assert live == []


def test_the_golden_tests_sample_meets_every_capture_folder() -> None:
    folders = {capture.bytes_path.parent for capture, _ in test_captures.CASES}
    sample = {
        p.values[0].bytes_path.parent
        for p in test_captures._params()
        if not any(m.name == "slow" for m in p.marks)
    }
    assert sample == folders
    assert len(sample) < len(test_captures.CASES)


def test_a_sample_takes_each_groups_first_then_every_nth() -> None:
    assert [r for r in range(10) if sampled(r, 4)] == [0, 4, 8]
    assert [r for r in range(3) if sampled(r, 20)] == [0]
