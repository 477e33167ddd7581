"""The overview menu on a real attached client: a private tmux server with the plugin loaded
(so the real daemon publishes the states), two panes blocked at a recorded Claude Code
permission prompt that record every key typed into them, and a client of that server attached
from a pane of a second private server, whose screen that server renders (tests/control_mode).
Keys are pressed as a person would; the menu's rows are read off the client's screen."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.test_safe_input import CAPTURE, RecordingPane, offsets
from tests.support.control_mode import Terminal
from tests.support.tmux_server import TmuxServer, retry_until, tmux_version

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

OSF_TMUX = Path(sys.executable).with_name("osf-tmux")
TITLE = " osf-tmux · "
# tmux 3.6 and later take a pane's focus away while a menu covers it and give it back when the
# menu closes: a program that asked for focus reports (Claude's capture does, `CSI ? 1004 h`)
# reads `CSI O` and `CSI I`. tmux types those, not osf-tmux; 3.3a to 3.5a send none.
FOCUS_REPORTS = re.compile(rb"\x1b\[[IO]") if tmux_version() >= (3, 6) else None


def whole_menu(screen: list[str]) -> list[str] | None:
    """`screen` if it shows the menu from its title to its bottom border, else None."""
    top = next((i for i, row in enumerate(screen) if TITLE in row), None)
    if top is None:
        return None
    left = screen[top].index("┌") if "┌" in screen[top] else -1
    bottom = next((row for row in screen[top + 1 :] if "└" in row), None)
    return screen if bottom is not None and bottom.index("└") == left else None


def without_focus(data: bytes) -> bytes:
    return FOCUS_REPORTS.sub(b"", data) if FOCUS_REPORTS else data


def typed(pane: RecordingPane) -> bytes:
    """What was typed into `pane`, without the focus reports tmux itself sends there."""
    return without_focus(pane.keys())


@dataclass
class Setup:
    server: TmuxServer
    terminal: Terminal
    env: dict[str, str]
    workdir: Path

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(OSF_TMUX), "-L", self.server.socket_name, *args],
                              env=self.env, capture_output=True, text=True, timeout=60)  # fmt: skip

    def open_menu(self) -> list[str]:
        """The client's screen once the whole menu is on it: a screen read while tmux still
        draws it can hold the title and only some of the rows (seen on tmux 3.7c)."""
        self.terminal.press("C-b", "W")
        return retry_until(lambda: whole_menu(self.terminal.screen()), what="the whole menu")

    def close_menu(self) -> None:
        self.terminal.press("Escape")
        retry_until(lambda: self.terminal.showing(TITLE) is None, what="the menu to close")


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    if not OSF_TMUX.exists():
        pytest.skip(f"{OSF_TMUX} is not installed (pip install -e .)")
    home = tmp_path_factory.mktemp("overview")
    server, outer = TmuxServer(), TmuxServer()
    server.start()
    outer.start()
    server.cmd("set-option", "-g", "status", "on")
    server.cmd("set-option", "-s", "escape-time", "10")  # Escape then a key is not Meta-key
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    for name in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"):
        env[name] = str(home / name.lower())
        server.cmd("set-environment", "-g", name, env[name])
    terminal = None
    try:
        out = subprocess.run([str(OSF_TMUX), "-L", server.socket_name, "plugin", "load"],
                             env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
        assert out.returncode == 0, out.stderr
        # 33 rows: the windows it sizes (status line aside) are the captures' 120x32
        terminal = Terminal(server, outer, 120, 33)
        yield Setup(server, terminal, env, home)
    finally:
        if terminal is not None:
            terminal.close()
        subprocess.run([str(OSF_TMUX), "-L", server.socket_name, "stop"], env=env,
                       capture_output=True, timeout=60)  # fmt: skip
        server.kill()
        outer.kill()


def test_without_agents_the_menu_says_so(setup: Setup) -> None:
    screen = setup.open_menu()
    assert any("0 agents" in row for row in screen)
    assert any("no agent runs in any pane" in row for row in screen)
    setup.close_menu()
    assert setup.cli("list").stdout.strip() == "no agent runs in any pane"


@pytest.fixture(scope="module")
def blocked(setup: Setup) -> Iterator[list[RecordingPane]]:
    """Two panes at the same permission prompt, each recording the keys typed into it."""
    data = CAPTURE.joinpath("c_bash_yes-120x32.bytes").read_bytes()[: offsets()["blocked"]]
    panes = []
    for n in range(2):
        workdir = setup.workdir / f"pane{n}"
        workdir.mkdir()
        panes.append(RecordingPane(setup.server, workdir))
    try:
        for p in panes:
            p.write(data)
        for p in panes:
            p.ready("Do you want to proceed?")
            retry_until(lambda p=p: setup.server.cmd(  # type: ignore[misc]
                "show-options", "-pqv", "-t", p.pane, "@osf_state").strip() == "blocked",
                timeout=20, what="blocked")  # fmt: skip
        yield panes
    finally:
        for p in panes:
            p.close()
            setup.server.kill_pane(p.pane)


def rows_of(screen: list[str]) -> list[tuple[str, str]]:
    """The menu's rows as (text, key): `│ text (k) │`."""
    out = []
    for row in screen:
        m = re.search(r"│ (.*?)\s+\((\w)\) │", row)
        if m:
            out.append((m.group(1).strip(), m.group(2)))
    return out


def address(server: TmuxServer, pane: str) -> str:
    fmt = "#{session_name}:#{window_index}.#{pane_index}"
    return server.cmd("display-message", "-p", "-t", pane, fmt).strip()


def test_the_menu_has_a_row_per_agent_and_answers_under_each_blocked_one(
    setup: Setup, blocked: list[RecordingPane]
) -> None:
    screen = setup.open_menu()
    try:
        assert any("2 agents: 2 blocked" in row for row in screen)
        rows = [text for text, _ in rows_of(screen)]
        for p in blocked:
            head = next(r for r in rows if r.startswith(f"● {address(setup.server, p.pane)} "))
            assert "claude" in head and "Do you want to proceed? — rm -rf build" in head
            under = rows[rows.index(head) + 1 : rows.index(head) + 4]
            assert under[:2] == ["↳ yes (1)", "↳ no (Escape)"]
            assert under[2].startswith("↳ 2. Yes, and always allow access to")
    finally:
        setup.close_menu()
    listed = json.loads(setup.cli("list", "--json").stdout)
    assert {p["pane"] for p in listed} == {p.pane for p in blocked}
    assert all(p["state"] == "blocked" and p["agent"] == "claude" for p in listed)


def test_choosing_a_row_shows_its_pane(setup: Setup, blocked: list[RecordingPane]) -> None:
    for p in blocked:
        rows = rows_of(setup.open_menu())
        key = next(k for text, k in rows if text.startswith(f"● {address(setup.server, p.pane)} "))
        setup.terminal.press(key)
        retry_until(lambda p=p: setup.terminal.pane_shown() == p.pane,  # type: ignore[misc]
                    what="the client to show the chosen pane")  # fmt: skip
        assert setup.terminal.showing(TITLE) is None


def test_an_answer_reaches_only_the_chosen_pane(setup: Setup, blocked: list[RecordingPane]) -> None:
    first, second = blocked
    for p in blocked:
        p.keys()  # forget what earlier tests typed (none should have)
    rows = [text for text, _ in rows_of(setup.open_menu())]
    head = next(r for r in rows if r.startswith(f"● {address(setup.server, second.pane)} "))
    assert rows[rows.index(head) + 2] == "↳ no (Escape)"
    setup.terminal.press(_nth_key(setup, head, 2))
    log = setup.workdir / "xdg_state_home" / "osf-tmux"
    retry_until(lambda: without_focus(second.record.read_bytes()) == b"\x1b", timeout=20,
                what=f"Escape typed into the chosen pane ({_logs(log)})")  # fmt: skip
    assert typed(second) == b"\x1b"
    assert typed(first) == b""


def _nth_key(setup: Setup, head: str, n: int) -> str:
    """The key of the n-th row under `head` (rows under two blocked panes read alike)."""
    rows = rows_of(setup.terminal.screen())
    at = [text for text, _ in rows].index(head)
    return rows[at + n][1]


def _logs(state: Path) -> str:
    return " | ".join(p.read_text()[-500:] for p in state.glob("*/plugin.log"))


def test_next_cycles_from_inside_tmux_too(setup: Setup, blocked: list[RecordingPane]) -> None:
    """Run from a pane ($TMUX, $TMUX_PANE set), `next --client C` must read C's pane, not the
    pane of $TMUX_PANE (which display-message -c takes): each press moves on to the other."""
    socket = setup.server.cmd("display-message", "-p", "#{socket_path}").strip()
    inside = {**setup.env, "TMUX": f"{socket},1,0", "TMUX_PANE": "%0"}
    shown = []
    for _ in range(2):
        out = subprocess.run([str(OSF_TMUX), "next", "--client", setup.terminal.name], env=inside,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        assert out.returncode == 0, out.stderr
        shown.append(setup.terminal.pane_shown())
    assert sorted(shown) == sorted(p.pane for p in blocked)


def test_an_answer_to_a_prompt_gone_meanwhile_types_nothing_and_says_why(
    setup: Setup, blocked: list[RecordingPane]
) -> None:
    first = blocked[0]
    rows = [text for text, _ in rows_of(setup.open_menu())]
    head = next(r for r in rows if r.startswith(f"● {address(setup.server, first.pane)} "))
    first.write(b"\x1b[2J\x1b[Hthe agent moved on")  # the dialog goes while the menu is open
    first.ready("the agent moved on")
    setup.terminal.press(_nth_key(setup, head, 1))  # yes
    screen = setup.terminal.wait_for("nothing typed")
    assert any("is not waiting for an answer" in row for row in screen)
    assert typed(first) == b""
    log = setup.workdir / "xdg_state_home" / "osf-tmux"
    # The message is on screen before the answer's log line is surely written: wait for it.
    retry_until(
        lambda: "is not waiting for an answer" in _logs(log), timeout=10, what="the log line"
    )
