"""Pure classification: (Snapshot, Manifest) -> Verdict. Knows neither pyte nor tmux."""

from __future__ import annotations

import re
from collections.abc import Callable
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


# A condition as classify runs it: the pattern's search and the index of its region's text.
_Check = tuple[Callable[[str], "re.Match[str] | None"], int]


class _Plan:
    """A manifest laid out for `classify`: regions numbered, conditions as (search, region
    index), one Verdict per rule. Built once per manifest; the rules themselves are untouched."""

    __slots__ = ("default", "manifest", "regions", "rules")

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        index: dict[Region, int] = {}

        def checks(conds: tuple[Condition, ...]) -> tuple[_Check, ...]:
            return tuple((c.pattern.search, index.setdefault(c.region, len(index))) for c in conds)

        self.rules = tuple(
            (checks(r.all), checks(r.any), checks(r.not_), Verdict(r.state, r.id, manifest.agent))
            for r in manifest.rules
        )
        self.regions = tuple(index)
        self.default = Verdict(DEFAULT_STATE, None, manifest.agent)


# By id(manifest); a plan keeps its manifest alive, so an id cannot be reused under it.
_plans: dict[int, _Plan] = {}


def _plan(manifest: Manifest) -> _Plan:
    plan = _plans.get(id(manifest))
    if plan is None or plan.manifest is not manifest:
        if len(_plans) >= 256:
            _plans.clear()
        plan = _plans[id(manifest)] = _Plan(manifest)
    return plan


def classify(snap: Snapshot, manifest: Manifest) -> Verdict:
    """The first rule whose conditions hold decides; none: the default state.

    The same decision as `explain`, without building reasons; each region's text is built at
    most once, and only when a condition needs it."""
    plan = _plan(manifest)
    regions = plan.regions
    texts: list[str | None] = [None] * len(regions)
    for all_, any_, not_, verdict in plan.rules:
        for search, i in all_:
            text = texts[i]
            if text is None:
                text = texts[i] = regions[i].text(snap)
            if search(text) is None:
                break
        else:
            if any_:
                for search, i in any_:
                    text = texts[i]
                    if text is None:
                        text = texts[i] = regions[i].text(snap)
                    if search(text) is not None:
                        break
                else:
                    continue
            for search, i in not_:
                text = texts[i]
                if text is None:
                    text = texts[i] = regions[i].text(snap)
                if search(text) is not None:
                    break
            else:
                return verdict
    return plan.default


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
