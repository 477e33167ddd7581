"""The screens of every capture under captures/, a frame every 512 bytes (half-drawn frames
included), with the shipped manifest of its agent. Built once per test session: several tests
check shortcuts of the classifier against `classify` on them."""

from __future__ import annotations

import functools
from pathlib import Path

from osf_tmux.judge.corpus import find_captures
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def capture_frames() -> tuple[tuple[Manifest, tuple[Snapshot, ...]], ...]:
    rules = load_rules(None)
    out = []
    for cap in find_captures(ROOT / "captures"):
        size, agent = cap.size(), cap.agent()
        if size is None or agent is None or agent not in rules.manifests:
            continue
        data = cap.bytes_path.read_bytes()
        screen = PaneScreen(*size)
        snaps = []
        for off in range(0, len(data), 512):
            screen.feed(data[off : off + 512])
            snaps.append(screen.snapshot())
        out.append((rules.manifests[agent], tuple(snaps)))
    return tuple(out)
