"""The overview (menu and `list`) and the key commands' short way, without tmux."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from osf_tmux.cli.keys import parse
from osf_tmux.judge.answer import Answer, answer_tables
from osf_tmux.judge.question import menu_options
from osf_tmux.paths import shipped_rules_dir
from osf_tmux.plugin.overview import (
    MENU_KEYS,
    AgentPane,
    MenuItem,
    Overview,
    View,
    as_records,
    as_table,
    duration,
    heading,
    menu_command,
    menu_items,
    order,
    title,
)
from osf_tmux.vt.snapshot import Snapshot

CLAUDE = Answer(("1",), ("Escape",), ("{n}",))
DIALOG = """
● I'll remove the build directory.
────────────────────────────────────────
 Bash command
   rm -rf build && sleep 4
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for rm
   3. No
 Esc to cancel · Tab to amend
"""
OPTIONS = (("1", "Yes"), ("2", "Yes, and don't ask again for rm"), ("3", "No"))


def pane(pid: str, state: str, since: float | None = 100.0, **kw: object) -> AgentPane:
    return AgentPane(pid, f"work:{pid[1:]}.0", state, str(kw.pop("agent", "claude")), since,
                     **kw)  # type: ignore[arg-type]  # fmt: skip


def answer(pane_id: str, choice: str) -> str:
    return f"run-shell -b 'answer {pane_id} {choice}'"


def items(
    panes: list[AgentPane], width: int = 120, height: int = 40, styles: dict[str, str] | None = None
) -> list[MenuItem]:
    options = {"@osf-style-blocked": "fg=red", "@osf-icon-blocked": "●"}
    seen = Overview(order(panes), View("%9", width, height), {**options, **(styles or {})})
    return menu_items(seen, {"claude": CLAUDE, "aider": None}, answer, 160.0, "/dev/pts/3")


BLOCKED = pane("%2", "blocked", 40.0, question="Do you want to proceed?",
               detail="rm -rf build && sleep 4", options=OPTIONS)  # fmt: skip


def test_most_urgent_first_then_longest_in_its_state() -> None:
    panes = [pane("%1", "idle", 10.0), pane("%5", "done", 90.0), pane("%4", "working", 5.0),
             pane("%3", "blocked", 80.0), BLOCKED, pane("%6", "done", None)]  # fmt: skip
    assert [p.pane_id for p in order(panes)] == ["%2", "%3", "%5", "%6", "%4", "%1"]


def test_one_row_per_pane_that_jumps_to_it_and_answers_under_a_blocked_one() -> None:
    rows = items([pane("%1", "idle", 150.0), BLOCKED, pane("%3", "working", 100.0)])
    names = [r.name for r in rows]
    assert names[0].startswith("#[fg=red]●#[default] work:2.0  claude     2m  Do you want to")
    assert "— rm -rf build && sleep 4" in names[0]
    assert rows[0].command == "switch-client -c /dev/pts/3 -t %2"
    # yes and no from the [answer] table, then the dialog's numbered options whose keys differ
    # (option 1 types the same `1` as yes)
    assert [r.name for r in rows[1:5]] == [
        "   ↳ yes (1)",
        "   ↳ no (Escape)",
        "   ↳ 2. Yes, and don't ask again for rm",
        "   ↳ 3. No",
    ]
    assert [r.command for r in rows[1:5]] == [answer("%2", c) for c in ("yes", "no", "2", "3")]
    assert names[5] == "◐ work:3.0  claude     1m  working"
    assert names[6] == "○ work:1.0  claude    10s  idle"
    assert [r.key for r in rows] == list(MENU_KEYS[:7])


def test_no_answers_for_an_agent_without_a_table() -> None:
    rows = items([pane("%2", "blocked", question="Proceed?", agent="aider")])
    assert len(rows) == 1


def test_keys_leave_what_tmux_menus_use_and_run_out_quietly() -> None:
    assert not set("qjkgG") & set(MENU_KEYS)
    rows = items([pane(f"%{i}", "idle", float(i)) for i in range(40)], height=60)
    assert [r.key for r in rows[: len(MENU_KEYS)]] == list(MENU_KEYS)
    assert {r.key for r in rows[len(MENU_KEYS) :]} == {""}


def test_pane_text_is_never_a_format_or_a_command() -> None:
    evil = pane("%2", "blocked", question="#(touch /tmp/owned) #{pane_id} #[fg=red]?",
                agent="#(id)")  # fmt: skip
    row = items([evil])[0]
    assert "##(touch /tmp/owned) ##{pane_id} ##[fg=red]?" in row.name
    assert "##(id)" in row.name
    assert row.command == "switch-client -c /dev/pts/3 -t %2"


@pytest.mark.parametrize("width", [40, 80, 200])
@pytest.mark.parametrize("text", ["x", "é", "—", "│", "界"])
def test_rows_fit_the_client_so_that_tmux_draws_the_menu(width: int, text: str) -> None:
    long = pane("%2", "blocked", question=f"Do you want to proceed? {text * 300}", options=(
        ("2", "Yes, and always allow access to " + "/very/long/path" * 20),), agent="claude",
        detail="rm -rf build")  # fmt: skip
    rows = items([long, pane("%3", "done", agent=text * 20)], width=width,
                 styles={"@osf-style-done": "fg=#ffffff,bg=#005f00,bold"})  # fmt: skip
    for row in rows:
        # tmux cuts (and marks `>`) an item whose expanded name, styles included, is longer in
        # bytes than the client less its border (4) and the key's ` (k)` (4)
        assert len(row.name.replace("##", "#").encode()) <= width - 8, row.name
    assert rows[0].name.endswith("…")  # cut by us, where tmux would have cut it


def test_a_row_keeps_its_icon_and_its_columns_at_80_columns() -> None:
    asks = "Do you want to make this edit to README.md? — ## What a new user trips on"
    rows = items([pane("%2", "blocked", 40.0, question=asks), pane("%3", "done", 120.0)], width=80,
                 styles={"@osf-style-done": "fg=black,bg=green"})  # fmt: skip
    # cut to fit: the badge's colour goes first (its style costs bytes), the words stay
    assert rows[0].name.startswith("● work:2.0  claude     2m  Do you want to make this edit to")
    done = [r for r in rows if "✔" in r.name]  # whole with its colour: it keeps it
    assert done[0].name == "#[fg=black,bg=green]✔#[default] work:3.0  claude    40s  done"


@pytest.mark.parametrize("width", [30, 50, 80])
def test_the_title_fits_the_client_or_tmux_shows_no_menu(width: int) -> None:
    seen = Overview([BLOCKED, pane("%3", "idle"), pane("%4", "done"), pane("%5", "working")],
                    View("%9", width, 40), {})  # fmt: skip
    assert len(heading(seen)) <= width - 4
    assert heading(seen).startswith(" osf-tmux")


def test_a_tall_list_is_cut_and_says_where_the_rest_is() -> None:
    rows = items([pane(f"%{i}", "idle", float(i)) for i in range(30)], height=12)
    assert len(rows) <= 12 - 2
    assert rows[-1].name.startswith("-… ") and "osf-tmux list" in rows[-1].name


def test_no_agent_and_no_daemon_are_said() -> None:
    nobody = Overview([], View(), {}, daemon_running=True)
    [row] = menu_items(nobody, {}, answer, 0.0, None)
    assert row.name == "-no agent runs in any pane" and row.command == ""
    stopped = Overview([], View(), {}, daemon_running=False)
    rows = menu_items(stopped, {}, answer, 0.0, None)
    assert rows[0].name == "-the daemon is not running" and "osf-tmux start" in rows[1].name


def test_menu_command_and_title() -> None:
    seen = Overview([BLOCKED, pane("%3", "idle")], View(), {})
    assert title(seen) == " osf-tmux · 2 agents: 1 blocked, 1 idle "
    argv = menu_command([MenuItem("a", "1", "x")], title(seen), "/dev/pts/3")
    assert argv[:8] == ["display-menu", "-c", "/dev/pts/3", "-T", title(seen), "-x", "R", "-y"]
    assert argv[-3:] == ["a", "1", "x"]


def test_list_as_table_and_json() -> None:
    panes = [BLOCKED, pane("%3", "working", None, agent="codex")]
    table = as_table(panes, 160.0).splitlines()
    assert table[0].split() == ["PANE", "WHERE", "AGENT", "STATE", "FOR", "ASKS"]
    assert table[1].split()[:5] == ["%2", "work:2.0", "claude", "blocked", "2m"]
    assert table[1].endswith("Do you want to proceed?") and table[2].split()[4] == "-"
    records = json.loads(json.dumps(as_records(panes, 160.0)))
    assert records[0]["for_seconds"] == 120.0 and records[0]["options"][1] == {
        "choice": "2", "label": "Yes, and don't ask again for rm"}  # fmt: skip
    assert records[1]["since"] is None and records[1]["question"] is None
    # the key `events`, `wait`, `status` and the notify command use for session:window.pane
    assert records[0]["target"] == "work:2.0" and "address" not in records[0]
    assert records[0]["since"] == 40.0


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (None, "-"),
        (-1.0, "-"),
        (5.4, "5s"),
        (59.9, "59s"),
        (60, "1m"),
        (3599, "59m"),
        (3600 + 5 * 60, "1h05m"),
        (86400 * 3 + 5, "3d"),
    ],
)
def test_duration(seconds: float | None, shown: str) -> None:
    assert duration(seconds) == shown


def test_menu_options_are_the_numbered_rows_below_the_question() -> None:
    snap = Snapshot.from_text(DIALOG)
    assert menu_options(snap) == list(OPTIONS)
    assert menu_options(Snapshot.from_text("nothing asked\n 1. a list item")) == [
        ("1", "a list item")
    ]
    assert menu_options(None) == []


def test_answer_tables_user_file_wins_and_a_broken_one_does_not(tmp_path: Path) -> None:
    user = tmp_path / "rules"
    user.mkdir()
    (user / "mine.toml").write_text('agent = "claude"\n[answer]\nyes = ["y"]\nno = ["n"]\n')
    (user / "broken.toml").write_text('agent = "codex"\n[answer\n')
    found = answer_tables(["claude", "codex", "aider", "nobody"], [shipped_rules_dir(), user])
    assert found["claude"] == Answer(("y",), ("n",))
    assert found["codex"] == Answer(("y",), ("Escape",), ("{n}",))  # shipped, as in rules/
    assert found["aider"] == Answer(("y", "Enter"), ("n", "Enter"))
    assert "nobody" not in found


@pytest.mark.parametrize(
    ("args", "call"),
    [
        (["next"], ("next", None, None, None)),
        (["next", "--client", "/dev/pts/3"], ("next", None, None, "/dev/pts/3")),
        (["-L", "work", "menu", "--client", "c"], ("menu", "work", None, "c")),
        (["menu", "-S", "/tmp/s", "--client", "c"], ("menu", None, "/tmp/s", "c")),
    ],
)
def test_the_key_shapes_take_the_short_way(args: list[str], call: tuple[str | None, ...]) -> None:
    got = parse(args)
    assert got is not None
    assert (got.command, got.socket_name, got.socket_path, got.client) == call


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["next", "--help"],
        ["status"],
        ["list"],
        ["next", "menu"],
        ["--client", "c", "next"],
        ["next", "--client"],
        ["next", "--client=c"],
        ["-L", "a", "-L", "b", "next"],
        ["-L", "a", "-S", "/b", "next"],
        ["next", "-L", "-x"],
        ["next", "extra"],
    ],
)
def test_everything_else_goes_to_click(args: list[str]) -> None:
    assert parse(args) is None


def test_the_key_commands_import_neither_click_nor_the_daemon_nor_the_emulator() -> None:
    """What a key press costs is mostly what it imports (bench/key_bench.py has the times)."""
    code = (
        "import sys\n"
        "from osf_tmux.cli import main, keys\n"
        "from osf_tmux.daemon import lifecycle\n"
        "from osf_tmux.plugin import jump, overview\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    heavy = {"click", "logging", "tomllib", "typing", "osf_tmux.vt.screen", "osf_tmux.vt.stream",
             "osf_tmux.judge.classify", "osf_tmux.judge.manifest", "osf_tmux.daemon.loop",
             "osf_tmux.agents", "osf_tmux.plugin.notify", "osf_tmux.cli.app",
             "osf_tmux.plugin.load", "osf_tmux.plugin.options"}  # fmt: skip
    assert not heavy & loaded, sorted(heavy & loaded)


def test_the_pane_the_client_shows_gets_a_row_to_say_osf_tmux_is_wrong() -> None:
    """Issue 33: a row (key !) that asks what the pane really is, each answer running
    `osf-tmux capture` on that pane with that state; none when the client shows no agent."""
    shown = pane("%9", "idle")
    seen = Overview(order([BLOCKED, shown]), View("%9", 120, 40), {})

    def capture(pane_id: str, state: str) -> str:
        return f"run-shell -b 'capture --state {state} {pane_id}'"

    rows = menu_items(seen, {"claude": CLAUDE}, answer, 160.0, "/dev/pts/3", None, capture)
    [wrong] = [r for r in rows if r.key == "!"]
    assert "osf-tmux is wrong about this pane (idle)" in wrong.name
    assert wrong.command.startswith("display-menu -c /dev/pts/3 ")
    for state in ("blocked", "working", "idle"):
        assert f"capture --state {state} %9" in wrong.command
    assert "%2" not in wrong.command
    elsewhere = Overview(order([BLOCKED]), View("%9", 120, 40), {})
    rows = menu_items(elsewhere, {"claude": CLAUDE}, answer, 160.0, None, None, capture)
    assert not [r for r in rows if r.key == "!"]
