"""What a blocked screen asks, in one line: for notifications and the event feed alike.

Agent-neutral on purpose: it reads the question off any prompt's layout (the lowest row with
a `?` that is not a menu option), so a new agent needs no code here."""

from __future__ import annotations

import re

from osf_tmux.judge.regions import is_rule_row
from osf_tmux.vt.snapshot import Snapshot

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# A numbered menu option, whatever pointer glyph precedes it: `❯ 1. Yes`, `  2) No`.
_MENU_ROW = re.compile(r"^\W*\d{1,2}[.)]\s")
_BOX_SIDES = " \t│┃║|"
LIVE_ROWS = 20  # a dialog lives at the bottom: the question is looked for this far up


def clean(text: str, limit: int) -> str:
    """One line of plain text: control characters (escapes included) out, runs of blanks
    collapsed, cut to `limit` characters with an ellipsis."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def ask_excerpt(snap: Snapshot | None) -> tuple[str, str]:
    """(question, detail) from a blocked screen, without knowing the agent: the lowest row
    with a `?` that is not a menu option, and the nearest content row above it (the command
    or file it asks about). Either may be ''."""
    if snap is None:
        return "", ""
    rows = [r.strip(_BOX_SIDES) for r in snap.rows]
    content = [r for r in rows if r and not is_rule_row(r)][-LIVE_ROWS:]
    asked = [i for i, r in enumerate(content) if "?" in r and not _MENU_ROW.match(r)]
    if not asked:
        return "", ""
    q = asked[-1]
    detail = next((r for r in reversed(content[:q]) if not _MENU_ROW.match(r)), "")
    return clean(content[q], 160), clean(detail, 160)
