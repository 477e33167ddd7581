"""Holds (`while_changing` rules): a pane already `working` stays working while the part of its
screen a hold names keeps changing, and returns to idle (here `done`) once it stands still.

Claude Code 2.1.116 with a custom status line and its window title turned off draws nothing
that says it works while an answer streams (issue 28): the rule `working-answer-drawn` in
rules/claude.toml. A fake clock drives the tracker; no test sleeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.judge.classify import classify
from osf_tmux.judge.combine import Observation, PaneTracker, Timing
from osf_tmux.judge.holds import Holds
from osf_tmux.judge.manifest import Manifest, ManifestError, load_manifest, parse_manifest
from osf_tmux.vt.snapshot import Snapshot

RULES = Path(__file__).resolve().parents[2] / "rules" / "claude.toml"
COLS = 80
RULE = "─" * COLS
SPINNER = "✶ Thundering…"
STATUS = ["  proj (Sonnet 4.6)", "  $0.00 spent · branch main"]


@pytest.fixture(scope="module")
def claude() -> Manifest:
    return load_manifest(RULES)


def screen(answer: list[str], above_box: str = "", title: str = "", draft: str = "") -> Snapshot:
    """The 2.1.116 layout: transcript, the optional spinner row, the input box with a status
    line under it."""
    rows = ["❯ list every terminal escape you know", "", *answer, ""]
    if above_box:
        rows += [above_box, ""]
    rows += [RULE, f"❯ {draft}", RULE, *STATUS]
    rows += [""] * (24 - len(rows))
    return Snapshot(cols=COLS, rows=tuple(rows[-24:]), title=title, alt_screen=False)


def answer(n: int) -> list[str]:
    return ["● Here is the list:", ""] + [
        f"  {i}. ESC [ {i} m sets graphic rendition attribute number {i}." for i in range(1, n)
    ]


class Pane:
    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self.clock = FakeClock()
        self.tracker = PaneTracker(Timing())
        self.last = float("-inf")
        self.shown: tuple[str, ...] | None = None

    def show(self, snap: Snapshot) -> str | None:
        now = self.clock.now()
        if snap.rows != self.shown:
            self.shown, self.last = snap.rows, now
        obs = Observation(
            True,
            classify(snap, self.manifest),
            False,
            quiet=now - self.last,
            snapshot=snap,
            holds=self.manifest.holds,
        )
        return self.tracker.update(obs, now, self.clock.wall()).state

    def wait(self, seconds: float, step: float = 0.1) -> list[str | None]:
        """Time passes with nothing new on screen; the tracker runs at its deadlines."""
        states = []
        end = self.clock.now() + seconds
        while self.clock.now() < end:
            due = self.tracker.deadline()
            nxt = min(
                end,
                due if due is not None and due > self.clock.now() else end,
                self.clock.now() + step,
            )
            self.clock.advance(nxt - self.clock.now())
            obs = Observation(
                True,
                None if self.shown is None else classify(self.snap, self.manifest),
                False,
                quiet=self.clock.now() - self.last,
                holds=self.manifest.holds,
            )
            states.append(self.tracker.update(obs, self.clock.now(), self.clock.wall()).state)
        return states

    def stream(self, seconds: float, every: float = 0.25, start: int = 3) -> list[str | None]:
        """An answer that grows by a row every `every` seconds for `seconds`."""
        states = []
        n = start
        end = self.clock.now() + seconds
        while self.clock.now() < end:
            self.clock.advance(every)
            n += 1
            self.snap = screen(answer(n))
            states.append(self.show(self.snap))
        return states


def turn(manifest: Manifest) -> Pane:
    pane = Pane(manifest)
    pane.snap = screen([])
    assert pane.show(pane.snap) == "idle"
    pane.clock.advance(0.5)
    pane.snap = screen([], above_box=SPINNER)
    assert pane.show(pane.snap) == "working"
    return pane


def test_a_long_answer_reads_working_until_it_stops_then_done(claude: Manifest) -> None:
    pane = turn(claude)
    # 20 s of streaming, longer than the tracker's 8 s cap on "still printing"
    assert set(pane.stream(20.0)) == {"working"}
    assert pane.tracker.current.rule == "working-answer-drawn"
    states = pane.wait(3.0)
    assert states[-1] == "done"
    assert "working" in states[:5]  # not at once: the hold runs out first


def test_without_the_hold_the_long_answer_reads_done_midway(claude: Manifest) -> None:
    """The same answer through the tracker without holds (what osf-tmux did before): `done`
    after 8 s of streaming, while the answer is still being drawn."""
    from dataclasses import replace

    pane = turn(replace(claude, holds=()))
    assert "done" in pane.stream(20.0)


def test_a_pause_shorter_than_the_hold_stays_working(claude: Manifest) -> None:
    pane = turn(claude)
    pane.stream(3.0)
    assert set(pane.wait(1.2)) == {"working"}
    assert set(pane.stream(3.0, start=20)) == {"working"}


def test_a_hold_never_starts_working(claude: Manifest) -> None:
    """At the prompt, the transcript changing (a resize, /clear, a banner) is no turn."""
    pane = Pane(claude)
    pane.snap = screen([])
    assert pane.show(pane.snap) == "idle"
    assert set(pane.stream(3.0)) == {"idle"}


def test_a_title_claude_sets_decides_instead(claude: Manifest) -> None:
    """With the title on, its resting `✳` ends the turn: the answer drawn on for a moment
    after it (2.1.116 long answers) does not hold the pane."""
    pane = Pane(claude)
    pane.snap = screen([], title="✳ Claude Code")
    pane.show(pane.snap)
    pane.clock.advance(0.5)
    pane.snap = screen(answer(4), title="⠂ Claude Code")
    assert pane.show(pane.snap) == "working"
    for n in range(5, 9):
        pane.clock.advance(0.2)
        pane.snap = screen(answer(n), title="✳ Claude Code")
        pane.show(pane.snap)
    assert pane.tracker.current.rule != "working-answer-drawn"


def test_a_draft_typed_in_the_box_is_not_the_answer(claude: Manifest) -> None:
    holds = Holds(claude.holds)
    holds.observe(screen(answer(6)), 0.0)
    holds.observe(screen(answer(7)), 0.2)
    assert holds.holding(0.3) is not None
    draft = "and then add tests"
    for i in range(1, len(draft) + 1):
        holds.observe(screen(answer(7), draft=draft[:i]), 0.2 + 0.1 * i)
        now = 0.25 + 0.1 * i
        assert (holds.holding(now) is None) == (now - 0.2 >= 1.5)


def test_holds_are_kept_apart_from_the_screen_rules(claude: Manifest) -> None:
    assert [h.id for h in claude.holds] == ["working-answer-drawn"]
    assert all(r.while_changing is None for r in claude.rules)
    # classify never applies a hold: the streaming screen alone reads idle
    assert classify(screen(answer(8)), claude).state == "idle"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"state": "idle"}, "only a working rule"),
        ({"while_changing": 0}, "more than 0"),
        ({"while_changing": True}, "number of seconds"),
        ({"while_changing": 600}, "at most"),
    ],
)
def test_bad_holds_are_refused(extra: dict[str, object], message: str) -> None:
    rule = {"id": "h", "state": "working", "all": ["x"], "while_changing": 1.0, **extra}
    with pytest.raises(ManifestError, match=message):
        parse_manifest({"agent": "x", "rule": [rule]}, "x.toml")


# --- the recorded turns with the title off, through the tracker at their recorded pace --------

CAPTURES = Path(__file__).resolve().parents[2] / "captures"
# The releases whose status line hides `esc to interrupt` for the whole turn (2.1.332 keeps it
# on the mode line, and its footer tells the turn's end).
NOTITLE = sorted(
    lab
    for version in ("2.1.116", "2.1.221")
    for lab in CAPTURES.glob(f"claude-{version}-lab-*notitle*/*.labels.json")
    if lab.name.split("-")[0] in ("text", "long_output", "slow_answer", "thinking")
)


def _turn_states(lab: Path, manifest: Manifest | None = None) -> tuple[list[str], str | None]:
    """The states shown from the read where the turn was first seen working up to (not
    including) the read that drew its last change, and the state 2.5 s after that read (and
    the longer confirmation of a turn's end than of an idle return: issue #30)."""
    from osf_tmux.judge.combine import Timing
    from osf_tmux.judge.corpus import Capture
    from tools.tracker_replay import replay

    capture = Capture(lab.with_name(lab.name.replace(".labels.json", ".bytes")), lab)
    arrival = dict(capture.timing() or [])
    segments = capture.labels()["segments"]
    working = next(s for s in segments if s["state"] == "working" and s["offset"] > 0)
    done = next(s for s in segments if s["offset"] > working["offset"] and s["state"] == "idle")
    start, end = arrival[working["offset"]], arrival[done["offset"]]
    states = replay(capture, manifest=manifest).states
    at_start = [s for t, s in states if t <= start][-1:]
    during = at_start + [s for t, s in states if start < t < end]
    later = Timing().done_confirm - Timing().idle_confirm
    after = [s for t, s in states if t <= end + 2.5 + later]
    return [s or "" for s in during], after[-1] if after else None


def test_the_title_off_turns_were_recorded() -> None:
    assert len(NOTITLE) >= 8, "the notitle captures went missing"


@pytest.mark.parametrize("lab", NOTITLE, ids=[f"{p.parent.name}/{p.name[:-12]}" for p in NOTITLE])
def test_recorded_turn_without_title_reads_working_until_drawn(lab: Path) -> None:
    during, after = _turn_states(lab)
    assert set(during) == {"working"}
    assert after == "done"


def test_without_holds_the_recorded_answer_reads_done_while_it_streams(claude: Manifest) -> None:
    """2.1.116 draws the streamed answer about once a second with nothing else on screen:
    without the hold the pane read `done` in the middle of the answer."""
    from dataclasses import replace

    lab = CAPTURES / "claude-2.1.116-lab-statusline2-notitle" / "slow_answer-120x32.labels.json"
    during, _ = _turn_states(lab, replace(claude, holds=()))
    assert "done" in during


def test_a_manifest_extending_claude_takes_its_hold_or_replaces_it(claude: Manifest) -> None:
    from osf_tmux.judge.manifest import extend

    own = parse_manifest({"agent": "mine", "extends": "claude", "rule": []}, "mine.toml")
    assert [h.id for h in extend(claude, own).holds] == ["working-answer-drawn"]
    longer = {
        "id": "working-answer-drawn",
        "state": "working",
        "region": "above_box:3",
        "all": ["\\S"],
        "while_changing": 3.0,
    }
    own = parse_manifest({"agent": "mine", "extends": "claude", "rule": [longer]}, "mine.toml")
    merged = extend(claude, own)
    assert [(h.id, h.while_changing) for h in merged.holds] == [("working-answer-drawn", 3.0)]
    assert "working-answer-drawn" not in {r.id for r in merged.rules}


def test_a_footer_at_rest_ends_the_turn_at_once(claude: Manifest) -> None:
    """2.1.x without a status line: `? for shortcuts` is drawn only at rest (and 2.0.x, which
    sets no title, keeps its spinner row for the whole turn): no hold after it."""
    holds = Holds(claude.holds)
    rows = [*answer(5), "", RULE, "❯ ", RULE]
    working = Snapshot(cols=COLS, rows=(*rows, "  ⏸ manual mode on · esc to interrupt"))
    at_rest = Snapshot(
        cols=COLS,
        rows=(
            *rows[:-4],
            *answer(6)[-1:],
            "",
            RULE,
            "❯ ",
            RULE,
            "  ⏸ manual mode on · ? for shortcuts",
        ),
    )
    holds.observe(working, 0.0)
    holds.observe(at_rest, 0.1)
    assert holds.holding(0.2) is None
