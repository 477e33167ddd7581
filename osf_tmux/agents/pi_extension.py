"""Pi's extension file: a whole file of ours in Pi's extensions folder, not a merge into a file
of the person's. `pi_extension.ts` beside this module is its text, with this install's endpoint
filled in.

Installing writes the file (again, when an older one of ours is there); it never replaces a file
of the same name that is not ours, so nothing of the person's is overwritten and there is no
original to back up. Uninstalling removes our file and nothing else: the folder is as it was."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.agents.hooks import FileChange, HooksError, Plan, notify_argv, read_bytes

TEMPLATE = Path(__file__).with_name("pi_extension.ts")
# The first line of the file: what tells our file from anyone else's.
MARKER = b"// osf-tmux: "


def render() -> bytes:
    """The extension, with the endpoint and the events of this install."""
    from osf_tmux.agents import pi

    text = TEMPLATE.read_text(encoding="utf-8")
    for slot, value in (
        ("__REPORT_ARGV__", json.dumps(notify_argv("pi"), ensure_ascii=False)),
        ("__EVENTS__", json.dumps(list(pi.EVENTS))),
        ("__TIMEOUT_MS__", str(pi.HOOK_TIMEOUT * 1000)),
    ):
        text = text.replace(slot, value)
    return text.encode("utf-8")


def is_ours(raw: bytes) -> bool:
    return raw.startswith(MARKER)


@dataclass(frozen=True)
class ExtensionFile:
    path: Path

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        path = self.path
        folder = path.parent
        if folder.exists() and not folder.is_dir():
            raise HooksError(f"{folder} is not a folder; nothing was changed")
        before = read_bytes(path)
        if before is not None and not is_ours(before):
            if install:
                raise HooksError(
                    f"{path} exists and is not osf-tmux's extension; nothing was changed "
                    "(rename yours and install again)"
                )
            return  # not ours: left alone
        if not install:
            if before is not None:
                plan.changes.append(FileChange(path, before, None))
            return
        wanted = render()
        if before == wanted:
            return
        # Replacing an older extension of ours: nothing of the person's to keep.
        plan.changes.append(FileChange(path, before, wanted, backup=False))

    def installed(self) -> bool:
        try:
            raw = read_bytes(self.path)
        except HooksError:
            return False
        return raw is not None and is_ours(raw)


def private_path(env: Mapping[str, str]) -> Path:
    """Where `launch pi` keeps the extension: osf-tmux's own state folder, private."""
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "osf-tmux" / "pi" / "osf-tmux.ts"


def write_private(env: Mapping[str, str]) -> Path:
    """The extension for one run, written (0600, in a 0700 folder) unless it is there already."""
    path = private_path(env)
    wanted = render()
    try:
        if read_bytes(path) == wanted:
            return path
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(wanted)
        os.replace(tmp, path)
    except OSError as exc:
        raise HooksError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
