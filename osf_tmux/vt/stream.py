"""Byte parser that consumes pane output the way tmux 3.3a's input.c does.

The parser gives bytes no meaning: it splits them into printable text, C0 controls and complete
escape sequences and hands those to a `Terminal`. What tmux swallows (unknown or malformed
sequences, DCS/SOS/PM/APC bodies, invalid UTF-8) never reaches the terminal as text.

What tmux does with each byte is the state machine's (state_machine.py, tmux's rules listed
there); this module is its fast paths.

Fast paths, in the ground state: text, and a run of complete CSI sequences, OSCs ended by BEL
and C0 controls (with the text right after it), each one regex match; the terminal prepares a
run's calls once per distinct run, and a text token is decoded once per distinct token. Text
may have sequences the terminal declares inert inside (SGR around every word): they are taken
out and the text goes to the terminal in one piece when it decodes; otherwise each piece goes
as the state machine would send it. No token reaches past the line it starts in, so a whole line
(up to its LF) that comes again from the ground state is done as the operations it made the first
time, without being matched again. Everything else (an incomplete sequence at the end of a
feed, CAN/SUB, DEL, other strings and escapes, malformed sequences) steps the byte state
machine, so a sequence split across feeds ends in the same place as an unsplit one."""

from __future__ import annotations

import re
from typing import Any

from osf_tmux.budget_cache import BudgetCache
from osf_tmux.vt.kept import ENTRY_COST, PARSER
from osf_tmux.vt.state_machine import (
    GROUND,
    MAX_INTERMEDIATES,
    MAX_PARAM_BYTES,
    MAX_STRING,
    CsiCall,
    PreparedRun,
    StateMachine,
    Terminal,
    split_params,
)

# A complete, well-formed CSI with nothing tmux would execute or ignore inside it.
_CSI_BYTES = rb"\x1b\[[\x3c-\x3f]?[\x30-\x3b]*[\x20-\x2f]*[\x40-\x7e]"
_CSI = re.compile(rb"\x1b\[([\x3c-\x3f]?)([\x30-\x3b]*)([\x20-\x2f]*)([\x40-\x7e])")
# Printable bytes: ASCII and anything with the top bit set (UTF-8, valid or not).
_TEXT_BYTE = rb"[\x20-\x7e\x80-\xff]"
# A C0 control the ground state executes (CAN and SUB abort, ESC starts a sequence).
_C0_BYTE = rb"[\x00-\x17\x19\x1c-\x1f]"
# An OSC ended by BEL (one ended by ESC takes the state machine).
_OSC_BEL_BYTES = rb"\x1b\][\x20-\xff]*\x07"
# What a text token is made of, in the order the state machine would see it.
_PIECE = re.compile(rb"([\x20-\x7e]+)|([\x80-\xff]+)|\x1b\[[\x20-\x3f]*[\x40-\x7e]")


def _patterns(inert: bytes) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """(text, run) for a terminal whose inert sequences `inert` matches (a regex, no groups).

    Text: printable bytes with inert sequences between them (never at the end, so that a
    sequence after the text still clears REP's character in its turn). Run: complete CSI
    sequences, OSCs ended by BEL and C0 controls and, as a second group, the text right after
    them, so that the usual `newline, move, colours, text` takes one match."""
    text = rb"%(t)s+(?:(?:%(i)s)+%(t)s+)*" % {b"t": _TEXT_BYTE, b"i": inert}
    parts = {
        b"csi": _CSI_BYTES,
        b"osc": _OSC_BEL_BYTES,
        b"c0": _C0_BYTE,
        b"text": text,
        b"most": b"%d" % _RUN_ITEMS,
    }
    csi = rb"((?:%(csi)s|%(osc)s|%(c0)s){1,%(most)s})(%(text)s)?" % parts
    return re.compile(text), re.compile(csi)


# Without a terminal's inert sequences, none is: text is printable bytes only.
_NOTHING = rb"(?!)"
_pattern_cache: dict[bytes, tuple[re.Pattern[bytes], re.Pattern[bytes]]] = {}
# Every cache below is on the parser's budget (vt/kept.py): together they hold at most two of
# its limits, whatever the panes print, and long keys are not kept at all.


def _with_value(key: bytes, value: object) -> int:
    return len(key) + 2 * ENTRY_COST


# Parsed CSI sequences by their bytes: not on the budget. The same few hundred recur in every
# program's output (colours, cursor moves) and, turned over with the rest, were parsed again
# six times as often (bench/mixed_panes.py: 20 % more CPU). Kept for good up to a bound, as
# hostile input cannot grow it without limit; it is full within minutes of busy panes.
_csi_cache: dict[bytes, CsiCall | None] = {}
_CSI_CACHE_SIZE = 4096
_UNPARSED: CsiCall = ("", [], "")
# A run of CSI sequences, OSCs and C0 controls by its bytes, as the terminal prepared it. One cache
# per kind of terminal; long runs are not kept.
_run_caches: dict[tuple[type, bytes], BudgetCache[bytes, PreparedRun]] = {}
_RUN_CACHE_BYTES = 256
# Items in one run at most. A program that draws frames with nothing but sequences in them (a
# cursor put back, a synchronized update opened and closed: Codex) sends them back to back, and
# one unbounded run of a read's frames would be a new key too long to keep at every read; runs
# cut at this length repeat, and are kept.
_RUN_ITEMS = 16
# Text tokens by their bytes, decoded with the inert sequences taken out: the same few rows come
# again and again (borders, footers), and the same str each time lets the terminal's checks on
# it hit a cache.
_text_caches: dict[bytes, BudgetCache[bytes, str]] = {}
_TEXT_CACHE_BYTES = 4096


def _text_cost(raw: bytes, text: str) -> int:
    return len(raw) + len(text) + ENTRY_COST


# Whole lines (up to and with their LF) by their bytes, as the operations their tokens made the
# terminal do, for lines fed again from the ground state with no half-read character: the same
# bytes make the same tokens there, so doing the kept operations is feeding them. A program that
# repaints its live area every frame (Ink's agents: Gemini CLI, Qwen Code, Claude Code) sends
# the same rows again and again, and a kept line skips the matching and the lookups of its
# tokens. A line is kept the second time it comes (_ONCE: seen once), so text that streams by
# once is not; per kind of terminal.
_line_caches: dict[tuple[type, bytes], BudgetCache[bytes, tuple[PreparedRun, ...]]] = {}
_LINE_BYTES = 1024
_NEW: Any = object()
_ONCE: Any = ((None, None),)


def _line_cost(line: bytes, ops: tuple[PreparedRun, ...]) -> int:
    return len(line) + ENTRY_COST + 16 * len(ops)


def _cache(caches: dict[Any, BudgetCache[Any, Any]], key: Any, cost: Any) -> BudgetCache[Any, Any]:
    found = caches.get(key)
    if found is None:
        found = caches[key] = BudgetCache(PARSER, cost)
    return found


# Output that does not come again (a log, a long answer) would only pay for looking its lines up
# (about a quarter of its feed): after this many new lines in a row, a parser feeds as if no line
# were kept, and looks again after that many feeds, for a few lines.
_COLD_LINES = 64
_COLD_FEEDS = 16
_COLD_PROBE = 8
_RUN_ITEM = re.compile(rb"\x1b\[[\x20-\x3f]*[\x40-\x7e]|" + _OSC_BEL_BYTES + b"|" + _C0_BYTE)


class Parser(StateMachine):
    """Feeds bytes into a Terminal; keeps partial sequences between feeds."""

    def __init__(self, terminal: Terminal) -> None:
        super().__init__(terminal)
        inert = getattr(terminal, "inert_csi", _NOTHING)
        patterns = _pattern_cache.get(inert)
        if patterns is None:
            patterns = _pattern_cache[inert] = _patterns(inert)
        self._text_re, self._csi_re = patterns
        self._inert = re.compile(inert)
        self._runs: BudgetCache[bytes, PreparedRun] = _cache(
            _run_caches, (type(terminal), inert), _with_value
        )
        self._texts: BudgetCache[bytes, str] = _cache(_text_caches, inert, _text_cost)
        self._lines: BudgetCache[bytes, tuple[PreparedRun, ...]] = _cache(
            _line_caches, (type(terminal), inert), _line_cost
        )
        self._cold = 0  # new lines in a row (_COLD_LINES)
        self._rested = 0  # feeds since lines were last looked up

    def feed(self, data: bytes) -> None:
        t = self.terminal
        n = len(data)
        i = 0
        text_match = self._text_re.match
        run_match = self._csi_re.match
        # The newer generations, read directly: a hit there is the common case, and a miss
        # looks in the older one too (budget_cache.py).
        runs = self._runs.newer
        texts = self._texts.newer
        lines = self._lines.newer
        line_cache = self._lines
        budget = PARSER
        print_run = t.print_run
        keep_print = type(t).print_run  # kept lines hold no terminal
        keep_ascii = type(t).print_ascii
        state = self.state  # only _step changes it
        # Tokens never reach past the end of the line they start in (just after its LF), so
        # that every line starts a token: a line seen before is then done as it was recorded.
        # Without kept lines (_COLD_LINES), `end` is the end of the data.
        end = 0
        if self._cold >= _COLD_LINES:
            self._rested += 1
            if self._rested < _COLD_FEEDS:
                end = n
            else:
                self._rested = 0
                self._cold = _COLD_LINES - _COLD_PROBE
        # The calls of the line being fed the second time, kept if every token of it takes a
        # fast path (None: none being kept).
        kept: list[PreparedRun] | None = None
        line = b""
        while i < n:
            if state == GROUND:
                if i >= end:
                    if kept is not None:
                        line_cache.put(line, tuple(kept))
                        kept = None
                    end = data.find(b"\n", i) + 1 or n
                    if data[end - 1] == 0x0A and not self._u8_size and end - i <= _LINE_BYTES:
                        line = data[i:end]
                        ops = lines.get(line, _NEW)
                        if ops is _NEW and line_cache.older:
                            ops = line_cache.get(line)
                            if ops is None:
                                ops = _NEW
                        if ops is _NEW:
                            # put(line, _ONCE), inlined: most lines of a stream are new
                            line_cache.newer[line] = _ONCE  # kept when seen again
                            budget.used += len(line) + ENTRY_COST
                            if budget.used > budget.limit:
                                budget.turn()
                            self._cold += 1
                            if self._cold >= _COLD_LINES:
                                end = n
                        elif ops is _ONCE:
                            self._cold = 0
                            kept = []
                        else:
                            self._cold = 0
                            for fn, arg in ops:
                                fn(t, arg)
                            i = end
                            continue
                b = data[i]
                raw: bytes | None = None
                if 0x20 <= b < 0x7F or b >= 0x80:
                    m = text_match(data, i, end)
                    assert m is not None
                    raw = m.group()
                    i = m.end()
                elif (b == 0x1B or (b < 0x20 and b != 0x18 and b != 0x1A)) and (
                    m := run_match(data, i, end)
                ) is not None:
                    # Programs repeat the same few runs of sequences and controls (cursor
                    # moves, colours, newlines): each distinct one is prepared once.
                    key, raw = m.groups()
                    i = m.end()
                    run = runs.get(key)
                    if run is None:
                        run = self._runs.get(key) or self._prepare_run(key)
                    run[0](t, run[1])
                    if self._u8_size and self._run_resets_utf8(key):
                        self.reset_utf8()
                    if kept is not None:
                        kept.append(run)
                    if raw is None:
                        continue
                if raw is not None:
                    # Text, alone or right after a run.
                    text = texts.get(raw)
                    if text is not None and not self._u8_size:
                        print_run(text)
                    else:
                        text = self._text(raw)
                    if kept is not None:
                        if text is None:
                            kept = None
                        else:
                            kept.append((keep_ascii if text.isascii() else keep_print, text))
                    continue
            kept = None
            self._step(data[i])
            state = self.state
            i += 1
        if kept is not None:
            line_cache.put(line, tuple(kept))

    def _text(self, raw: bytes) -> str | None:
        """A text token: printable bytes with inert sequences in between. These only
        clear REP's character, which the text's last character sets again (or clears, when
        it is not ASCII), and do not break a UTF-8 character: so when the bytes without them
        decode, they are one run of text, which is returned (None: it went in pieces)."""
        if not self._u8_size:
            text = self._texts.get(raw)  # in the older generation
            if text is None:
                stripped = self._inert.sub(b"", raw) if 0x1B in raw else raw
                try:
                    text = stripped.decode("utf-8")
                except UnicodeDecodeError:
                    pass
                else:
                    if len(raw) <= _TEXT_CACHE_BYTES:
                        self._texts.put(raw, text)
            if text is not None:
                self.terminal.print_run(text)
                return text
        # A half-read character from before, or invalid UTF-8: each piece as the state
        # machine sends it.
        t = self.terminal
        for m in _PIECE.finditer(raw):
            kind = m.lastindex
            if kind == 1:
                if self._u8_size:
                    self.reset_utf8()
                t.print_ascii(m.group(1).decode("ascii"))
            elif kind == 2:
                self._utf8_run(m.group(2))
            else:
                t.swallowed()
        return None

    @staticmethod
    def _run_resets_utf8(seq: bytes) -> bool:
        """A C0 control cancels a half-read character; sequences (an OSC's BEL too) do not."""
        return any(len(one) == 1 for one in _RUN_ITEM.findall(seq))

    def _prepare_run(self, seq: bytes) -> PreparedRun:
        """A run of complete CSI sequences, OSCs and C0 controls, as the terminal prepares the
        calls it makes (None for swallowed(), once for inert and dropped sequences in a row;
        nothing for an OSC too long to keep, as tmux discards it)."""
        calls: list[CsiCall | int | bytes | None] = []
        for one in _RUN_ITEM.findall(seq):
            if len(one) == 1:
                calls.append(one[0])
                continue
            if one[1] == 0x5D:  # ESC ]
                if len(one) - 3 <= MAX_STRING:
                    calls.append(one[2:-1])
                continue
            parsed = _csi_cache.get(one, _UNPARSED)
            if parsed is _UNPARSED:
                parsed = self._parse_csi(one)
                if len(_csi_cache) < _CSI_CACHE_SIZE:
                    _csi_cache[one] = parsed
            if parsed is None or self._inert.fullmatch(one):
                if not calls or calls[-1] is not None:
                    calls.append(None)
            else:
                calls.append(parsed)
        run = self.terminal.prepare_run(tuple(calls))
        if len(seq) <= _RUN_CACHE_BYTES:
            self._runs.put(seq, run)
        return run

    @staticmethod
    def _parse_csi(seq: bytes) -> CsiCall | None:
        """A complete CSI from the fast path, checked as the state machine would check it."""
        m = _CSI.match(seq)
        assert m is not None
        prefix, raw, interm, final = m.groups()
        interm = prefix + interm
        if len(interm) > MAX_INTERMEDIATES or len(raw) > MAX_PARAM_BYTES:
            return None
        params = split_params(raw)
        if params is None:
            return None
        return interm.decode("ascii"), params, chr(final[0])
