"""What installing or removing our hooks changes in an agent's files, computed without writing
(a `Plan` of `FileChange`s), and writing it: atomically, through a symlink to its target, in the
target's mode, with the file as it was kept beside it (`*.osf-tmux.bak`).

Each kind of hook file (`json_hooks`, `toml_hooks`, `own_files`) plans its own changes from an
agent's data (`Agent`); nothing here knows an agent by name."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

BACKUP_SUFFIX = ".osf-tmux.bak"


class HooksError(Exception):
    """A settings file we will not touch, or an agent we cannot do this for."""


class Agent(Protocol):
    """What a hook file needs of an agent: its module's data (osf_tmux/agents/claude.py, ...),
    read only."""

    @property
    def NAME(self) -> str:
        """Its id, as in rules/NAME.toml and `--agent NAME`."""
        ...

    @property
    def TITLE(self) -> str:
        """Its name for people ("Claude Code")."""
        ...

    @property
    def EVENTS(self) -> Mapping[str, str | None]:
        """Hook event -> the state it reports; None: `NOTIFICATIONS` decides by the payload's
        `notification_type`. Events not listed are ignored."""
        ...

    @property
    def NOTIFICATIONS(self) -> Mapping[str, str]: ...

    @property
    def HOOK_TIMEOUT(self) -> int:
        """How long the agent waits for our hook, in the agent's own unit."""
        ...

    @property
    def HOOK_EXTRA(self) -> Mapping[str, object]:
        """Further keys of each hook entry (e.g. Gemini's "name")."""
        ...

    @property
    def INSTALL_NOTES(self) -> tuple[str, ...]:
        """Said after `hooks install`."""
        ...


def agent_data(module: str) -> Agent:
    """An agent module's own data, for its functions to hand on (`agent_data(__name__)`)."""
    return cast(Agent, sys.modules[module])


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
    """One file (or folder) of an agent that our hooks go into."""

    @property
    def path(self) -> Path: ...

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        """Add to `plan` what installing (or uninstalling) our hooks changes in this file."""
        ...

    def installed(self) -> bool:
        """Whether our hooks are in the file now."""
        ...


def refuse_read_only(path: Path) -> None:
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


def apply(plan: Plan) -> None:
    """Write the plan: the original beside each file first, then the file (atomically, through
    a symlink to its target, in the target's mode)."""
    for change in plan.changes:
        target = real_path(change.path)
        backup = backup_path(change.path)
        # settings can hold keys: a file we create is private unless it is an executable hook
        mode = _mode_of(target, 0o600 if change.mode is None else change.mode)
        if change.before is not None and change.keeps_backup() and not backup.exists():
            _write(backup, change.before, mode)
        if change.after is None:
            target.unlink(missing_ok=True)  # a file we created: a link to it stays as it was
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _write(target, change.after, mode)
        if change.drop_backup:
            backup.unlink(missing_ok=True)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _mode_of(path: Path, new: int) -> int:
    """The mode `path` has (the person's choice), or `new` for a file we create."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return new


def _write(path: Path, data: bytes, mode: int) -> None:
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


def give_back(
    path: Path, before: bytes, after: bytes, unchanged: Callable[[bytes], bool], created: bool
) -> FileChange:
    """Uninstall: the backed-up bytes when the backup is `unchanged` from the file without our
    part (nothing else changed since the install); else `after`, the file without our part, or
    no file when we `created` it (no backup) and it holds nothing else."""
    backup = read_bytes(backup_path(path))
    if backup is not None:
        if unchanged(backup):
            return FileChange(path, before, backup, drop_backup=True)
    elif created:
        return FileChange(path, before, None)
    return FileChange(path, before, after)


def agent_folder(env: Mapping[str, str], variable: str | None, default: str) -> Path:
    """An agent's own folder: `$variable` when set, else `~/default`."""
    explicit = env.get(variable) if variable else None
    return Path(explicit or os.path.join(env.get("HOME") or os.path.expanduser("~"), default))


# ---- files for one run (`osf-tmux launch`): osf-tmux's own state folder, nothing of the person's


def own_state(env: Mapping[str, str]) -> Path:
    """osf-tmux's folder under the person's state home, where launches keep their files."""
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "osf-tmux"


def write_private(path: Path, data: bytes, what: str | None = None) -> None:
    """Replace `path` atomically with `data`, 0600 in a 0700 folder, through no symlink;
    HooksError naming `what` (default: the file) when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write(path, data, 0o600)
    except OSError as exc:
        raise HooksError(f"cannot write {what or path}: {exc.strerror or exc}") from None
