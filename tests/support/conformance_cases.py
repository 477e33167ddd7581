"""The emulator's conformance cases: byte streams whose screen must be what tmux 3.3a shows.

Small synthetic cases (the edges: last column, last row, scroll regions, the alternate screen,
zero-width characters, resizes) and every real capture whole and cut at each labelled offset.
tmux's answer for each is kept in tests/support/tmux_oracle.json
(`python -m tests.support.screen_oracle --regen` asks a real tmux again);
tests/vt/test_screen_oracle.py checks PaneScreen against it without tmux,
tests/vt/test_screen_conformance.py against a live tmux (slow)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CAPTURES = Path(__file__).resolve().parents[2] / "captures"


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    cols: int = 10
    rows: int = 5
    resizes: tuple[tuple[int, int], ...] = ()


def u(text: str) -> bytes:
    return text.encode("utf-8")


def lines(*rows: str) -> bytes:
    return "\r\n".join(rows).encode("utf-8")


CASES = [
    # Alternate screen: main screen restored on leaving; only ?1049 restores the cursor.
    Case("alt_47", b"main\x1b[?47halt\x1b[?47lX"),
    Case("alt_1047", b"main\x1b[?1047h\x1b[3;3Halt\x1b[?1047lX"),
    Case("alt_1049", b"main\x1b[?1049h\x1b[3;3Halt\x1b[?1049lX"),
    Case("alt_1049_still_on", b"main\x1b[?1049h\x1b[3;3Halt"),
    Case("alt_1049_off_twice", b"ab\x1b[?1049h\x1b[?1049l\x1b[3;3H\x1b[?1049lX"),
    Case("alt_1049_on_twice", b"ab\x1b[?1049hx\x1b[2;2H\x1b[?1049hy\x1b[?1049lZ"),
    Case("alt_1048_unsupported", b"ab\x1b[?1048h\x1b[3;3H\x1b[?1048lX"),
    Case("alt_keeps_scroll_region", b"\x1b[2;3r\x1b[?1049h\x1b[3;1H\nX\x1b[?1049lY"),
    Case("alt_ris_stays_alt", b"ab\x1b[?1049hcd\x1bcX"),
    # Zero-width characters combine with the cell before the cursor, never abort the run.
    Case("fe0f_warning", u("⚠️ Warning"), cols=20),
    Case("zwj_zwsp", u("a\u200db\u200bc")),
    Case("zero_width_col0", b"\n" + u("\u200bA")),
    Case("combining_on_wide", u("界\u0301x")),
    Case("combining_at_start", u("\u0301ab")),
    Case("combining_after_pending", b"x" * 10 + u("\u0301")),
    Case("zwj_sequence", u("👨\u200d💻x")),
    Case("zwj_then_ascii", u("a\u200dxéy")),
    Case("zwj_then_cr", u("a\u200d\réy")),
    Case("zwj_then_csi", u("a\u200d\x1b[3Géy")),
    Case("zwj_twice", u("a\u200d\u200déy")),
    Case("zwj_then_combining", u("a\u200d\u0301éy")),
    Case("skin_tone", u("👍🏽x")),
    Case("emoji_widths", u("😀x|✅x|⭐x|⏺x|❯x|☐x|…x|⎿x|✻x|·x|│x|─x"), cols=80),
    Case("more_widths", u("👨\u200d💻x|👍🏽x|🇺🇸x|\u00adx|é|\u3000x|한x|❤️x|✳x"), cols=80),
    Case("emoji_wrapping", u("😀x|✅x|⭐x|⏺x|❯x|☐x|…x|⎿x|✻x|·x|│x|─x")),
    # Wide characters at the edge and over other characters.
    Case("wide_last_column", b"x" * 9 + u("界")),
    Case("wide_exact_fit", b"x" * 8 + u("界") + b"y"),
    Case("narrow_over_wide_start", u("界界\r1")),
    Case("narrow_over_wide_padding", u("界界\r\x1b[2G1")),
    Case("wide_over_narrow", u("abcd\r\x1b[2G界")),
    Case("wide_over_wide_padding", u("界界\r\x1b[2G界")),
    Case("dch_splits_wide", u("a界b\r\x1b[2G\x1b[P")),
    Case("ich_pushes_wide_out", u("abcdefgh界\r\x1b[2@")),
    Case("wide_nowrap", b"\x1b[?7l" + b"x" * 9 + u("界y")),
    # CSI with prefixes, intermediates and sub-parameters: swallowed, no junk, no attributes.
    Case("csi_prefixes", b"a\x1b[>4;2mb\x1b[4:3mc\x1b[?2004mX\x1b[<uY\x1b[!pZ\x1b[=5uW\x1b[2$pV"),
    Case("gemini_private_sgr", b"a\x1b[?4mb\x1b[?1;2mc\x1b[?mdef"),
    Case("csi_colon_in_cursor_move", b"ab\x1b[2:1CX\x1b[1:2HY"),
    Case("csi_prefix_after_param", b"ab\x1b[1?hX\x1b[1<CY"),
    Case("csi_digit_after_intermediate", b"ab\x1b[ 1qX"),
    Case("csi_too_many_params", b"a\x1b[" + b"1;" * 30 + b"Cb"),
    Case("csi_param_over_int_max", b"ab\x1b[99999999999CX"),
    Case("csi_long_param_text", b"ab\x1b[" + b"0" * 70 + b"2CX"),
    Case("csi_can_aborts", b"a\x1b[1\x18b"),
    Case("csi_sub_aborts", b"a\x1b[1\x1ab"),
    Case("csi_cr_inside", b"abc\x1b[\r2CX"),
    Case("csi_esc_restarts", b"a\x1b[1\x1b[2Cb"),
    Case("dsr_private", b"ab\x1b[?6nX"),
    Case("dsr_and_da", b"ab\x1b[6n\x1b[c\x1b[>c\x1b[>qX"),
    # DCS / SOS / PM / APC strings are swallowed; APC sets the title (tmux's screen habit).
    Case("dcs_sos_pm", b"a\x1bPq#0;1\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d"),
    Case("dcs_ignores_can", b"a\x1bPabc\x18def\x1b\\g"),
    Case("dcs_esc_not_st", b"a\x1bPab\x1bcd\x1b\\e"),
    Case("dcs_tmux_passthrough", b"a\x1bPtmux;\x1b\x1b]2;x\x07\x1b\\b"),
    Case("sos_can_aborts", b"a\x1bXabc\x18def\x1b\\g"),
    Case("apc_title", b"\x1b_Ga=q\x1b\\Y"),
    Case("apc_ignores_bel", b"\x1b_abc\x07def\x1b\\Y"),
    Case("kitty_graphics_query", b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\\x1b[cok"),
    Case("esc_k_rename", b"a\x1bktitle\x1b\\b"),
    # OSC titles.
    Case("osc_title_bel", b"\x1b]0;zero\x07\x1b]2;two\x07x"),
    Case("osc_icon_only", b"\x1b]1;icon\x07"),
    Case("osc_ended_by_esc", b"\x1b]2;hi\x1b[31mX"),
    Case("osc_invalid_utf8", b"\x1b]2;ab\xffc\x07"),
    Case("osc_c0_ignored", b"\x1b]2;a\x01b\x07"),
    Case("osc_can_ends", b"\x1b]2;abc\x18X"),
    Case("osc_utf8_title", u("\x1b]0;✳ Claude Code\x07")),
    Case("title_stack", b"\x1b]2;one\x07\x1b[22;0t\x1b]2;two\x07\x1b[23;0t"),
    # ED 3 clears history only.
    Case("ed3_keeps_screen", b"ab\r\ncd\x1b[3J"),
    Case("ed3_with_param", b"ab\r\ncd\x1b[3;1J"),
    # REP.
    Case("rep", b"ab\x1b[3b"),
    Case("rep_clamped_to_line", b"abcdefgh\x1b[9b"),
    Case("rep_after_csi", b"ab\x1b[m\x1b[3b"),
    Case("rep_after_osc", b"a\x1b]0;x\x07\x1b[2b"),
    Case("rep_after_utf8", u("界\x1b[2b")),
    Case("rep_after_cr", b"ab\r\x1b[2b"),
    # SU / SD with and without a scroll region.
    Case("su", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2S"),
    Case("sd", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2T"),
    Case("su_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[5;1H\x1b[2S"),
    Case("sd_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[1T"),
    Case("su_too_many", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[9S"),
    # CBT, HPA, SCOSC/SCORC, and unsupported neighbours (CHT, HPR, VPR).
    Case("cbt", b"\x1b[1;10H\x1b[ZX"),
    Case("cbt_twice", b"abc\x1b[Z\x1b[ZX"),
    Case("cbt_wide_screen", b"\x1b[1;30H\x1b[2ZX", cols=40),
    Case("hpa", b"abc\x1b[7`X\x1b[99`Y"),
    Case("scosc", b"ab\x1b[s\x1b[3;3H\x1b[uX"),
    Case("cht_hpr_vpr_ignored", b"\x1b[2IXabc\x1b[2aX\x1b[2eY"),
    # Cursor at the pending-wrap column (tmux reports x == width there).
    Case("pending_wrap", b"x" * 10),
    Case("pending_then_char", b"x" * 10 + b"Z"),
    Case("pending_cub", b"x" * 10 + b"\x1b[DY"),
    Case("pending_cub3", b"x" * 10 + b"\x1b[3DY"),
    Case("pending_cuu", b"\n" + b"x" * 10 + b"\x1b[AZ"),
    Case("pending_cuf", b"x" * 10 + b"\x1b[CZ"),
    Case("pending_lf", b"x" * 10 + b"\nZ"),
    Case("pending_tab", b"x" * 10 + b"\tY"),
    Case("pending_el1", b"x" * 10 + b"\x1b[1K"),
    Case("pending_el0", b"x" * 10 + b"\x1b[K"),
    Case("pending_ech", b"x" * 10 + b"\x1b[X"),
    Case("pending_ed1", b"y" * 10 + b"\r\n" + b"x" * 10 + b"\x1b[1J"),
    Case("pending_decsc", b"x" * 10 + b"\x1b7\x1b[3;3H\x1b8Y"),
    Case("bs_reverse_wrap", b"x" * 10 + b"Y\x08\x08Z"),
    Case("nowrap_sticks", b"\x1b[?7l" + b"x" * 9 + b"abc"),
    Case("wrap_scrolls", b"abcdefghij" * 6 + b"k"),
    # Lines, regions, erase.
    Case("il_keeps_column", b"abcdef\x1b[L"),
    Case("dl_keeps_column", b"abcdef\x1b[M"),
    Case("il_outside_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;3r\x1b[5;1H\x1b[L"),
    Case("il_above_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[3;4r\x1b[1;1H\x1b[L"),
    Case("il_above_region_many", b"1\r\n2\r\n3\r\n4\r\n5\x1b[3;4r\x1b[1;1H\x1b[4L"),
    Case("il_above_region_too_many", b"1\r\n2\r\n3\r\n4\r\n5\x1b[3;4r\x1b[2;1H\x1b[9L"),
    Case("il_just_below_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;3r\x1b[4;1H\x1b[L"),
    Case("dl_outside_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;3r\x1b[5;1H\x1b[M"),
    Case("il_in_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[3;2H\x1b[L"),
    Case("dl_in_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[3;2H\x1b[5M"),
    Case("il_bottom", b"1\r\n2\r\n3\r\n4\r\n5\x1b[5;1H\x1b[3L"),
    Case("ri_region_top", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[2;1H\x1bM"),
    Case("ri_screen_top", b"1\r\n2\r\n3\r\n4\r\n5\x1b[1;1H\x1bM"),
    Case("lf_below_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[1;3r\x1b[5;1H\nX"),
    Case("lf_in_region", b"1\r\n2\r\n3\r\n4\r\n5\x1b[2;3r\x1b[3;1H\n\nX"),
    Case("decstbm_homes", b"abc\x1b[2;4rX"),
    Case("decstbm_one_line_ignored", b"abc\x1b[2;2rX"),
    Case("decom", b"\x1b[2;4r\x1b[?6h\x1b[1;1HA\x1b[9;1HB"),
    Case("ed0_ed1_ed2", b"abcdefghij\r\nabcdefghij\r\nabcdefghij\x1b[2;5H\x1b[1J\x1b[3;3H\x1b[J"),
    Case("ed2_keeps_cursor", b"abc\r\ndef\x1b[2JX"),
    Case(
        "el_variants",
        b"abcdefghij\r\nabcdefghij\r\nabcdefghij\x1b[1;4H\x1b[K\x1b[2;4H\x1b[1K\x1b[3;4H\x1b[2K",
    ),
    Case(
        "ech_ich_dch",
        b"abcdefghij\x1b[1;3H\x1b[2X\x1b[2;1Habcdefghij\x1b[2;3H\x1b[3@\x1b[3;1Habcdefghij\x1b[3;3H\x1b[3P",
    ),
    Case("irm", b"abcdef\r\x1b[4hXY\x1b[4lZ"),
    Case("lnm_unsupported", b"a\x1b[20h\nb"),
    Case("tabs_set_clear", b"\x1b[3g\x1b[1;4H\x1bH\r\tX"),
    Case("tab_clear_one", b"\x1b[1;9H\x1b[g\r\tX"),
    Case("tabs_default", b"\tA\tB\tC\tD", cols=30),
    Case("deccolm_clears", b"abc\x1b[?3hX"),
    Case("ris", b"abc\x1b]2;t\x07\x1b[2;4r\x1bcX\nY"),
    Case("decaln", b"\x1b#8"),
    Case("decsc_single_slot", b"ab\x1b7\x1b[2;3H\x1b7\x1b[4;1H\x1b8X\x1b[4;1H\x1b8Y"),
    Case("decrc_without_save", b"abc\x1b[2;2H\x1b8X"),
    Case("cursor_hidden", b"ab\x1b[?25l"),
    Case("cursor_shown_again", b"ab\x1b[?25l\x1b[?25h"),
    Case("cnl_cpl_vpa", b"\x1b[3;5H\x1b[EA\x1b[2FB\x1b[4dC"),
    Case("cup_clamps", b"\x1b[99;99HX\x1b[0;0HY"),
    Case("sync_output", b"\x1b[?2026hab\r\ncd\x1b[?2026l"),
    # Bytes that tmux drops.
    Case("invalid_utf8", b"a\xffb\x80c\xc0\xafd\xed\xa0\x80e"),
    Case("utf8_cut_by_ascii", b"a\xe4\xb8b\xadc"),
    Case("utf8_bad_continuation", b"a\xe4\xb8\xe4\xb8\xadc"),
    Case("utf8_cut_by_cr", b"a\xe4\xb8\r\xad"),
    Case("utf8_across_csi", b"a\xe4\xb8\x1b[C\xad"),
    Case("utf8_cut_by_nul", b"a\xe4\xb8\x00\xad"),
    Case("c1_as_utf8", u("a\u0085b\u009bc")),
    Case("c1_raw_bytes", b"a\x9b31mb\x9dx"),
    Case("c0_and_del", b"a\x01\x02\x07\x0e\x0f\x1a\x7fb"),
    Case("unknown_escapes", b"a\x1bZb\x1b%Gc\x1b(Bd\x1b#3e\x1b(0qf\x1b)0\x0eq\x0f"),
    # Claude-style cursor-addressed frames: rows reached with \r ESC[nB, words placed with
    # ESC[nG, a prompt erased by cursor-up + ESC[J.
    Case(
        "claude_frame",
        b"\x1b[?1049h\x1b[?25l\x1b[1;1H\x1b[J"
        + u("\x1b[38;2;215;119;87m⏺\x1b[39m Hello\r\x1b[1B")
        + u("  ⎿  Read\x1b[11Gfile\x1b[16Gnow\r\x1b[1B")
        + b"\x1b[2mDo\x1b[4Gyou\x1b[8Gwant\x1b[13Gto\x1b[16Gproceed?\x1b[22m\r\x1b[1B"
        + u("\x1b[1m❯\x1b[22m 1. Yes\r\x1b[2B  2. No\r\x1b[1B")
        + b"\x1b[8;1H\x1b[7;3H",
        cols=40,
        rows=8,
    ),
    Case(
        "prompt_erased",
        lines("line one", "line two", "> Do you want to proceed?", "  1. Yes", "  2. No")
        + b"\r\x1b[3A\x1b[J"
        + b"done",
        cols=30,
        rows=8,
    ),
    Case(
        "prompt_erased_after_scroll",
        lines(*[f"out {i}" for i in range(9)], "Do you want to proceed?", "1. Yes", "2. No")
        + b"\r\x1b[2A\x1b[2K\x1b[1A\x1b[J\x1b[32mok\x1b[0m",
        cols=30,
        rows=6,
    ),
    Case(
        "gemini_live_area",
        lines("history a", "history b", "⠋ Thinking (esc to cancel, 1s)")
        + b"\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G"
        + lines("history a", "history b", "⠙ Thinking (esc to cancel, 2s)"),
        cols=40,
        rows=6,
    ),
    # Resize: rows below the cursor go first, then rows into history; growing pulls them back;
    # the main screen reflows wrapped lines, the alternate screen does not.
    Case("shrink_height", lines("1", "2", "3", "4"), cols=10, rows=6, resizes=((10, 3),)),
    Case(
        "shrink_height_cursor_low", lines("1", "2", "3", "4", "5", "6"), rows=6, resizes=((10, 3),)
    ),
    Case(
        "grow_height_pulls_history", lines("1", "2", "3", "4", "5", "6"), rows=4, resizes=((10, 6),)
    ),
    Case("shrink_then_grow", lines("1", "2", "3", "4", "5"), rows=5, resizes=((10, 2), (10, 5))),
    Case("narrow_reflows", b"abcdefghijKLMNO\r\nshort", rows=4, resizes=((5, 4),)),
    Case("widen_rejoins", b"abcdefghij12\r\nxy", cols=5, rows=6, resizes=((10, 6),)),
    Case("narrow_wide_chars", u("ab界界界cd\r\nxy"), rows=4, resizes=((5, 4),)),
    Case("narrow_pushes_history", b"0123456789\r\nabc", rows=5, resizes=((5, 5),)),
    Case("cursor_clamped", b"\x1b[5;10HX\x1b[5;9H", rows=5, resizes=((5, 3),)),
    Case("alt_resize", b"main\x1b[?1049h\x1b[2;1Hhello world\x1b[5;1Hbottom", resizes=((6, 3),)),
    Case("alt_resize_grow", b"\x1b[?1049habcdefghij\r\nxy", rows=3, resizes=((15, 5),)),
    Case("resize_resets_region", b"1\r\n2\r\n3\x1b[1;2r", rows=5, resizes=((10, 4),)),
]


def _capture_points() -> list[tuple[Path, int | None]]:
    """Every capture whole, plus cut at each labelled offset (where states change)."""
    points: list[tuple[Path, int | None]] = []
    for path in sorted(CAPTURES.glob("*/*.bytes")):
        points.append((path, None))
        labels = path.with_name(path.name.removesuffix(".bytes") + ".labels.json")
        if labels.exists():
            segments = json.loads(labels.read_text()).get("segments", [])
            offsets = sorted({int(s["offset"]) for s in segments if s.get("offset")})
            points.extend((path, off) for off in offsets)
    return points


def size_of(path: Path) -> tuple[int, int]:
    size = path.name.removesuffix(".bytes").rsplit("-", 1)[1]
    cols, rows = size.split("x")
    return int(cols), int(rows)


CAPTURE_POINTS = _capture_points()


def point_id(path: Path, offset: int | None) -> str:
    return f"{path.parent.name}/{path.stem}@{'end' if offset is None else offset}"


def point_data(path: Path, offset: int | None) -> bytes:
    data = path.read_bytes()
    return data if offset is None else data[:offset]
