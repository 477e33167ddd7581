"""Classifying one pane's screens one after another: the verdicts of `classify`, for less work.

A screen that `same_verdict` ties to the one before keeps its verdict without classifying: a
spinner or a clock redrawn many times a second in a row no rule looks at costs nothing. Nothing
here is about time: the daemon decides when to ask."""

from __future__ import annotations

from osf_tmux.judge.classify import Verdict, classify, same_verdict
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot


class ScreenJudge:
    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._last: tuple[Snapshot, Verdict] | None = None
        self.classified = 0  # screens classified, and screens that kept the verdict without
        self.skipped = 0

    def verdict(self, snap: Snapshot) -> Verdict:
        last = self._last
        if last is not None and same_verdict(last[0], snap, self.manifest):
            verdict = last[1]
            self.skipped += 1
        else:
            verdict = classify(snap, self.manifest)
            self.classified += 1
        self._last = (snap, verdict)
        return verdict
