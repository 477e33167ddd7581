"""Golden test: every labelled point of every capture in captures/ classified right.

The corpus is data (raw bytes + labels); one parametrized test finds it all, so a new capture
needs no new code. The fast tier checks each capture folder's every SAMPLE_EVERY-th capture (so
every agent, version, size and dress is met), the whole suite every capture: all of them were
~10 s of the fast tier's ~70 s of CPU on two cores. `pytest tests/rules/test_captures.py` checks
every capture in about 15 s (what to run after changing a rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from osf_tmux.judge.corpus import Capture, LabelPoint
from osf_tmux.judge.replay import replay_with_time
from osf_tmux.judge.ruleset import RuleSet
from tests.support.corpus import captures
from tests.support.examples import sample_marks, sampled

CAPTURES = Path(__file__).resolve().parents[2] / "captures"


def _cases() -> list[tuple[Capture, list[LabelPoint]]]:
    out = []
    for capture in captures(CAPTURES):
        if capture.labels_path is None:
            continue
        points = capture.points()
        if points:
            out.append((capture, points))
    return out


CASES = _cases()
SAMPLE_EVERY = 4


def _params() -> list[Any]:
    params = []
    rank: dict[Path, int] = {}
    for capture, points in CASES:
        folder = capture.bytes_path.parent
        rank[folder] = rank.get(folder, -1) + 1
        marks = sample_marks(sampled(rank[folder], SAMPLE_EVERY))
        if marks is not None:
            params.append(pytest.param(capture, points, id=capture.name, marks=marks))
    return params


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 10, "the capture corpus went missing"


@pytest.mark.parametrize(("capture", "points"), _params())
def test_capture_points(capture: Capture, points: list[LabelPoint], rules: RuleSet) -> None:
    size = capture.size()
    agent = capture.agent()
    assert size is not None and agent is not None, f"{capture.name}: size or agent unknown"
    data = capture.bytes_path.read_bytes()
    offsets = [p.offset for p in points]
    got = replay_with_time(data, *size, rules.get(agent), offsets, capture.timing())
    wrong = [
        f"@{p.offset} want {p.state} got {g.verdict.state} ({g.verdict.rule}): {p.note}"
        for p, g in zip(points, got, strict=True)
        if g.verdict.state != p.state
    ]
    assert not wrong, "\n".join(wrong)


def test_prompts_after_work_and_the_reads_between(tmp_path: Path) -> None:
    """A capture's working -> blocked points, and the pipe-pane reads between them, timed from
    the read that brought the working point's byte."""
    data = tmp_path / "demo-80x24.bytes"
    data.write_bytes(b"x" * 100)
    (tmp_path / "demo-80x24.timing").write_text("10 5.0\n40 5.5\n70 6.25\n100 7.0\n")
    labels = tmp_path / "demo-80x24.labels.json"
    labels.write_text(
        '{"segments": [{"offset": 5, "state": "idle"}, {"offset": 20, "state": "working"},'
        ' {"offset": 70, "state": "blocked"}]}'
    )
    cap = Capture(data, labels)
    assert cap.prompts_after_work() == [(20, 70)]
    # Byte 20 came with the read ending at 40 (at 5.5 s); then the reads up to byte 70.
    assert cap.reads_after(20, 70) == [(0.0, 40), (0.75, 70)]
    assert cap.reads_after(20, 69) == [(0.0, 40)]
    assert Capture(tmp_path / "none-80x24.bytes", None).reads_after(0, 10) == []
