"""Hooks that are whole files of ours in a folder of the agent's, not merged into a file of the
person's: an extension or plugin module the agent loads (Pi's `osf-tmux.ts`, the OpenCode
family's `osf-tmux.js`, each from a template beside this module with this install's endpoint
filled in), or one hook script per event (Cline's hooks folder).

Installing writes our file (again, when an older one of ours is there); it never replaces a file
that is not ours, so nothing of the person's is overwritten and there is no original to back up.
Our files are recognised by their content, so uninstalling removes exactly them."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.agents.changes import (
    Agent,
    FileChange,
    HooksError,
    Plan,
    read_bytes,
    write_private,
)
from osf_tmux.agents.command import is_our_command, notify_argv

HERE = Path(__file__).parent


def fill(template: str, slots: Mapping[str, str]) -> bytes:
    """The template beside this module with each slot replaced by its value."""
    text = (HERE / template).read_text(encoding="utf-8")
    for slot, value in slots.items():
        text = text.replace(slot, value)
    return text.encode("utf-8")


@dataclass(frozen=True)
class OwnFile:
    """One module of ours in the agent's extensions (or plugins) folder: `source` is its text,
    `marker` its first bytes; `with_command`: ours only if it also runs our endpoint."""

    path: Path
    source: bytes
    marker: bytes
    kind: str  # what the agent calls it: "extension", "plugin"
    advice: str  # what to do with a file of that name that is not ours
    with_command: bool = False

    def is_ours(self, raw: bytes) -> bool:
        if not raw.startswith(self.marker):
            return False
        return not self.with_command or is_our_command(raw.decode("utf-8", "replace"))

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        path = self.path
        folder = path.parent
        if folder.exists() and not folder.is_dir():
            raise HooksError(f"{folder} is not a folder; nothing was changed")
        before = read_bytes(path)
        if before is not None and not self.is_ours(before):
            if install:
                raise HooksError(
                    f"{path} exists and is not osf-tmux's {self.kind}; nothing was changed "
                    f"({self.advice})"
                )
            return  # not ours: left alone
        if not install:
            if before is not None:
                plan.changes.append(FileChange(path, before, None))
            return
        if before == self.source:
            return
        # Replacing an older file of ours: nothing of the person's to keep.
        plan.changes.append(FileChange(path, before, self.source, backup=False))

    def installed(self) -> bool:
        try:
            raw = read_bytes(self.path)
        except HooksError:
            return False
        return raw is not None and self.is_ours(raw)


def write_copy(path: Path, source: bytes) -> Path:
    """Our file for one run (`osf-tmux launch`), in osf-tmux's own state folder: written (0600,
    in a 0700 folder) unless it is there already."""
    if read_bytes(path) != source:
        write_private(path, source)
    return path


# ---- Cline: one hook script per event ----------------------------------------------------------

# The names Cline takes for a hook file: the event name (any case) plus one of these.
HOOK_SUFFIXES = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py")
# The names ours may take, in order: all run by the `#!/bin/sh` line, whatever the suffix.
OUR_SUFFIXES = (".sh", ".bash", ".zsh")
SCRIPT_MARKER = "# osf-tmux hook"


def script(agent: Agent, event: str) -> bytes:
    """Our hook file for `event`: the endpoint, fed the payload the agent writes to stdin."""
    return (
        "#!/bin/sh\n"
        f"{SCRIPT_MARKER}: reports {agent.TITLE}'s {event} to the osf-tmux daemon.\n"
        f"# `osf-tmux hooks uninstall --agent {agent.NAME}` removes it.\n"
        f"exec {shlex.join(notify_argv(agent.NAME))}\n"
    ).encode()


def is_our_script(raw: bytes) -> bool:
    text = raw.decode("utf-8", "replace")
    return SCRIPT_MARKER in text and is_our_command(text)


def event_of(name: str, events: tuple[str, ...]) -> str | None:
    """The event a file name stands for, as Cline reads it (suffix allowed, case ignored)."""
    lower = name.lower()
    for event in events:
        base = event.lower()
        if lower.startswith(base) and lower[len(base) :] in HOOK_SUFFIXES:
            return event
    return None


@dataclass(frozen=True)
class ScriptDir:
    """A folder of hook executables named after their events (`PreToolUse`, `TaskComplete.sh`,
    ...; Cline's `~/.cline/hooks`), ours among the person's. The agent runs every file of an
    event it finds there, so a person's own hook of an event is never touched: ours takes a name
    of its own beside it (`PreToolUse.sh`, else `.bash`, else `.zsh`; names compared without
    case, as Cline compares them) and both run."""

    path: Path
    events: tuple[str, ...]

    def _files(self) -> dict[str, list[Path]]:
        """The hook files in the folder, by event."""
        if self.path.exists() and not self.path.is_dir():
            raise HooksError(f"{self.path} is not a folder; nothing was changed")
        out: dict[str, list[Path]] = {e: [] for e in self.events}
        try:
            entries = sorted(self.path.iterdir()) if self.path.is_dir() else []
        except OSError as exc:
            raise HooksError(f"cannot list {self.path}: {exc.strerror or exc}") from None
        for entry in entries:
            event = event_of(entry.name, self.events)
            if event is not None and entry.is_file():
                out[event].append(entry)
        return out

    def plan(self, plan: Plan, agent: Agent, install: bool) -> None:
        files = self._files()
        for event in self.events:
            mine = [p for p in files[event] if is_our_script(read_bytes(p) or b"")]
            if not install:
                for path in mine:
                    plan.changes.append(FileChange(path, read_bytes(path), None, drop_backup=True))
                continue
            wanted = script(agent, event)
            if mine:
                before = read_bytes(mine[0])
                if before != wanted:
                    plan.changes.append(FileChange(mine[0], before, wanted, mode=0o700))
                continue
            taken = {p.name.lower() for p in files[event]}
            free = [event + s for s in OUR_SUFFIXES if (event + s).lower() not in taken]
            if not free:
                raise HooksError(
                    f"{self.path} has hooks of yours for {event} under every name osf-tmux "
                    f"could use ({', '.join(event + s for s in OUR_SUFFIXES)}); nothing was "
                    "changed"
                )
            if files[event]:
                names = ", ".join(p.name for p in files[event])
                plan.notes.append(
                    f"{self.path}: your {event} hook ({names}) is kept; {agent.TITLE} runs every "
                    f"hook file of an event, so ours ({free[0]}) runs beside it."
                )
            plan.changes.append(FileChange(self.path / free[0], None, wanted, mode=0o700))

    def installed(self) -> bool:
        try:
            files = self._files()
        except HooksError:
            return False
        return any(is_our_script(read_bytes(p) or b"") for paths in files.values() for p in paths)
