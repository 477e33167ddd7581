"""The screen model behind PaneScreen: what tmux 3.3a's screen-write.c does to a pane's grid.

Only text is modelled (osf-tmux classifies text; colours and attributes are parsed and dropped).
A row is a list of cells; a cell is the string tmux would print for it with `capture-pane -p`:
one character plus any zero-width characters combined onto it, or "" for the padding cell that
follows a wide character (capture-pane skips padding, and so does "".join).

tmux, not xterm, is the reference, including its quirks: the cursor may sit one past the last
column (pending wrap, reported as cursor_x == width), a line feed keeps that column, IL outside
the scroll region does nothing while DL works, CUB from the pending column does not clamp first.
Each quirk here was measured against a real tmux pane (tests/vt/test_screen_conformance.py)."""

from __future__ import annotations

import contextlib

from osf_tmux.vt.csi import CSI_PLAIN, prepare_run
from osf_tmux.vt.printing import TextPrinter
from osf_tmux.vt.state_machine import CsiRun, Param, PreparedRun

# Complete CSI sequences that change nothing modelled here but REP's character, as any sequence
# does (what swallowed() does): SGR in every form, since colours and attributes are not
# modelled. The parser takes text with them inside (around every word) in one piece.
INERT_CSI = rb"\x1b\[[\x3c-\x3f]?[\x30-\x3b]*[\x20-\x2f]*m"


class TmuxScreen(TextPrinter):
    """Implements state_machine.Terminal with tmux semantics: the control functions, escape, CSI
    and string sequences; printing comes from TextPrinter, the grid and cursor from
    ScreenState."""

    inert_csi = INERT_CSI

    def execute(self, code: int) -> None:
        self.last = None
        if code == 0x0D:
            self.cx = 0
        elif code == 0x0A or code == 0x0B or code == 0x0C:
            self._linefeed(False)
        elif code == 0x08:
            self._backspace()
        elif code == 0x09:
            self._tab()

    # -- ESC ------------------------------------------------------------------------------

    def esc_dispatch(self, intermediates: str, final: str) -> None:
        self.last = None
        if intermediates == "":
            if final == "7":
                self._save_cursor()
            elif final == "8":
                self._restore_cursor()
            elif final == "D":
                self._linefeed(False)
            elif final == "E":
                self.cx = 0
                self._linefeed(False)
            elif final == "M":
                self._reverse_index()
            elif final == "H":
                if self.cx < self.cols:
                    self.tabs.add(self.cx)
            elif final == "c":
                self._full_reset()
        elif intermediates == "#" and final == "8":
            self._alignment_test()

    def _full_reset(self) -> None:
        self._reset_state()
        self._clear_lines(0, self.rows)

    # -- strings --------------------------------------------------------------------------

    def osc_dispatch(self, data: bytes) -> None:
        self.last = None
        code, _, rest = data.partition(b";")
        if code in (b"0", b"2"):
            self._set_title(rest)

    def apc_dispatch(self, data: bytes) -> None:
        # tmux takes an APC string as a title (screen's convention), kitty queries included.
        self.last = None
        self._set_title(data)

    def _set_title(self, data: bytes) -> None:
        # tmux refuses a title that is not valid UTF-8.
        with contextlib.suppress(UnicodeDecodeError):
            self.title = data.decode("utf-8")

    def swallowed(self) -> None:
        self.last = None

    # -- CSI ------------------------------------------------------------------------------

    def csi_dispatch(self, intermediates: str, params: list[Param], final: str) -> None:
        last = self.last
        self.last = None
        if intermediates == "":
            handler = CSI_PLAIN.get(final)
            if handler is not None:
                handler(self, params, last)
        elif intermediates == "?":
            if final == "h":
                self._private_modes(params, True)
            elif final == "l":
                self._private_modes(params, False)

    @staticmethod
    def prepare_run(items: CsiRun) -> PreparedRun:
        return prepare_run(items)

    def _private_modes(self, params: list[Param], on: bool) -> None:
        for p in params:
            if p == 3:  # DECCOLM: tmux only clears and homes
                self._move(0, 0, origin=True)
                self._clear_lines(0, self.rows)
            elif p == 6:
                self.mode_origin = on
                self._move(0, 0, origin=True)
            elif p == 7:
                self.mode_wrap = on
            elif p == 25:
                self.cursor_visible = on
            elif p in (47, 1047, 1049):
                if on:
                    self._alternate_on(p == 1049)
                else:
                    self._alternate_off(p == 1049)
