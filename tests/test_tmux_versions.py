"""What differs between tmux releases in what osf-tmux reads back from tmux.

tmux 3.4 (3.3a and 3.5 on do not) prints a backslash before each `$` that starts a name in
anything a command prints (`show-options`, `display-message -p`, `list-panes -F`): a notify
command of `echo "$OSF_PANE"` came back as `echo "\\$OSF_PANE"` and its shell saw no variable.
The live test here runs against whatever tmux is on PATH (README, "tmux versions tested")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osf_tmux.plugin import options as po
from osf_tmux.tmux import ServerSpec, Tmux, unescape_dollars
from tests.tmux_server import TmuxServer

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
