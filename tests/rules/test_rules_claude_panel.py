"""Claude Code's dialogs beside the wide-pane side panel (issue 28), at every wide size.

The recorded dialogs (2.1.332, `wide_panel` at 160x40 and 200x50 in
captures/claude-2.1.332-lab-pane, 240x60 in captures/claude-2.1.332-lab-mcp) end on the pane's
bottom rows. When the panel is
taller than what is left of it, or has blank rows, a dialog ends higher up with rows under it
that are blank left of the panel's `│` column. Those screens are built from the recorded ones:
the dialog moved up by K rows, the rows under it blank left of the divider (nothing, or the
panel's own text right of it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import CAPTURES as LAB
from tests.rules.harness import labelled_screens, manifest_fixture

CAPTURES = [
    LAB / "claude-2.1.332-lab-pane" / "wide_panel-160x40",
    LAB / "claude-2.1.332-lab-pane" / "wide_panel-200x50",
    LAB / "claude-2.1.332-lab-mcp" / "wide_panel-240x60",
]
SHIFTS = (3, 12, 25)
PANEL_TEXT = ("", " 12 +    print('hello, world')")


claude = manifest_fixture("claude")


def _labelled(base: Path) -> list[tuple[str, str, Snapshot]]:
    return [
        (seg["state"], seg["note"], snap)
        for seg, snap in labelled_screens(base)
        if not seg["note"].startswith("booting")
    ]


def _divider(snap: Snapshot) -> int | None:
    """The panel's divider column: where most rows have their `│`."""
    cols = [r.rfind("│") for r in snap.rows if "│" in r]
    if not cols:
        return None
    best = max(set(cols), key=cols.count)
    return best if cols.count(best) >= len(snap.rows) // 2 and best > 20 else None


def moved_up(snap: Snapshot, k: int, panel: str) -> Snapshot:
    """`snap` with its rows moved up `k` rows; the rows under them blank left of the divider."""
    col = _divider(snap)
    assert col is not None
    filler = (" " * col + "│" + panel).rstrip()
    return replace(snap, rows=(*snap.rows[k:], *[filler] * k))


CASES = [
    (base, state, note, snap)
    for base in CAPTURES
    for state, note, snap in _labelled(base)
    if _divider(snap) is not None
]


def test_the_wide_sizes_were_recorded_with_the_panel() -> None:
    sizes = {base.name.rsplit("-", 1)[1] for base, state, _, _ in CASES if state == "blocked"}
    assert sizes == {"160x40", "200x50", "240x60"}


@pytest.mark.parametrize("panel", PANEL_TEXT, ids=("blank", "panel-text"))
@pytest.mark.parametrize("k", SHIFTS)
@pytest.mark.parametrize(
    ("base", "note", "snap"),
    [(b, n, s) for b, st, n, s in CASES if st == "blocked"],
    ids=[f"{b.name}:{n[:30]}" for b, st, n, _ in CASES if st == "blocked"],
)
def test_a_dialog_above_the_bottom_row_is_blocked(
    claude: Manifest, base: Path, note: str, snap: Snapshot, k: int, panel: str
) -> None:
    assert classify(snap, claude).state == "blocked"
    assert classify(moved_up(snap, k, panel), claude).state == "blocked"


@pytest.mark.parametrize("panel", PANEL_TEXT, ids=("blank", "panel-text"))
@pytest.mark.parametrize("k", SHIFTS)
@pytest.mark.parametrize(
    ("base", "note", "snap"),
    [(b, n, s) for b, st, n, s in CASES if st != "blocked"],
    ids=[f"{b.name}:{n[:30]}" for b, st, n, _ in CASES if st != "blocked"],
)
def test_the_input_box_beside_the_panel_is_never_blocked(
    claude: Manifest, base: Path, note: str, snap: Snapshot, k: int, panel: str
) -> None:
    """The idle and working screens with the panel open, moved up the same way."""
    assert classify(moved_up(snap, k, panel), claude).state != "blocked"
