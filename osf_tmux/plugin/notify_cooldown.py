"""When each pane last notified, for which state and which prompt, kept on disk.

The cooldown is there against flapping: one prompt drawn, missed for a frame, drawn again. It
must not swallow a new question, so an entry names the prompt it was for (a digest of its
text, so no pane content lands on disk), and an answered prompt clears it. It lives in a file
so that a restarted daemon does not notify again for panes that were already waiting; times
are wall-clock seconds, since monotonic time does not survive a restart."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("osf_tmux.plugin.notify")


def digest(prompt: str) -> str:
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Entry:
    at: float  # wall-clock seconds
    prompt: str  # digest of the prompt's text


class CooldownBook:
    """Entries per (pane, state); `path` None keeps them in memory only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: dict[tuple[str, str], Entry] = {}
        self._load()

    def due(self, pane: str, state: str, prompt: str, now: float, cooldown: float) -> bool:
        """Whether a notification for this pane, state and prompt may go out at `now`."""
        entry = self.entries.get((pane, state))
        if entry is None or entry.prompt != digest(prompt):
            return True
        age = now - entry.at
        # A stamp from the future (the wall clock was set back) does not hold anything up.
        return not 0 <= age < cooldown

    def record(self, pane: str, state: str, prompt: str, now: float, keep: float) -> None:
        self.entries[(pane, state)] = Entry(now, digest(prompt))
        for key, entry in list(self.entries.items()):
            if not 0 <= now - entry.at < keep:
                del self.entries[key]
        self._save()

    def forget(self, pane: str, state: str) -> bool:
        """Drop the entry (the prompt was answered); whether there was one."""
        if self.entries.pop((pane, state), None) is None:
            return False
        self._save()
        return True

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_text())
            rows = data["entries"]
            for row in rows:
                key = (str(row["pane"]), str(row["state"]))
                self.entries[key] = Entry(float(row["at"]), str(row["prompt"]))
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring the notification cooldowns in %s: %s", self.path, exc)
            self.entries.clear()

    def _save(self) -> None:
        if self.path is None:
            return
        rows = [
            {"pane": pane, "state": state, "at": e.at, "prompt": e.prompt}
            for (pane, state), e in self.entries.items()
        ]
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"version": 1, "entries": rows}, f)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("could not keep the notification cooldowns in %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
