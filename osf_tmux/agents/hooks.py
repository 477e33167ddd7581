"""Put osf-tmux's hooks into an agent's own settings, and take them out again without a trace.

Which files and events each agent has is its own module's business (osf_tmux/agents/claude.py,
...); here is what they share. Our hook runs the endpoint (osf_tmux/agents/report.py).

Installing merges: every other key and every hook of the person's own stays, and installing
twice changes nothing. The file as it was is kept beside it (`*.osf-tmux.bak`); uninstalling
gives those exact bytes back when nothing but our hook changed since, else removes only our
entries. Nothing is written when a file cannot be read as JSON/TOML."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from osf_tmux.agents import HOOKED, report
from osf_tmux.agents.integration import UnknownAgent, agent_module

AGENTS = HOOKED
BACKUP_SUFFIX = ".osf-tmux.bak"
# Recognises our hook in any file, whichever interpreter or install path wrote it (before 0.2
# the endpoint was osf_tmux/report.py).
_OURS = re.compile(r"osf_tmux[/.\\](?:agents[/.\\])?report\b")


class HooksError(Exception):
    """A settings file we will not touch, or an agent we cannot do this for."""


def report_command(agent: str) -> str:
    """The shell command an agent runs for each hook."""
    return shlex.join(notify_argv(agent))


def notify_argv(agent: str) -> list[str]:
    """The endpoint's argv. The script is run by path with `-I -S`: it needs nothing but the
    standard library, so no runpy, no site-packages scan and no .pth files to import (start-up
    is most of its cost), and the agent's project directory cannot shadow a module."""
    return [sys.executable, "-I", "-S", str(Path(report.__file__).resolve()), agent]


def hooks_table(agent: str, command: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Our entries, in the `{"Event": [{"hooks": [{"type": "command", ...}]}]}` shape the agents
    with JSON hooks share."""
    module = _module(agent)
    command = command or report_command(agent)
    hook: dict[str, Any] = {
        **module.HOOK_EXTRA,
        "type": "command",
        "command": command,
        "timeout": module.HOOK_TIMEOUT,
    }
    return {event: [{"hooks": [dict(hook)]}] for event in module.EVENTS}


def _module(agent: str) -> Any:
    try:
        return agent_module(agent)
    except UnknownAgent:
        raise HooksError(f"unknown agent {agent!r} (hooks exist for {', '.join(AGENTS)})") from None


def is_our_command(command: str) -> bool:
    return bool(_OURS.search(command))


# ---- plans: what would change, computed without writing ----------------------------------------


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: bytes | None  # None: the file does not exist
    after: bytes | None  # None: remove the file
    drop_backup: bool = False  # uninstall gave back the backed-up bytes: the backup is spent
    backup: bool = True  # keep `before` beside the file (False: nothing of the person's in it)

    def keeps_backup(self) -> bool:
        """Whether writing this change keeps the file as it was beside it."""
        return self.backup and self.before is not None and self.after is not None

    mode: int | None = None  # permissions of a file we create (None: private, 0600)


@dataclass
class Plan:
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class HookFile(Protocol):
    """One settings file of an agent that our hooks go into."""

    @property
    def path(self) -> Path: ...

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        """Add to `plan` what installing (or uninstalling) our hooks changes in this file."""
        ...

    def installed(self) -> bool:
        """Whether our hooks are in the file now."""
        ...


def plan_install(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    return _plan(agent, os.environ if env is None else env, install=True)


def plan_uninstall(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    return _plan(agent, os.environ if env is None else env, install=False)


def _plan(agent: str, env: Mapping[str, str], install: bool) -> Plan:
    module = _module(agent)
    plan = Plan()
    for hook_file in module.hook_files(env):
        hook_file.plan(plan, agent, install)
    for change in plan.changes:
        _refuse_read_only(change.path)
    if install:
        plan.notes.extend(module.INSTALL_NOTES)
    return plan


def _refuse_read_only(path: Path) -> None:
    """A settings file the person made read-only stays as it is (whoever we run as: root may
    write anything, but the mode says what the person wants)."""
    target = real_path(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return  # created by us: nothing of theirs to protect
    except OSError as exc:
        raise HooksError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not mode & stat.S_IWUSR:
        shown = f"{path} (a link to {target})" if target != path else str(path)
        raise HooksError(
            f"{shown} is read-only (mode {stat.S_IMODE(mode):o}): osf-tmux changes nothing in "
            f"it. Make it writable (chmod u+w {target}) and run this again, or start the agent "
            "with `osf-tmux launch AGENT`, which touches no file. Nothing was changed."
        )


def real_path(path: Path) -> Path:
    """Where `path` leads: a settings file that is a symlink (dotfile managers make them) is
    written through, to its target, and the link stays."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def installed_files(agent: str, env: Mapping[str, str]) -> list[Path]:
    """The files of `agent` that hold our hooks now."""
    return [f.path for f in _module(agent).hook_files(env) if f.installed()]


def apply(plan: Plan) -> None:
    """Write the plan: the original beside each file first, then the file (atomically, through
    a symlink to its target, in the target's mode)."""
    for change in plan.changes:
        target = real_path(change.path)
        backup = backup_path(change.path)
        if change.before is not None and change.keeps_backup() and not backup.exists():
            _write(backup, change.before, like=target)
        if change.after is None:
            target.unlink(missing_ok=True)  # a file we created: a link to it stays as it was
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _write(target, change.after, like=target, mode=change.mode)
        if change.drop_backup:
            backup.unlink(missing_ok=True)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _write(path: Path, data: bytes, like: Path, mode: int | None = None) -> None:
    try:
        mode = like.stat().st_mode & 0o777
    except OSError:
        # settings can hold keys: private unless the person chose otherwise (or the file is
        # an executable hook: `mode`)
        mode = 0o600 if mode is None else mode
    tmp = path.with_name(f".{path.name}.osf-tmux-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)  # exactly the file's mode, whatever the umask takes away
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HooksError(f"cannot read {path}: {exc.strerror or exc}") from None


# ---- JSON settings (hooks) ---------------------------------------------------------------------


def load_json(path: Path, raw: bytes) -> dict[str, Any]:
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
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise HooksError(f'{path}: "hooks" is not an object of event lists; nothing was changed')
    return data


@dataclass(frozen=True)
class JsonHooks:
    """A JSON settings file with a `hooks` object of event lists (Claude Code, Codex's
    hooks.json, Gemini CLI)."""

    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        path = self.path
        before = read_bytes(path)
        data = load_json(path, before) if before is not None else {}
        stripped = strip_ours(data)
        if install:
            wanted = merge_ours(stripped, hooks_table(agent))
            if wanted == data:
                return  # installed already, exactly so
            plan.changes.append(FileChange(path, before, _dump(wanted, before)))
            return
        if before is None or stripped == data:
            return  # nothing of ours in it
        plan.changes.append(give_back(path, before, stripped, _load_backup_json))

    def installed(self) -> bool:
        raw = read_bytes(self.path)
        if raw is None:
            return False
        try:
            data = load_json(self.path, raw)
        except HooksError:
            return False
        return strip_ours(data) != data


def merge_ours(data: dict[str, Any], table: Mapping[str, list[dict[str, Any]]]) -> dict[str, Any]:
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
            inner = [h for h in group["hooks"] if not _is_ours(h)]
            if len(inner) == len(group["hooks"]):
                kept.append(group)
            elif inner:
                kept.append({**group, "hooks": inner})
        if kept or not groups:
            hooks[event] = kept
    out = dict(data)
    if hooks:
        out["hooks"] = hooks
    else:
        del out["hooks"]
    return out


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and is_our_command(str(hook.get("command", "")))


def _dump(data: dict[str, Any], like: bytes | None) -> bytes:
    """JSON in the indentation the file already used (two spaces for a new file)."""
    indent: str | int = 2
    if like:
        m = re.search(rb"\n([ \t]+)\S", like)
        if m:
            indent = m.group(1).decode()
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode()


def _load_backup_json(path: Path, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return None


def give_back(
    path: Path, before: bytes, stripped: Any, load: Callable[[Path, bytes], Any]
) -> FileChange:
    """Uninstall: the backed-up bytes when the file without our part equals them (nothing else
    changed since the install), else the file without our part."""
    backup = read_bytes(backup_path(path))
    if backup is not None:
        if load(path, backup) == stripped:
            return FileChange(path, before, backup, drop_backup=True)
    elif stripped in ({}, b""):
        return FileChange(path, before, None)  # we created the file: it goes
    after = stripped if isinstance(stripped, bytes) else _dump(stripped, before)
    return FileChange(path, before, after)


# ---- launching an agent with our hooks, touching no file of the person's -----------------------


def launch_argv(
    agent: str, binary: str, args: list[str], env: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """The command line that starts `agent` with osf-tmux's hooks for this run only, and notes
    for the person."""
    launched: tuple[list[str], list[str]] = _module(agent).launch(binary, args, env)
    return launched


def notify_toml(argv: list[str] | None = None, spaced: bool = True) -> str:
    from osf_tmux.agents.codex_notify import notify_toml as toml_line

    return toml_line(argv, spaced)
