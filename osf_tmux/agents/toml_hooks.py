"""Hooks as a TOML array of tables, `[[hooks]]`, one table per hook (Kimi CLI's config.toml,
Mistral Vibe's hooks.toml). Each agent module says what one table holds (`toml_entries`).

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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.hooks import (
    FileChange,
    HooksError,
    Plan,
    _module,
    backup_path,
    is_our_command,
    read_bytes,
    report_command,
)

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


def _give_back(path: Path, before: bytes, stripped: bytes) -> FileChange:
    """Uninstall: the backed-up bytes when the file without our tables is them (up to the
    final newline our install added), else the file without our tables; a file we created and
    nobody added to goes."""
    backup = read_bytes(backup_path(path))
    if backup is not None:
        if backup.rstrip(b"\n") == stripped.rstrip(b"\n"):
            return FileChange(path, before, backup, drop_backup=True)
    elif not stripped.strip():
        return FileChange(path, before, None)
    return FileChange(path, before, stripped)


@dataclass(frozen=True)
class TomlHookTables:
    """A TOML file with a `[[hooks]]` array of tables."""

    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
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
            plan.changes.append(_give_back(path, before, stripped.encode()))
            return
        if any(_OTHER_FORM.match(line) for line in stripped.splitlines()):
            raise HooksError(
                f"{path} gives `hooks` as an inline array or a [hooks] table; osf-tmux adds "
                "[[hooks]] tables only. Nothing was changed."
            )
        entries = list(_module(agent).toml_entries(report_command(agent)))
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
