"""How many examples a Hypothesis test draws: its full count when the run holds the slow tier (the
whole suite, `pytest -n 4`), a quarter of it in the fast tier (`-m "not slow"`), so that the
fast tier stays quick and the whole suite checks as much as ever.

tests/conftest.py says which run this is (`pytest_configure`, before any test module is
imported); a module run on its own without `-m` draws the full count."""

from __future__ import annotations

FAST_TIER_SHARE = 4

_fast_tier = False


def set_fast_tier(markexpr: str) -> None:
    global _fast_tier
    _fast_tier = "not slow" in markexpr


def examples(full: int) -> int:
    return max(1, full // FAST_TIER_SHARE) if _fast_tier else full
