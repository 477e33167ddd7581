"""Copilot CLI's hook files, and the plugin that `launch` hands it.

A Copilot hook file is `{"version": 1, "hooks": {"Event": [ENTRY, ...]}}` with one flat list of
entries per event, each `{"type": "command", "bash": "...", "timeoutSec": N}` (no matcher groups
around them as in Claude's settings). Copilot loads every `*.json` in its user hooks folder, so
ours go into a file of our own there: installing creates it, uninstalling removes it. Should a
file of that name already hold someone else's hooks, ours are merged in beside theirs and taken
out again as for the other agents (the original kept as `*.osf-tmux.bak`); a file that is not a
hook file Copilot could read is refused, untouched."""

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
    backup_path,
    give_back,
    is_our_command,
    load_json,
    read_bytes,
    report_command,
)

HOOKS_VERSION = 1
# Where an entry keeps its command: `bash` on Unix, `powershell` on Windows, `command` for both.
_COMMAND_KEYS = ("bash", "command", "powershell")


def hooks_table(command: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Our entries, one per event we use."""
    from osf_tmux.agents import copilot

    entry = {
        "type": "command",
        "bash": command or report_command("copilot"),
        "timeoutSec": copilot.HOOK_TIMEOUT,
    }
    return {event: [dict(entry)] for event in copilot.EVENTS}


def hooks_document(command: str | None = None) -> dict[str, Any]:
    return {"version": HOOKS_VERSION, "hooks": hooks_table(command)}


def load_hooks(path: Path, raw: bytes) -> dict[str, Any]:
    """A hook file's JSON, or HooksError naming what is wrong (nothing is written then)."""
    data = load_json(path, raw)
    if "version" in data and data["version"] != HOOKS_VERSION:
        raise HooksError(
            f"{path} is a hook file of version {data['version']!r}, which osf-tmux does not "
            f"know (it writes version {HOOKS_VERSION}); nothing was changed"
        )
    return data


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and any(
        is_our_command(str(entry.get(key, ""))) for key in _COMMAND_KEYS
    )


def strip_ours(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without our entries; events left empty by that go, and so does `hooks`. A file that
    then holds nothing but its version holds nothing of anyone's: it strips to `{}`."""
    if "hooks" not in data:
        return data
    hooks: dict[str, Any] = {}
    for event, entries in data["hooks"].items():
        kept = [e for e in entries if not is_ours(e)]
        if kept or not entries:
            hooks[event] = kept
    out = dict(data)
    if hooks:
        out["hooks"] = hooks
    else:
        del out["hooks"]
        if set(out) <= {"version"}:
            out = {}
    return out


def merge_ours(data: dict[str, Any], table: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """`data` with our entries after the person's own in each event's list."""
    out: dict[str, Any] = {"version": HOOKS_VERSION}
    out.update(data)
    hooks = {k: list(v) for k, v in out.get("hooks", {}).items()}
    for event, entries in table.items():
        hooks[event] = [*hooks.get(event, []), *entries]
    out["hooks"] = hooks
    return out


def dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def _load_loose(path: Path, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return None


@dataclass(frozen=True)
class CopilotHooksFile:
    """`osf-tmux.json` in Copilot's user hooks folder."""

    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        data = load_hooks(path, before) if before is not None else {}
        stripped = strip_ours(data)
        if install:
            wanted = merge_ours(stripped, hooks_table())
            if wanted == data:
                return  # installed already, exactly so
            # A file holding nothing but our own (older) entries is ours to replace: no backup
            # of it, so that uninstalling removes the file rather than restoring our old hooks.
            kept = None if before is not None and stripped == {} else before
            plan.changes.append(FileChange(path, kept, dump(wanted)))
            return
        if before is None or stripped == data:
            return  # nothing of ours in it
        if stripped == {}:
            backup = read_bytes(backup_path(path))
            spent = backup is not None and _holds_nothing_of_theirs(path, backup)
            plan.changes.append(FileChange(path, before, None, drop_backup=spent))
            return
        plan.changes.append(give_back(path, before, stripped, _load_loose))

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        if raw is None:
            return False
        try:
            data = load_hooks(self.path, raw)
        except HooksError:
            return False
        return strip_ours(data) != data


def _holds_nothing_of_theirs(path: Path, raw: bytes) -> bool:
    data = _load_loose(path, raw)
    return (
        isinstance(data, dict)
        and isinstance(data.get("hooks", {}), dict)
        and not any(not is_ours(e) for entries in data.get("hooks", {}).values() for e in entries)
        and set(data) <= {"version", "hooks"}
    )


def write_plugin(folder: Path, command: str | None = None) -> None:
    """The plugin `copilot --plugin-dir FOLDER` loads for one run: a manifest naming our hook
    file, and that file. Rewritten on every launch, so it always runs this osf-tmux."""
    from osf_tmux import __version__

    manifest = {
        "name": "osf-tmux",
        "description": "Reports each turn's state to osf-tmux (tmux status of AI agents).",
        "version": __version__,
        "hooks": "hooks.json",
    }
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_private(folder / "plugin.json", dump(manifest))
        _write_private(folder / "hooks.json", dump(hooks_document(command)))
    except OSError as exc:
        raise HooksError(f"cannot write the plugin in {folder}: {exc.strerror or exc}") from None


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.osf-tmux-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)
