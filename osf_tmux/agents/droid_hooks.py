"""Droid's hooks.json, whose top level is the hooks object itself:
`{"PreToolUse": [{"matcher": "...", "hooks": [{"type": "command", "command": "...",
"timeout": N}]}], ..., "hooksDisabled": false}`. The groups are Claude's, so merging and taking
ours out again is the shared JSON machinery's (hooks.merge_ours / strip_ours) on the file's event
lists; the keys that are no event lists (`hooksDisabled`, `showHookOutput`) are left as they are.

Droid also reads a `hooks` object from settings.json beside it and lets hooks.json's list of an
event replace settings.json's list of that event: an install that would hide the person's own
hooks that way is refused, nothing written."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.hooks import (
    FileChange,
    HooksError,
    Plan,
    _dump,
    give_back,
    hooks_table,
    merge_ours,
    read_bytes,
    strip_ours,
)

# The events Droid's schema knows: their values must be lists of groups.
KNOWN_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
)


def load_hooks(path: Path, raw: bytes) -> dict[str, Any]:
    """The file's JSON object, or HooksError naming what is wrong (nothing is written then)."""
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except UnicodeDecodeError:
        raise HooksError(f"{path} is not UTF-8 text; nothing was changed") from None
    except json.JSONDecodeError as exc:
        raise HooksError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it and run this again. Nothing was changed."
        ) from None
    if not isinstance(data, dict):
        raise HooksError(f"{path} does not hold a JSON object; nothing was changed")
    for event in KNOWN_EVENTS:
        groups = data.get(event, [])
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise HooksError(
                f'{path}: "{event}" is not a list of hook groups (Droid would ignore the whole '
                "file); nothing was changed"
            )
    return data


def wrap(data: dict[str, Any]) -> dict[str, Any]:
    """The file as the shared shape: its event lists under `hooks`."""
    return {"hooks": {k: v for k, v in data.items() if isinstance(v, list)}}


def unwrap(data: dict[str, Any], wrapped: dict[str, Any]) -> dict[str, Any]:
    """`data` with its event lists replaced by `wrapped`'s, in the file's order (new events at
    the end, events emptied by a strip gone)."""
    events = wrapped.get("hooks", {})
    out: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(value, list):
            out[key] = value
        elif key in events:
            out[key] = events[key]
    for key, value in events.items():
        out.setdefault(key, value)
    return out


def _load_loose(path: Path, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return None


def settings_hooks(settings: Path) -> dict[str, Any]:
    """The `hooks` object of Droid's settings.json, {} when there is none or it cannot be read
    as plain JSON (Droid also takes comments there; such a file is not checked)."""
    raw = read_bytes(settings)
    data = _load_loose(settings, raw) if raw is not None else None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    return hooks if isinstance(hooks, dict) else {}


@dataclass(frozen=True)
class DroidHooksFile:
    """`~/.factory/hooks.json` (or the legacy `~/.factory/hooks/hooks.json` Droid reads instead
    while hooks.json does not exist)."""

    path: Path
    settings: Path  # settings.json beside it, whose hooks an event of ours could hide

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        data = load_hooks(path, before) if before is not None else {}
        stripped = unwrap(data, strip_ours(wrap(data)))
        if install:
            table = hooks_table(agent)
            self._refuse_hiding(data, table)
            wanted = unwrap(stripped, merge_ours(wrap(stripped), table))
            if wanted == data:
                return  # installed already, exactly so
            if data.get("hooksDisabled") is True:
                plan.notes.append(
                    f'{path} says "hooksDisabled": true: Droid runs no hooks, ours included, '
                    "until it is false (/hooks in Droid)."
                )
            plan.changes.append(FileChange(path, before, _dump(wanted, before)))
            return
        if before is None or stripped == data:
            return  # nothing of ours in it
        plan.changes.append(give_back(path, before, stripped, _load_loose))

    def _refuse_hiding(self, data: dict[str, Any], table: dict[str, Any]) -> None:
        theirs = settings_hooks(self.settings)
        hidden = [e for e in table if theirs.get(e) and e not in data]
        if hidden:
            raise HooksError(
                f"{self.settings} holds hooks of yours for {', '.join(hidden)}, and Droid lets "
                f"the list of an event in {self.path.name} replace that one: ours there would "
                f"switch yours off. Move them into {self.path} (Droid's /hooks shows both) and "
                "run this again. Nothing was changed."
            )

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        if raw is None:
            return False
        try:
            data = load_hooks(self.path, raw)
        except HooksError:
            return False
        return strip_ours(wrap(data)) != wrap(data)


def write_runtime_settings(path: Path, command: str | None = None) -> None:
    """The file `droid --settings FILE` merges for one run: our hooks in settings.json's
    `hooks` shape. Rewritten on every launch, so it always runs this osf-tmux; private."""
    table = hooks_table("droid", command)
    data = (json.dumps({"hooks": table}, indent=2) + "\n").encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.osf-tmux-{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        raise HooksError(f"cannot write {path}: {exc.strerror or exc}") from None
