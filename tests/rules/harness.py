"""What every rule test shares, written once: the shipped rules (loaded once per process), the
screens a test draws (from rows, from a text sketch, from bytes a terminal prints, from a
capture's bytes at its labelled offsets), the verdict, and the parametrized tests over a table of
cases. An agent's test file keeps its data (its screens and what they must read) and the tests
that are its own."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.daemon.identify import manifest_for
from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest, load_manifest
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.tmux import PaneInfo
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot
from tests.support.panes import pane_info

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"
CAPTURES = ROOT / "captures"
STATES = ("blocked", "working", "idle")

# (id, screen, the state it must read)
ScreenCase = tuple[str, Snapshot, str]
# id -> (sketch text, cols, rows)
SketchTable = Mapping[str, tuple[str, int, int]]


# ---- rules ------------------------------------------------------------------------------------


@functools.cache
def manifest_of(agent: str) -> Manifest:
    """rules/AGENT.toml, parsed once per process (a Manifest is frozen: tests share it)."""
    return load_manifest(RULES / f"{agent}.toml")


def manifest_fixture(agent: str) -> Any:
    """A module's `manifest` fixture: `manifest = manifest_fixture("kimi")`."""

    @pytest.fixture(scope="module")
    def manifest() -> Manifest:
        return manifest_of(agent)

    return manifest


@functools.cache
def shipped_rules() -> RuleSet:
    """Every shipped manifest (no user folder), parsed once per process."""
    return load_rules(None)


def agent_of(argv: list[str]) -> str | None:
    """The agent a process's command line names, by the shipped rules."""
    found = shipped_rules().for_process(argv)
    return found.agent if found else None


def foreground_agent(
    commands: list[list[str]], info: PaneInfo | None = None, rules: RuleSet | None = None
) -> str | None:
    """The agent identification finds in a pane whose foreground processes run `commands`."""
    found = manifest_for(
        rules or shipped_rules(), info or pane_info(), lambda pid: commands, 0.0, 30.0
    )
    return found.agent if found else None


# ---- screens ----------------------------------------------------------------------------------


def stacked(top: list[str], bottom: list[str], cols: int, rows: int = 24) -> Snapshot:
    """`top` from the first row down (the transcript), `bottom` against the last row; rows
    wider than the pane are cut."""
    lines = [line[:cols] for line in top]
    lower = [line[:cols] for line in bottom]
    gap = rows - len(lines) - len(lower)
    assert gap >= 0, "more rows than the pane has"
    return Snapshot.from_text("\n".join([*lines, *([""] * gap), *lower]), cols)


def from_top(lines: list[str], cols: int, rows: int, blank_under: int = 2) -> Snapshot:
    """`lines` at the top of the pane with `blank_under` blank rows after them, scrolled as a
    terminal does when they do not fit."""
    assert all(len(line) <= cols for line in lines), "a row is wider than the pane"
    shown = [*lines, *[""] * blank_under][-rows:]
    return Snapshot.from_text("\n".join(shown + [""] * (rows - len(shown))), cols)


def from_bottom(
    lines: list[str],
    cols: int,
    rows: int,
    *,
    cut: bool = False,
    title: str = "",
    alt_screen: bool = False,
    cursor: tuple[int, int] | None = None,
) -> Snapshot:
    """`lines` as the bottom of the pane (the top ones scrolled off when they do not fit);
    with `cut`, rows wider than the pane are cut, else they fail the test."""
    if cut:
        lines = [line[:cols] for line in lines]
    assert all(len(line) <= cols for line in lines), "a row is wider than the pane"
    shown = lines[-rows:]
    text = "\n".join([""] * (rows - len(shown)) + shown)
    snap = Snapshot.from_text(text, cols, title=title, alt_screen=alt_screen)
    return snap if cursor is None else dataclasses.replace(snap, cursor=cursor)


def typed(text: str, cols: int, rows: int, cursor: tuple[int, int] | str = "end") -> Snapshot:
    """`text` as the top of a `cols`x`rows` pane. `cursor`: (x, y), "end" = after the last
    non-blank row's text (where a program leaves it after a question or an input prompt),
    "below" = the start of the row under it."""
    lines = text.strip("\n").split("\n")
    assert len(lines) <= rows, "screen text taller than the pane"
    assert all(len(line) <= cols for line in lines), "a row is wider than the pane"
    snap = Snapshot.from_text("\n".join(lines + [""] * (rows - len(lines))), cols)
    if isinstance(cursor, str):
        last = max(i for i, row in enumerate(snap.rows) if row.strip())
        cursor = (len(snap.rows[last]), last) if cursor == "end" else (0, last + 1)
    return dataclasses.replace(snap, cursor=cursor)


def sketch(
    text: str, cols: int = 80, rows: int = 24, title: str = "", alt_screen: bool = True
) -> Snapshot:
    """A pane of `cols` x `rows` showing `text`: its last `rows` lines, blank rows below.

    Placeholders keep a sketch's lines short and its width free: `{RULE}` is a full-width `─`
    rule, `{DASH}` a full-width `╌` rule, `{BOXTOP}`/`{BOXBOT}` rounded box edges, a row starting
    with `|` a box row padded to the box's width, and a row ending in `{PANEL}` the left part of
    a pane split by a side panel (its rules as wide as that part, then the panel's `│`)."""
    panel = (cols * 11) // 24
    lines: list[str] = []
    for raw in text.strip("\n").split("\n"):
        line = raw
        if line.endswith("{PANEL}"):
            body = line[: -len("{PANEL}")]
            body = body.replace("{RULE}", "─" * panel).replace("{DASH}", "╌" * panel)
            line = body.ljust(panel)[:panel] + "│"
        line = (
            line.replace("{RULE}", "─" * cols)
            .replace("{DASH}", "╌" * cols)
            .replace("{BOXTOP}", "╭" + "─" * (cols - 2) + "╮")
            .replace("{BOXBOT}", "╰" + "─" * (cols - 2) + "╯")
        )
        if line.startswith("|"):
            line = "│" + line[1:].ljust(cols - 2)[: cols - 2] + "│"
        lines.append(line[:cols])
    lines = lines[-rows:]
    lines += [""] * (rows - len(lines))
    return Snapshot.from_text("\n".join(lines), cols, title=title, alt_screen=alt_screen)


def printed(text: str, cols: int = 80, rows: int = 24) -> Snapshot:
    """What a terminal shows after printing `text` (\\n as a newline): the cursor where the
    printing left it."""
    pane = PaneScreen(cols, rows)
    pane.feed(text.replace("\n", "\r\n").encode())
    return pane.snapshot()


# ---- captures ---------------------------------------------------------------------------------


@functools.cache
def labelled_screens(base: Path) -> tuple[tuple[dict[str, Any], Snapshot], ...]:
    """A capture's labelled segments with the screen at each one's offset (`base` is the capture
    without its `.bytes` ending). The bytes are replayed once per process however many tests
    read them."""
    labels = json.loads(base.with_name(base.name + ".labels.json").read_text())
    data = base.with_name(base.name + ".bytes").read_bytes()
    segs = labels["segments"]
    snaps = snapshots_at(data, labels["cols"], labels["rows"], [s["offset"] for s in segs])
    return tuple((seg, snap) for seg, (_, snap) in zip(segs, snaps, strict=True))


def state_in_name(path: Path, default: str | None = None) -> str:
    """The state a lab snapshot file names (`03-blocked.txt`), else `default`."""
    found = next((s for s in STATES if s in path.stem), default)
    assert found is not None, f"{path.name} names no state"
    return found


def snapshot_files(globs: Iterable[str], root: Path = CAPTURES) -> list[Path]:
    """The lab's `*.snapshots/*.txt` files (tmux's own view of each labelled point) matching
    `globs`, but the `zz-final` ones (the pane after the agent left)."""
    found = [p for g in globs for p in sorted(root.glob(g))]
    return [p for p in found if "zz-final" not in p.name]


def snapshot_id(path: Path, parents: int = 1) -> str:
    """`folder/file.txt`, with `parents` folders."""
    return "/".join([*(path.parents[i].name for i in reversed(range(parents))), path.name])


def snapshot_size(path: Path) -> tuple[int, int]:
    """The pane's size a snapshot file's folder names (`shell_approve-80x24.snapshots`)."""
    cols, rows = path.parent.name.removesuffix(".snapshots").rsplit("-", 1)[1].split("x")
    return int(cols), int(rows)


def read_snapshot(path: Path, cols: int | None = None) -> Snapshot:
    """A lab snapshot file as a screen `cols` wide (by default: as its folder names)."""
    width = snapshot_size(path)[0] if cols is None else cols
    return Snapshot.from_text(path.read_text(encoding="utf-8").rstrip("\n"), width)


# ---- verdicts ---------------------------------------------------------------------------------


def read(snap: Snapshot, manifest: Manifest) -> tuple[str, str | None]:
    """The state a screen reads and the rule that said so."""
    verdict = classify(snap, manifest)
    return verdict.state, verdict.rule


def state_rule(snap: Snapshot, manifest: Manifest) -> str:
    """`state:rule` (`idle:None` where no rule matched), one string to compare."""
    state, rule = read(snap, manifest)
    return f"{state}:{rule}"


def assert_reads(
    snap: Snapshot, manifest: Manifest, want: str, rule: str | None = None, name: str = ""
) -> None:
    """`snap` reads `want` (by `rule`, where given)."""
    got, by = read(snap, manifest)
    where = f"{name}: " if name else ""
    assert got == want, f"{where}got {got} by rule {by}"
    if rule is not None:
        assert by == rule, f"{where}{got} by rule {by}, not {rule}"


def screen_cases(cases: Sequence[ScreenCase]) -> pytest.MarkDecorator:
    """Parametrize a test `(snap, want, manifest)` over (id, screen, state) cases."""
    return pytest.mark.parametrize(
        ("snap", "want"), [(s, w) for _, s, w in cases], ids=[n for n, _, _ in cases]
    )


def screens_test(cases: Sequence[ScreenCase]) -> Callable[[Snapshot, str, Manifest], None]:
    """The test every case of a table must pass: its screen reads its state. Assign it to a
    `test_...` name in the module."""

    @screen_cases(cases)
    def test(snap: Snapshot, want: str, manifest: Manifest) -> None:
        assert_reads(snap, manifest, want)

    return test


def sketch_test(
    table: SketchTable,
    want: str,
    rule: str | None = None,
    screen: Callable[[str, int, int], Snapshot] = sketch,
) -> Callable[[str, Manifest], None]:
    """A test over `table` (id -> sketch, cols, rows), each drawn by `screen`: every one reads
    `want` (by `rule`, where given). Assign it to a `test_...` name in the module; its cases'
    ids are the table's keys."""

    @pytest.mark.parametrize("name", sorted(table))
    def test(name: str, manifest: Manifest) -> None:
        text, cols, rows = table[name]
        assert_reads(screen(text, cols, rows), manifest, want, rule, name)

    return test


def snapshots_test(
    paths: Sequence[Path],
    parents: int = 1,
    cols: int | None = None,
    default: str | None = None,
    blocked_rule: str | None = None,
) -> Callable[[Path, Manifest], None]:
    """The test every lab snapshot file must pass: it reads the state its name says (`default`
    where it names none), a blocked one by `blocked_rule` where given. Ids: the file with
    `parents` folders. Assign it to a `test_...` name in the module."""

    @pytest.mark.parametrize("path", paths, ids=[snapshot_id(p, parents) for p in paths])
    def test(path: Path, manifest: Manifest) -> None:
        want = state_in_name(path, default)
        rule = blocked_rule if want == "blocked" else None
        assert_reads(read_snapshot(path, cols), manifest, want, rule, path.name)

    return test


def process_tests(
    agent: str, taken: list[list[str]], not_taken: list[list[str]]
) -> tuple[Callable[[list[str]], None], Callable[[list[str]], None]]:
    """Two tests: each command line of `taken` is identified as `agent`, none of `not_taken`
    is. Assign them to two `test_...` names in the module."""

    @pytest.mark.parametrize("argv", taken)
    def test_taken(argv: list[str]) -> None:
        assert agent_of(argv) == agent

    @pytest.mark.parametrize("argv", not_taken)
    def test_not_taken(argv: list[str]) -> None:
        assert agent_of(argv) != agent

    return test_taken, test_not_taken


def process_table_test(
    cases: list[tuple[list[str], str | None]],
) -> Callable[[list[str], str | None], None]:
    """The test every (command line, agent or None) case must pass. Assign it to a `test_...`
    name in the module."""

    @pytest.mark.parametrize(("argv", "want"), cases)
    def test(argv: list[str], want: str | None) -> None:
        assert agent_of(argv) == want

    return test


def answer_keys(
    manifest: Manifest, *words: str, rule: str | None = None
) -> tuple[tuple[str, ...] | None, ...]:
    """The keys each of `words` (`yes`, `no`, a digit) types: by the manifest's answer, or by
    the answer of its rule `rule` (that rule's own, not the manifest's)."""
    answer = (
        manifest.answer if rule is None else next(r for r in manifest.rules if r.id == rule).answer
    )
    assert answer is not None, f"no answer keys ({rule or manifest.agent})"
    return tuple(answer.keys(w) for w in words)
