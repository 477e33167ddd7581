"""How tmux wakes the daemon when panes, windows, sessions or focus change, so it need not poll
`list-panes` often.

No process id is involved anywhere: tmux hooks run `wait-for -S osf-tmux-wake` (a tmux command,
no process), and the daemon keeps a waiter on that channel, a control-mode client running
`wait-for osf-tmux-wake` that ends when the channel is signalled. A daemon killed with -9 leaves
hooks that signal a channel nobody waits on (tmux remembers one pending wake, nothing else), so
no other program can ever be signalled by them; the next daemon removes them. The waiter reads
its commands from the daemon, so it ends with the daemon however the daemon ends.

A control client that only waits is attached to no session: it is not counted in
`#{session_attached}`, changes no window size, keeps no bell from marking a window and sends no
focus-in to any pane (measured in bench/tmux_transport_bench.py; an attached one does all that).

Hooks are shared with the user's own configuration: ours are appended (`set-hook -ga`), name our
channel, and only entries that name it are ever removed (older daemons' `kill -USR1` entries
carried an `osf-tmux-wake:` marker, so they are recognised and removed too)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import subprocess
from collections.abc import Sequence

from osf_tmux.tmux import Tmux, TmuxError

log = logging.getLogger("osf_tmux.daemon.tmux_hooks")

# One daemon per tmux server, and wait channels belong to a server: a fixed name. The agent
# hook endpoint (agents/report.py) signals the same channel after it records a report.
CHANNEL = "osf-tmux-wake"
_MARK = "osf-tmux-wake"

# Events after which the set of panes, their sizes, or what a person sees may have changed.
EVENTS = (
    "after-new-window",
    "after-split-window",
    "after-new-session",
    "after-kill-pane",
    "pane-exited",  # a pane whose program ended (without remain-on-exit) is closed
    "pane-died",  # ... or left dead (with remain-on-exit)
    "window-layout-changed",  # panes split, closed, resized, joined, swapped, broken out
    "window-pane-changed",
    "window-linked",
    "window-unlinked",
    "window-resized",
    "after-resize-pane",
    "after-resize-window",
    "after-select-pane",
    "after-select-window",
    "client-attached",
    "client-detached",
    "client-session-changed",
    "session-window-changed",
    "session-closed",
)

_ENTRY = re.compile(r"^(?P<name>[a-z-]+)\[(?P<index>\d+)\]\s+(?P<command>.*)$")


def install_commands() -> list[list[str]]:
    return [["set-hook", "-ga", event, f"wait-for -S {CHANNEL}"] for event in EVENTS]


def ours(show_hooks_output: str) -> list[tuple[str, int]]:
    """(hook, index) of every entry of ours (this version's or an older daemon's)."""
    found = []
    for line in show_hooks_output.splitlines():
        m = _ENTRY.match(line.strip())
        if m and _MARK in m.group("command"):
            found.append((m.group("name"), int(m.group("index"))))
    return found


def remove(tmux: Tmux) -> int:
    """Unset our entries (from this daemon or a killed one); returns how many."""
    try:
        listing = tmux.run("show-hooks", "-g")
    except TmuxError:
        return 0
    entries = ours(listing)
    if entries:
        tmux.run_each([["set-hook", "-gu", f"{name}[{index}]"] for name, index in entries])
    return len(entries)


def install(tmux: Tmux) -> None:
    """Raises TmuxError when no hook could be set (an event an older tmux lacks is skipped)."""
    remove(tmux)
    commands = install_commands()
    errors = tmux.run_each(commands).errors
    if len(errors) == len(commands):
        raise errors[0]
    for error in errors:
        log.info("hook not set: %s", error)


class Waiter:
    """A control-mode client waiting on the wake channel; `fileno()` turns readable when it has
    something to say, and `woken()` tells whether that was its end (the channel was signalled,
    or the server went away). Start a new one after each wake-up: signals sent in between are
    not lost, tmux keeps one for the next waiter."""

    def __init__(self, tmux_argv: Sequence[str]) -> None:
        self.argv = [*tmux_argv, "-C", "wait-for", CHANNEL]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> bool:
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,  # its end of this pipe closing ends it, with the daemon
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
        except OSError as exc:
            log.warning("cannot start the tmux wake-up waiter: %s", exc)
            self.proc = None
            return False
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        return True

    def fileno(self) -> int:
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def woken(self) -> bool:
        """Read what the client wrote (notifications are of no interest: hooks say more);
        True once it has ended, i.e. the channel was signalled: `close` it then."""
        if self.proc is None or self.proc.stdout is None:
            return False
        while True:
            try:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            except BlockingIOError:
                return False
            except OSError:
                chunk = b""
            if not chunk:
                return True

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=2)
