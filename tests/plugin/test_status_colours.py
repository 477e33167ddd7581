"""The plugin's status badges and window marks read on tmux's default bar and on themes: a real
client of a private server (TERM=xterm-256color) draws its status line into a pane of a second
private server, whose `capture-pane -e` gives each cell's colours; the contrast of every cell
of our text is computed with xterm's palette (WCAG's formula) and must reach 4.5.

The published counts are set by hand (no daemon): what is checked is how the formats render."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from osf_tmux.plugin.options import OPTIONS
from tests.support.control_mode import Terminal
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

OSF_TMUX = Path(sys.executable).with_name("osf-tmux")
DONE_STYLE = next(o.default for o in OPTIONS if o.name == "@osf-style-done")
# xterm's 16 colours; a terminal's own defaults taken as light grey on black (a dark terminal)
PALETTE = [
    *("000000", "cd0000", "00cd00", "cdcd00", "0000ee", "cd00cd", "00cdcd", "e5e5e5"),
    *("7f7f7f", "ff0000", "00ff00", "ffff00", "5c5cff", "ff00ff", "00ffff", "ffffff"),
]
DEFAULT_FG, DEFAULT_BG = "e5e5e5", "000000"
THEMES = {
    "tmux default": "bg=green,fg=black",
    "catppuccin mocha": "bg=#1e1e2e,fg=#cdd6f4",
    "dracula": "bg=#44475a,fg=#f8f8f2",
    "light": "bg=colour254,fg=colour235",
}


@dataclass(frozen=True)
class Cell:
    char: str
    fg: str  # rrggbb
    bg: str


def rgb(index: int) -> str:
    if index < 16:
        return PALETTE[index]
    if index < 232:
        levels = [0, 95, 135, 175, 215, 255]
        i = index - 16
        return "".join(f"{levels[v]:02x}" for v in (i // 36, i // 6 % 6, i % 6))
    return f"{8 + 10 * (index - 232):02x}" * 3


def cells(line: str) -> list[Cell]:
    """The cells of one `capture-pane -e` row: its characters with the colours SGR gave them."""
    out: list[Cell] = []
    fg: str | None = None
    bg: str | None = None
    reverse = False
    for m in re.finditer(r"\x1b\[([0-9;]*)m|(.)", line):
        if m.group(2) is not None:
            f, b = fg or DEFAULT_FG, bg or DEFAULT_BG
            out.append(Cell(m.group(2), b if reverse else f, f if reverse else b))
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        while codes:
            c = codes.pop(0)
            if c == 0:
                fg = bg = None
                reverse = False
            elif c == 7:
                reverse = True
            elif c == 27:
                reverse = False
            elif 30 <= c <= 37 or 90 <= c <= 97:
                fg = PALETTE[c - 30 if c < 90 else c - 82]
            elif 40 <= c <= 47 or 100 <= c <= 107:
                bg = PALETTE[c - 40 if c < 100 else c - 92]
            elif c == 39:
                fg = None
            elif c == 49:
                bg = None
            elif c in (38, 48):
                mode = codes.pop(0)
                value = rgb(codes.pop(0)) if mode == 5 else "".join(
                    f"{codes.pop(0):02x}" for _ in range(3))  # fmt: skip
                if c == 38:
                    fg = value
                else:
                    bg = value
    return out


def luminance(colour: str) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(cell: Cell) -> float:
    return ratio(cell.fg, cell.bg)


def ratio(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# A badge in the bar's own colours reads as text but is not seen as a badge: its background
# must stand apart from the bar's (the blocked badge's red on tmux's green bar: 2.7).
APART = 1.5


def find(row: list[Cell], text: str) -> list[Cell]:
    chars = "".join(c.char for c in row)
    at = chars.find(text)
    assert at >= 0, f"{text!r} not in the status line {chars!r}"
    return [c for c in row[at : at + len(text)] if c.char != " "]


@dataclass
class Client:
    server: TmuxServer
    terminal: Terminal

    def status(self) -> list[Cell]:
        self.server.cmd("refresh-client", "-S", "-t", self.terminal.name)
        return cells(self.terminal.screen(colours=True)[-1])

    def status_text(self) -> str:
        return self.terminal.screen()[-1]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    if not OSF_TMUX.exists():
        pytest.skip(f"{OSF_TMUX} is not installed (pip install -e .)")
    home = tmp_path_factory.mktemp("colours")
    server, outer = TmuxServer(), TmuxServer()
    server.start()
    outer.start()
    server.cmd("set-option", "-g", "status", "on")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env["XDG_STATE_HOME"] = str(home)
    terminal = None
    try:
        subprocess.run([str(OSF_TMUX), "-L", server.socket_name, "plugin", "load", "--no-daemon"],
                       env=env, check=True, capture_output=True, timeout=60)  # fmt: skip
        server.cmd("set-option", "-g", "@osf_blocked_count", "1")
        server.cmd("set-option", "-g", "@osf_done_count", "2")
        server.cmd("set-option", "-w", "-t", "osf-base:0", "@osf_window_state", "blocked")
        server.cmd("new-window", "-d", "-t", "osf-base:1", "sleep 2147483647")
        server.cmd("set-option", "-w", "-t", "osf-base:1", "@osf_window_state", "done")
        terminal = Terminal(server, outer, term="xterm-256color")
        retry_until(lambda: "2 done" in terminal.screen()[-1], what="the status line")
        yield Client(server, terminal)
    finally:
        if terminal is not None:
            terminal.close()
        server.kill()
        outer.kill()


@pytest.mark.parametrize("theme", THEMES)
def test_badges_and_marks_read_on_the_bar(client: Client, theme: str) -> None:
    client.server.cmd("set-option", "-g", "status-style", THEMES[theme])
    row = client.status()
    text = "".join(c.char for c in row)
    checked = find(row, "● 1 blocked") + find(row, "✔ 2 done")
    checked += [c for c in row[: text.index("  ")] if c.char in "●✔"]  # the window marks
    assert len(checked) >= 2 + 9 + 6
    weak = [(c.char, c.fg, c.bg, round(contrast(c), 2)) for c in checked if contrast(c) < 4.5]
    assert not weak, f"{theme}: cells that do not read: {weak}"
    bar = row[0].bg  # the `[` of the session name: the bar's own background
    hidden = [(c.char, c.bg, bar, round(ratio(c.bg, bar), 2)) for c in checked
              if ratio(c.bg, bar) < APART]  # fmt: skip
    assert not hidden, f"{theme}: badge cells in the bar's own colours: {hidden}"


def test_the_clock_is_not_cut(client: Client) -> None:
    """tmux's default status-right-length (40) cuts status-right once the counts are in front
    of it: the plugin raised it, so the date at the end shows whole."""
    assert client.server.cmd("show-options", "-gv", "status-right-length").strip() != "40"
    assert re.search(r"\d\d:\d\d \d\d-\w{3}-\d\d$", client.status_text())


def test_the_check_catches_text_that_does_not_read(client: Client) -> None:
    """What the plugin used to draw, fg=green on tmux's green bar, is caught (the check can
    fail)."""
    client.server.cmd("set-option", "-g", "status-style", THEMES["tmux default"])
    client.server.cmd("set-option", "-g", "@osf-style-done", "fg=green")
    try:
        done = find(client.status(), "✔ 2 done")
        assert max(contrast(c) for c in done) < 1.5
    finally:
        client.server.cmd("set-option", "-g", "@osf-style-done", DONE_STYLE)


def test_the_check_catches_a_badge_in_the_bars_own_colours(client: Client) -> None:
    """What the plugin drew before, black on green, reads as text on tmux's green bar but is
    not seen as a badge: the check catches it."""
    client.server.cmd("set-option", "-g", "status-style", THEMES["tmux default"])
    client.server.cmd("set-option", "-g", "@osf-style-done", "fg=black bg=green")
    try:
        row = client.status()
        done = find(row, "✔ 2 done")
        assert min(contrast(c) for c in done) >= 4.5
        assert max(ratio(c.bg, row[0].bg) for c in done) < APART
    finally:
        client.server.cmd("set-option", "-g", "@osf-style-done", DONE_STYLE)
