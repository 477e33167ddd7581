"""What a blocked screen asks, without knowing the agent: the question row, the row above it
that names what it is about, and the numbered options of its menu. Notifications and the
overview menu show these; nothing decides a state from them (the rules do that)."""

from __future__ import annotations

import re

from osf_tmux.judge.regions import is_rule_row
from osf_tmux.vt.snapshot import Snapshot

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# A numbered menu option, whatever pointer glyph precedes it: `❯ 1. Yes`, `  2) No`.
_MENU_ROW = re.compile(r"^\W*(\d{1,2})[.)]\s+(.*)$")
_BOX_SIDES = " \t│┃║|"
LIVE_ROWS = 20  # a dialog lives at the bottom: the question is looked for this far up


def clean(text: str, limit: int) -> str:
    """One line of plain text: control characters (escapes included) out, runs of blanks
    collapsed, cut to `limit` characters with an ellipsis."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def _content(snap: Snapshot) -> list[str]:
    """The screen's rows with text, box sides and rule rows left out."""
    rows = [r.strip(_BOX_SIDES) for r in snap.rows]
    return [r for r in rows if r and not is_rule_row(r)]


def _live(snap: Snapshot) -> list[str]:
    return _content(snap)[-LIVE_ROWS:]


def _asked(content: list[str]) -> int | None:
    asked = [i for i, r in enumerate(content) if "?" in r and not _MENU_ROW.match(r)]
    return asked[-1] if asked else None


def ask_excerpt(snap: Snapshot | None) -> tuple[str, str]:
    """(question, detail) from a blocked screen: the lowest row with a `?` that is not a menu
    option, and the nearest content row above it (the command or file it asks about). Either
    may be ''."""
    if snap is None:
        return "", ""
    content = _live(snap)
    q = _asked(content)
    if q is None:
        return "", ""
    detail = next((r for r in reversed(content[:q]) if not _MENU_ROW.match(r)), "")
    return clean(content[q], 160), clean(detail, 160)


def menu_options(snap: Snapshot | None) -> list[tuple[str, str]]:
    """The numbered options below the question, as (number, label): `❯ 1. Yes` gives
    ("1", "Yes"). Only 1-9, the numbers an answer can type."""
    if snap is None:
        return []
    content = _live(snap)
    q = _asked(content)
    found: dict[str, str] = {}
    for row in content[(q + 1 if q is not None else 0) :]:
        m = _MENU_ROW.match(row)
        if m and len(m.group(1)) == 1 and m.group(1) != "0":
            found.setdefault(m.group(1), clean(m.group(2), 160))
    return sorted(found.items())


ABOVE_ROWS = 3  # rows above the question that name what it is about (a dialog's head)


def ask_context(snap: Snapshot | None) -> tuple[str, ...]:
    """The rows of the dialog around its question, nearest first: every row between it and
    its menu (Codex's `$ command` under `Reason: …?`), then up to `ABOVE_ROWS` content rows
    above it, upwards (Claude Code's command between dashed rules, Codex's `Running …` row).
    What a person reads to know which command or file it asks about, in the order a message
    cut short keeps best; () without a question."""
    if snap is None:
        return ()
    content = _live(snap)
    q = _asked(content)
    if q is None:
        return ()
    above = [r for r in content[:q] if not _MENU_ROW.match(r)][-ABOVE_ROWS:]
    below: list[str] = []
    for row in content[q + 1 :]:
        if _MENU_ROW.match(row):
            break
        below.append(row)
    return tuple(clean(r, 160) for r in [*below, *reversed(above)])


IDENTITY_LEAD = 160  # characters of text before the question's `?` that name the prompt


def prompt_identity(snap: Snapshot | None) -> str:
    """What makes a prompt the one a person would call the same question: the text of the
    dialog up to its menu (the question and the command or file around it: Codex's command
    under its `Reason: …?`), with the whitespace left out and counted in characters from the
    question's `?`, not in rows, so that the prompt rewrapped by a resize reads the same. Not
    the menu: narrow panes cut its labels short. Not the transcript above the dialog either
    (only the question's block of rows and the block over it): a resize shows more or less of
    the transcript, and the same command asked again sits under another answer. '' when the
    screen shows no question."""
    if snap is None:
        return ""
    rows = [r.strip(_BOX_SIDES) for r in snap.rows]
    kept = [y for y, r in enumerate(rows) if r and not is_rule_row(r)]
    live = kept[-LIVE_ROWS:]
    q = _asked([rows[y] for y in live])
    if q is None:
        return ""
    asked = live[q]
    top = _paragraph_top(snap.rows, asked)
    end = next((y for y in kept if y > asked and _MENU_ROW.match(rows[y])), len(rows))
    text = "".join("".join(rows[y] for y in kept if top <= y < end).split())
    cut = text.rfind("?") + 1
    return text[max(0, cut - IDENTITY_LEAD) : cut] + text[cut:]


def _paragraph_top(rows: tuple[str, ...], asked: int) -> int:
    """The first row of the dialog over row `asked`: the block of rows the question is in (a
    narrow pane wraps the question over several), and the block over that, across blank
    rows (Codex draws its question a blank row under the command it runs, and `Environment:
    local` a blank row over `Reason: …?`); blocks end at a row blank on the screen itself,
    not at a box's side drawn around nothing (Gemini CLI keeps its command inside its box)."""
    y = asked
    while y >= 0 and rows[y].strip():
        y -= 1
    while y >= 0 and not rows[y].strip():
        y -= 1
    while y >= 0 and rows[y].strip():
        y -= 1
    return y + 1
