"""The overview menu as tmux draws it on an attached client, for rows that used to break it:
a row that ends in `;` (tmux's client ends a command at an argument ending in `;`), a row
ending in `\\;`, and an 80-column client (tmux measures a menu item in bytes, styles
included). The rows are made here; the menu is opened the way `prefix + W` opens it."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pytest

from osf_tmux.judge.answer import Answer
from osf_tmux.plugin import options, overview
from osf_tmux.plugin.overview import AgentPane, Overview, View, menu_command, menu_items, order
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.control_mode import Terminal
from tests.support.tmux_server import TmuxServer

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

CLAUDE = Answer(("1",), ("Escape",), ("{n}",))
OPTIONS = (("1", "Yes"), ("2", "Yes, and don't ask again for make"), ("3", "No"))
# the plugin's own defaults: icons and badge styles
STYLES = {
    o.name: o.default for o in options.OPTIONS if o.name.startswith(("@osf-style-", "@osf-icon-"))
}


@pytest.fixture
def servers() -> Iterator[tuple[TmuxServer, TmuxServer]]:
    inner, outer = TmuxServer(), TmuxServer()
    inner.start()
    outer.start()
    try:
        inner.cmd("set-option", "-g", "status", "on")
        yield inner, outer
    finally:
        inner.kill()
        outer.kill()


def shown_menu(
    servers: tuple[TmuxServer, TmuxServer], width: int, question: str
) -> tuple[list[str], list[str]]:
    """Open a menu of four panes, the blocked one asking `question`, on a client `width`
    columns wide; the menu's rows (between its borders) and what they were made from."""
    inner, outer = servers
    terminal = Terminal(inner, outer, width, 24)
    try:
        panes = [
            AgentPane(
                "%2", "work:2.0", "blocked", "claude", 40.0, question=question, options=OPTIONS
            ),
            AgentPane("%5", "work:5.0", "done", "codex", 50.0),
            AgentPane("%3", "work:3.0", "working", "claude", 100.0),
            AgentPane("%1", "work:1.0", "idle", "gemini", 150.0),
        ]
        seen = Overview(order(panes), View("%9", width, 24), STYLES)
        items = menu_items(seen, {"claude": CLAUDE}, lambda p, c: "display-message x", 160.0,
                           terminal.name)  # fmt: skip
        tmux = Tmux(ServerSpec(inner.socket_name))
        overview._open(tmux, menu_command(items, overview.heading(seen), terminal.name))
        screen = terminal.wait_for(" osf-tmux · ")
        rows = [m.group(1) for r in screen if (m := re.search(r"│(.*)│", r))]
        return rows, [i.name for i in items]
    finally:
        terminal.close()


@pytest.mark.parametrize("question", ["Run make clean;", "ends in a backslash \\;"])
def test_a_row_that_ends_in_a_semicolon_opens_the_menu_and_shows_as_it_is(
    servers: tuple[TmuxServer, TmuxServer], question: str
) -> None:
    rows, _ = shown_menu(servers, 120, question)
    assert question in rows[0]


def test_at_80_columns_every_row_is_whole_with_its_icon_and_its_key_in_line(
    servers: tuple[TmuxServer, TmuxServer],
) -> None:
    asks = "Do you want to make this edit to README.md? — it rewrites the install section"
    rows, _ = shown_menu(servers, 80, asks)
    assert len(rows) == 8
    assert rows[0].startswith(" ● work:2.0  claude     2m  Do you want to make this edit to")
    assert rows[5].startswith(" ✔ work:5.0  codex      1m  done")
    assert not any(">" in r for r in rows)  # tmux's own mark of a row it cut
    keys = {r.rindex("(") for r in rows}
    assert len(keys) == 1  # every key in the same column
    names = [r[:3] for r in rows if not r.startswith("    ↳")]
    assert names == [" ● ", " ✔ ", " ◐ ", " ○ "]
