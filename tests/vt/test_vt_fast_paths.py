"""The parser's fast paths (one tokenizing regex, text with SGR inside, runs of inert sequences,
whole text runs written as slices) against the byte state machine alone, which has no fast path
at all: the same screens and the same state, whole, cut anywhere, and on real captures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osf_tmux.vt import kept, state_machine, stream
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.screen import INERT_CSI, TmuxScreen
from osf_tmux.vt.stream import Parser
from tests.support.examples import examples
from tests.support.screen_digests import parts, size_of, state
from tools.capture_states import offsets

ROOT = Path(__file__).resolve().parents[2]
CAPTURE_FOLDERS = sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())


class StateMachineOnly(Parser):
    """Every byte through `_step`: printable bytes one at a time, every sequence stepped."""

    def feed(self, data: bytes) -> None:
        for b in data:
            self._step(b)


def slow_pane(cols: int, rows: int) -> PaneScreen:
    pane = PaneScreen(cols, rows)
    pane._parser = StateMachineOnly(pane._screen)
    return pane


def fed(chunks: list[bytes], cols: int = 12, rows: int = 5, slow: bool = False) -> str:
    pane = slow_pane(cols, rows) if slow else PaneScreen(cols, rows)
    for chunk in chunks:
        pane.feed(chunk)
    return state(pane)


WIDE = "界".encode()
CASES = [
    # SGR around every word, in text, at the ends, with sub-parameters, prefixes, intermediates
    b"\x1b[1mab\x1b[0m \x1b[38;2;1;2;3mcd\x1b[39m\x1b[49m\x1b[0m",
    b"a\x1b[38:2::1:2:3mb\x1b[>4;2mc\x1b[?4md\x1b[1 me\x1b[?   mf",
    # REP after text whose last character is ASCII, after a trailing SGR, after UTF-8
    b"ab\x1b[0mc\x1b[3b|ab\x1b[0m\x1b[3b|a\xc3\xa9\x1b[3b",
    # a UTF-8 character cut by an SGR, invalid UTF-8 between SGRs, a lone lead byte before text
    b"\xe2\x94\x1b[0m\x80x\xe2\x1b[0m\x1b[1my\xff\x1b[0m\xc3\xa9\xed\xa0\x80z",
    b"\xe4\xb8" + b"\x1b[0mab\x1b[0m\xe4",
    # synchronized output and other untracked modes next to tracked ones (also with zeros)
    b"\x1b[?2026hab\x1b[?25l\x1b[?2026l\x1b[?1004h\x1b[?0025l\x1b[?25;2026hcd\x1b[?12l",
    b"x\x1b[?1049h\x1b[?2004hin alt\x1b[?1049l\x1b[?47h\x1b[?47l\x1b[?7lnowrap-long-text\x1b[?7h",
    b"\x1b[?6h\x1b[2;4r\x1b[Hq\x1b[?6l\x1b[?3h",
    # mixed ASCII and other narrow text over wide characters, across the last column
    WIDE * 6 + b"\r\x1b[1Cab\xe2\x94\x80cd\xe2\x94\x80" + WIDE + b"ef\xe2\x94\x80\x1b[0mgh",
    WIDE * 6 + b"\r\xe2\x94\x80" + b"a" * 20 + b"\xe2\x94\x80" * 14,
    # ZWJ held back, then mixed text; combining marks; insert mode and no wrap with mixed text
    "a\u200d".encode() + b"b\xe2\x94\x80c\xcc\x81d",
    b"\x1b[4h" + WIDE + b"ab\xe2\x94\x80c\x1b[4l" + b"\x1b[?7l" + b"\xe2\x94\x80x" * 9,
    # ASCII without autowrap over wide characters: onto the first half of one, up to the last
    # column and past it, from the pending column
    WIDE * 6 + b"\x1b[?7l\x1b[1;3Hx\x1b[1;6Hab\x1b[1;9Hcdefgh\r\n" + WIDE * 6 + b"\x1b[2;10Hij",
    b"abcdefghijkl\x1b[?7lmn\x1b[1;11Hopq\r\x1b[4Crs\x1b[?7h\x1b[1;12Ht\x1b[?7luv",
    # ... and other narrow text, mixed with ASCII; after a ZWJ held back
    WIDE * 6
    + b"\x1b[?7l\x1b[1;3H\xe2\x94\x80\x1b[1;6Ha\xe2\x94\x80\x1b[1;9H\xe2\x94\x80" * 3
    + b"b\x1b[2b",
    b"abcdefghijkl\x1b[?7l\xe2\x94\x80\r\x1b[9C\xe2\x94\x80x\xe2\x94\x80\x1b[2b"
    + "a\u200d".encode()
    + b"\xe2\x94\x80y",
    # C0 inside CSI, CAN/SUB in the middle of text and of sequences, DEL, ESC finals
    b"ab\x1b[2\nC\x1b[1\x18mcd\x1a\x1b[0\x1bmef\x7fg\x1b7h\x1b8i\x1bMj\x1bDk\x1bEl\x1b\\m\x1bc",
    # OSC by BEL and by ESC, APC, DCS, overlong and malformed CSI
    b"\x1b]0;t\xc3\xa9\x07a\x1b]2;u\x1b\\b\x1b_apc\x1b\\c\x1bPq\x1b\\d\x1b[" + b"9" * 70 + b"me",
    b"\x1b[" + b"1;" * 30 + b"mf\x1b[99999999999mg\x1b[1;2;3?mh\x1b[1 2mi",
    # cursor moves among the text
    b"\x1b[3;4H\x1b[0mab\x1b[K\x1b[1A\x1b[2K\x1b[G\r\n\x1b[38;5;174m\xe2\x9c\xbb\x1b[39m x",
    # prepared runs: a live area erased upwards (past the top), from the pending-wrap column
    b"abcdefghijkl" * 5 + b"\x1b[2K" + b"\x1b[1A\x1b[2K" * 7 + b"\x1b[Gz",
    b"abcdefghijkl" * 4 + b"\x1b[2K\x1b[1A" * 2 + b"z",
    b"\x1b[2;1Habcdefghijkl" + b"\x1b[2K\x1b[1B" * 2 + b"y",
    b"\x1b[5;1Habcdefghijkl\x1b[2K\x1b[2A\x1b[2K\x1b[2A\x1b[2K\x1b[0K\x1b[1A\x1b[1Kq",
    # ... downwards (past the bottom), with a zero and a sub-parameter count, then back up
    b"row1\r\nrow2\r\nrow3\x1b[H"
    + b"\x1b[2K\x1b[1B" * 6
    + b"\x1b[2K\x1b[0B\x1b[2K\x1b[1:2B\x1b[9Az",
    # ... inside, above and below a scroll region, and in origin mode
    b"abc\r\ndef\r\nghi\r\njkl\r\nmno\x1b[2;3r\x1b[3;1H" + b"\x1b[2K\x1b[1A" * 4 + b"x",
    b"abc\r\ndef\r\nghi\r\njkl\r\nmno\x1b[3;4r\x1b[2;1H" + b"\x1b[2K\x1b[1B" * 4 + b"y"
    b"\x1b[5;9H" + b"\x1b[2K\x1b[1A" * 3 + b"\x1b[1;1H" + b"\x1b[2K\x1b[1B" * 5 + b"z",
    b"\x1b[2;4r\x1b[?6h\x1b[2;2Hab\x1b[9;9Hcd\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[3G\x1b[4;1He"
    b"\x1b[?6l\x1b[5;5H\x1b[2K\x1b[4B\x1b[2K\x1b[4B\x1b[2Kf",
    # CR LF runs that scroll (whole screen and region), VT and FF, other controls in a run
    b"a\r\n\r\n\r\n\r\n\r\n\r\nb\x1b[2;3r\x1b[3;1Hc\r\n\r\n\r\nd\x0b\x0c\x1b[Ke\x00\x07\x0ef",
    b"abcdefghijkl\r\n\r\nx\t\x1b[2Ky\x08\x08\x1b[0Kz\x1b[1@\x1b[2P\x1b[3X\x1b[1;1f!",
    # a CUP after other moves, REP first in a run and later in it, after controls
    b"ab\x1b[1A\x1b[3C\r\x1b[2;2H\x1b[3G\x1b[1;1Hc\x1b[3b\x1b[1;5H\x1b[2b\x1b[0m\x1b[2bd\r\x1b[2b",
    b"ab\x1b[3bcd\x1b[K\x1b[2be\x1b[?25l\x1b[2bf\x1b[1:2b\x1b[2bg\n\x1b[2b",
    # C0 in a run with a half-read UTF-8 character before it; a known token after a half one
    b"ab\r\xe4\xb8\x1b[1A\x1b[2K\nab\xe4\xb8\x1b[2Kab\xe4\x1b[0m\x1b[1Bab",
    b"a\xe4\xb8\x1b[1A\n\x80b\xe4\xb8\r\x80c\xe4\xb8\x1b[2K\x80d\xe4\x1b[0m\x1b[1B\xb8\x80",
    # OSCs in a run: titles (one refused: not UTF-8), hyperlinks; REP after one; an OSC's BEL
    # does not cancel a half-read character, a C0 control does
    b"ab\x1b]8;;\x07\r\r\n\x1b[2K\x1b]0;t\xc3\xa9\x07c\x1b]8;;\x07\x1b[2bd\x1b]2;\xff\x07\x1b]2;u\x07",
    b"c\x1b]8;;\x07\x1b[2b\xe4\xb8\x1b]8;;\x07\x80d",
    b"\xe4\xb8\x1b]8;;\x07\r\x80e\xe4\x1b]0;x\x1b\\\xb8\x80f",
    # private modes in a run: alternate screen, wrap off, origin on, then moves
    b"main\x1b[?1049h\x1b[2K\x1b[1Aalt\x1b[?7l\x1b[?6h\x1b[G\x1b[2Kabcdefghijklmnop\x1b[?1049l\x1b[2K",
]


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_whole_and_cut_anywhere_equal_the_state_machine(data: bytes) -> None:
    expected = fed([data], slow=True)
    assert fed([data]) == expected
    for at in range(len(data) + 1):
        assert fed([data[:at], data[at:]]) == expected, at
    assert fed([data[i : i + 1] for i in range(len(data))]) == expected


ALPHABET = [
    b"a", b"bc", b" ", b"xyz ", b"\xe2\x94\x80", WIDE, "\u200d".encode(), b"\xcc\x81",
    b"\xe2\x94", b"\x80", b"\xff", b"\xc3", b"\xf0\x9f\x98\x80",
    b"\x1b[0m", b"\x1b[38;2;1;2;3m", b"\x1b[39m\x1b[49m", b"\x1b[>4m", b"\x1b[4:3m",
    b"\x1b[?2026h", b"\x1b[?2026l", b"\x1b[?25l", b"\x1b[?25h", b"\x1b[?0025l", b"\x1b[?1004h",
    b"\x1b[?7l", b"\x1b[?7h", b"\x1b[4h", b"\x1b[4l", b"\x1b[?1049h", b"\x1b[?1049l",
    b"\x1b[2b", b"\x1b[H", b"\x1b[2;3H", b"\x1b[K", b"\x1b[2K", b"\x1b[A", b"\x1b[5G",
    b"\r", b"\n", b"\x08", b"\t", b"\x18", b"\x1a", b"\x7f", b"\x1b", b"[", b"7", b"]",
    b"\x07", b"\x1b]0;t\x07", b"\x1b\\",
    b"\x1b[2K\x1b[1A", b"\x1b[2K\x1b[1B", b"\x1b[2K\x1b[2A", b"\x1b[3A", b"\x1b[2B", b"\x1b[1:2A",
    b"\x1b[0K", b"\x1b[1K", b"\x1b[2;4r", b"\x1b[r", b"\x1b[?6h", b"\x1b[?6l", b"\r\n", b"\x1b[G",
    b"\x1b[3G", b"\x1b[4d", b"\x1b[3;1f", b"\x0b", b"\x0c", b"\x00", b"abcdefghijkl",
]  # fmt: skip
streams = st.lists(st.sampled_from(ALPHABET), max_size=60).map(b"".join)
SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(data=streams, cuts=st.lists(st.integers(0, 300), max_size=5))
def test_random_streams_equal_the_state_machine(data: bytes, cuts: list[int]) -> None:
    expected = fed([data], slow=True)
    assert fed([data]) == expected
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert fed(chunks) == expected


# -- the screen's half: print_run against print_ascii/print_text run by run -------------------

cells = st.lists(st.sampled_from(["a", "界", "─", " "]), min_size=0, max_size=20).map("".join)
texts = st.lists(
    st.sampled_from(["ab", "c", "─", "é", "界", "x y", "\u200d", "\u0301"]), max_size=12
)


@SETTINGS
@given(
    row=cells,
    x=st.integers(0, 12),
    pieces=texts,
    wrap=st.booleans(),
    insert=st.booleans(),
)
def test_print_run_prints_like_its_runs(
    row: str, x: int, pieces: list[str], wrap: bool, insert: bool
) -> None:
    text = "".join(pieces)
    if not text:
        return
    screens = []
    for _ in range(2):
        s = TmuxScreen(8, 3)
        s.print_text(row)  # wide characters to land on, wrapped onto later rows
        s.cx, s.cy = min(x, 8), 0
        s.mode_wrap, s.mode_insert = wrap, insert
        screens.append(s)
    fast, runs = screens
    fast.print_run(text)
    for run in re.findall(r"[\x20-\x7e]+|[^\x20-\x7e]+", text):
        if run.isascii():
            runs.print_ascii(run)
        else:
            runs.print_text(run)
    assert (fast.grid.lines, fast.grid.wrapped, fast.cx, fast.cy, fast.last) == (
        runs.grid.lines,
        runs.grid.wrapped,
        runs.cx,
        runs.cy,
        runs.last,
    )
    assert fast.zwj_pending == runs.zwj_pending


# -- the screen's half: a prepared run against its calls one by one ----------------------------

RUN_PIECES = [
    b"\x1b[2K", b"\x1b[1A", b"\x1b[2A", b"\x1b[1B", b"\x1b[3B", b"\x1b[K", b"\x1b[0K", b"\x1b[1K",
    b"\x1b[3K", b"\x1b[5G", b"\x1b[0G", b"\x1b[3;4H", b"\x1b[H", b"\x1b[9;9H", b"\x1b[;3f",
    b"\x1b[1:2H", b"\x1b[2b", b"\x1b[0m", b"\x1b[?7l", b"\x1b[?6h", b"\x1b[?6l", b"\x1b[?25l",
    b"\x1b[1:2A", b"\x1b[2@", b"\x1b[S", b"\x1b[2;3r", b"\x1b[4d", b"\x1b[2C", b"\x1b[1D",
    b"\x1b[>1A", b"\x1b[ q", b"\x1b[2J", b"\r", b"\n", b"\x08", b"\t", b"\x0b", b"\x00",
    b"\x1b[?2026h", b"\x1b[?25;2026l", b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b[?3h",
    b"\x1b[?1004;7h", b"\x1b[?47;25h", b"\x1b[?1:2;25h", b"\x1b]0;t\x07", b"\x1b]8;;\x07",
    b"\x1b]2;t\xc3\xa9\x07", b"\x1b]2;\xff\x07", b"\x1b]22;\x07",
]  # fmt: skip


def _items(pieces: list[bytes]) -> state_machine.CsiRun:
    inert = re.compile(INERT_CSI)
    items: list[state_machine.CsiCall | int | bytes | None] = []
    for piece in pieces:
        if len(piece) == 1:
            items.append(piece[0])
        elif piece.startswith(b"\x1b]"):
            items.append(piece[2:-1])
        else:
            items.append(None if inert.fullmatch(piece) else Parser._parse_csi(piece))
    return tuple(items)


@SETTINGS
@given(
    pieces=st.lists(st.sampled_from(RUN_PIECES), min_size=1, max_size=16),
    x=st.integers(0, 8),
    y=st.integers(0, 5),
    region=st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda r: r[0] < r[1]),
    origin=st.booleans(),
    last=st.sampled_from([None, "q"]),
)
def test_a_prepared_run_does_what_its_calls_do(
    pieces: list[bytes],
    x: int,
    y: int,
    region: tuple[int, int],
    origin: bool,
    last: str | None,
) -> None:
    items = _items(pieces)
    panes = []
    for _ in range(2):
        pane = PaneScreen(8, 6)
        s = pane._screen
        s.print_text("─界" * 30)  # every row written, wide characters to land on
        s.cx, s.cy = x, y
        s.rupper, s.rlower = region
        s.mode_origin, s.last = origin, last
        panes.append(pane)
    prepared, calls = panes
    fn, arg = prepared._screen.prepare_run(items)
    fn(prepared._screen, arg)
    t = calls._screen
    for item in items:
        if item is None:
            t.swallowed()
        elif isinstance(item, int):
            t.execute(item)
        elif isinstance(item, bytes):
            t.osc_dispatch(item)
        else:
            t.csi_dispatch(*item)
    assert state(prepared) == state(calls)


def test_rows_erased_in_a_run_that_show_nothing_but_hold_padding() -> None:
    # Erasing rows in a run leaves a row alone when its rendered text says it is blank; the
    # padding of a wide character whose first cell was erased renders as nothing too.
    chunks = ["\x1b[2;1H界\r\x1b[1K".encode(), b"\x1b[2K\x1b[1A", "\x1b[2;1H──".encode()]
    panes = [PaneScreen(10, 3), slow_pane(10, 3)]
    for pane in panes:
        for chunk in chunks:
            pane.feed(chunk)
            pane.snapshot()  # each row's text is kept until the row changes
    assert panes[0].snapshot().rows[1] == "──"
    assert state(panes[0]) == state(panes[1])


@pytest.mark.parametrize("final", ["h", "l"])
def test_private_modes_the_prepared_run_leaves_out_do_nothing(final: str) -> None:
    for mode in [*range(0, 1100), 1900, 2004, 2026, 9001]:
        seq = f"\x1b[?{mode}{final}".encode()
        panes = []
        for _ in range(2):
            pane = PaneScreen(8, 6)
            # Each mode modelled would change something: set the other way first.
            pane.feed(b"ab\x1b[2;5r\x1b[4;3Hc")
            pane.feed(b"\x1b[?1049h\x1b[?6h" if final == "l" else b"\x1b[?7l\x1b[?25l")
            panes.append(pane)
        prepared, calls = panes
        fn, arg = prepared._screen.prepare_run(_items([seq]))
        fn(prepared._screen, arg)
        calls._screen.csi_dispatch(*_items([seq])[0])  # type: ignore[misc]
        assert state(prepared) == state(calls), seq


# -- what the screen calls inert changes nothing ---------------------------------------------


def test_inert_sequences_change_nothing_but_reps_character() -> None:
    inert = re.compile(INERT_CSI)
    setup = b"ab\x1b[2;3r\x1b[4h\x1b[?6h\x1b[3;2Hc"
    base = slow_pane(10, 5)
    base.feed(setup + b"\x1b[m")  # a sequence: REP's character cleared, as the inert ones do
    expected = state(base)
    candidates = [
        f"\x1b[{p}{n}{i}{f}".encode()
        for p in ("", "?", ">")
        for n in ("", "1", "38;2;1;2;3", "4:3", "9" * 70, "1;" * 30)
        for i in ("", " ", "!!!!")
        for f in "mhlHJK"
    ]
    seen = 0
    for seq in candidates:
        if inert.fullmatch(seq):
            seen += 1
            pane = slow_pane(10, 5)
            pane.feed(setup + seq)
            assert state(pane) == expected, seq
    assert seen == 3 * 6 * 3
    for seq in (b"\x1b[?25l", b"\x1b[?2026h", b"\x1b[3b", b"\x1b[1\nm", b"\x1b[1 2m"):
        assert not inert.fullmatch(seq)


# -- real captures ---------------------------------------------------------------------------


def _compare_capture(capture: Path, limit: int | None = None) -> int:
    data = capture.read_bytes()
    size = size_of(capture)
    fast, slow = PaneScreen(*size), slow_pane(*size)
    start = 0
    points = [o for o in offsets(capture) if limit is None or o <= limit]
    for end in points:
        fast.feed(data[start:end])
        slow.feed(data[start:end])
        start = end
        assert same_state(fast, slow), f"{capture.name} at {end}"
    return len(points)


# The parts of `parts` that hold cells: lists of one-character strings, where `==` tells what
# `repr` tells, without writing out every cell of the grid and the history at every read (that
# was most of this comparison's time). The rest is compared by its `repr`, as `state` hashes it.
CELLS = (1, 3, 4)


def same_state(a: PaneScreen, b: PaneScreen) -> bool:
    """Whether two panes hold the same state: what `state` hashes, compared whole."""
    mine, theirs = parts(a), parts(b)
    return len(mine) == len(theirs) and all(
        mine[i] == theirs[i] if i in CELLS else repr(mine[i]) == repr(theirs[i])
        for i in range(len(mine))
    )


@pytest.mark.parametrize("folder", CAPTURE_FOLDERS, ids=lambda p: p.name)
def test_a_capture_of_each_folder_equals_the_state_machine(folder: Path) -> None:
    # Its first 20,000 bytes; a quarter of them in the fast tier (the slow tier's test below
    # compares every capture whole).
    capture = sorted(folder.glob("*.bytes"))[0]
    assert _compare_capture(capture, limit=examples(20000)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("folder", CAPTURE_FOLDERS, ids=lambda p: p.name)
def test_every_capture_equals_the_state_machine_at_every_read(folder: Path) -> None:
    for capture in sorted(folder.glob("*.bytes")):
        _compare_capture(capture)


def test_an_osc_too_long_to_keep_does_nothing_in_a_run() -> None:
    # tmux discards it without a trace: REP's character survives it, even across feeds.
    osc = b"\x1b]0;" + b"x" * state_machine.MAX_STRING + b"\x07"
    for chunks in ([b"ab" + osc + b"\x1b[2b"], [b"ab" + osc, b"\x1b[2b"], [b"ab", osc + b"c"]):
        assert fed(chunks) == fed(chunks, slow=True)
    pane = PaneScreen(12, 5)
    pane.feed(b"ab" + osc)
    pane.feed(b"\x1b[2b")
    assert pane.snapshot().rows[0] == "abbb"
    assert pane.snapshot().title == ""


def test_the_run_cache_stays_bounded_and_long_runs_are_not_kept() -> None:
    pane = PaneScreen(20, 5)
    runs = pane._parser._runs
    for k in range(5000):
        pane.feed(f"\x1b[{k % 5 + 1};{k % 7 + 1}H\x1b[38;5;{k}m\x1b[{k}X".encode())
    assert 0 < runs.held() <= 2 * kept.LIMIT
    long_run = b"\x1b[1;1H" * 100
    pane.feed(long_run + b"x")
    assert long_run not in runs
    assert pane.snapshot().rows[0].startswith("x")


def test_the_text_caches_stay_bounded_and_long_tokens_are_not_kept() -> None:
    from osf_tmux.vt import printing

    pane = PaneScreen(80, 5)
    texts = pane._parser._texts
    turns = kept.PARSER.turns
    for k in range(3000):
        pane.feed(f"\x1b[H{f'─{k:04}─' * 10}\x1b[1m{k}".encode())
    assert kept.PARSER.turns > turns + 2  # more than the budget went through them
    assert 0 < texts.held() <= 2 * kept.LIMIT
    assert 0 < printing._NARROW_CELLS.held() <= 2 * kept.LIMIT
    long_token = "─" * max(stream._TEXT_CACHE_BYTES // 3 + 1, printing._NARROW_TEXT_LEN + 1)
    pane.feed(f"\x1b[H{long_token}".encode())
    assert long_token.encode() not in texts
    assert long_token not in printing._NARROW_CELLS
    assert pane.snapshot().rows[0] == "─" * 80


# -- whole lines kept and done again (stream._line_caches) ------------------------------------

LINE_PIECES = [p for p in ALPHABET if b"\n" not in p]
lines = st.lists(st.sampled_from(LINE_PIECES), max_size=8).map(lambda p: b"".join(p) + b"\r\n")


@SETTINGS
@given(
    kinds=st.lists(lines, min_size=1, max_size=4),
    picks=st.lists(st.integers(0, 3), min_size=1, max_size=24),
    cuts=st.lists(st.integers(0, 400), max_size=4),
)
def test_lines_that_come_again_equal_the_state_machine(
    kinds: list[bytes], picks: list[int], cuts: list[int]
) -> None:
    # A few lines over and over, as an agent repaints its live area: each is kept the second
    # time and done from the cache after that, whole or with the feed cut inside it.
    data = b"".join(kinds[k % len(kinds)] for k in picks) * 3
    expected = fed([data], slow=True)
    assert fed([data]) == expected
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert fed(chunks) == expected


def test_a_line_is_kept_the_second_time_and_done_from_the_cache_the_third() -> None:
    line = b"\x1b[2K\x1b[38;2;1;2;3m\xe2\x94\x80 kept line \xe2\x94\x80\x1b[39m\r\n"
    pane = PaneScreen(30, 6)
    cache = pane._parser._lines
    cache.clear()  # shared by the process's parsers: a full one would start again mid-test
    pane.feed(line)
    assert cache.get(line) is stream._ONCE  # seen once
    pane.feed(line)
    assert cache.get(line) not in (None, stream._ONCE)  # what its tokens did
    calls: list[str] = []
    original = pane._parser._text_re

    class Watch:
        def match(self, data: bytes, pos: int, endpos: int) -> re.Match[bytes] | None:
            calls.append("text")
            return original.match(data, pos, endpos)

    pane._parser._text_re = Watch()  # type: ignore[assignment]
    pane.feed(line)
    assert calls == []  # nothing matched again
    assert pane.snapshot().rows[:4] == ("─ kept line ─",) * 3 + ("",)
    assert pane.snapshot().cursor == (0, 3)


@pytest.mark.parametrize(
    "before",
    [b"\xe4\xb8", b"\x1b[", b"\x1b]0;title"],
    ids=["half a character", "half a sequence", "an open OSC"],
)
def test_a_kept_line_is_not_used_after_something_unfinished(before: bytes) -> None:
    # The cache holds what a line does from the ground state with nothing half read: after a
    # cut UTF-8 character or sequence, the line's bytes mean something else.
    line = b"ab\xe2\x94\x80cd\r\n"
    for _ in range(3):
        PaneScreen(12, 5).feed(line)
    assert fed([before, line, line]) == fed([before, line, line], slow=True)
    assert fed([before + line + line]) == fed([before + line + line], slow=True)


def test_a_line_with_invalid_text_is_not_kept_and_still_equals_the_state_machine() -> None:
    line = b"\x1b[1mab\xff\xe2\x94\x80\x1b[0m\r\n"
    data = line * 4
    assert fed([data]) == fed([data], slow=True)
    assert PaneScreen(12, 5)._parser._lines.get(line) in (None, stream._ONCE)


def test_the_line_cache_stays_bounded_and_long_lines_are_not_kept() -> None:
    pane = PaneScreen(20, 5)
    cache = pane._parser._lines
    for k in range(20000):
        line = f"\x1b[H{k}\r\n".encode()
        pane.feed(line + line)
    assert 0 < cache.held() <= 2 * kept.LIMIT
    long_line = b"x" * (stream._LINE_BYTES + 1) + b"\r\n"
    pane.feed(long_line * 3)
    assert long_line not in cache


def test_output_that_does_not_come_again_stops_the_line_lookups_for_a_while() -> None:
    pane = PaneScreen(40, 6)
    cache = pane._parser._lines
    # The kept lines are shared by every parser of the process and start again when full:
    # whatever tests ran before in this process must not decide where that happens here.
    cache.clear()
    # A log: every line new. After _COLD_LINES of them, no more are looked up or marked.
    log = [f"[{k:05}] line of a log {k * 7919 % 10007}\r\n".encode() for k in range(400)]
    pane.feed(b"".join(log[: stream._COLD_LINES]))
    assert all(line in cache for line in log[: stream._COLD_LINES])
    for line in log[stream._COLD_LINES : stream._COLD_LINES + stream._COLD_FEEDS - 2]:
        pane.feed(line)
        assert line not in cache
    # Then it looks again: lines that come again are kept, and it stays on.
    footer = b"\x1b[2K\xe2\x94\x80\xe2\x94\x80 footer \xe2\x94\x80\xe2\x94\x80\r\n"
    for _ in range(4):
        pane.feed(footer)
    assert cache.get(footer) not in (None, stream._ONCE)
    for line in log[200:260]:
        pane.feed(line + footer)
    assert cache.get(log[259]) is stream._ONCE  # still looked up, seen once
    # Whatever it did, the screen is the state machine's.
    stream_bytes = (
        b"".join(log[:200]) + footer * 4 + b"".join(line + footer for line in log[200:260])
    )
    chunks = [stream_bytes[k : k + 97] for k in range(0, len(stream_bytes), 97)]
    assert fed(chunks, 40, 6) == fed([stream_bytes], 40, 6, slow=True)
