"""Codex's `notify` program line in its config.toml: one top-level key, a list of argv, of which
Codex runs only one. Ours is added only where the person has none."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents.hooks import (
    FileChange,
    HooksError,
    Plan,
    give_back,
    is_our_command,
    notify_argv,
    read_bytes,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

_NOTIFY_LINE = re.compile(
    r"^notify[ \t]*=.*osf_tmux[/.\\](?:agents[/.\\])?report.*(\r?\n|$)", re.MULTILINE
)


def notify_toml(argv: list[str] | None = None, spaced: bool = True) -> str:
    """`notify = [...]` as TOML (JSON strings are valid TOML basic strings); unspaced for
    Codex's `-c key=value`."""
    value = "[" + ", ".join(json.dumps(a) for a in (argv or notify_argv("codex"))) + "]"
    return f"notify = {value}" if spaced else f"notify={value}"


def load_toml(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HooksError(f"{path} is not valid TOML ({exc}); nothing was changed") from None


def own_notify(path: Path) -> bool:
    """Whether the config names a notify program that is not ours."""
    raw = read_bytes(path)
    notify = (load_toml(path, raw) if raw else {}).get("notify")
    return notify is not None and not is_our_command(str(notify))


@dataclass(frozen=True)
class NotifyLine:
    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        text = before.decode("utf-8", "replace") if before is not None else ""
        config = load_toml(path, before) if before is not None else {}
        ours = _NOTIFY_LINE.search(text)
        if not install:
            if before is None or ours is None:
                return
            stripped = _NOTIFY_LINE.sub("", text, count=1).encode()
            plan.changes.append(give_back(path, before, stripped, lambda _p, raw: raw))
            return
        line = notify_toml()
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
