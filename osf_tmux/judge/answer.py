"""The `[answer]` table of a manifest: the keys that answer an agent's blocked prompt.

Kept apart from the rules so that the overview menu can offer an agent's answers by reading
this one table, without compiling every rule of every agent on a key press."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OPTION_SLOT = "{n}"  # where an [answer] option key takes the option's number
_ANSWER_KEYS = {"yes", "no", "option", "note"}


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


def parse_answer(raw: Any) -> tuple[list[tuple[str, str]], Answer | None]:
    """`[answer]`: yes = [keys], no = [keys], option = [keys with {n}], note = "...".

    Every problem as (message, key), and the Answer when there is none."""
    problems: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        return [("must be a table ([answer])", "answer")], None
    known = ", ".join(sorted(_ANSWER_KEYS))
    for key in sorted(set(raw) - _ANSWER_KEYS):
        problems.append((f"unknown key (known: {known})", f"answer.{key}"))
    keys: dict[str, tuple[str, ...]] = {}
    for name in ("yes", "no", "option"):
        value = raw.get(name, [])
        if name != "option" and name not in raw:
            problems.append(("is required: the keys that give this answer", f"answer.{name}"))
        elif not isinstance(value, list) or not all(
            isinstance(k, str) and k and not k.isspace() and k == k.strip() for k in value
        ):
            problems.append(("must be an array of tmux key names (send-keys)", f"answer.{name}"))
        elif name != "option" and not value:
            problems.append(("must name at least one key", f"answer.{name}"))
        else:
            keys[name] = tuple(value)
    option = keys.get("option", ())
    if option and not any(OPTION_SLOT in k for k in option):
        problems.append((f"must contain {OPTION_SLOT} (the option's number)", "answer.option"))
    if not isinstance(raw.get("note", ""), str):
        problems.append(("must be a string", "answer.note"))
    if problems:
        return problems, None
    return [], Answer(keys["yes"], keys["no"], option)


def answer_tables(agents: Iterable[str], directories: Iterable[Path]) -> dict[str, Answer | None]:
    """The answer table of each of `agents` (by manifest id), read from the manifests in
    `directories`, a later directory's file winning as in the rule set (the user's rules come
    after the shipped ones). Only the TOML is read: a file whose rules are broken still gives
    its table here, while `osf-tmux answer` (which judges the pane first) would use the
    shipped manifest; that only changes which answers the menu offers.

    A file named after its agent (`claude.toml`) is read first, so that a key press does not
    parse every manifest."""
    wanted = set(agents)
    found: dict[str, Answer | None] = {}
    for directory in directories:
        if not directory.is_dir():
            continue
        here: set[str] = set()
        named = [directory / f"{a}.toml" for a in sorted(wanted)]
        rest = sorted(p for p in directory.glob("*.toml") if p not in named)
        for path in named + rest:
            if path in rest and wanted <= here:
                break
            data = _toml(path) or {}
            agent = data.get("agent")
            if isinstance(agent, str) and agent in wanted and agent not in here:
                here.add(agent)
                found[agent] = parse_answer(data["answer"])[1] if "answer" in data else None
    return found


def _toml(path: Path) -> dict[str, Any] | None:
    # Here, not at the top: the menu reads a manifest only when some agent is blocked.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
