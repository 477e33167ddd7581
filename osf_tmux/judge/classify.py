"""Pure classification: (Snapshot, Manifest) -> Verdict. Knows neither pyte nor tmux."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from osf_tmux.judge import char_classes
from osf_tmux.judge.char_classes import CharClasses
from osf_tmux.judge.digit_blind import TO_ZERO, is_digit_blind
from osf_tmux.judge.fast_search import Finder, fast_search
from osf_tmux.judge.line_local import is_line_local
from osf_tmux.judge.manifest import Condition, Manifest, Rule
from osf_tmux.judge.regions import CURSOR_COLUMN_KINDS, RULE_ROW, Region, is_rule_row
from osf_tmux.judge.text_cache import TextCache
from osf_tmux.vt.snapshot import Snapshot

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


def rule_matches(rule: Rule, snap: Snapshot) -> bool:
    """Whether one rule's conditions hold on `snap` (for the holds the pane tracker applies,
    which classify does not run)."""
    return _failure(rule, _Regions(snap)) is None


# A condition as classify runs it: the pattern's search and the index of its region's text.
_Check = tuple[Finder, int]


class _Plan:
    """A manifest laid out for `classify`: regions numbered, conditions as (search, region
    index), one Verdict per rule. Built once per manifest; the rules themselves are untouched."""

    __slots__ = (
        "_classes",
        "blind",
        "blind_signatures",
        "default",
        "line_local",
        "manifest",
        "regions",
        "rules",
        "searches",
        "seeing",
        "sees_cursor",
        "sees_cursor_column",
        "sees_title",
        "signatures",
        "spanning",
    )

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        index: dict[Region, int] = {}
        conditions = [c for r in manifest.rules for c in (*r.all, *r.any, *r.not_)]
        finders = {c.pattern: fast_search(c.pattern) for c in conditions}

        def checks(conds: tuple[Condition, ...]) -> tuple[_Check, ...]:
            return tuple(
                (finders[c.pattern], index.setdefault(c.region, len(index))) for c in conds
            )

        self.rules = tuple(
            (checks(r.all), checks(r.any), checks(r.not_), Verdict(r.state, r.id, manifest.agent))
            for r in manifest.rules
        )
        self.regions = tuple(index)
        self.default = Verdict(DEFAULT_STATE, None, manifest.agent)
        self.searches = tuple(finders.values())
        # A pattern searched in one row only cannot cross lines, whatever it says. Rows are told
        # apart by what these patterns find in them (their signature), and by the characters
        # the others can tell apart (char_classes.py).
        within = {c: c.region.one_row or is_line_local(c.pattern) for c in conditions}
        local = {c.pattern for c in conditions if within[c]}
        self.spanning = tuple({c.pattern: None for c in conditions if not within[c]})
        self.line_local = not self.spanning
        # Patterns that cannot tell one digit from another (digit_blind.py) see a row the same
        # as with every digit written `0`: a ticking counter's rows share their answers.
        blind = {p for p in local if is_digit_blind(p)}
        self.blind = tuple(f for p, f in finders.items() if p in blind)
        self.seeing = tuple(f for p, f in finders.items() if p in local and p not in blind)
        self.blind_signatures: TextCache[tuple[bool, ...]] = TextCache()
        self.sees_cursor = any(r.kind in ("cursor_row", *CURSOR_COLUMN_KINDS) for r in self.regions)
        self.sees_cursor_column = any(r.kind in CURSOR_COLUMN_KINDS for r in self.regions)
        self.sees_title = any(r.kind == "title" for r in self.regions)
        self.signatures: TextCache[tuple[bool, ...]] = TextCache()
        self._classes: CharClasses | bool | None = False  # False: not built yet

    @property
    def classes(self) -> CharClasses | None:
        """The characters the patterns that may span lines cannot tell apart (char_classes.py),
        built when first asked for; None when one of them is beyond that analysis."""
        if self._classes is False:
            self._classes = char_classes.build([*self.spanning, RULE_ROW])
        return self._classes  # type: ignore[return-value]  # no longer False

    def signature(self, row: str) -> tuple[bool, ...]:
        """Everything the line-local patterns can see of one row: whether it is blank (tail
        regions skip blank rows), whether it is a rule (below_rule/above_rule split there), and
        which of them match in it."""
        sig = self.signatures.get(row)
        if sig is None:
            # Blank, rule and the blind patterns' answers: none of them tells digits apart.
            zeroed = row.translate(TO_ZERO)
            blind = self.blind_signatures.get(zeroed)
            if blind is None:
                blind = self.blind_signatures.put(
                    zeroed,
                    (
                        not zeroed or zeroed.isspace(),
                        is_rule_row(zeroed),
                        *(search(zeroed) is not None for search in self.blind),
                    ),
                )
            sig = self.signatures.put(
                row, (*blind, *(search(row) is not None for search in self.seeing))
            )
        return sig


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


def same_verdict(before: Snapshot, after: Snapshot, manifest: Manifest) -> bool:
    """True when `after` is bound to get the verdict `before` got: the same screen, or one
    whose changed rows look the same to every pattern and to the regions. A row is compared by
    what each pattern that matches within single lines (line_local.py) finds in it (its
    signature) and, when some pattern may span lines, by its characters up to those no such
    pattern tells apart (char_classes.py: a spinner's glyph, a timer's digits). A spinner or a
    clock ticking in a row no rule looks at then costs no classification. False means:
    classify."""
    if before == after:
        return True
    if len(before.rows) != len(after.rows):
        return False
    plan = _plan(manifest)
    same: Callable[[str, str], bool]
    if plan.line_local:
        signature = plan.signature

        def same(old: str, new: str) -> bool:
            return signature(old) == signature(new)

    else:
        classes = plan.classes
        if classes is None:
            return False
        signature, canon = plan.signature, classes.canon

        def same(old: str, new: str) -> bool:
            # The characters first: cheaper, and where a row really changed they differ.
            return canon(old) == canon(new) and signature(old) == signature(new)

    if plan.sees_title and before.title != after.title and not same(before.title, after.title):
        return False
    if plan.sees_cursor_column:
        # A part of a row is not what the row's signature says: the cursor's row must stand.
        y = after.cursor[1]
        if before.cursor != after.cursor:
            return False
        if 0 <= y < len(after.rows) and before.rows[y] != after.rows[y]:
            return False
    elif (
        plan.sees_cursor
        and before.cursor[1] != after.cursor[1]
        # The cursor's row is a region of its own: the one it left and the one it is on now
        # must look the same.
        and not same(_cursor_row(before), _cursor_row(after))
    ):
        return False
    for old, new in zip(before.rows, after.rows, strict=True):
        if old is not new and old != new and not same(old, new):
            return False
    return True


def _cursor_row(snap: Snapshot) -> str:
    """The text of the `cursor_row` region ('' off the screen, as for an empty row)."""
    y = snap.cursor[1]
    return snap.rows[y] if 0 <= y < len(snap.rows) else ""


def matched_lines(snap: Snapshot, manifest: Manifest, rule_id: str | None) -> tuple[str, ...]:
    """The lines in which the rule `rule_id` found what it looks for, one per `all` and `any`
    condition ('' for one that found nothing). For a blocked rule these are the prompt's own
    lines (its question, its choices): two screens with the same lines show the same prompt,
    whatever else moved on them (a spinner, a clock)."""
    rule = next((r for r in manifest.rules if r.id == rule_id), None)
    if rule is None:
        return ()
    out = []
    for cond in (*rule.all, *rule.any):
        text = cond.region.text(snap)
        m = cond.pattern.search(text)
        if m is None:
            out.append("")
            continue
        end = text.find("\n", m.end())
        out.append(text[text.rfind("\n", 0, m.start()) + 1 : len(text) if end < 0 else end])
    return tuple(out)


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
