"""rules/codex.toml on a status row left standing above `■ Conversation interrupted` (issue #17):
the turn was interrupted, the row is stale, the pane is idle at its composer.

No release the lab ran leaves the row there (0.45.0, 0.63.0, 0.80.0, 0.100.0, 0.130.0 and
0.171.0 all remove it with the interrupt: rules/NOTES-codex.md), so these screens are built
from the layouts of the lab captures (captures/codex-0.130.0-lab: inline viewport, one footer
row; captures/codex-0.171.0-lab: two footer rows) with the row put back above the notice, as
other projects' screens of older releases show it. The opposite order (a live row under an old
notice) must stay working, and a draft quoting both must stay idle."""

from __future__ import annotations

import itertools

import pytest

from osf_tmux.judge.classify import classify, same_verdict
from osf_tmux.judge.line_local import is_line_local
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture

FOOTER_171 = [
    "",
    "  agentlab-model default · /tmp/proj · run the slow build",
    "  ← for agents · ? for shortcuts",
]
FOOTER_130 = ["", "  agentlab-model default · /tmp/agentlab/codex-0.130.0/think_esc/proj"]
FOOTER_100 = ["", "  ? for shortcuts                                    100% context left"]
HEADER = ["", "  >_ OpenAI Codex (v0.130.0)", "", "› ponder the module layout", ""]

# The notice as each release words it, wrapped as it is at each width (lab snapshots).
NOTICE_171 = ["■ Conversation interrupted - use /feedback if something went wrong"]
NOTICE_130_80 = [
    "■ Conversation interrupted - tell the model what to do differently. Something",
    "went wrong? Hit `/feedback` to report the issue.",
]
NOTICE_130_60 = [
    "■ Conversation interrupted - tell the model what to do",
    "differently. Something went wrong? Hit `/feedback` to",
    "report the issue.",
]
NOTICE_45 = ["■ Conversation interrupted - tell the model what to do differently"]


def screen(
    top: list[str], bottom: list[str], cols: int = 80, height: int = 24, title: str = ""
) -> Snapshot:
    gap = height - len(top) - len(bottom)
    assert gap >= 0, "layout taller than the screen"
    rows = [*top, *([""] * gap), *bottom]
    assert all(len(r) <= cols for r in rows), "a row is wider than the screen"
    return Snapshot.from_text("\n".join(rows), cols, title=title)


manifest = manifest_fixture("codex")


def verdict(snap: Snapshot, manifest: Manifest) -> tuple[str, str | None]:
    v = classify(snap, manifest)
    return v.state, v.rule


# (name, notice rows, composer rows, footer rows, width)
LAYOUTS = [
    ("0.171-80", NOTICE_171, ["› Ask Codex to do anything"], FOOTER_171, 80),
    ("0.130-80", NOTICE_130_80, ["› Improve documentation in @filename"], FOOTER_130, 80),
    ("0.130-60", NOTICE_130_60, ["› Write tests for @filename"], FOOTER_130[:1], 60),
    ("0.100-80", NOTICE_130_80, ["› Find and fix a bug in @filename"], FOOTER_100, 80),
    ("0.45-80", NOTICE_45, ["› Implement {feature}"], ["", "  ? for shortcuts"], 80),
    # A three-row draft in the composer pushes the notice up to the 8th-last row.
    (
        "0.171-draft",
        NOTICE_171,
        ["› first line of a longer draft", "  second line", "  third line"],
        FOOTER_171,
        80,
    ),
]
STATUS_ROWS = [
    "• Working (12s • esc to interrupt)",
    "◦ Investigating rendering code (1m 03s • esc to interrupt)",
    "  Working (4s • esc to interrupt)",  # the blinking bullet off
    "• Working (0s • esc…",  # cut short by a narrow pane
]


@pytest.mark.parametrize(
    ("layout", "row"),
    list(itertools.product(LAYOUTS, STATUS_ROWS)),
    ids=[f"{lay[0]}|{row[:14]}" for lay, row in itertools.product(LAYOUTS, STATUS_ROWS)],
)
def test_status_row_above_the_notice_is_stale(
    layout: tuple[str, list[str], list[str], list[str], int], row: str, manifest: Manifest
) -> None:
    _name, notice, composer, footer, cols = layout
    stale = screen(HEADER, [row, "", *notice, "", "", *composer, *footer], cols)
    state, rule = verdict(stale, manifest)
    assert state == "idle"
    assert rule is not None and rule.startswith("stale-status-row-")


@pytest.mark.parametrize(
    ("layout", "row"),
    list(itertools.product(LAYOUTS, STATUS_ROWS)),
    ids=[f"{lay[0]}|{row[:14]}" for lay, row in itertools.product(LAYOUTS, STATUS_ROWS)],
)
def test_live_status_row_under_an_old_notice_is_working(
    layout: tuple[str, list[str], list[str], list[str], int], row: str, manifest: Manifest
) -> None:
    """A new turn after an interrupted one: the notice is higher in the transcript, the new
    prompt and the live row below it."""
    _name, notice, composer, footer, cols = layout
    live = screen(
        HEADER,
        [*notice, "", "› try again, faster", "", row, "", "", *composer, *footer],
        cols,
    )
    assert verdict(live, manifest) == ("working", "status-row")


def test_live_row_right_under_the_notice_is_working(manifest: Manifest) -> None:
    """No prompt row between them (not a layout Codex draws, but nothing may make it idle):
    the row below the notice is live."""
    live = screen(HEADER, [*NOTICE_171, "• Working (2s • esc to interrupt)", "› ", *FOOTER_171])
    assert verdict(live, manifest) == ("working", "status-row")


def test_stale_row_above_and_live_row_below_the_notice_is_working(manifest: Manifest) -> None:
    both = screen(
        HEADER,
        [
            "• Working (9s • esc to interrupt)",
            "",
            *NOTICE_130_80,
            "",
            "› try again",
            "",
            "• Working (1s • esc to interrupt)",
            "",
            "› Improve documentation in @filename",
            *FOOTER_130,
        ],
    )
    assert verdict(both, manifest) == ("working", "status-row")


def test_draft_quoting_the_row_and_the_notice_is_idle(manifest: Manifest) -> None:
    """Both quoted in the composer: neither starts a row of its own at the left edge."""
    draft = screen(
        HEADER,
        [
            "› • Working (12s • esc to interrupt) ■ Conversation interrupted - tell the",
            "  model what to do differently",
            *FOOTER_171,
        ],
    )
    assert verdict(draft, manifest)[0] == "idle"
    wrapped = screen(
        HEADER,
        [
            "› why did it say",
            "  • Working (12s • esc to interrupt)",
            "  ■ Conversation interrupted - use /feedback if something went wrong",
            *FOOTER_171,
        ],
    )
    assert verdict(wrapped, manifest)[0] == "idle"


def test_notice_far_above_the_live_area_does_not_make_a_row_stale(manifest: Manifest) -> None:
    """The notice high in the transcript, a status row above it and a long answer below: the
    notice is not the live area (beyond the 8 last rows), so no stale rule speaks; the row
    above it is in the transcript anyway and no longer within the status-row rule's tail."""
    answer = [f"  line {i} of the answer" for i in range(12)]
    snap = screen(
        [],
        ["• Working (9s • esc to interrupt)", *NOTICE_171, "", *answer, "› ", *FOOTER_171],
    )
    state, rule = verdict(snap, manifest)
    assert state == "idle"
    assert rule is None or not rule.startswith("stale-status-row-")


def test_stale_rules_stay_within_lines(manifest: Manifest) -> None:
    """The order of two rows is said with tail regions, not with a pattern spanning rows: a
    frame that only moves the stale row's clock keeps its verdict without a classification."""
    stale = [r for r in manifest.rules if r.id.startswith("stale-status-row-")]
    assert len(stale) == 7
    for rule in stale:
        for cond in (*rule.all, *rule.any, *rule.not_):
            assert is_line_local(cond.pattern), (rule.id, cond.pattern.pattern)
    first = screen(HEADER, ["• Working (12s • esc to interrupt)", *NOTICE_171, "› ", *FOOTER_171])
    later = screen(HEADER, ["• Working (13s • esc to interrupt)", *NOTICE_171, "› ", *FOOTER_171])
    assert same_verdict(first, later, manifest)


def test_stale_rules_come_before_the_working_rules(manifest: Manifest) -> None:
    ids = [r.id for r in manifest.rules]
    last_stale = max(i for i, r in enumerate(ids) if r.startswith("stale-status-row-"))
    assert last_stale < ids.index("status-row") < ids.index("status-row-no-hint")
