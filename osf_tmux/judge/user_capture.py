"""A user's own capture of a pane osf-tmux judged wrongly, in the lab's format: `NAME.bytes` (what
the pane drew, replayable from a blank screen), `NAME.timing` (`OFFSET EPOCH` per read),
`NAME.labels.json` (agent, size, the state osf-tmux showed, the state the user says is right)
and `NAME.txt` (the screen, to read). `osf-tmux replay`, `explain` and the scorer take it as
they take the lab's; `osf-tmux rules test` replays a folder of them against the rules in use.

Pure but for writing files: the daemon's side is daemon/capture_server.py."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.paths import write_private
from osf_tmux.vt.redraw import seed_bytes
from osf_tmux.vt.snapshot import Snapshot
from osf_tmux.vt.width import char_width

RECORDER = "osf-tmux capture"
USER_STATES = ("blocked", "working", "done", "idle")


def screen_state(state: str) -> str:
    """The state the screen alone can show for a state the user gives: `done` is the daemon's
    word for a turn that went back to its prompt, and its screen reads idle."""
    return "idle" if state == "done" else state


def last_screen(data: bytes, cols: int, rows: int) -> Snapshot:
    return next(snap for _, snap in snapshots_at(data, cols, rows, [len(data)]))


def screen_text(snap: Snapshot) -> str:
    """The screen as `explain` frames it, for the `.txt`."""
    width = len(str(len(snap.rows) - 1))
    lines = [f"title {snap.title!r}  cursor {snap.cursor}  alt_screen {snap.alt_screen}"]
    lines.append("+" + "-" * snap.cols)
    lines += [f"{i:>{width}}|{row}" for i, row in enumerate(snap.rows)]
    lines.append("+" + "-" * snap.cols)
    return "\n".join(lines) + "\n"


def _crossed(text: str) -> str:
    """`text` with each character that is not a blank turned into `x`s of its width."""
    return "".join(c if c.isspace() else "x" * max(char_width(c), 1) for c in text)


def redact(snap: Snapshot, manifest: Manifest) -> tuple[Snapshot, list[int]]:
    """`snap` with the text of every row (and the title) that no rule needs for its verdict
    crossed out, and the rows kept. A row is needed when crossing it out changes the verdict
    (the state or the rule that decided), with every row crossed out before it staying so."""
    want = classify(snap, manifest)
    rows = list(snap.rows)
    kept: list[int] = []
    for y, row in enumerate(rows):
        if not row.strip():
            continue
        rows[y] = _crossed(row)
        trial = replace(snap, rows=tuple(rows))
        if classify(trial, manifest) != want:
            rows[y] = row
            kept.append(y)
    out = replace(snap, rows=tuple(rows))
    if out.title:
        untitled = replace(out, title=_crossed(out.title))
        if classify(untitled, manifest) == want:
            out = untitled
    return out, kept


@dataclass(frozen=True)
class Written:
    bytes_path: Path
    size: int  # bytes written into it
    shown: str | None
    screen: Verdict
    kept_rows: tuple[int, ...] | None  # with --redact: the rows left as they were


def write_capture(
    folder: Path,
    name: str,
    *,
    data: bytes,
    timing: Iterable[tuple[int, float]],
    daemon: dict[str, Any],
    manifest: Manifest,
    user_state: str | None,
    note: str | None,
    redacted: bool,
) -> Written:
    """Write the four files into `folder` (which the caller made private); 0600 each."""
    cols, rows = int(daemon["cols"]), int(daemon["rows"])
    timing = list(timing)
    snap = last_screen(data, cols, rows)
    kept: list[int] | None = None
    if redacted:
        snap, kept = redact(snap, manifest)
        # The stream held every row's text as it was drawn: a redacted capture is its last
        # screen alone, drawn at once.
        data = seed_bytes(snap)
        end = timing[-1][1] if timing else 0.0
        timing = [(len(data), end)]
    verdict = classify(snap, manifest)
    base = folder / name
    started = timing[0][1] if timing else 0.0
    end_t = timing[-1][1] - started if timing else 0.0
    labels = {
        "agent": manifest.agent,
        "scenario": "user",
        "description": note or "",
        "cols": cols,
        "rows": rows,
        "bytes_file": base.name + ".bytes",
        "total_bytes": len(data),
        "recorder": RECORDER,
        "t0_epoch": started,
        "pane": daemon.get("pane"),
        "target": daemon.get("target"),
        "pipe": daemon.get("pipe"),
        "shown": {k: daemon.get(k) for k in ("state", "rule", "source", "since")},
        "screen": {"state": verdict.state, "rule": verdict.rule},
        "user_state": user_state,
        "note": note,
        "redacted": redacted,
        "kept_rows": kept,
        "segments": [
            {
                "offset": len(data),
                "t": round(end_t, 3),
                "state": user_state or daemon.get("state") or verdict.state,
                "note": "the state the user says is right"
                if user_state
                else "the state osf-tmux showed (the user gave none)",
            }
        ],
    }
    write_private(base.with_name(base.name + ".bytes"), data)
    write_private(
        base.with_name(base.name + ".timing"),
        "".join(f"{offset} {t:.6f}\n" for offset, t in timing).encode(),
    )
    write_private(
        base.with_name(base.name + ".labels.json"),
        (json.dumps(labels, indent=1, ensure_ascii=False) + "\n").encode(),
    )
    write_private(base.with_name(base.name + ".txt"), screen_text(snap).encode())
    return Written(
        base.with_name(base.name + ".bytes"),
        len(data),
        daemon.get("state"),
        verdict,
        None if kept is None else tuple(kept),
    )


@dataclass(frozen=True)
class Checked:
    """One user capture replayed: the state the user gave, and what the rules say now."""

    bytes_path: Path
    agent: str
    user_state: str | None
    now: Verdict | None
    problem: str | None = None

    @property
    def differs(self) -> bool:
        return (
            self.now is not None
            and self.user_state is not None
            and self.now.state != screen_state(self.user_state)
        )


def user_captures(folders: Iterable[Path]) -> Iterator[Path]:
    """Every `*.labels.json` a user capture wrote under `folders` (recursively), sorted."""
    for folder in folders:
        if folder.is_file():
            yield folder
            continue
        yield from sorted(folder.rglob("*.labels.json"))


def check(labels_path: Path, manifest_for: Any) -> Checked:
    """Replay one capture to its end with the manifest `manifest_for(agent)` gives."""
    bytes_path = labels_path.with_name(labels_path.name[: -len(".labels.json")] + ".bytes")
    try:
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        agent = str(labels["agent"])
        cols, rows = int(labels["cols"]), int(labels["rows"])
        data = bytes_path.read_bytes()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Checked(bytes_path, "?", None, None, f"unreadable: {exc}")
    user_state = labels.get("user_state")
    if user_state is not None and user_state not in USER_STATES:
        return Checked(bytes_path, agent, None, None, f"unknown user_state {user_state!r}")
    try:
        manifest = manifest_for(agent)
    except LookupError as exc:
        return Checked(bytes_path, agent, user_state, None, str(exc))
    return Checked(bytes_path, agent, user_state, classify(last_screen(data, cols, rows), manifest))
