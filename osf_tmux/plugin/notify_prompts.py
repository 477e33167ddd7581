"""Which prompt each pane last notified about, kept on disk so that a restarted daemon (`stop`
and a new start, a crash, `kill -9`) does not notify again for a prompt that still waits.

A pane is known by its id and its process (`%5` of a new tmux server is another pane), an
entry by the pane and the state (`blocked`, `done`). An entry names the prompt by a digest of
its identity (osf_tmux/judge/question.py: what a person would call the same question), so no
pane content lands on disk. Times are wall-clock seconds: monotonic time does not survive a
restart. The file is private (0600) and written whole, then renamed, at every change."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path

from osf_tmux.paths import open_private, write_private

log = logging.getLogger("osf_tmux.plugin.notify")

VERSION = 2
KEEP = 24 * 3600.0  # an entry this old is dropped: its pane waited a day or is long gone
# At most this many entries, the oldest dropped first: panes closed while they waited (or after
# a `done` notification) leave theirs behind, and a day of them is no bound for a busy server.
MAX_ENTRIES = 256


def digest(prompt: str) -> str:
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Entry:
    at: float  # when it notified
    prompt: str  # digest of the prompt's identity
    # When the prompt vanished into a screen no rule recognised (or the agent stopped being
    # recognised): it may be the same prompt being redrawn. None while it is on the screen.
    away: float | None = None


class PromptBook:
    """Entries per (pane, state); `path` None keeps them in memory only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: dict[tuple[str, str], Entry] = {}
        self._load()

    def get(self, pane: str, state: str) -> Entry | None:
        return self.entries.get((pane, state))

    def same(self, pane: str, state: str, prompt: str) -> Entry | None:
        """The entry, if it is for this very prompt."""
        entry = self.entries.get((pane, state))
        return entry if entry is not None and entry.prompt == digest(prompt) else None

    def notified(self, pane: str, state: str, prompt: str, now: float) -> None:
        self.entries[(pane, state)] = Entry(now, digest(prompt))
        for key, entry in list(self.entries.items()):
            if not 0 <= now - entry.at < KEEP:
                del self.entries[key]
        if len(self.entries) > MAX_ENTRIES:
            newest = sorted(self.entries.items(), key=lambda kv: kv[1].at)[-MAX_ENTRIES:]
            self.entries = dict(newest)
        self._save()

    def away(self, pane: str, state: str, now: float) -> bool:
        """The prompt left the screen, perhaps only for a redraw; whether there was one."""
        entry = self.entries.get((pane, state))
        if entry is None:
            return False
        if entry.away is None:
            self.entries[(pane, state)] = replace(entry, away=now)
            self._save()
        return True

    def forget(self, pane: str, state: str) -> bool:
        """The prompt went (answered, or the agent moved on); whether there was an entry."""
        if self.entries.pop((pane, state), None) is None:
            return False
        self._save()
        return True

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            fd = open_private(self.path, os.O_RDONLY)  # never through a symlink
            with os.fdopen(fd, "rb") as f:
                data = json.loads(f.read())
            if data.get("version") != VERSION:
                return  # an older daemon's file: its entries meant something else
            for row in data["entries"]:
                key = (str(row["pane"]), str(row["state"]))
                away = row.get("away")
                self.entries[key] = Entry(
                    float(row["at"]), str(row["prompt"]), None if away is None else float(away)
                )
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring the notified prompts in %s: %s", self.path, exc)
            self.entries.clear()

    def _save(self) -> None:
        if self.path is None:
            return
        rows = [
            {"pane": pane, "state": state, "at": e.at, "prompt": e.prompt, "away": e.away}
            for (pane, state), e in self.entries.items()
        ]
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private(self.path, json.dumps({"version": VERSION, "entries": rows}).encode())
        except OSError as exc:
            log.warning("could not keep the notified prompts in %s: %s", self.path, exc)
