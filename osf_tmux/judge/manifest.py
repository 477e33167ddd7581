"""Rule manifests: one TOML file per agent, validated once, regexes compiled once.

Every problem in a file is collected and reported together (file, rule, key, what is wrong),
so a user fixes a manifest in one pass instead of one error per run."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from osf_tmux.judge.answer import Answer as Answer  # re-exported: Manifest.answer is one
from osf_tmux.judge.answer import parse_answer
from osf_tmux.judge.backtracking import exponential_risk
from osf_tmux.judge.regions import Region
from osf_tmux.paths import shipped_rules_dir as shipped_rules_dir  # re-exported

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

STATES = ("blocked", "working", "idle")
_TOP_KEYS = {
    "agent",
    "name",
    "aliases",
    "processes",
    "process_args",
    "process_not",
    "rule",
    "description",
    "answer",
    "output_flow",
    "extends",
}
_RULE_KEYS = {"id", "state", "region", "all", "any", "not", "note", "answer", "while_changing"}
_AGENT_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
OUTPUT_FLOW_MAX = 60.0  # seconds; longer would keep a pane `working` long after it stopped


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a manifest, located as precisely as we can."""

    file: str
    message: str
    rule: str | None = None
    key: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.rule is not None:
            where += f": rule {self.rule}"
        if self.key is not None:
            where += f": {self.key}"
        return f"{where}: {self.message}"


class ManifestError(Exception):
    """A manifest that cannot be used; carries every problem found in it."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Condition:
    """One regex looked for in one region."""

    pattern: re.Pattern[str]
    region: Region

    def matches(self, region_text: str) -> bool:
        return self.pattern.search(region_text) is not None


@dataclass(frozen=True)
class Rule:
    id: str
    state: str
    region: Region
    all: tuple[Condition, ...] = ()
    any: tuple[Condition, ...] = ()
    not_: tuple[Condition, ...] = ()
    note: str = ""
    # Keys for this rule's prompt when they differ from the manifest's [answer] (a dialog's
    # second stage, where the usual keys would do something else).
    answer: Answer | None = None
    # Seconds: a hold, not a screen rule. It keeps a pane that already reads `working` working
    # while its conditions match and its region's text changed within this long (an answer
    # drawn with nothing on screen saying so); classify never sees it (judge/holds.py).
    while_changing: float | None = None


@dataclass(frozen=True)
class Manifest:
    agent: str
    name: str
    processes: tuple[str, ...]
    process_args: tuple[re.Pattern[str], ...]
    rules: tuple[Rule, ...]
    source: str = ""
    answer: Answer | None = None  # None: osf-tmux cannot answer this agent's prompts
    # A command line with an argument matching one of these is not this agent, whatever its
    # name (a helper daemon the agent runs from its own binary).
    process_not: tuple[re.Pattern[str], ...] = ()
    aliases: tuple[str, ...] = ()  # other names --agent and @osf-agent take (claude-code, ...)
    # Seconds: a screen no rule calls blocked or busy reads `working` while its text changed
    # within this long (judge/output_flow.py); None: the rules alone decide.
    output_flow: float | None = None
    # The rules with `while_changing`, kept apart from `rules`: they need time, which the pure
    # classification has not; the pane tracker applies them (judge/combine.py).
    holds: tuple[Rule, ...] = ()
    extends: str | None = None  # the agent whose manifest this one builds on (merged by now)
    # The top-level keys the file itself gave: what `extends` takes from the base instead.
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def without(
        self, rule_ids: Iterable[str] = (), process_args: Iterable[re.Pattern[str]] = ()
    ) -> Manifest:
        """This manifest without some of its rules or process patterns (ones that proved too
        slow to run)."""
        drop, args = set(rule_ids), set(process_args)
        return replace(
            self,
            rules=tuple(r for r in self.rules if r.id not in drop),
            process_args=tuple(p for p in self.process_args if p not in args),
        )

    def called(self, text: str) -> bool:
        """Whether `text` names this agent: its id, display name or an alias, in any case,
        with spaces, hyphens and underscores alike (`Claude`, `claude-code`, `Claude Code`)."""
        wanted = name_key(text)
        return any(name_key(n) == wanted for n in (self.agent, self.name, *self.aliases))

    def answer_for(self, rule_id: str | None) -> Answer | None:
        """The keys that answer the prompt `rule_id` recognised: the rule's own, else the
        manifest's."""
        for rule in self.rules:
            if rule.id == rule_id and rule.answer is not None:
                return rule.answer
        return self.answer


def name_key(text: str) -> str:
    return "-".join(re.split(r"[\s_-]+", text.strip().casefold()))


def load_manifest(path: Path, shipped_dir: Path | None = None) -> Manifest:
    """Read and validate one manifest file, and the manifests it `extends`, merged; raises
    ManifestError listing every problem.

    `extends = "NAME"` names a manifest by its agent name: NAME.toml beside the file, else
    among the shipped rules (`shipped_dir`); a file that extends its own name (a user's
    claude.toml with `extends = "claude"`) builds on the shipped one."""
    return _load_extending(path, shipped_dir or shipped_rules_dir(), ())


def _load_extending(path: Path, shipped: Path, chain: tuple[Path, ...]) -> Manifest:
    own = _load_one(path)
    if own.extends is None:
        return own
    here = path.resolve()
    chain = (*chain, here)
    base_path = None
    for candidate in (path.parent / f"{own.extends}.toml", shipped / f"{own.extends}.toml"):
        if candidate.is_file() and candidate.resolve() != here:
            base_path = candidate
            break
    if base_path is None:
        known = sorted({p.stem for d in (path.parent, shipped) for p in manifest_files(d)})
        raise ManifestError(
            [
                Problem(
                    str(path),
                    f"no manifest named {own.extends!r} to extend "
                    f"(looked for {own.extends}.toml here and among the shipped rules; "
                    f"known: {', '.join(known)})",
                    key="extends",
                )
            ]
        )
    if base_path.resolve() in chain:
        names = " -> ".join(p.stem for p in (*chain, base_path.resolve()))
        raise ManifestError(
            [Problem(str(path), f"extends goes round in a circle: {names}", key="extends")]
        )
    try:
        base = _load_extending(base_path, shipped, chain)
    except ManifestError as exc:
        problem = Problem(
            str(path), f"extends {own.extends!r}, which cannot be used:", key="extends"
        )
        raise ManifestError([problem, *exc.problems]) from None
    return extend(base, own)


def extend(base: Manifest, own: Manifest) -> Manifest:
    """`own` built on `base`. Rules: own blocked rules, the base's blocked rules, own other
    rules, the base's other rules (blocked first stays true; within each group the extending
    manifest's rules are tried first); an own rule with a base rule's id takes its place.
    Process names and patterns (as a whole: a file that gives any of `processes`,
    `process_args`, `process_not` gives all three), `[answer]` and `output_flow` are the base's
    unless the file gives its own (a program that gives its own names is another program);
    agent, name and aliases are always its own."""
    mine = {r.id for r in (*own.rules, *own.holds)}
    inherited = [r for r in base.rules if r.id not in mine]

    def blocked_first(rules: Iterable[Rule]) -> list[Rule]:
        listed = list(rules)
        return [r for r in listed if r.state == "blocked"] + [
            r for r in listed if r.state != "blocked"
        ]

    own_rules = blocked_first(own.rules)
    base_rules = blocked_first(inherited)
    n_own = sum(r.state == "blocked" for r in own_rules)
    n_base = sum(r.state == "blocked" for r in base_rules)
    rules = (*own_rules[:n_own], *base_rules[:n_base], *own_rules[n_own:], *base_rules[n_base:])

    def pick(key: str, own_value: Any, base_value: Any) -> Any:
        return own_value if key in own.given else base_value

    # How the program is found goes as a whole: one of the three given, all three are its own.
    named = bool(own.given & {"processes", "process_args", "process_not"})
    return replace(
        own,
        rules=rules,
        holds=(*own.holds, *(h for h in base.holds if h.id not in mine)),
        processes=own.processes if named else base.processes,
        process_args=own.process_args if named else base.process_args,
        process_not=own.process_not if named else base.process_not,
        answer=pick("answer", own.answer, base.answer),
        output_flow=pick("output_flow", own.output_flow, base.output_flow),
    )


def _load_one(path: Path) -> Manifest:
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ManifestError([Problem(name, f"cannot read: {exc.strerror or exc}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError([Problem(name, f"not UTF-8 text: {exc.reason}")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError([Problem(name, f"not valid TOML: {exc}")]) from None
    return parse_manifest(data, name)


class _Problems:
    """Collects problems for one file so that validation can go on past the first one."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[Problem] = []

    def add(self, message: str, rule: str | None = None, key: str | None = None) -> None:
        self.items.append(Problem(self.source, message, rule, key))


def parse_manifest(data: Mapping[str, Any], source: str) -> Manifest:
    """Validate parsed TOML; raises ManifestError listing every problem."""
    problems = _Problems(source)
    for key in sorted(set(data) - _TOP_KEYS):
        problems.add(f"unknown key (known: {', '.join(sorted(_TOP_KEYS))})", key=key)

    agent = data.get("agent")
    if not isinstance(agent, str) or not _AGENT_NAME.match(agent):
        problems.add("must be a lower-case name like 'claude'", key="agent")
        agent = "?"
    display = data.get("name", agent)
    if not isinstance(display, str):
        problems.add("must be a string", key="name")
        display = agent
    aliases = _strings(data.get("aliases", []), "aliases", problems)
    processes = _strings(data.get("processes", []), "processes", problems)
    process_args = tuple(
        pattern
        for source_re in _strings(data.get("process_args", []), "process_args", problems)
        if (pattern := _compile(source_re, problems, None, "process_args")) is not None
    )
    process_not = tuple(
        pattern
        for source_re in _strings(data.get("process_not", []), "process_not", problems)
        if (pattern := _compile(source_re, problems, None, "process_not")) is not None
    )

    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list) or not all(isinstance(r, dict) for r in raw_rules):
        problems.add("must be an array of tables ([[rule]])", key="rule")
        raw_rules = []
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, raw_rule in enumerate(raw_rules, start=1):
        rule = _parse_rule(raw_rule, index, seen, problems)
        if rule is not None:
            rules.append(rule)

    # Blocked first: a permission prompt can sit above a footer that still looks busy.
    first_other = next((r for r in rules if r.state != "blocked"), None)
    if first_other is not None:
        for rule in rules[rules.index(first_other) :]:
            if rule.state == "blocked":
                problems.add(
                    f"blocked rules must come first; this one follows rule {first_other.id!r}",
                    rule.id,
                )

    answer = None
    if "answer" in data:
        answer_problems, answer = parse_answer(data["answer"])
        for message, key in answer_problems:
            problems.add(message, key=key)

    output_flow = data.get("output_flow")
    if output_flow is not None and (
        isinstance(output_flow, bool)
        or not isinstance(output_flow, (int, float))
        or not 0 < output_flow <= OUTPUT_FLOW_MAX
    ):
        problems.add(
            f"must be a number of seconds, more than 0 and at most {OUTPUT_FLOW_MAX:g}",
            key="output_flow",
        )
        output_flow = None
    extends = data.get("extends")
    if extends is not None and (not isinstance(extends, str) or not _AGENT_NAME.match(extends)):
        problems.add("must name another manifest's agent, like 'generic'", key="extends")
        extends = None

    if problems.items:
        raise ManifestError(problems.items)
    return Manifest(
        agent,
        display,
        processes,
        process_args,
        tuple(r for r in rules if r.while_changing is None),
        source,
        answer,
        aliases=aliases,
        process_not=process_not,
        output_flow=float(output_flow) if output_flow is not None else None,
        holds=tuple(r for r in rules if r.while_changing is not None),
        extends=extends,
        given=frozenset(data),
    )


def _parse_answer(raw: Any, problems: _Problems, rule: str | None = None) -> Answer | None:
    """`[answer]` (or a rule's own `answer`), its problems added to the manifest's."""
    found, answer = parse_answer(raw)
    for message, key in found:
        problems.add(message, rule, key)
    return answer


def _parse_rule(
    raw: Mapping[str, Any], index: int, seen: set[str], problems: _Problems
) -> Rule | None:
    rule_id = raw.get("id")
    label = rule_id if isinstance(rule_id, str) and rule_id else f"#{index}"
    before = len(problems.items)

    for key in sorted(set(raw) - _RULE_KEYS):
        problems.add(f"unknown key (known: {', '.join(sorted(_RULE_KEYS))})", label, key)
    if not isinstance(rule_id, str) or not rule_id:
        problems.add("every rule needs a non-empty string id", label, "id")
    elif rule_id in seen:
        problems.add("duplicate id", label, "id")
    else:
        seen.add(rule_id)
    state = raw.get("state")
    if state not in STATES:
        problems.add(f"must be one of {', '.join(STATES)}", label, "state")
    region = Region("screen")
    region_spec = raw.get("region", "screen")
    if isinstance(region_spec, str):
        try:
            region = Region.parse(region_spec)
        except ValueError as exc:
            problems.add(str(exc), label, "region")
    else:
        problems.add("must be a string", label, "region")
    note = raw.get("note", "")
    if not isinstance(note, str):
        problems.add("must be a string", label, "note")

    groups = {
        key: _conditions(raw.get(key, []), key, region, label, problems)
        for key in ("all", "any", "not")
    }
    answer = None
    if "answer" in raw:
        answer = _parse_answer(raw["answer"], problems, label)
        if state != "blocked":
            problems.add("only a blocked rule's prompt can be answered", label, "answer")
    if not groups["all"] and not groups["any"] and len(problems.items) == before:
        problems.add("needs at least one condition in 'all' or 'any'", label)
    while_changing = raw.get("while_changing")
    if while_changing is not None:
        if (
            isinstance(while_changing, bool)
            or not isinstance(while_changing, (int, float))
            or not 0 < while_changing <= OUTPUT_FLOW_MAX
        ):
            problems.add(
                f"must be a number of seconds, more than 0 and at most {OUTPUT_FLOW_MAX:g}",
                label,
                "while_changing",
            )
        if state != "working":
            problems.add(
                "only a working rule can hold a pane while its screen changes",
                label,
                "while_changing",
            )
    if len(problems.items) > before:
        return None
    assert isinstance(rule_id, str) and isinstance(state, str) and isinstance(note, str)
    return Rule(
        rule_id,
        state,
        region,
        groups["all"],
        groups["any"],
        groups["not"],
        note,
        answer,
        float(while_changing) if while_changing is not None else None,
    )


def _conditions(
    raw: Any, key: str, default: Region, label: str, problems: _Problems
) -> tuple[Condition, ...]:
    if not isinstance(raw, list):
        problems.add("must be an array of regexes or {re, region} tables", label, key)
        return ()
    out: list[Condition] = []
    for i, entry in enumerate(raw, start=1):
        where = f"{key}[{i}]"
        region = default
        if isinstance(entry, dict):
            extra = set(entry) - {"re", "region"}
            if extra:
                problems.add(f"unknown key {sorted(extra)[0]!r} (known: re, region)", label, where)
                continue
            spec = entry.get("region", str(default))
            try:
                if not isinstance(spec, str):
                    raise ValueError("region must be a string")
                region = Region.parse(spec)
            except ValueError as exc:
                problems.add(str(exc), label, where)
                continue
            entry = entry.get("re")
        if not isinstance(entry, str) or not entry:
            problems.add("must be a non-empty regex string", label, where)
            continue
        pattern = _compile(entry, problems, label, where)
        if pattern is not None:
            out.append(Condition(pattern, region))
    return tuple(out)


def _compile(
    source: str, problems: _Problems, rule: str | None, key: str
) -> re.Pattern[str] | None:
    try:
        pattern = re.compile(source, re.MULTILINE)
    except re.error as exc:
        problems.add(f"bad regex {source!r}: {exc}", rule, key)
        return None
    risk = exponential_risk(pattern)
    if risk is not None:
        problems.add(
            f"regex {source!r} can take exponential time ({risk}): one screen line could "
            "keep osf-tmux busy for hours. Write it so that each character can be matched in "
            "one way only: `(a+)+` as `a+`, `(\\w+\\s?)*` as `(\\w+\\s)*\\w*`",
            rule,
            key,
        )
        return None
    return pattern


def _strings(raw: Any, key: str, problems: _Problems) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(s, str) and s for s in raw):
        problems.add("must be an array of non-empty strings", key=key)
        return ()
    return tuple(raw)


def manifest_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.toml") if p.is_file())
