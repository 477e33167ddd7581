"""Unit tests for PaneScreen, one group per gap stock pyte had against tmux (FACTS.md).

The expected screens were measured in tmux 3.3a (tests/vt/test_screen_conformance.py checks the
same bytes against a live pane); these run without tmux."""

from __future__ import annotations

import pytest

from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot


def screen_of(data: bytes, cols: int = 10, rows: int = 5) -> Snapshot:
    screen = PaneScreen(cols, rows)
    screen.feed(data)
    return screen.snapshot()


def text(snap: Snapshot) -> list[str]:
    rows = list(snap.rows)
    while rows and not rows[-1]:
        rows.pop()
    return rows


# -- interface ---------------------------------------------------------------------------


def test_interface_and_defaults() -> None:
    screen = PaneScreen(12, 3)
    assert screen.size == (12, 3)
    snap = screen.snapshot()
    assert snap == Snapshot(cols=12, rows=("", "", ""), cursor=(0, 0))
    screen.resize(8, 4)
    assert screen.size == (8, 4)
    assert screen.snapshot().lines == 4


def test_snapshot_rows_are_right_stripped_and_cached() -> None:
    screen = PaneScreen(10, 3)
    screen.feed(b"ab   \r\ncd")
    first = screen.snapshot()
    assert first.rows == ("ab", "cd", "")
    screen.feed(b"e")
    assert screen.snapshot().rows == ("ab", "cde", "")


# -- alternate screen --------------------------------------------------------------------


@pytest.mark.parametrize("mode", [b"47", b"1047", b"1049"])
def test_alternate_screen_restores_main(mode: bytes) -> None:
    screen = PaneScreen(10, 5)
    screen.feed(b"main\x1b[?" + mode + b"h")
    assert screen.snapshot().alt_screen
    assert text(screen.snapshot()) == []  # the alternate screen starts blank
    screen.feed(b"\x1b[3;3Halt")
    screen.feed(b"\x1b[?" + mode + b"l")
    snap = screen.snapshot()
    assert not snap.alt_screen
    assert text(snap) == ["main"]
    # Only ?1049 saved and restores the cursor.
    assert snap.cursor == ((4, 0) if mode == b"1049" else (5, 2))


def test_1049_restore_survives_leaving() -> None:
    assert text(screen_of(b"ab\x1b[?1049h\x1b[?1049l\x1b[3;3H\x1b[?1049lX")) == ["abX"]


# -- zero-width characters ---------------------------------------------------------------


def test_fe0f_does_not_abort_the_run() -> None:
    snap = screen_of("⚠️ Warning".encode(), cols=20)
    assert snap.rows[0] == "⚠️ Warning"
    assert snap.cursor == (9, 0)


def test_zero_width_combines_with_previous_cell() -> None:
    snap = screen_of("a\u200bb\u0301c".encode())
    assert snap.rows[0] == "a\u200bb\u0301c"
    assert snap.cursor == (3, 0)


def test_zwj_is_held_until_the_next_non_ascii_character() -> None:
    # tmux 3.3a glues the ZWJ and the next non-ASCII character onto the cell before the cursor.
    snap = screen_of("a\u200db\u200bc".encode())
    assert snap.rows[0] == "ab\u200d\u200bc"
    assert snap.cursor == (3, 0)


def test_zwj_sequence_is_one_wide_cell() -> None:
    snap = screen_of("👨\u200d💻x".encode())
    assert snap.rows[0] == "👨\u200d💻x"
    assert snap.cursor == (3, 0)


def test_zero_width_at_column_zero_is_dropped() -> None:
    assert screen_of("\u200bA".encode()).rows[0] == "A"


# -- wide characters ---------------------------------------------------------------------


def test_wide_char_at_last_column_wraps() -> None:
    snap = screen_of(b"x" * 9 + "界".encode())
    assert text(snap) == ["xxxxxxxxx", "界"]
    assert snap.cursor == (2, 1)


def test_narrow_over_wide_blanks_its_padding() -> None:
    assert screen_of("界界\r1".encode()).rows[0] == "1 界"


@pytest.mark.parametrize("between", [b"", b"\x1b[2J"])
def test_text_over_a_wide_character_that_came_back_from_history(between: bytes) -> None:
    # The screen skips looking for padding while it knows of no wide character on it (Grid.wide);
    # a clear screen forgets them, but rows pulled back from history by a resize bring theirs.
    screen = PaneScreen(10, 3)
    screen.feed("界界\r\n\r\n\r\n\r\n".encode() + between)
    screen.resize(10, 6)
    assert screen.snapshot().rows[0] == "界界"
    screen.feed("\x1b[1;2H──".encode())
    assert screen.snapshot().rows[0] == " ──"


def test_flag_letters_are_one_cell_like_glibc() -> None:
    assert screen_of("🇺🇸x".encode()).cursor == (3, 0)


# -- CSI prefixes, intermediates, sub-parameters -----------------------------------------


@pytest.mark.parametrize(
    "seq",
    [b"\x1b[<u", b"\x1b[=5u", b"\x1b[>4;2m", b"\x1b[!p", b"\x1b[2$p", b"\x1b[4:3m", b"\x1b[?4m"],
)
def test_csi_variants_draw_nothing(seq: bytes) -> None:
    snap = screen_of(b"a" + seq + b"b")
    assert snap.rows[0] == "ab"
    assert snap.cursor == (2, 0)


def test_gemini_private_sgr_does_not_stop_parsing() -> None:
    assert screen_of(b"a\x1b[?1;2mb\x1b[?mc\r\nd").rows[:2] == ("abc", "d")


def test_dsr_private_does_not_raise() -> None:
    assert screen_of(b"ab\x1b[?6nX").rows[0] == "abX"


def test_colon_params_make_cursor_moves_no_ops() -> None:
    assert screen_of(b"ab\x1b[2:1CX").rows[0] == "abX"


# -- strings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seq",
    [
        b"\x1bPq#0;1\x1b\\",
        b"\x1bXsos\x1b\\",
        b"\x1b^pm\x1b\\",
        b"\x1b_Gabc\x1b\\",
        b"\x1bkname\x1b\\",
    ],
)
def test_strings_are_swallowed(seq: bytes) -> None:
    assert screen_of(b"a" + seq + b"b").rows[0] == "ab"


def test_string_split_across_feeds() -> None:
    screen = PaneScreen(10, 3)
    for part in (b"a\x1bP", b"qjunk", b"\x1b", b"\\b"):
        screen.feed(part)
    assert screen.snapshot().rows[0] == "ab"


def test_titles() -> None:
    assert screen_of(b"\x1b]0;zero\x07\x1b]2;two\x07").title == "two"
    assert screen_of(b"\x1b]1;icon\x07").title == ""
    assert screen_of(b"\x1b]2;hi\x1b[31mX").title == "hi"
    assert screen_of(b"\x1b]2;one\x07\x1b[22;0t\x1b]2;two\x07\x1b[23;0t").title == "one"


# -- ED 3, REP, SU/SD, CBT, HPA, SCOSC ---------------------------------------------------


def test_ed3_clears_history_only() -> None:
    assert text(screen_of(b"ab\r\ncd\x1b[3J")) == ["ab", "cd"]


def test_rep() -> None:
    assert screen_of(b"ab\x1b[3b").rows[0] == "abbbb"
    assert screen_of(b"abcdefgh\x1b[9b").rows[0] == "abcdefghhh"
    assert screen_of(b"ab\x1b[m\x1b[3b").rows[0] == "ab"


def test_su_sd_respect_region() -> None:
    base = b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r"
    assert screen_of(base + b"\x1b[2S").rows == ("1", "4", "", "", "5")
    assert screen_of(base + b"\x1b[1T").rows == ("1", "", "2", "3", "5")
    assert screen_of(b"1\r\n2\r\n3\x1b[1S").rows[:3] == ("2", "3", "")


def test_cbt_hpa_scosc() -> None:
    assert screen_of(b"\x1b[1;10H\x1b[ZX").rows[0] == "        X"
    assert screen_of(b"abc\x1b[7`X").rows[0] == "abc   X"
    assert screen_of(b"ab\x1b[s\x1b[3;3H\x1b[uX").rows[0] == "abX"


# -- tmux's cursor model -----------------------------------------------------------------


def test_pending_wrap_column_is_reported() -> None:
    assert screen_of(b"x" * 10).cursor == (10, 0)
    assert text(screen_of(b"x" * 10 + b"\nZ")) == ["xxxxxxxxxx", "", "Z"]


def test_il_does_not_move_column() -> None:
    snap = screen_of(b"abcdef\x1b[L")
    assert text(snap) == ["", "abcdef"]
    assert snap.cursor == (6, 0)


# -- resize ------------------------------------------------------------------------------


def test_resize_shrink_keeps_cursor_inside() -> None:
    screen = PaneScreen(10, 6)
    screen.feed(b"1\r\n2\r\n3\r\n4\r\n5\r\n6")
    screen.resize(10, 3)
    snap = screen.snapshot()
    assert snap.rows == ("4", "5", "6")
    assert snap.cursor == (1, 2)
    screen.resize(10, 6)  # rows come back from history
    assert screen.snapshot().rows == ("1", "2", "3", "4", "5", "6")


def test_resize_reflows_wrapped_lines() -> None:
    screen = PaneScreen(5, 4)
    screen.feed(b"abcdefghij12\r\nxy")
    screen.resize(10, 4)
    assert text(screen.snapshot()) == ["abcdefghij", "12", "xy"]


def test_resize_to_tiny_and_back_never_raises() -> None:
    screen = PaneScreen(20, 10)
    screen.feed("界界 abc\x1b[?1049hdef\x1b[5;5H".encode())
    for cols, rows in [(1, 1), (3, 2), (0, 0), (40, 20), (2, 50)]:
        screen.resize(cols, rows)
        snap = screen.snapshot()
        assert snap.lines == max(rows, 1)
        assert 0 <= snap.cursor[1] < snap.lines


# -- seed --------------------------------------------------------------------------------


def test_seed_from_capture_with_sgr() -> None:
    screen = PaneScreen(20, 4)
    screen.feed(b"old junk")
    rows = ["\x1b[1m\x1b[38;5;2mDo you\x1b[0m want?", "", "  \x1b[7m1. Yes\x1b[0m"]
    screen.seed(rows, cursor=(3, 2), alt_screen=True, title="✳ Claude Code")
    snap = screen.snapshot()
    assert snap.rows == ("Do you want?", "", "  1. Yes", "")
    assert snap.cursor == (3, 2)
    assert snap.alt_screen
    assert snap.title == "✳ Claude Code"
    screen.feed(b"\x1b[?1049l")
    assert not screen.snapshot().alt_screen


def test_seed_wide_rows_do_not_wrap() -> None:
    screen = PaneScreen(4, 2)
    screen.seed(["界界", "ab"], cursor=(4, 0), alt_screen=False)
    assert screen.snapshot().rows == ("界界", "ab")


def test_seed_alternate_with_main_screen_behind() -> None:
    screen = PaneScreen(10, 3)
    screen.seed(["alt"], cursor=(0, 0), alt_screen=True, main_rows_with_sgr=["$ \x1b[1mclaude"])
    assert screen.snapshot().rows == ("alt", "", "")
    screen.feed(b"\x1b[?1049l")
    assert screen.snapshot().rows == ("$ claude", "", "")
