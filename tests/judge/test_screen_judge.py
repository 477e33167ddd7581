"""The daemon's shortcuts around `classify`, checked against it.

`same_verdict` lets it skip classifying a frame: it must never say "same" when classifying would
say otherwise, and it should say so for a spinner ticking in a row no rule looks at;
`is_line_local` is what makes that sound. `ScreenJudge` classifies a pane's screens one after
another and must give exactly `classify`'s verdicts."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re

import pytest

from osf_tmux.judge.classify import classify, same_verdict
from osf_tmux.judge.line_local import is_line_local
from osf_tmux.judge.manifest import parse_manifest
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.judge.screen_judge import ScreenJudge
from osf_tmux.vt.snapshot import Snapshot
from tests.support.capture_frames import CORPORA, capture_frames


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(None)


@pytest.mark.parametrize(
    "source",
    [
        r"^[ \t]*❯[ \t]+\d{1,2}\.[ \t]+\S",
        r"(?i)\b(esc|ctrl\+c) to interrupt\b",
        r"^[ \t]*❯[ \t]+(\d{1,2}\.[ \t]+)?[^\s/]",  # a negated set that holds the newline
        r"^(?![ \t]*[❯>│]).*\(.*\)$",
        r"\d+s\b|(?:tokens?)",
        r"(?>ab)+c" if hasattr(re, "NOFLAG") else r"(?:ab)+c",
    ],
)
def test_patterns_within_a_line(source: str) -> None:
    assert is_line_local(re.compile(source, re.MULTILINE))


@pytest.mark.parametrize(
    "source",
    [
        r"a\nb",
        r"press\s+esc",  # \s takes a newline
        r"[^x]",
        r"(?s)a.b",
        r"a(?s:.)b",
        r"\[(Yes|No)\]:\Z",
        r"\Aidle",
        r"(a)\1",
        r"a[\s\S]b",
        r"x\Wy",
        r"a(?=\n)",
    ],
)
def test_patterns_that_may_cross_lines(source: str) -> None:
    assert not is_line_local(re.compile(source, re.MULTILINE))


def test_anchors_need_multiline() -> None:
    assert not is_line_local(re.compile(r"^idle$"))
    assert is_line_local(re.compile(r"^idle$", re.MULTILINE))
    assert not is_line_local(re.compile(r"(?-m:^)idle", re.MULTILINE))


@pytest.mark.parametrize(
    "source",
    [
        r"^[ \t]*❯[ \t]+\d{1,2}\.[ \t]+\S",
        r"(?i)\bto interrupt\b",
        r"^\S.*\)$",
        r"(?<![\w.])\d+\.x",
        r"^$",
        r"\S*",
    ],
)
def test_line_local_means_searching_rows_alone_finds_the_same(source: str) -> None:
    pattern = re.compile(source, re.MULTILINE)
    assert is_line_local(pattern)
    rows = ["", "  ❯ 1. Yes", "esc to interrupt)", "abc 3.x", "x", "   ", "( to interrupt)", "ab"]
    for start in range(len(rows)):
        for end in range(start, len(rows) + 1):
            part = rows[start:end]
            joined = pattern.search("\n".join(part)) is not None
            alone = any(pattern.search(r) is not None for r in part)
            # (No rows at all: the empty text may match, and no row can.)
            assert joined == alone or not part, (source, part)


@pytest.mark.parametrize("corpus", CORPORA)
def test_same_verdict_never_hides_a_change_on_real_captures(rules: RuleSet, corpus: str) -> None:
    """Every capture, a frame every 512 bytes: wherever `same_verdict` says the verdict stays,
    classifying says so too. And for Claude's line-local rules it does skip frames."""
    skipped = {agent: 0 for agent in rules.manifests}
    pairs = 0
    for manifest, snaps in capture_frames(corpus):
        for before, after in itertools.pairwise(snaps):
            pairs += 1
            if same_verdict(before, after, manifest):
                skipped[manifest.agent] += 1
                assert classify(after, manifest) == classify(before, manifest)
    assert pairs > 1000
    assert skipped["claude"] > 0


@pytest.mark.parametrize("corpus", CORPORA)
def test_same_verdict_never_hides_a_change_when_rows_are_swapped(
    rules: RuleSet, corpus: str
) -> None:
    """Screens from the captures with one row replaced by a row from anywhere in the corpus
    (prompts, menus, footers, rules, blanks)."""
    rng = random.Random(11)
    frames = capture_frames(corpus)
    pool = sorted({row for _, snaps in frames for snap in snaps[::7] for row in snap.rows})
    skipped = 0
    for _ in range(4000):
        manifest, snaps = rng.choice(frames)
        before = rng.choice(snaps)
        rows = list(before.rows)
        for _ in range(rng.choice((1, 1, 2))):
            rows[rng.randrange(len(rows))] = rng.choice(pool)
        after = dataclasses.replace(before, rows=tuple(rows))
        if same_verdict(before, after, manifest):
            skipped += 1
            assert classify(after, manifest) == classify(before, manifest), (before, after)
    assert skipped > 0


def test_a_row_turning_into_a_rule_moves_below_rule() -> None:
    """The rows below the last rule change when a row becomes a rule, even though no pattern of
    this manifest sees rules."""
    manifest = parse_manifest(
        {
            "agent": "demo",
            "rule": [{"id": "busy", "state": "working", "region": "below_rule", "all": ["busy"]}],
        },
        "demo.toml",
    )
    before = Snapshot(cols=20, rows=("──────────", "busy", "hint"))
    after = Snapshot(cols=20, rows=("──────────", "busy", "──────────"))
    assert classify(before, manifest).state == "working"
    assert classify(after, manifest).state == "idle"
    assert not same_verdict(before, after, manifest)
    assert same_verdict(before, Snapshot(cols=20, rows=("──────────", "busy", "hunt")), manifest)


def test_a_ticking_spinner_keeps_the_verdict_without_classifying(rules: RuleSet) -> None:
    claude = rules.get("claude")
    assert claude is not None
    rows = ["● Working on it", "", "✶ Pondering… (3s · ↓ 120 tokens)", "─" * 60, "❯ ", "─" * 60]
    footer = "  ⏵⏵ accept edits on · esc to interrupt"
    before = Snapshot(cols=60, rows=(*rows, footer))
    ticked = list(rows)
    ticked[2] = "✻ Pondering… (4s · ↓ 160 tokens)"
    after = Snapshot(cols=60, rows=(*ticked, footer))
    assert classify(before, claude).state == "working"
    assert same_verdict(before, after, claude)
    # Rows a rule looks at change (the turn ends: the spinner row becomes the finished-turn
    # line, the footer loses its hint): classify again.
    done = list(rows)
    done[2] = "✻ Pondered for 4s"
    idle = Snapshot(cols=60, rows=(*done, "  ⏵⏵ accept edits on (shift+tab to cycle)"))
    assert not same_verdict(before, idle, claude)
    assert classify(idle, claude).state != "working"
    # A row that turns blank moves what the tail regions cover: classify again.
    blanked = list(rows)
    blanked[2] = ""
    assert not same_verdict(before, Snapshot(cols=60, rows=(*blanked, footer)), claude)


@pytest.mark.parametrize("corpus", CORPORA)
def test_screen_judge_gives_classify_verdicts_frame_after_frame(
    rules: RuleSet, corpus: str
) -> None:
    checked = 0
    for manifest, snaps in capture_frames(corpus):
        judge = ScreenJudge(manifest)
        for snap in snaps:
            assert judge.verdict(snap) == classify(snap, manifest)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("corpus", CORPORA)
def test_screen_judge_gives_classify_verdicts_when_screens_jump(
    rules: RuleSet, corpus: str
) -> None:
    """Screens of one agent in random order: nothing a region showed before may leak."""
    rng = random.Random(5)
    frames = capture_frames(corpus)
    for agent in rules.manifests:
        snaps = [s for m, ss in frames if m.agent == agent for s in ss[::3]]
        manifest = rules.manifests[agent]
        judge = ScreenJudge(manifest)
        for _ in range(1500 if corpus == "all" else 300):
            snap = rng.choice(snaps)
            assert judge.verdict(snap) == classify(snap, manifest)


def test_the_shipped_claude_and_codex_rules_stay_within_lines(rules: RuleSet) -> None:
    """They keep the shortcut (10 spinning panes cost ~0.3 % of a core less); a pattern that
    can cross rows (`\\s` between words) would quietly lose it. Gemini's and aider's rules read
    across rows on purpose."""
    claude, codex = rules.get("claude"), rules.get("codex")
    assert claude is not None and codex is not None
    working = ("• Working (3s • esc to interrupt)", "", "› ", "", "  ? for shortcuts")
    ticked = ("• Working (4s • esc to interrupt)", *working[1:])
    for manifest in (claude, codex):
        before, after = Snapshot(cols=60, rows=working), Snapshot(cols=60, rows=ticked)
        assert same_verdict(before, after, manifest), manifest.agent
        assert classify(before, manifest) == classify(after, manifest)
