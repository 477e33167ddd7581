"""The screens of every capture under captures/, a frame every 512 bytes (half-drawn frames
included), with the shipped manifest of its agent. Built once per test process: several tests
check shortcuts of the classifier against `classify` on them.

Replaying the whole corpus costs ~15 s of CPU, so the fast tier checks a sample (`CORPORA`: each
agent's every `SAMPLE_EVERY`-th capture, so every agent's rules are met) and the slow tier
makes the same checks on every capture."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot
from tests.support.corpus import captures
from tests.support.examples import sampled

ROOT = Path(__file__).resolve().parents[2]
# 20 since the live tests left the fast tier (was 10: the four checks on the sample were ~9 s of
# the fast tier's ~60 s of CPU); every agent still has at least one capture in it.
SAMPLE_EVERY = 20

# Parametrize a corpus test with these: the sample in the fast tier, the whole in the slow one.
# The sample's tests run on one worker (`--dist loadgroup`): each worker that met one replayed
# the sample again (~2 s of CPU each, measured on a loaded machine as ~4 s).
CORPORA = [
    pytest.param("sample", id="sample", marks=pytest.mark.xdist_group("capture_frames_sample")),
    pytest.param("all", id="all", marks=pytest.mark.slow),
]

Frames = tuple[tuple[Manifest, tuple[Snapshot, ...]], ...]


@functools.cache
def capture_frames(corpus: str = "all") -> Frames:
    """`corpus` "all": every capture; "sample": each agent's every SAMPLE_EVERY-th one."""
    rules = load_rules(None)
    out = []
    seen: dict[str, int] = {}
    for cap in captures(ROOT / "captures"):
        size, agent = cap.size(), cap.agent()
        if size is None or agent is None or agent not in rules.manifests:
            continue
        n = seen[agent] = seen.get(agent, -1) + 1
        if corpus == "sample" and not sampled(n, SAMPLE_EVERY):
            continue
        data = cap.bytes_path.read_bytes()
        screen = PaneScreen(*size)
        snaps = []
        for off in range(0, len(data), 512):
            screen.feed(data[off : off + 512])
            snaps.append(screen.snapshot())
        out.append((rules.manifests[agent], tuple(snaps)))
    return tuple(out)
