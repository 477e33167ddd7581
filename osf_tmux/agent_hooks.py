"""Put osf-tmux's hook into an agent's own settings, and take it out again without a trace.

Each agent gets the endpoint (osf_tmux/report.py) for the events osf-tmux uses:
- Claude Code: `hooks` in `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`);
- Codex CLI: `hooks.json` in `$CODEX_HOME` (default `~/.codex`; Codex runs hooks only once the
  person has trusted them) plus `notify` in its `config.toml` (turn ends, for Codex versions
  without hooks);
- Gemini CLI: `hooks` in `~/.gemini/settings.json`.

Installing merges: every other key and every hook of the person's own stays, and installing
twice changes nothing. The file as it was is kept beside it (`*.osf-tmux.bak`); uninstalling
gives those exact bytes back when nothing but our hook changed since, else removes only our
entries. Nothing is written when a file cannot be read as JSON/TOML."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from osf_tmux import report

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

AGENTS = ("claude", "codex", "gemini")
BACKUP_SUFFIX = ".osf-tmux.bak"
# Recognises our hook in any file, whichever interpreter or install path wrote it.
_OURS = re.compile(r"osf_tmux[/.\\]report\b")
_NOTIFY_LINE = re.compile(r"^notify[ \t]*=.*osf_tmux[/.\\]report.*(\r?\n|$)", re.MULTILINE)
# Seconds the agent gives our hook before it gives up on it (Gemini counts milliseconds).
_TIMEOUT = {"claude": 10, "codex": 10, "gemini": 10_000}


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
    """Our entries, in the `{"Event": [{"hooks": [{"type": "command", ...}]}]}` shape all three
    agents share."""
    command = command or report_command(agent)
    hook: dict[str, Any] = {"type": "command", "command": command, "timeout": _TIMEOUT[agent]}
    if agent == "gemini":
        hook = {"name": "osf-tmux", **hook}  # Gemini shows hook names while they run
    return {event: [{"hooks": [dict(hook)]}] for event in report.EVENTS[agent]}


# ---- where each agent keeps its files ----------------------------------------------------------


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def claude_settings(env: Mapping[str, str]) -> Path:
    base = env.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else _home(env) / ".claude") / "settings.json"


def codex_home(env: Mapping[str, str]) -> Path:
    base = env.get("CODEX_HOME")
    return Path(base) if base else _home(env) / ".codex"


def gemini_settings(env: Mapping[str, str]) -> Path:
    return _home(env) / ".gemini" / "settings.json"


# ---- plans: what would change, computed without writing ----------------------------------------


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: bytes | None  # None: the file does not exist
    after: bytes | None  # None: remove the file
    drop_backup: bool = False  # uninstall gave back the backed-up bytes: the backup is spent


@dataclass
class Plan:
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def plan_install(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    env = os.environ if env is None else env
    plan = Plan()
    if agent == "claude":
        _plan_json(plan, claude_settings(env), agent, install=True)
    elif agent == "codex":
        home = codex_home(env)
        _plan_json(plan, home / "hooks.json", agent, install=True)
        _plan_notify(plan, home / "config.toml", install=True)
        plan.notes.append(
            "Codex runs new hooks only after you trust them: run /hooks in Codex once."
        )
    elif agent == "gemini":
        _plan_json(plan, gemini_settings(env), agent, install=True)
    else:
        raise HooksError(f"unknown agent {agent!r} (hooks exist for {', '.join(AGENTS)})")
    return plan


def plan_uninstall(agent: str, env: Mapping[str, str] | None = None) -> Plan:
    env = os.environ if env is None else env
    plan = Plan()
    if agent == "claude":
        _plan_json(plan, claude_settings(env), agent, install=False)
    elif agent == "codex":
        home = codex_home(env)
        _plan_json(plan, home / "hooks.json", agent, install=False)
        _plan_notify(plan, home / "config.toml", install=False)
    elif agent == "gemini":
        _plan_json(plan, gemini_settings(env), agent, install=False)
    else:
        raise HooksError(f"unknown agent {agent!r} (hooks exist for {', '.join(AGENTS)})")
    return plan


def apply(plan: Plan) -> None:
    """Write the plan: the original beside each file first, then the file (atomically)."""
    for change in plan.changes:
        backup = backup_path(change.path)
        if change.before is not None and change.after is not None and not backup.exists():
            _write(backup, change.before, like=change.path)
        if change.after is None:
            change.path.unlink(missing_ok=True)
        else:
            change.path.parent.mkdir(parents=True, exist_ok=True)
            _write(change.path, change.after, like=change.path)
        if change.drop_backup:
            backup.unlink(missing_ok=True)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _write(path: Path, data: bytes, like: Path) -> None:
    try:
        mode = like.stat().st_mode & 0o777
    except OSError:
        mode = 0o600  # settings can hold keys: private unless the person chose otherwise
    tmp = path.with_name(f".{path.name}.osf-tmux-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HooksError(f"cannot read {path}: {exc.strerror or exc}") from None


# ---- JSON settings (hooks) ---------------------------------------------------------------------


def _load_json(path: Path, raw: bytes) -> dict[str, Any]:
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


def _plan_json(plan: Plan, path: Path, agent: str, install: bool) -> None:
    before = _read(path)
    data = _load_json(path, before) if before is not None else {}
    stripped = strip_ours(data)
    if install:
        wanted = merge_ours(stripped, hooks_table(agent))
        if wanted == data:
            return  # installed already, exactly so
        plan.changes.append(FileChange(path, before, _dump(wanted, before)))
        return
    if before is None or stripped == data:
        return  # nothing of ours in it
    plan.changes.append(_give_back(path, before, stripped, _load_backup_json))


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
    return isinstance(hook, dict) and bool(_OURS.search(str(hook.get("command", ""))))


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


# ---- Codex notify (config.toml) ----------------------------------------------------------------


def notify_toml(argv: list[str] | None = None, spaced: bool = True) -> str:
    """`notify = [...]` as TOML (JSON strings are valid TOML basic strings); unspaced for
    Codex's `-c key=value`."""
    value = "[" + ", ".join(json.dumps(a) for a in (argv or notify_argv("codex"))) + "]"
    return f"notify = {value}" if spaced else f"notify={value}"


def _load_toml(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HooksError(f"{path} is not valid TOML ({exc}); nothing was changed") from None


def _plan_notify(plan: Plan, path: Path, install: bool) -> None:
    before = _read(path)
    text = before.decode("utf-8", "replace") if before is not None else ""
    config = _load_toml(path, before) if before is not None else {}
    ours = _NOTIFY_LINE.search(text)
    if not install:
        if before is None or ours is None:
            return
        stripped = _NOTIFY_LINE.sub("", text, count=1).encode()
        plan.changes.append(_give_back(path, before, stripped, _load_backup_bytes))
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
            f"{path} already has a notify program of yours; Codex runs only one, so osf-tmux "
            "relies on Codex's hooks alone there."
        )
        return
    # A top-level key must come before the first [table]: the top of the file is always safe.
    plan.changes.append(FileChange(path, before, (line + "\n" + text).encode()))


def _load_backup_bytes(path: Path, raw: bytes) -> Any:
    return raw


def _give_back(
    path: Path, before: bytes, stripped: Any, load: Callable[[Path, bytes], Any]
) -> FileChange:
    """Uninstall: the backed-up bytes when the file without our part equals them (nothing else
    changed since the install), else the file without our part."""
    backup = _read(backup_path(path))
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
    if agent == "claude":
        # --settings takes a JSON string; its hooks run beside the person's own.
        settings = json.dumps({"hooks": hooks_table("claude")}, separators=(",", ":"))
        return [binary, "--settings", settings, *args], []
    if agent == "codex":
        # `-c` overrides config for this run. Hooks need trusting (a file), so only notify here;
        # a person's own notify program is left in charge (Codex runs one).
        path = codex_home(env) / "config.toml"
        raw = _read(path)
        notify = (_load_toml(path, raw) if raw else {}).get("notify")
        if notify is not None and not _OURS.search(str(notify)):
            return [binary, *args], [
                f"{path} names its own notify program: turn ends are left to it "
                "(osf-tmux still reads the screen)"
            ]
        return [binary, "-c", notify_toml(spaced=False), *args], []
    if agent == "gemini":
        raise HooksError(
            "Gemini CLI has no flag for extra settings; use `osf-tmux hooks install --agent "
            "gemini` (it merges into ~/.gemini/settings.json and can be uninstalled)."
        )
    raise HooksError(f"unknown agent {agent!r} (launch knows claude and codex)")
