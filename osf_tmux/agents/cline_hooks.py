"""Cline's hooks are files, not settings: an executable named after its event (`PreToolUse`,
`TaskComplete.sh`, ...) in a hooks folder (`~/.cline/hooks` among others). Cline runs every file
of an event it finds there, through the interpreter of its `#!` line, with the event's JSON on
stdin; PreToolUse and PostToolUse are waited for (and may print JSON to steer the tool), the
others are not.

So our hook is a small shell script per event that runs the endpoint. A person's own hook of
the same event is never touched: ours takes a name of its own beside it (`PreToolUse.sh`, else
`.bash`, else `.zsh`; names compared without case, as Cline compares them) and both run. Our
files are recognised by their content, so uninstalling removes exactly them."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.agents.hooks import (
    FileChange,
    HooksError,
    Plan,
    is_our_command,
    notify_argv,
    read_bytes,
)

# The names Cline takes for a hook file: the event name (any case) plus one of these.
HOOK_SUFFIXES = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py")
# The names ours may take, in order: all run by the `#!/bin/sh` line, whatever the suffix.
OUR_SUFFIXES = (".sh", ".bash", ".zsh")
MARKER = "# osf-tmux hook"


def script(agent: str, event: str) -> bytes:
    """Our hook file for `event`: the endpoint, fed the payload Cline writes to stdin."""
    return (
        "#!/bin/sh\n"
        f"{MARKER}: reports Cline's {event} to the osf-tmux daemon.\n"
        f"# `osf-tmux hooks uninstall --agent {agent}` removes it.\n"
        f"exec {shlex.join(notify_argv(agent))}\n"
    ).encode()


def is_ours(raw: bytes) -> bool:
    text = raw.decode("utf-8", "replace")
    return MARKER in text and is_our_command(text)


def event_of(name: str, events: tuple[str, ...]) -> str | None:
    """The event a file name stands for, as Cline reads it (suffix allowed, case ignored)."""
    lower = name.lower()
    for event in events:
        base = event.lower()
        if lower.startswith(base) and lower[len(base) :] in HOOK_SUFFIXES:
            return event
    return None


@dataclass(frozen=True)
class HookDir:
    """One folder of Cline hook files, ours among the person's."""

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

    def plan(self, plan: Plan, agent: str, install: bool) -> None:
        files = self._files()
        for event in self.events:
            mine = [p for p in files[event] if is_ours(read_bytes(p) or b"")]
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
                    f"{self.path}: your {event} hook ({names}) is kept; Cline runs every hook "
                    f"file of an event, so ours ({free[0]}) runs beside it."
                )
            plan.changes.append(FileChange(self.path / free[0], None, wanted, mode=0o700))

    def installed(self) -> bool:
        try:
            files = self._files()
        except HooksError:
            return False
        return any(is_ours(read_bytes(p) or b"") for paths in files.values() for p in paths)
