"""Fixtures every rule test may ask for (the rest of the shared pieces: harness.py)."""

from __future__ import annotations

import pytest

from osf_tmux.judge.ruleset import RuleSet
from tests.rules.harness import shipped_rules


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    """Every shipped manifest (no user folder)."""
    return shipped_rules()
