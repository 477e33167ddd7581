"""The capture corpus: raw bytes plus labels (`NAME-COLSxROWS.bytes` + `.labels.json`)."""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.judge.manifest import shipped_rules_dir

_NAME_SIZE = re.compile(r"-(\d+)x(\d+)$")


@dataclass(frozen=True)
class LabelPoint:
    offset: int
    state: str
    note: str


@dataclass(frozen=True)
class Capture:
    bytes_path: Path
    labels_path: Path | None

    @property
    def name(self) -> str:
        return f"{self.bytes_path.parent.name}/{self.bytes_path.stem}"

    def labels(self) -> dict[str, Any]:
        if self.labels_path is None:
            return {}
        data = json.loads(self.labels_path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{self.labels_path}: labels must be a JSON object")
        return data

    def timing(self) -> list[tuple[int, float]] | None:
        """The pipe-pane reads beside the bytes (`NAME.timing`: `OFFSET EPOCH` lines), sorted;
        None without a readable file."""
        path = self.bytes_path.with_name(self.bytes_path.name[: -len(".bytes")] + ".timing")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            return sorted((int(p[0]), float(p[1])) for line in lines if len(p := line.split()) >= 2)
        except (OSError, ValueError):
            return None

    def size(self) -> tuple[int, int] | None:
        labels = self.labels()
        if "cols" in labels and "rows" in labels:
            return int(labels["cols"]), int(labels["rows"])
        m = _NAME_SIZE.search(self.bytes_path.stem)
        return (int(m.group(1)), int(m.group(2))) if m else None

    def agent(self) -> str | None:
        """The agent whose rules apply: the folder is named after it (`claude-2.1.328`,
        `gemini-cli-0.61.0-lab`), else the labels say."""
        labels = self.labels()
        known = known_agents()
        for name in (self.bytes_path.parent.name, str(labels.get("agent", ""))):
            for agent in known:
                if name == agent or name.startswith(agent + "-"):
                    return agent
        return None

    def points(self) -> list[LabelPoint]:
        """Each labelled segment where its cue first shows and, where the labels record the
        next action (driver_events), just before that action: the state still held there."""
        labels = self.labels()
        segments = labels.get("segments", [])
        actions = sorted(
            int(e["offset"])
            for e in labels.get("driver_events", [])
            if e.get("event") in ("keys", "typed")
        )
        size = self.bytes_path.stat().st_size
        out: list[LabelPoint] = []
        for i, seg in enumerate(segments):
            note = str(seg.get("note", ""))
            if seg["offset"] == 0 and "booting" in note:
                continue
            out.append(LabelPoint(int(seg["offset"]), seg["state"], f"start: {note}"))
            if i + 1 < len(segments):
                inside = [a for a in actions if seg["offset"] < a < segments[i + 1]["offset"]]
                if inside:
                    out.append(LabelPoint(inside[-1], seg["state"], f"end: {note}"))
        return [p for p in out if p.offset <= size]

    def prompts_after_work(self) -> list[tuple[int, int]]:
        """(offset where the agent works, offset where its prompt is on screen) for each
        labelled `working` point followed by a `blocked` one."""
        return [
            (before.offset, after.offset)
            for before, after in itertools.pairwise(self.points())
            if before.state == "working" and after.state == "blocked"
        ]

    def reads_after(self, start: int, end: int) -> list[tuple[float, int]]:
        """The pipe-pane reads after the one that brought byte `start`, up to the one ending at
        `end` or before: (seconds after that first read, end offset). Empty without timing."""
        timing = self.timing() or []
        first = next((t for o, t in timing if o >= start), None)
        if first is None:
            return []
        return [(t - first, o) for o, t in timing if start < o <= end]


@functools.cache
def known_agents() -> tuple[str, ...]:
    """The shipped manifests' names, longest first (so no name is taken for a prefix of it).
    Read once per process: the shipped folder does not change under a running program, and a
    test run asks once per capture (1,700 listings of the folder, ~0.3 s of each worker's start)."""
    names = [path.stem for path in shipped_rules_dir().glob("*.toml")]
    return tuple(sorted(names, key=lambda n: (-len(n), n)))


def find_captures(root: Path) -> list[Capture]:
    out = []
    for path in sorted(root.rglob("*.bytes")):
        labels = path.with_name(path.name[: -len(".bytes")] + ".labels.json")
        out.append(Capture(path, labels if labels.exists() else None))
    return out
