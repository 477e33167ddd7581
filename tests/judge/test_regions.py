from __future__ import annotations

import pytest

from osf_tmux.judge.regions import Region, is_rule_row
from osf_tmux.vt.snapshot import Snapshot

SCREEN = Snapshot.from_text(
    "header\n"
    "\n"
    "transcript line\n"
    "────────────────────\n"
    "❯ draft\n"
    "────────────────────\n"
    "  ? for shortcuts\n",
    title="✳ Claude Code",
)


@pytest.mark.parametrize(
    ("spec", "rows"),
    [
        ("screen", SCREEN.rows),
        ("tail:2", ("────────────────────", "  ? for shortcuts")),
        ("bottom:2", ("  ? for shortcuts", "")),
        ("top:1", ("header",)),
        ("below_rule", ("  ? for shortcuts", "")),
        ("above_rule", SCREEN.rows[:5]),
        ("between_rules", ("❯ draft",)),
        ("above_box:1", ("transcript line",)),
        ("above_box:5", ("header", "transcript line")),
        ("title", ("✳ Claude Code",)),
    ],
)
def test_region_rows(spec: str, rows: tuple[str, ...]) -> None:
    assert Region.parse(spec).rows(SCREEN) == rows


def test_tails_of_every_length_alternating_between_screens() -> None:
    # A screen's filled rows are found once for all its tails; each screen keeps its own, and
    # blank rows (spaces only) do not count.
    one = Snapshot.from_text("a\n\n   \nb\nc\n  \n")
    two = Snapshot(cols=5, rows=("x", "", "y"))
    same_as_one = Snapshot(cols=one.cols, rows=tuple(list(one.rows)))
    for _ in range(2):
        assert Region.parse("tail:1").rows(one) == ("c",)
        assert Region.parse("tail:2").rows(two) == ("x", "y")
        assert Region.parse("tail:2").rows(one) == ("b", "c")
        assert Region.parse("tail:30").rows(one) == ("a", "b", "c")
        assert Region.parse("tail:3").rows(same_as_one) == ("a", "b", "c")
        assert Region.parse("tail:1").rows(two) == ("y",)
    assert Region.parse("tail:4").rows(Snapshot(cols=1, rows=())) == ()


def test_above_box_needs_two_rules() -> None:
    one = Snapshot.from_text("a\n────────────────────\nb")
    assert Region.parse("above_box:3").rows(one) == ()
    assert Region.parse("above_box:3").rows(Snapshot.from_text("a\nb")) == ()


def test_cursor_row() -> None:
    snap = Snapshot(cols=10, rows=("a", "b", "c"), cursor=(0, 1))
    assert Region.parse("cursor_row").rows(snap) == ("b",)


def test_no_rule_means_whole_screen_below_and_nothing_above() -> None:
    snap = Snapshot.from_text("a\nb")
    assert Region.parse("below_rule").rows(snap) == ("a", "b")
    assert Region.parse("above_rule").rows(snap) == ()


def test_between_rules_with_one_rule_or_none() -> None:
    # the box's top rule scrolled away under a tall dialog: everything above the rule left
    snap = Snapshot.from_text("dialog line\n→ Yes\n" + "─" * 20 + "\nfooter")
    assert Region.parse("between_rules").rows(snap) == ("dialog line", "→ Yes")
    assert Region.parse("between_rules").rows(Snapshot.from_text("a\nb")) == ()
    # two rules next to each other: an empty box
    snap = Snapshot.from_text("x\n" + "─" * 20 + "\n" + "─" * 20 + "\nfooter")
    assert Region.parse("between_rules").rows(snap) == ()


@pytest.mark.parametrize(
    ("row", "is_rule"),
    [
        ("─" * 20, True),
        ("  " + "╌" * 30, True),
        ("╭" + "─" * 10 + "╮", True),
        ("▔" * 40, True),
        ("──", False),
        ("── Bash command ──", False),
        ("-" * 30, False),
    ],
)
def test_rule_rows(row: str, is_rule: bool) -> None:
    assert is_rule_row(row) is is_rule


@pytest.mark.parametrize("spec", ["tail", "tail:0", "tail:x", "middle", "screen:3", ""])
def test_bad_region_specs(spec: str) -> None:
    with pytest.raises(ValueError):
        Region.parse(spec)
