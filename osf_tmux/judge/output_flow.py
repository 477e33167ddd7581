"""Whether a pane's output flows: its screen changed within the last few seconds.

The signal behind a manifest's `output_flow` option (rules/generic.toml): a program nobody wrote
rules for shows no spinner osf-tmux knows, so it reads `working` while it prints and idle once
it stops. Only a change of the visible text counts: a redraw that puts the same text back, a
blinking or moving cursor, a new window title and a keystroke echoed at the cursor are not
output. Pure: time comes in with every call."""

from __future__ import annotations

from osf_tmux.vt.snapshot import Snapshot

# A keystroke echoes one character, two for a wide one; a few more for a key that moves by
# words or deletes one is still typing, but a line printed at once is not.
_ECHO_MAX = 2


class OutputFlow:
    """When the screen's text last changed, and so whether output flows at a moment."""

    def __init__(self, window: float) -> None:
        self.window = window
        self.last_output = float("-inf")
        self._last: Snapshot | None = None

    def observe(self, snap: Snapshot, now: float) -> None:
        """Take the screen as it is at `now`. The first screen seen is where the pane stood
        when it was first looked at, not output."""
        last, self._last = self._last, snap
        if last is None or last.rows is snap.rows or last.rows == snap.rows:
            return
        if _echo_only(last, snap):
            return
        self.last_output = now

    def flowing(self, now: float) -> bool:
        return now - self.last_output < self.window

    def ends(self) -> float:
        """When the flow stops if nothing more changes (monotonic)."""
        return self.last_output + self.window


def _echo_only(before: Snapshot, after: Snapshot) -> bool:
    """A keystroke echoed where the cursor stands: only the cursor's row changed, the cursor
    stayed on it, and one text is the other plus at most `_ECHO_MAX` characters at its end."""
    y = after.cursor[1]
    if before.cursor[1] != y or len(before.rows) != len(after.rows):
        return False
    if not 0 <= y < len(after.rows):
        return False
    old, new = before.rows[y], after.rows[y]
    short, long = (old, new) if len(old) <= len(new) else (new, old)
    if len(long) - len(short) > _ECHO_MAX or not long.startswith(short):
        return False
    # Everything else as it was (the rows are mostly the very same objects: cheap).
    return all(
        a is b or a == b
        for i, (a, b) in enumerate(zip(before.rows, after.rows, strict=True))
        if i != y
    )
