"""How much a check holds in the fast tier (`-m "not slow"`) and in the whole suite.

A Hypothesis test draws its full count of examples when the run holds the slow tier (the whole
suite, `pytest -n 4`), a quarter of it in the fast tier, so that the fast tier stays quick and
the whole suite checks as much as ever. A check over the captures takes a sample in the fast
tier (`sampled`), the rest of it is marked slow; the fast tier does not even build the tests it
would deselect (`sample_marks`: about 11,000 of the oracle's, ~1.5 s of each worker's start).

tests/conftest.py says which run this is (`pytest_configure`, before any test module is
imported); a module run on its own without `-m` checks everything."""

from __future__ import annotations

import pytest

FAST_TIER_SHARE = 4

_fast_tier = False


def set_fast_tier(markexpr: str) -> None:
    global _fast_tier
    _fast_tier = "not slow" in markexpr


def in_fast_tier() -> bool:
    """Whether this run deselects the slow tier: tests marked slow need not be built."""
    return _fast_tier


def examples(full: int) -> int:
    return max(1, full // FAST_TIER_SHARE) if _fast_tier else full


def sampled(rank: int, every: int) -> bool:
    """Whether the `rank`-th item of a group (from 0) is in the fast tier's sample: each group's
    first, then every `every`-th, so that every group is met."""
    return rank % every == 0


def sample_marks(in_sample: bool) -> list[pytest.MarkDecorator] | None:
    """The marks of a parameter of a sampled check: none in the sample; outside it, slow, or
    None in the fast tier (do not build it: it would only be deselected)."""
    if in_sample:
        return []
    return None if _fast_tier else [pytest.mark.slow]
