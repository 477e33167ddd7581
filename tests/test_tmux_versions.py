"""What differs between tmux releases in what osf-tmux reads back from tmux.

tmux 3.4 (3.3a and 3.5 on do not) prints a backslash before each `$` that starts a name in
anything a command prints (`show-options`, `display-message -p`, `list-panes -F`): a notify
command of `echo "$OSF_PANE"` came back as `echo "\\$OSF_PANE"` and its shell saw no variable.
From tmux 3.6 on, `capture-pane -p` prints a tab written over blank cells as one `\\t`, where the
screen shows blanks: the daemon's cross-check took such a pane for one that differs and re-seeded
it. The live tests here run against whatever tmux is on PATH (README, "tmux versions tested")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osf_tmux.daemon.source import tabs_as_spaces
from osf_tmux.plugin import options as po
from osf_tmux.tmux import ServerSpec, Tmux, unescape_dollars
from osf_tmux.vt.pane import PaneScreen
from tests.support.tmux_server import TmuxServer, retry_until

COMMAND = 'cd "$HOME/x" && printf "%s\\n" "$OSF_PANE" "${OSF_TARGET}" "$_y" \\$LITERAL $1 $'


def fake_tmux(tmp_path: Path, version: str, printed: str) -> Tmux:
    """A tmux whose server is `version` and that prints `printed` for any other command."""
    (tmp_path / "printed").write_text(printed)
    script = tmp_path / "tmux"
    script.write_text(
        "#!/bin/sh\n"
        'case "$*" in *"#{version}"*) echo ' + version + " ;;\n"
        f'*) cat "{tmp_path / "printed"}" ;;\n'
        "esac\n"
    )
    script.chmod(0o755)
    return Tmux(ServerSpec("fake"), binary=str(script))


def as_tmux_3_4_prints(text: str) -> str:
    # tmux 3.4's utf8_strvis: a `\` before `$` when a letter, `_` or `{` follows
    out = []
    for i, ch in enumerate(text):
        if ch == "$" and i + 1 < len(text) and (text[i + 1].isalpha() or text[i + 1] in "_{"):
            out.append("\\")
        out.append(ch)
    return "".join(out)


def test_what_tmux_3_4_printed_is_read_as_it_was_set(tmp_path: Path) -> None:
    printed = as_tmux_3_4_prints(COMMAND) + "\n"
    assert printed != COMMAND + "\n"
    tmux = fake_tmux(tmp_path, "3.4", printed)
    assert tmux.run("show-options", "-gqv", "@osf-notify-command") == COMMAND + "\n"


@pytest.mark.parametrize("version", ["3.3a", "3.5a", "3.6"])
def test_other_releases_output_is_left_alone(tmp_path: Path, version: str) -> None:
    # a backslash before a `$` is the user's own there: never taken off
    tmux = fake_tmux(tmp_path, version, COMMAND + "\n")
    assert tmux.run("show-options", "-gqv", "@osf-notify-command") == COMMAND + "\n"


def test_a_panes_text_is_left_as_it_is(tmp_path: Path) -> None:
    # capture-pane prints the screen's text unescaped on 3.4 too: a `\$HOME` there is the pane's
    tmux = fake_tmux(tmp_path, "3.4", "echo \\$HOME\n")
    assert tmux.run("capture-pane", "-p", "-t", "%1") == "echo \\$HOME\n"
    batch = [["display-message", "-p", "x"], ["capture-pane", "-p", "-t", "%1"]]
    assert tmux.run_many(batch) == "echo \\$HOME\n"


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_captured_screen_keeps_its_backslashes(tmux_server: TmuxServer) -> None:
    text = "echo \\$HOME ${X} $_y"
    pane = tmux_server.new_pane(["sh", "-c", f"printf '%s' '{text}'; sleep 60"], 40, 4)
    retry_until(lambda: "echo" in tmux_server.cmd("capture-pane", "-p", "-t", pane), what="text")
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    assert tmux.run("capture-pane", "-p", "-t", pane).splitlines()[0] == text


def test_the_version_is_asked_only_when_a_dollar_is_escaped(tmp_path: Path) -> None:
    tmux = fake_tmux(tmp_path, "3.4", "no dollar here\n")
    tmux.run("show-options", "-g")
    assert tmux.calls == 1
    (tmp_path / "printed").write_text("\\$HOME\n")
    assert tmux.run("show-options", "-g") == "$HOME\n"
    assert tmux.run("show-options", "-g") == "$HOME\n"
    assert tmux.calls == 4  # one version question, then remembered


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\\$A \\${B} \\$_c", "$A ${B} $_c"),
        ("\\\\$A", "\\$A"),  # a `\$A` of one's own, as 3.4 prints it
        ("$1 \\$1 $ \\$", "$1 \\$1 $ \\$"),  # no name follows: 3.4 added nothing
    ],
)
def test_unescape_dollars(text: str, expected: str) -> None:
    assert unescape_dollars(text) == expected


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_an_option_with_dollars_reads_back_as_set(tmux_server: TmuxServer) -> None:
    tmux_server.cmd("set-option", "-g", "@osf-notify-command", COMMAND)
    tmux_server.cmd("set-option", "-g", "@osf-bin", "/opt/$HOME/osf-tmux")
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    values = po.read_values(tmux, ("@osf-notify-command", "@osf-bin"))
    assert values == {"@osf-notify-command": COMMAND, "@osf-bin": "/opt/$HOME/osf-tmux"}
    shown = tmux.run("show-options", "-gqv", "@osf-notify-command")
    assert shown == COMMAND + "\n"


# Tabs over blank cells: after a wide character, to a stop of the program's own (HTS at column
# 20), from the second-last stop on to the last column; then one over text already there.
TABS = (
    b"\x1b[H\x1b[2Ja\tb\tc\r\n\xe4\xb8\xad\tx\r\n\x1b[21G\x1bH\r\n\x1b[17G\tz\r\n"
    b"\x1b[33Gend\tQ\r\nwritten over\r\x1b[2C\tW"
)


def test_tabs_as_spaces() -> None:
    stops = frozenset(range(8, 40, 8))
    assert tabs_as_spaces("a\tb\tc", stops, 40) == "a       b       c"
    assert tabs_as_spaces("\u4e2d\tx", stops, 40) == "\u4e2d      x"  # the wide one takes 2
    assert tabs_as_spaces("\ty", frozenset({20}), 40) == " " * 20 + "y"
    assert tabs_as_spaces("end\tQ", frozenset(), 10) == "end      Q"  # no stop: the last column
    assert tabs_as_spaces("no tab", stops, 40) == "no tab"


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_screen_matches_a_capture_with_tabs(tmux_server: TmuxServer, tmp_path: Path) -> None:
    # What the daemon's cross-check compares: from tmux 3.6 on, capture-pane prints tab cells
    # as `\t`, which the screen (and tmux's own display) show as blanks.
    shown = tmux_server.replay(TABS, 40, 8, tmp_path)
    screen = PaneScreen(40, 8)
    screen.feed(TABS)
    theirs = tuple(tabs_as_spaces(r, screen.tab_stops(), 40).rstrip() for r in shown.rows)
    assert screen.snapshot().rows == theirs
