"""Pure classification: (Snapshot, Manifest) -> Verdict. Knows neither pyte nor tmux."""

from __future__ import annotations

from dataclasses import dataclass

from osf_tmux.manifest import Condition, Manifest, Rule
from osf_tmux.regions import Region
from osf_tmux.snapshot import Snapshot

DEFAULT_STATE = "idle"


@dataclass(frozen=True)
class Verdict:
    """What the screen says: the state and the rule that decided it (None: the default)."""

    state: str
    rule: str | None
    agent: str


@dataclass(frozen=True)
class RuleTrace:
    """Why one rule did or did not fire, for `explain`."""

    rule: Rule
    matched: bool
    reason: str


class _Regions:
    """Region texts computed at most once per classification."""

    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap
        self._cache: dict[Region, str] = {}

    def text(self, region: Region) -> str:
        cached = self._cache.get(region)
        if cached is None:
            cached = self._cache[region] = region.text(self._snap)
        return cached

    def matches(self, cond: Condition) -> bool:
        return cond.matches(self.text(cond.region))


def _failure(rule: Rule, regions: _Regions) -> str | None:
    """None when the rule fires, else the first reason it does not."""
    for cond in rule.all:
        if not regions.matches(cond):
            return f"all: /{cond.pattern.pattern}/ not found in {cond.region}"
    if rule.any and not any(regions.matches(c) for c in rule.any):
        return f"any: none of {len(rule.any)} patterns found"
    for cond in rule.not_:
        if regions.matches(cond):
            return f"not: /{cond.pattern.pattern}/ found in {cond.region}"
    return None


def classify(snap: Snapshot, manifest: Manifest) -> Verdict:
    regions = _Regions(snap)
    for rule in manifest.rules:
        if _failure(rule, regions) is None:
            return Verdict(rule.state, rule.id, manifest.agent)
    return Verdict(DEFAULT_STATE, None, manifest.agent)


def explain(snap: Snapshot, manifest: Manifest) -> tuple[Verdict, list[RuleTrace]]:
    """The verdict plus, for each rule up to the one that fired, why it did or did not."""
    regions = _Regions(snap)
    traces: list[RuleTrace] = []
    for rule in manifest.rules:
        reason = _failure(rule, regions)
        traces.append(RuleTrace(rule, reason is None, reason or "matched"))
        if reason is None:
            return Verdict(rule.state, rule.id, manifest.agent), traces
    return Verdict(DEFAULT_STATE, None, manifest.agent), traces
