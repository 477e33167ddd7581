"""Rule manifests: one TOML file per agent, validated once, regexes compiled once.

Every problem in a file is collected and reported together (file, rule, key, what is wrong),
so a user fixes a manifest in one pass instead of one error per run."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from osf_tmux.judge.backtracking import exponential_risk
from osf_tmux.judge.regions import Region

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

STATES = ("blocked", "working", "idle")
_TOP_KEYS = {"agent", "name", "processes", "process_args", "rule", "description", "answer"}
_ANSWER_KEYS = {"yes", "no", "option", "note"}
OPTION_SLOT = "{n}"  # where an [answer] option key takes the option's number
_RULE_KEYS = {"id", "state", "region", "all", "any", "not", "note"}
_AGENT_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


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


@dataclass(frozen=True)
class Answer:
    """The keys (tmux `send-keys` names) that answer the agent's blocked prompt."""

    yes: tuple[str, ...]
    no: tuple[str, ...]
    option: tuple[str, ...] = ()  # for numbered option n, with OPTION_SLOT replaced by n

    def keys(self, choice: str) -> tuple[str, ...] | None:
        """The keys for `yes`, `no` or an option number (1-9); None if this agent has none."""
        if choice in ("yes", "no"):
            return self.yes if choice == "yes" else self.no
        if self.option and len(choice) == 1 and choice in "123456789":
            return tuple(k.replace(OPTION_SLOT, choice) for k in self.option)
        return None


@dataclass(frozen=True)
class Manifest:
    agent: str
    name: str
    processes: tuple[str, ...]
    process_args: tuple[re.Pattern[str], ...]
    rules: tuple[Rule, ...]
    source: str = ""
    answer: Answer | None = None  # None: osf-tmux cannot answer this agent's prompts

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


def shipped_rules_dir() -> Path:
    """Where the manifests that come with osf-tmux live (inside the wheel, or the checkout)."""
    here = Path(__file__).resolve().parent.parent  # the osf_tmux package
    installed = here / "rules"
    return installed if installed.is_dir() else here.parent / "rules"


def load_manifest(path: Path) -> Manifest:
    """Read and validate one manifest file; raises ManifestError listing every problem."""
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
    processes = _strings(data.get("processes", []), "processes", problems)
    process_args = tuple(
        pattern
        for source_re in _strings(data.get("process_args", []), "process_args", problems)
        if (pattern := _compile(source_re, problems, None, "process_args")) is not None
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

    answer = _parse_answer(data["answer"], problems) if "answer" in data else None

    if problems.items:
        raise ManifestError(problems.items)
    return Manifest(agent, display, processes, process_args, tuple(rules), source, answer)


def _parse_answer(raw: Any, problems: _Problems) -> Answer | None:
    """`[answer]`: yes = [keys], no = [keys], option = [keys with {n}], note = "..."."""
    if not isinstance(raw, dict):
        problems.add("must be a table ([answer])", key="answer")
        return None
    before = len(problems.items)
    for key in sorted(set(raw) - _ANSWER_KEYS):
        problems.add(f"unknown key (known: {', '.join(sorted(_ANSWER_KEYS))})", key=f"answer.{key}")
    keys: dict[str, tuple[str, ...]] = {}
    for name in ("yes", "no", "option"):
        value = raw.get(name, [])
        if name != "option" and name not in raw:
            problems.add("is required: the keys that give this answer", key=f"answer.{name}")
        elif not isinstance(value, list) or not all(
            isinstance(k, str) and k and not k.isspace() and k == k.strip() for k in value
        ):
            problems.add("must be an array of tmux key names (send-keys)", key=f"answer.{name}")
        elif name != "option" and not value:
            problems.add("must name at least one key", key=f"answer.{name}")
        else:
            keys[name] = tuple(value)
    option = keys.get("option", ())
    if option and not any(OPTION_SLOT in k for k in option):
        problems.add(f"must contain {OPTION_SLOT} (the option's number)", key="answer.option")
    if not isinstance(raw.get("note", ""), str):
        problems.add("must be a string", key="answer.note")
    if len(problems.items) > before:
        return None
    return Answer(keys["yes"], keys["no"], option)


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
    if not groups["all"] and not groups["any"] and len(problems.items) == before:
        problems.add("needs at least one condition in 'all' or 'any'", label)
    if len(problems.items) > before:
        return None
    assert isinstance(rule_id, str) and isinstance(state, str) and isinstance(note, str)
    return Rule(rule_id, state, region, groups["all"], groups["any"], groups["not"], note)


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
