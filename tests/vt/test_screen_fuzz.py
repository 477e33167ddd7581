"""Property tests: no input raises, splitting never changes the result, cost stays linear."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot
from tests.support.examples import examples

CAPTURES = sorted((Path(__file__).resolve().parents[2] / "captures").glob("*/*.bytes"))
FAST = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# Bytes that reach every parser state: escapes, introducers, finals, C0, UTF-8 pieces.
ALPHABET = [
    b"\x1b", b"[", b"]", b"P", b"_", b"^", b"X", b"k", b"\\", b"\x07", b"\x18", b"\x1a",
    b"?", b">", b"<", b"=", b"!", b"$", b" ", b";", b":", b"0", b"1", b"9", b"99999999999",
    b"m", b"H", b"J", b"K", b"L", b"M", b"S", b"T", b"b", b"h", b"l", b"r", b"s", b"u", b"Z",
    b"`", b"@", b"P", b"X", b"t", b"7", b"8", b"#", b"c", b"D", b"E",
    b"\r", b"\n", b"\x08", b"\t", b"\x00", b"\x7f", b"a", b"xyz",
    b"\xe7\x95\x8c", b"\xe2\x80\x8d", b"\xef\xb8\x8f", b"\xcc\x81", b"\xf0\x9f\x98\x80",
    b"\xe4", b"\xb8", b"\x80", b"\xff", b"\xc0", b"\xed\xa0\x80",
    b"?1049h", b"?1049l", b"?47h", b"?7l", b"?6h", b"2;4r", b"4h",
]  # fmt: skip

escapeish = st.lists(st.sampled_from(ALPHABET), max_size=80).map(b"".join)
any_bytes = st.one_of(st.binary(max_size=300), escapeish)


def replay(chunks: list[bytes], cols: int = 12, rows: int = 5) -> Snapshot:
    screen = PaneScreen(cols, rows)
    for chunk in chunks:
        screen.feed(chunk)
    return screen.snapshot()


def check_invariants(snap: Snapshot, cols: int, rows: int) -> None:
    assert snap.cols == cols
    assert len(snap.rows) == rows
    x, y = snap.cursor
    assert 0 <= y < rows
    assert 0 <= x <= cols


@FAST
@given(data=any_bytes, cols=st.integers(1, 15), rows=st.integers(1, 6))
def test_any_bytes_never_raise(data: bytes, cols: int, rows: int) -> None:
    check_invariants(replay([data], cols, rows), cols, rows)


@FAST
@given(data=any_bytes, cuts=st.lists(st.integers(0, 400), max_size=6))
def test_split_anywhere_gives_the_same_screen(data: bytes, cuts: list[int]) -> None:
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert replay(chunks) == replay([data])


def test_byte_by_byte_equals_whole_on_captures() -> None:
    for path in CAPTURES[:6]:
        data = path.read_bytes()[:20000]
        assert replay([data[i : i + 1] for i in range(len(data))], 120, 32) == replay(
            [data], 120, 32
        ), path.name


@settings(max_examples=examples(40), deadline=None)
@given(
    index=st.integers(0, max(len(CAPTURES) - 1, 0)),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=20),
    cut=st.integers(0, 10**6),
)
def test_mutated_captures_never_raise(index: int, flips: list[tuple[int, int]], cut: int) -> None:
    if not CAPTURES:
        return
    data = bytearray(CAPTURES[index].read_bytes()[:30000])
    for pos, value in flips:
        if data:
            data[pos % len(data)] = value
    whole = bytes(data)
    at = cut % (len(whole) + 1)
    snap = replay([whole[:at], whole[at:]], 120, 32)
    check_invariants(snap, 120, 32)
    assert snap == replay([whole], 120, 32)


def _cost(data: bytes) -> float:
    """This thread's CPU time, best of five: other processes on a busy machine do not count in
    it (wall time did, and a loaded run once read 4x the input as 10.9x the time)."""
    best = float("inf")
    for _ in range(5):
        start = time.thread_time()
        replay([data[i : i + 4096] for i in range(0, len(data), 4096)], 80, 24)
        best = min(best, time.thread_time() - start)
    return best


def test_cost_is_linear() -> None:
    # Inputs that could go quadratic: a never-ending OSC/DCS string, a run of huge CSI
    # parameters, wide characters overwriting each other, scrolling, ZWJ chains.
    unit = (
        b"\x1b]2;" + b"t" * 2000 + b"\x07"
        + b"\x1bP" + b"d" * 2000 + b"\x1b\\"
        + b"\x1b[" + b"9" * 200 + b"C"
        + "界界\r1\x1b[2G界".encode() * 50
        + b"line\r\n" * 100
        + "a\u200d\u200d\u0301".encode() * 100
        + b"\x1b[?1049h\x1b[?1049l\x1b[2;4r\x1b[L\x1b[M\x1b[3S\x1b[3T"
    )  # fmt: skip
    small, large = unit * 8, unit * 32
    ratio = _cost(large) / _cost(small)
    assert ratio < 4 * 2.5, f"4x the input took {ratio:.1f}x the time"
