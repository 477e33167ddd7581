"""Where osf-tmux keeps its files, from an injected environment so tests control it.

The runtime directory carries every byte the panes print (its FIFOs) and the state directory
carries prompt excerpts (log, status): both must be private. `private_dir` makes them so, and
refuses a directory someone else could have prepared (`/tmp/osf-tmux-<uid>` is a name anyone
can take first)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

PRIVATE_MODE = 0o700


class UnsafeDirectoryError(OSError):
    """A directory osf-tmux will not put private files in; the message says why and what to do."""


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    explicit = env.get("OSF_TMUX_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "osf-tmux"


def user_rules_dir(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / "rules"


def shipped_rules_dir() -> Path:
    """Where the manifests that come with osf-tmux live: inside the installed package (the
    wheel puts rules/ there), else at the root of the checkout."""
    here = Path(__file__).resolve().parent  # the osf_tmux package
    installed = here / "rules"
    return installed if installed.is_dir() else here.parent / "rules"


def state_dir(server_key: str, env: Mapping[str, str] | None = None) -> Path:
    """Lock, status file and log of the daemon for one tmux server."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    )
    return Path(base) / "osf-tmux" / server_key


def captures_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where `osf-tmux capture` writes unless told otherwise: beside the servers' state."""
    return state_dir("captures", env)


def runtime_dir(server_key: str, env: Mapping[str, str] | None = None) -> Path:
    """The daemon's FIFOs: private to the user, gone with the machine."""
    env = os.environ if env is None else env
    base = env.get("XDG_RUNTIME_DIR")
    root = Path(base) / "osf-tmux" if base else Path("/tmp") / f"osf-tmux-{os.getuid()}"
    return root / server_key


# How many levels of our own directories each path has: the per-server directory and the
# `osf-tmux` (or `osf-tmux-<uid>`) directory above it. Both are ours in every layout; what is
# above them (/tmp, $XDG_RUNTIME_DIR, ~/.local/state) is not ours to judge.
OWN_LEVELS = 2


def dir_problem(path: Path, uid: int | None = None) -> str | None:
    """What makes an existing `path` unfit to hold private files, or None (also when it does
    not exist yet: it will be created private). Changes nothing."""
    uid = os.getuid() if uid is None else uid
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be inspected: {exc.strerror or exc}"
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link (to {os.readlink(path)}), not a directory of yours"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    if st.st_uid != uid:
        return f"{path} belongs to uid {st.st_uid}, not to you (uid {uid})"
    return None


def _loose(path: Path) -> bool:
    return bool(os.lstat(path).st_mode & 0o077)


def private_dir(path: Path, levels: int = OWN_LEVELS, uid: int | None = None) -> Path:
    """Make `path` and the `levels - 1` directories above it directories of this user with
    mode 0700: created so when missing, tightened when they are ours but looser. Anything else
    (another user's, a symlink, a file) raises UnsafeDirectoryError and nothing is created in
    it: another user could read what osf-tmux would put there."""
    chain = [path, *list(path.parents)[: max(levels, 1) - 1]][::-1]
    chain[0].parent.mkdir(parents=True, exist_ok=True)
    for directory in chain:
        with contextlib.suppress(FileExistsError):  # judged below, whoever made it
            os.mkdir(directory, PRIVATE_MODE)
        problem = dir_problem(directory, uid)
        if problem is not None:
            raise UnsafeDirectoryError(
                f"{problem}: another user could read what osf-tmux keeps there (pane output, "
                f"prompts). Remove it, or set XDG_RUNTIME_DIR / XDG_STATE_HOME to a directory "
                f"only you can reach."
            )
        if _loose(directory):
            os.chmod(directory, PRIVATE_MODE)  # ours and no link (checked just above)
    return path


def open_private(path: Path, flags: int, mode: int = 0o600) -> int:
    """`os.open` that never follows a symlink at `path` and creates files 0600."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)


def write_private(path: Path, data: bytes) -> None:
    """Replace `path` atomically with `data`, 0600, through no symlink."""
    tmp = path.with_name(f".{path.name}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        fd = open_private(tmp, flags)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        os.unlink(tmp)  # a symlink left in our own directory: ours to remove
        fd = open_private(tmp, flags)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def ssh_control_dir(env: Mapping[str, str] | None = None) -> Path:
    """The control sockets of the ssh connections to other machines (one per host, shared by
    every tmux server of the user: a server key always ends in `-<digest>`, never `ssh`)."""
    return runtime_dir("ssh", env)
