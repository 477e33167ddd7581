"""Hooks in a JSON settings file: one writer for the three forms agents read them in.

- `JsonHooks`: a `hooks` object of event lists of matcher groups, `{"hooks": {"Event":
  [{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": N}]}]}}` (Claude
  Code, Codex's hooks.json, Gemini CLI, Qwen Code, Auggie, Grok Build).
- `TopLevelJsonHooks`: the same groups with the events at the top level of the file, no `hooks`
  key around them (Droid's hooks.json).
- `OwnJsonHooks`: a file of our own, `{"version": 1, "hooks": {"Event": [ENTRY, ...]}}` with one
  flat list of entries per event, each `{"type": "command", "bash": ..., "timeoutSec": N}`
  (Copilot CLI's user hooks folder, which loads every `*.json` in it).

Installing merges: every other key and every hook of the person's own stays, and installing
twice changes nothing. Uninstalling gives the backed-up bytes back when nothing but our hooks
changed since, else removes only our entries. Nothing is written when a file cannot be read."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.changes import (
    Agent,
    FileChange,
    HooksError,
    Plan,
    backup_path,
    give_back,
    read_bytes,
)
from osf_tmux.agents.command import is_our_command, report_command

Table = dict[str, list[dict[str, Any]]]


def hooks_table(agent: Agent, command: str | None = None) -> Table:
    """Our matcher groups, one per event, each running `command` (default: our endpoint)."""
    hook: dict[str, Any] = {
        **agent.HOOK_EXTRA,
        "type": "command",
        "command": command or report_command(agent.NAME),
        "timeout": agent.HOOK_TIMEOUT,
    }
    return {event: [{"hooks": [dict(hook)]}] for event in agent.EVENTS}


def load_json(path: Path, raw: bytes) -> dict[str, Any]:
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
    return data


def load_loose(path: Path, raw: bytes) -> Any:
    """A backup's JSON, or None: it is only compared, never edited."""
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return None


def dump(data: Any, like: bytes | None = None) -> bytes:
    """JSON in the indentation `like` already used (two spaces for a new file)."""
    indent: str | int = 2
    if like:
        m = re.search(rb"\n([ \t]+)\S", like)
        if m:
            indent = m.group(1).decode()
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode()


def merge_ours(data: dict[str, Any], table: Mapping[str, list[Any]]) -> dict[str, Any]:
    """`data` with our entries appended to each event's list (the person's own come first)."""
    out = dict(data)
    hooks = {k: list(v) for k, v in out.get("hooks", {}).items()}
    for event, entries in table.items():
        hooks[event] = [*hooks.get(event, []), *entries]
    out["hooks"] = hooks
    return out


def strip_ours(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without any hook that runs our endpoint; groups and events left empty by that go,
    and so does `hooks` itself if nothing else was in it."""
    if "hooks" not in data:
        return data
    hooks: dict[str, Any] = {}
    for event, groups in data["hooks"].items():
        kept = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept.append(group)
                continue
            inner = [h for h in group["hooks"] if not _is_ours(h, ("command",))]
            if len(inner) == len(group["hooks"]):
                kept.append(group)
            elif inner:
                kept.append({**group, "hooks": inner})
        if kept or not groups:
            hooks[event] = kept
    return _with_hooks(data, hooks)


def _with_hooks(data: dict[str, Any], hooks: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    if hooks:
        out["hooks"] = hooks
    else:
        del out["hooks"]
    return out


def _is_ours(entry: Any, keys: tuple[str, ...]) -> bool:
    return isinstance(entry, dict) and any(is_our_command(str(entry.get(k, ""))) for k in keys)


@dataclass(frozen=True)
class JsonHooks:
    """A JSON settings file with a `hooks` object of event lists of matcher groups."""

    path: Path

    def load(self, raw: bytes) -> dict[str, Any]:
        data = load_json(self.path, raw)
        hooks = data.get("hooks", {})
        if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
            raise HooksError(
                f'{self.path}: "hooks" is not an object of event lists; nothing was changed'
            )
        return data

    def strip(self, data: dict[str, Any]) -> dict[str, Any]:
        return strip_ours(data)

    def merge(self, data: dict[str, Any], table: Table) -> dict[str, Any]:
        return merge_ours(data, table)

    def table(self, agent: Agent) -> Table:
        return hooks_table(agent)

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        data = self.load(before) if before is not None else {}
        stripped = self.strip(data)
        if install:
            table = self.table(agent)
            self.refuse(data, table)
            wanted = self.merge(stripped, table)
            if wanted == data:
                return  # installed already, exactly so
            plan.notes.extend(self.notes(data))
            plan.changes.append(self.installing(before, stripped, wanted))
            return
        if before is None or stripped == data:
            return  # nothing of ours in it
        plan.changes.append(self.uninstalling(before, stripped))

    def refuse(self, data: dict[str, Any], table: Table) -> None:
        """Raise HooksError when installing `table` into `data` would harm the person's own."""

    def notes(self, data: dict[str, Any]) -> list[str]:
        """What the person should know about a file we install into."""
        return []

    def installing(
        self, before: bytes | None, stripped: dict[str, Any], wanted: dict[str, Any]
    ) -> FileChange:
        return FileChange(self.path, before, dump(wanted, before))

    def uninstalling(self, before: bytes, stripped: dict[str, Any]) -> FileChange:
        def unchanged(backup: bytes) -> bool:
            return bool(load_loose(self.path, backup) == stripped)

        return give_back(self.path, before, dump(stripped, before), unchanged, stripped == {})

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        if raw is None:
            return False
        try:
            data = self.load(raw)
        except HooksError:
            return False
        return self.strip(data) != data


# ---- Droid: the events at the top level -------------------------------------------------------

# The events Droid's schema knows: their values must be lists of groups.
DROID_EVENTS = (
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


def wrap(data: dict[str, Any]) -> dict[str, Any]:
    """A top-level file as the `hooks` form: its event lists under `hooks`."""
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


@dataclass(frozen=True)
class TopLevelJsonHooks(JsonHooks):
    """Droid's hooks.json, whose top level is the hooks object itself: `{"PreToolUse":
    [{"matcher": "...", "hooks": [...]}], ..., "hooksDisabled": false}`. The keys that are no
    event lists (`hooksDisabled`, `showHookOutput`) are left as they are.

    Droid also reads a `hooks` object from settings.json beside it and lets hooks.json's list of
    an event replace settings.json's list of that event: an install that would hide the
    person's own hooks that way is refused, nothing written."""

    settings: Path  # settings.json beside it, whose hooks an event of ours could hide

    def load(self, raw: bytes) -> dict[str, Any]:
        data = load_json(self.path, raw)
        for event in DROID_EVENTS:
            groups = data.get(event, [])
            if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
                raise HooksError(
                    f'{self.path}: "{event}" is not a list of hook groups (Droid would ignore the '
                    "whole file); nothing was changed"
                )
        return data

    def strip(self, data: dict[str, Any]) -> dict[str, Any]:
        return unwrap(data, strip_ours(wrap(data)))

    def merge(self, data: dict[str, Any], table: Table) -> dict[str, Any]:
        return unwrap(data, merge_ours(wrap(data), table))

    def refuse(self, data: dict[str, Any], table: Table) -> None:
        theirs = self._settings_hooks()
        hidden = [e for e in table if theirs.get(e) and e not in data]
        if hidden:
            raise HooksError(
                f"{self.settings} holds hooks of yours for {', '.join(hidden)}, and Droid lets "
                f"the list of an event in {self.path.name} replace that one: ours there would "
                f"switch yours off. Move them into {self.path} (Droid's /hooks shows both) and "
                "run this again. Nothing was changed."
            )

    def _settings_hooks(self) -> dict[str, Any]:
        """The `hooks` object of settings.json, {} when there is none or it cannot be read as
        plain JSON (Droid also takes comments there; such a file is not checked)."""
        raw = read_bytes(self.settings)
        data = load_loose(self.settings, raw) if raw is not None else None
        hooks = data.get("hooks") if isinstance(data, dict) else None
        return hooks if isinstance(hooks, dict) else {}

    def notes(self, data: dict[str, Any]) -> list[str]:
        if data.get("hooksDisabled") is not True:
            return []
        return [
            f'{self.path} says "hooksDisabled": true: Droid runs no hooks, ours included, '
            "until it is false (/hooks in Droid)."
        ]


# ---- Copilot CLI: a hook file of our own, flat entries ----------------------------------------

HOOKS_VERSION = 1
# Where an entry keeps its command: `bash` on Unix, `powershell` on Windows, `command` for both.
_COMMAND_KEYS = ("bash", "command", "powershell")


def flat_table(agent: Agent, command: str | None = None) -> Table:
    """Our entries, one per event, as Copilot's hook files hold them."""
    entry = {
        "type": "command",
        "bash": command or report_command(agent.NAME),
        "timeoutSec": agent.HOOK_TIMEOUT,
    }
    return {event: [dict(entry)] for event in agent.EVENTS}


def flat_document(agent: Agent, command: str | None = None) -> dict[str, Any]:
    return {"version": HOOKS_VERSION, "hooks": flat_table(agent, command)}


@dataclass(frozen=True)
class OwnJsonHooks(JsonHooks):
    """A hook file of our own (`osf-tmux.json` in Copilot's user hooks folder): installing
    creates it, uninstalling removes it. Should it already hold someone else's hooks, ours are
    merged in beside theirs and taken out again as in any settings file (the original kept as
    `*.osf-tmux.bak`); a file that is not a hook file Copilot could read is refused."""

    def load(self, raw: bytes) -> dict[str, Any]:
        data = super().load(raw)
        if "version" in data and data["version"] != HOOKS_VERSION:
            raise HooksError(
                f"{self.path} is a hook file of version {data['version']!r}, which osf-tmux does "
                f"not know (it writes version {HOOKS_VERSION}); nothing was changed"
            )
        return data

    def table(self, agent: Agent) -> Table:
        return flat_table(agent)

    def strip(self, data: dict[str, Any]) -> dict[str, Any]:
        """`data` without our entries; events left empty by that go, and so does `hooks`. A file
        that then holds nothing but its version holds nothing of anyone's: it strips to `{}`."""
        if "hooks" not in data:
            return data
        hooks: dict[str, Any] = {}
        for event, entries in data["hooks"].items():
            kept = [e for e in entries if not _is_ours(e, _COMMAND_KEYS)]
            if kept or not entries:
                hooks[event] = kept
        out = _with_hooks(data, hooks)
        return {} if set(out) <= {"version"} else out

    def merge(self, data: dict[str, Any], table: Table) -> dict[str, Any]:
        return merge_ours({"version": HOOKS_VERSION, **data}, table)

    def installing(
        self, before: bytes | None, stripped: dict[str, Any], wanted: dict[str, Any]
    ) -> FileChange:
        # A file holding nothing but our own (older) entries is ours to replace: no backup of
        # it, so that uninstalling removes the file rather than restoring our old hooks.
        kept = None if before is not None and stripped == {} else before
        return FileChange(self.path, kept, dump(wanted))

    def uninstalling(self, before: bytes, stripped: dict[str, Any]) -> FileChange:
        if stripped != {}:
            return super().uninstalling(before, stripped)
        backup = read_bytes(backup_path(self.path))
        spent = backup is not None and self._holds_nothing_of_theirs(backup)
        return FileChange(self.path, before, None, drop_backup=spent)

    def _holds_nothing_of_theirs(self, raw: bytes) -> bool:
        data = load_loose(self.path, raw)
        return (
            isinstance(data, dict)
            and isinstance(data.get("hooks", {}), dict)
            and all(_is_ours(e, _COMMAND_KEYS) for es in data.get("hooks", {}).values() for e in es)
            and set(data) <= {"version", "hooks"}
        )
