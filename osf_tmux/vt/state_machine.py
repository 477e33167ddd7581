"""The byte state machine of tmux 3.3a's input.c, one byte at a time, and what it drives.

Mirrored from tmux because the oracle is tmux, not a spec:
- C0 controls inside CSI/ESC sequences execute in place; CAN/SUB abort a sequence; ESC restarts.
- CSI: one prefix from `<=>?` may come first and is kept with the intermediates (max 3 bytes);
  a prefix after parameters, or a digit after an intermediate, makes tmux ignore the sequence.
  Params: at most 24, a value above INT_MAX or more than 63 parameter bytes drops the sequence;
  a parameter containing `:` is passed on as text (only SGR uses those).
- OSC ends at BEL or at any ESC (the byte after ESC is then parsed as an escape), or CAN/SUB.
  APC and `ESC k` ignore BEL. DCS bodies only end at `ESC \\`. SOS and PM end like APC.
- UTF-8: the lead byte fixes the length; any top-bit byte counts toward it and a bad one
  poisons the character; invalid characters are dropped. Printable ASCII and C0 controls cancel
  a half-read character, escape sequences do not.

Parser (stream.py) takes the common cases in whole runs and steps this machine for the rest,
so that a sequence split across feeds ends in the same place as an unsplit one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

# A CSI parameter: None when empty, an int, or the raw text of a parameter with `:` sub-params.
Param = int | str | None

INT_MAX = 2**31 - 1
MAX_PARAMS = 24
MAX_PARAM_BYTES = 63
MAX_INTERMEDIATES = 3
MAX_STRING = 1024 * 1024  # tmux's input buffer limit; a longer string is discarded

# Parser states (tmux's names).
GROUND = 0
ESC_ENTER = 1
ESC_INTERMEDIATE = 2
CSI_ENTER = 3
CSI_PARAMETER = 4
CSI_INTERMEDIATE = 5
CSI_IGNORE = 6
DCS_ENTER = 7
DCS_PARAMETER = 8
DCS_INTERMEDIATE = 9
DCS_HANDLER = 10
DCS_ESCAPE = 11
DCS_IGNORE = 12
OSC_STRING = 13
APC_STRING = 14
RENAME_STRING = 15
CONSUME_ST = 16

# A parsed CSI: its intermediates, its parameters, its final character.
CsiCall = tuple[str, list[Param], str]
# A run's calls in order: a CSI's, a C0 control's code (execute), an OSC's body (osc_dispatch),
# None (swallowed).
CsiRun = tuple[CsiCall | int | bytes | None, ...]
# What a terminal makes of a run, once: (function, argument), called function(terminal, argument).
PreparedRun = tuple[Callable[[Any, Any], None], Any]

_C0_EXECUTED = frozenset(range(0x00, 0x18)) | {0x19} | frozenset(range(0x1C, 0x20))


class Terminal(Protocol):
    """What the parser drives. Text arrives decoded: runs of printable text, ASCII runs and
    single characters (the state machine's path)."""

    # A regex (bytes, no capturing groups) matching one complete CSI sequence that changes
    # nothing the terminal keeps beyond what swallowed() does; b"(?!)" when there is none.
    inert_csi: bytes

    def print_ascii(self, text: str) -> None: ...

    def print_run(self, text: str) -> None:
        """Printable text, ASCII and not: the same as print_ascii for each of its ASCII runs
        and print_text for each of the others, in order."""

    def print_char(self, char: str) -> None: ...

    def print_text(self, text: str) -> None:
        """Decoded non-ASCII text: the same as print_char for each character."""

    def execute(self, code: int) -> None: ...

    def esc_dispatch(self, intermediates: str, final: str) -> None: ...

    def csi_dispatch(self, intermediates: str, params: list[Param], final: str) -> None:
        """`params` may be shared between calls (parsed once per distinct sequence): read only."""

    def osc_dispatch(self, data: bytes) -> None: ...

    def apc_dispatch(self, data: bytes) -> None: ...

    def swallowed(self) -> None:
        """A sequence that does nothing; several in a row may come as one call."""

    def prepare_run(self, items: CsiRun) -> PreparedRun:
        """What calling, in order, csi_dispatch for each CsiCall, execute for each int,
        osc_dispatch for each bytes and swallowed for each None does (nothing for no items),
        as (function, argument) for function(terminal, argument).
        Kept and used for every terminal of the same class: it may not hold this one."""


def split_params(raw: bytes) -> list[Param] | None:
    """tmux's input_split: None means the whole sequence is dropped."""
    if not raw:
        return [None]
    params: list[Param] = []
    for part in raw.split(b";"):
        if not part:
            params.append(None)
        elif b":" in part:
            params.append(part.decode("ascii"))
        else:
            # Only digits reach here (0x30-0x39 and ';' ':' are the parameter bytes).
            value = int(part)
            if value > INT_MAX:
                return None
            params.append(value)
        if len(params) >= MAX_PARAMS:
            return None
    return params


class StateMachine:
    """Steps bytes through tmux's parser states into a Terminal; keeps a partial sequence and
    a half-read character between calls."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.state = GROUND
        self._interm = bytearray()
        self._params = bytearray()
        self._buf = bytearray()
        self._discard = False
        # A half-read UTF-8 character: expected length and the bytes so far.
        self._u8_size = 0
        self._u8 = bytearray()

    def reset_utf8(self) -> None:
        self._u8_size = 0
        self._u8.clear()

    def _utf8_run(self, run: bytes) -> None:
        if not self._u8_size:
            try:
                text = run.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                self.terminal.print_text(text)
                return
        for b in run:
            self._utf8_byte(b)

    def _utf8_byte(self, b: int) -> None:
        if not self._u8_size:
            if 0xC2 <= b <= 0xDF:
                self._u8_size = 2
            elif 0xE0 <= b <= 0xEF:
                self._u8_size = 3
            elif 0xF0 <= b <= 0xF4:
                self._u8_size = 4
            else:
                return  # not a lead byte: dropped
            self._u8.append(b)
            return
        self._u8.append(b)
        if len(self._u8) < self._u8_size:
            return
        raw = bytes(self._u8)
        self.reset_utf8()
        try:
            # Strict decoding rejects what glibc's mbtowc rejects: bad continuation bytes,
            # overlong forms, surrogates, code points above U+10FFFF.
            ch = raw.decode("utf-8")
        except UnicodeDecodeError:
            return
        self.terminal.print_char(ch)

    def _enter_escape(self) -> None:
        self._interm.clear()
        self._params.clear()
        self._discard = False
        self.state = ESC_ENTER

    def _leave_string(self) -> None:
        """tmux dispatches OSC/APC when their state is left, whatever the reason."""
        state = self.state
        if state == OSC_STRING and not self._discard:
            self.terminal.osc_dispatch(bytes(self._buf))
        elif state == APC_STRING and not self._discard:
            self.terminal.apc_dispatch(bytes(self._buf))
        elif state in (DCS_HANDLER, DCS_ESCAPE, DCS_IGNORE, RENAME_STRING, CONSUME_ST):
            self.terminal.swallowed()
        self._buf.clear()

    def _collect(self, b: int) -> None:
        if len(self._buf) >= MAX_STRING:
            self._discard = True
        else:
            self._buf.append(b)

    def _intermediate(self, b: int) -> None:
        if len(self._interm) >= MAX_INTERMEDIATES:
            self._discard = True
        else:
            self._interm.append(b)

    def _parameter(self, b: int) -> None:
        if len(self._params) >= MAX_PARAM_BYTES:
            self._discard = True
        else:
            self._params.append(b)

    def _step(self, b: int) -> None:
        state = self.state
        t = self.terminal

        # tmux's INPUT_STATE_ANYWHERE, absent only from the DCS body states.
        if state != DCS_HANDLER and state != DCS_ESCAPE:
            if b == 0x18 or b == 0x1A:
                if state in (OSC_STRING, APC_STRING, RENAME_STRING, CONSUME_ST, DCS_IGNORE):
                    self._leave_string()
                self.state = GROUND
                self.reset_utf8()
                t.execute(b)
                return
            if b == 0x1B:
                if state in (OSC_STRING, APC_STRING, RENAME_STRING, CONSUME_ST, DCS_IGNORE):
                    self._leave_string()
                self._enter_escape()
                return

        if state == GROUND:
            if b in _C0_EXECUTED:
                self.reset_utf8()
                t.execute(b)
            elif 0x20 <= b < 0x7F:
                self.reset_utf8()
                t.print_ascii(chr(b))
            elif b >= 0x80:
                self._utf8_byte(b)
            return  # 0x7f: ignored

        if state in (OSC_STRING, APC_STRING, RENAME_STRING):
            if b == 0x07 and state == OSC_STRING:
                self._leave_string()
                self.state = GROUND
            elif b >= 0x20:
                self._collect(b)
            return  # other C0: ignored inside strings

        if state in (CONSUME_ST, DCS_IGNORE):
            return

        if state == DCS_HANDLER:
            if b == 0x1B:
                self.state = DCS_ESCAPE
            return
        if state == DCS_ESCAPE:
            if b == 0x5C:
                self._leave_string()
                self.state = GROUND
            else:
                self.state = DCS_HANDLER
            return

        # Escape and CSI/DCS header states: C0 controls execute in place (DCS: ignored).
        if b < 0x20:
            if state < DCS_ENTER:
                self.reset_utf8()
                t.execute(b)
            return
        if b >= 0x7F:
            return

        if state == ESC_ENTER:
            if b <= 0x2F:
                self._intermediate(b)
                self.state = ESC_INTERMEDIATE
            elif b == 0x5B:
                self.state = CSI_ENTER
            elif b == 0x5D:
                self._buf.clear()
                self.state = OSC_STRING
            elif b == 0x50:
                self.state = DCS_ENTER
            elif b == 0x5F:
                self._buf.clear()
                self.state = APC_STRING
            elif b == 0x6B:
                self.state = RENAME_STRING
            elif b == 0x58 or b == 0x5E:
                self.state = CONSUME_ST
            else:
                self.state = GROUND
                self._esc(b)
            return
        if state == ESC_INTERMEDIATE:
            if b <= 0x2F:
                self._intermediate(b)
            else:
                self.state = GROUND
                self._esc(b)
            return

        if state in (CSI_ENTER, CSI_PARAMETER):
            if b <= 0x2F:
                self._intermediate(b)
                self.state = CSI_INTERMEDIATE
            elif b <= 0x3B:
                self._parameter(b)
                self.state = CSI_PARAMETER
            elif b <= 0x3F:
                if state == CSI_ENTER:
                    self._intermediate(b)
                    self.state = CSI_PARAMETER
                else:
                    self.state = CSI_IGNORE
            else:
                self.state = GROUND
                self._csi_from_state(b)
            return
        if state == CSI_INTERMEDIATE:
            if b <= 0x2F:
                self._intermediate(b)
            elif b <= 0x3F:
                self.state = CSI_IGNORE
            else:
                self.state = GROUND
                self._csi_from_state(b)
            return
        if state == CSI_IGNORE:
            if b >= 0x40:
                self.state = GROUND
                t.swallowed()
            return

        if state in (DCS_ENTER, DCS_PARAMETER):
            if b <= 0x2F:
                self._intermediate(b)
                self.state = DCS_INTERMEDIATE
            elif b == 0x3A:
                self.state = DCS_IGNORE
            elif b <= 0x3B:
                self.state = DCS_PARAMETER
            elif b <= 0x3F:
                self.state = DCS_PARAMETER if state == DCS_ENTER else DCS_IGNORE
            else:
                self.state = DCS_HANDLER
            return
        if state == DCS_INTERMEDIATE:
            if b <= 0x2F:
                self._intermediate(b)
            elif b <= 0x3F:
                self.state = DCS_IGNORE
            else:
                self.state = DCS_HANDLER
            return

    def _esc(self, final: int) -> None:
        if self._discard:
            self.terminal.swallowed()
            return
        self.terminal.esc_dispatch(self._interm.decode("ascii"), chr(final))

    def _csi_from_state(self, final: int) -> None:
        if self._discard:
            self.terminal.swallowed()
            return
        params = split_params(bytes(self._params))
        if params is None:
            self.terminal.swallowed()
            return
        self.terminal.csi_dispatch(self._interm.decode("ascii"), params, chr(final))
