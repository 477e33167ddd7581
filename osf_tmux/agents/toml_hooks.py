"""Hooks in a TOML file: a `[[hooks]]` array of tables, one table per hook (Kimi CLI's and Kimi
Code's config.toml, Mistral Vibe's hooks.toml; each agent module says what one table holds, its
`toml_entries`), and Codex's `notify` program line in its config.toml.

TOML is edited as text, never re-serialised: ours are appended at the end of the file, each
table with a comment line saying where it comes from, and taken out again table by table (a
table is ours when its command runs our endpoint), so the person's own hooks, keys, comments
and layout stay as they were. Every edit is checked by parsing the result: it must read as the
file did, plus (or minus) exactly our tables; otherwise nothing is written. A file that holds
its hooks in a form we do not append to (`hooks = [...]` inline, a `[hooks]` table) is refused
with a message."""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.changes import (
    Agent,
    FileChange,
    HooksError,
    Plan,
    give_back,
    read_bytes,
)
from osf_tmux.agents.command import is_our_command, notify_argv, report_command

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

MARK = "# osf-tmux: reports this pane's state (`osf-tmux hooks uninstall` removes it)"
# A table or array-of-tables header at the start of a line.
_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*[\w.\"' -]+\]\]?[ \t]*(?:#.*)?$")
_HOOKS_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*hooks[ \t]*\]\][ \t]*(?:#.*)?$")
# `hooks` given another way: a key at the top (`hooks = [...]`) or a table `[hooks]`.
_OTHER_FORM = re.compile(r"^[ \t]*(?:hooks[ \t]*=|\[[ \t]*hooks[ \t]*\][ \t]*(?:#.*)?$)")

Entry = Mapping[str, str | int | float | bool]


def event_tables(agent: Agent, command: str) -> list[Entry]:
    """Kimi's table shape (Kimi CLI, Kimi Code), one per event: `event`, `command`, `timeout`
    (no matcher: every tool)."""
    return [{"event": e, "command": command, "timeout": agent.HOOK_TIMEOUT} for e in agent.EVENTS]


def toml_value(value: str | int | float | bool) -> str:
    # JSON strings are valid TOML basic strings (the same escapes).
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value)


def render(entries: list[Entry]) -> str:
    """Our tables, each after a blank line and the mark."""
    out = []
    for entry in entries:
        keys = "".join(f"{k} = {toml_value(v)}\n" for k, v in entry.items())
        out.append(f"\n{MARK}\n[[hooks]]\n{keys}")
    return "".join(out)


def load_toml(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HooksError(f"{path} is not UTF-8 text; nothing was changed") from None
    except tomllib.TOMLDecodeError as exc:
        raise HooksError(
            f"{path} is not valid TOML ({exc}); fix it and run this again. Nothing was changed."
        ) from None


def _hooks_of(path: Path, data: Mapping[str, Any]) -> list[Any]:
    hooks = data.get("hooks", [])
    if not isinstance(hooks, list) or not all(isinstance(h, dict) for h in hooks):
        raise HooksError(f'{path}: "hooks" is not an array of tables; nothing was changed')
    return hooks


def _ours(table: Any) -> bool:
    return isinstance(table, dict) and is_our_command(str(table.get("command", "")))


def _segments(text: str) -> list[tuple[bool, str]]:
    """The file cut before each table header, each header taking the comment and blank lines
    right above it; `(is [[hooks]] table, text)`. The first segment holds the top-level keys."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for i, line in enumerate(lines):
        if i == 0 or not _HEADER.match(line):
            continue
        start = i
        while start > starts[-1] and (
            not lines[start - 1].strip() or lines[start - 1].lstrip().startswith("#")
        ):
            start -= 1
        if start > starts[-1]:  # else the file begins with comments and this header
            starts.append(start)
    starts.append(len(lines))
    out = []
    for a, b in itertools.pairwise(starts):
        chunk = lines[a:b]
        header = next((ln for ln in chunk if ln.strip() and not ln.lstrip().startswith("#")), "")
        out.append((bool(_HOOKS_HEADER.match(header.rstrip("\r\n"))), "".join(chunk)))
    return out


def strip_text(path: Path, text: str) -> str:
    """`text` without our `[[hooks]]` tables (and the mark and blank line above each)."""
    kept = []
    for is_hooks, chunk in _segments(text):
        if is_hooks and _chunk_is_ours(chunk):
            continue
        kept.append(chunk)
    return "".join(kept)


def _chunk_is_ours(chunk: str) -> bool:
    try:
        tables = tomllib.loads(chunk).get("hooks", [])
    except tomllib.TOMLDecodeError:
        return False
    return bool(tables) and all(_ours(t) for t in tables)


def _check(path: Path, text: str, hooks: list[Any], like: Mapping[str, Any]) -> None:
    """The edited text must parse as `like` with exactly `hooks` as its hooks."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        data = None
    wanted = {**like, "hooks": hooks} if hooks else {k: v for k, v in like.items() if k != "hooks"}
    if data != wanted:
        raise HooksError(
            f"{path}: osf-tmux's hooks cannot be edited in this file as text (a table or "
            "multi-line string after them?); edit its [[hooks]] by hand. Nothing was changed."
        )


@dataclass(frozen=True)
class TomlHookTables:
    """A TOML file with a `[[hooks]]` array of tables."""

    path: Path
    # our tables, running the command given; None: Kimi's shape (`event_tables`)
    entries: Callable[[str], Sequence[Entry]] | None = None

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        text = before.decode("utf-8", "replace") if before is not None else ""
        data = load_toml(path, before) if before is not None else {}
        hooks = _hooks_of(path, data)
        theirs = [h for h in hooks if not _ours(h)]
        stripped = strip_text(path, text)
        if len(theirs) != len(hooks):
            _check(path, stripped, theirs, data)
        if not install:
            if before is None or len(theirs) == len(hooks):
                return  # nothing of ours in it
            # the backup is given back when it is the file without our tables, up to the final
            # newline our install added
            kept = stripped.encode()
            plan.changes.append(
                give_back(
                    path,
                    before,
                    kept,
                    lambda backup: backup.rstrip(b"\n") == kept.rstrip(b"\n"),
                    created=not kept.strip(),
                )
            )
            return
        if any(_OTHER_FORM.match(line) for line in stripped.splitlines()):
            raise HooksError(
                f"{path} gives `hooks` as an inline array or a [hooks] table; osf-tmux adds "
                "[[hooks]] tables only. Nothing was changed."
            )
        command = report_command(agent.NAME)
        entries = list(self.entries(command) if self.entries else event_tables(agent, command))
        if stripped and not stripped.endswith("\n"):
            stripped += "\n"
        after = stripped + render(entries) if stripped else render(entries).lstrip("\n")
        if after == text:
            return  # installed already, exactly so
        _check(path, after, [*theirs, *[dict(e) for e in entries]], data)
        plan.changes.append(FileChange(path, before, after.encode()))

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        if raw is None:
            return False
        try:
            hooks = _hooks_of(self.path, load_toml(self.path, raw))
        except HooksError:
            return False
        return any(_ours(h) for h in hooks)


# ---- Codex: one `notify` program line ---------------------------------------------------------

_NOTIFY_LINE = re.compile(
    r"^notify[ \t]*=.*osf_tmux[/.\\](?:agents[/.\\])?report.*(\r?\n|$)", re.MULTILINE
)


def notify_toml(agent: str, spaced: bool = True) -> str:
    """`notify = [...]` running our endpoint, as TOML (JSON strings are valid TOML basic
    strings); unspaced for Codex's `-c key=value`."""
    value = "[" + ", ".join(json.dumps(a) for a in notify_argv(agent)) + "]"
    return f"notify = {value}" if spaced else f"notify={value}"


def own_notify(path: Path) -> bool:
    """Whether the config names a notify program that is not ours."""
    raw = read_bytes(path)
    notify = (load_toml(path, raw) if raw else {}).get("notify")
    return notify is not None and not is_our_command(str(notify))


@dataclass(frozen=True)
class NotifyLine:
    """Codex's `notify` program line in its config.toml: one top-level key, a list of argv, of
    which Codex runs only one. Ours is added only where the person has none."""

    path: Path

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        text = before.decode("utf-8", "replace") if before is not None else ""
        config = load_toml(path, before) if before is not None else {}
        ours = _NOTIFY_LINE.search(text)
        if not install:
            if before is None or ours is None:
                return
            stripped = _NOTIFY_LINE.sub("", text, count=1).encode()
            plan.changes.append(
                give_back(path, before, stripped, stripped.__eq__, created=stripped == b"")
            )
            return
        line = notify_toml(agent.NAME)
        if ours is not None:
            if ours.group(0).rstrip("\r\n") == line:
                return
            after = text[: ours.start()] + line + "\n" + text[ours.end() :]
            plan.changes.append(FileChange(path, before, after.encode()))
            return
        if "notify" in config:
            plan.notes.append(
                f"{path} already has a notify program of yours; Codex runs only one, so "
                "osf-tmux relies on Codex's hooks alone there."
            )
            return
        # A top-level key must come before the first [table]: the top of the file is safe.
        plan.changes.append(FileChange(path, before, (line + "\n" + text).encode()))

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        return raw is not None and _NOTIFY_LINE.search(raw.decode("utf-8", "replace")) is not None
