"""Rule matching under a CPU budget: whatever a rule's regex does, the daemon keeps answering.

Patterns of the shapes known to take exponential time are refused when rules are loaded
(judge/backtracking.py), but that check cannot know every slow pattern (`\\s*\\s*\\s*x` is
polynomial and passes it). So the daemon runs each classification with a CPU-time timer armed:
Python's regex engine checks for signals every few thousand steps, so the timer's signal ends
even a match that would run for hours, and the daemon goes on (and answers `stop`). The rule
that was too slow is found by running each rule alone on that screen, and dropped for the rest
of the daemon's life, with a warning in its log; the agent's other rules go on working.

The budget is CPU time of this process (ITIMER_VIRTUAL), not wall time: on a loaded machine a
classification may wait for a core, which is no fault of its rules. A classification takes
well under a millisecond of CPU (bench/RESULTS.md), so the budget is far from normal work."""

from __future__ import annotations

import functools
import logging
import re
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import FrameType, TracebackType
from typing import TypeVar

from osf_tmux.judge.classify import Verdict, classify, rule_matches
from osf_tmux.judge.holds import can_hold
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.judge.screen_judge import ScreenJudge
from osf_tmux.vt.snapshot import Snapshot

log = logging.getLogger("osf_tmux.daemon.rule_budget")

T = TypeVar("T")

BUDGET = 0.25  # seconds of CPU for one classification


class OverBudget(Exception):
    """A classification (or a process pattern) used more CPU than the budget allows."""


class RuleBudget:
    """A context that raises OverBudget in the code it wraps once `seconds` of CPU are spent.
    Only the main thread gets signals; elsewhere it does nothing (nothing there runs rules)."""

    def __init__(self, seconds: float = BUDGET) -> None:
        self.seconds = seconds
        self._works = threading.current_thread() is threading.main_thread()
        if self._works:
            signal.signal(signal.SIGVTALRM, _on_timer)

    def __enter__(self) -> RuleBudget:
        global _armed
        if self._works:
            _armed = self
            signal.setitimer(signal.ITIMER_VIRTUAL, self.seconds)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _armed
        if self._works:
            _armed = None
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)

    def run(self, work: Callable[[], T]) -> T:
        with self:
            return work()


_armed: RuleBudget | None = None  # the budget whose timer runs now


def _on_timer(signum: int, frame: FrameType | None) -> None:
    budget = _armed
    if budget is not None:  # a signal that arrives after the work finished changes nothing
        raise OverBudget(f"more than {budget.seconds:.2f}s of CPU")


def drop_slow_rules(
    budget: RuleBudget, rules: RuleSet, manifest: Manifest, snap: Snapshot
) -> tuple[RuleSet, Manifest, tuple[str, ...]]:
    """`rules` with `manifest` replaced by one without the rules (holds among them) that blow
    the budget on `snap` run alone (when none does, so they were only too slow together: the
    slowest one); the new manifest, and the ids dropped."""
    slow: list[str] = []
    costs: list[tuple[float, str]] = []
    for rule in (*manifest.rules, *manifest.holds):
        if rule.while_changing is None:
            alone = manifest.without(r.id for r in manifest.rules if r is not rule)
            work: Callable[[], object] = functools.partial(classify, snap, alone)
        else:
            work = functools.partial(rule_matches, rule, snap)
        start = time.process_time()
        try:
            budget.run(work)
        except OverBudget:
            slow.append(rule.id)
        costs.append((time.process_time() - start, rule.id))
    if not slow and costs:
        slow.append(max(costs)[1])
    fixed = replace(
        manifest.without(slow), holds=tuple(h for h in manifest.holds if h.id not in slow)
    )
    return rules.replacing(manifest, fixed), fixed, tuple(slow)


def drop_slow_process_args(
    budget: RuleBudget, rules: RuleSet, argvs: Sequence[Sequence[str]]
) -> tuple[RuleSet, tuple[str, ...]]:
    """`rules` without the process patterns that blow the budget on these command lines, and
    those patterns."""
    dropped: list[str] = []
    for manifest in list(rules.manifests.values()):
        slow = []
        for pattern in manifest.process_args:
            try:
                budget.run(functools.partial(_search_all, pattern, argvs))
            except OverBudget:
                slow.append(pattern)
        if slow:
            rules = rules.replacing(manifest, manifest.without(process_args=slow))
            dropped += [f"{manifest.agent}: {p.pattern}" for p in slow]
    return rules, tuple(dropped)


def _search_all(pattern: re.Pattern[str], argvs: Sequence[Sequence[str]]) -> None:
    for argv in argvs:
        for arg in argv:
            pattern.search(arg)


def judged(
    judge: ScreenJudge, snap: Snapshot, current: str | None
) -> tuple[Verdict, frozenset[str]]:
    """The verdict on `snap`, and the ids of the manifest's holds whose conditions match it
    (judge/holds.py: the tracker is handed only these, so their patterns run here too).
    `current`: what the pane reads now; where no hold can apply (`can_hold`), none is matched."""
    verdict = judge.verdict(snap)
    holds = judge.manifest.holds
    if not (holds and can_hold(current, verdict.state)):
        return verdict, frozenset()
    return verdict, frozenset(h.id for h in holds if rule_matches(h, snap))


class RuleGuard:
    """The rules in force, and the budget every use of them runs under: a rule that proves too
    slow is dropped from `rules` until the daemon restarts, with a warning."""

    def __init__(self, rules: RuleSet, budget: RuleBudget | None = None) -> None:
        self.rules = rules
        self.budget = budget or RuleBudget()

    def find(
        self,
        find: Callable[[RuleSet], Manifest | None],
        argvs: Callable[[], Sequence[Sequence[str]]],
    ) -> Manifest | None:
        """`find` run on the rules (which manifest a pane gets); process patterns too slow on
        the pane's command lines `argvs` are dropped, and `find` runs once more."""
        try:
            return self.budget.run(functools.partial(find, self.rules))
        except OverBudget:
            self.rules, dropped = drop_slow_process_args(self.budget, self.rules, argvs())
            log.warning("process patterns too slow to run, dropped: %s", "; ".join(dropped))
            try:
                return self.budget.run(functools.partial(find, self.rules))
            except OverBudget:
                return None

    def judge(
        self, judge: ScreenJudge, snap: Snapshot, current: str | None
    ) -> tuple[Verdict, frozenset[str]]:
        """`judged` under the budget; raises OverBudget (then `drop_slow`)."""
        return self.budget.run(functools.partial(judged, judge, snap, current))

    def drop_slow(self, manifest: Manifest, snap: Snapshot) -> Manifest:
        """A rule of `manifest` took more CPU than the budget on `snap`: the manifest without
        it, which the rules hold from now on."""
        self.rules, fixed, slow = drop_slow_rules(self.budget, self.rules, manifest, snap)
        log.warning(
            "rules %s of %s took more than %.2fs of CPU on one screen: dropped until the daemon "
            "restarts (check them: osf-tmux rules check %s)",
            ", ".join(slow),
            manifest.source or manifest.agent,
            self.budget.seconds,
            manifest.source,
        )
        return fixed
