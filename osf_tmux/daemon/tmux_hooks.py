"""How tmux wakes the daemon when panes, windows, sessions or focus change, so it need not poll
`list-panes` often.

No process id is involved anywhere: tmux hooks run `wait-for -S osf-tmux-wake` (a tmux command,
no process), and the daemon keeps a waiter on that channel, a `tmux wait-for osf-tmux-wake`
client that ends when the channel is signalled (about 15 ms after the event, measured). A daemon
killed with -9 leaves hooks that signal a channel nobody waits on (tmux remembers one pending
wake, nothing else), so no other program can ever be signalled by them; the next daemon removes
them. Its last waiter ends at the next event, or when the next daemon starts (it signals the
channel once).

The waiter is a plain client on purpose. A control-mode client (`tmux -C`) would end with the
daemon by itself, but tmux 3.3a crashes (SIGSEGV, the whole server) when a control client
connects while a session is being created: 1 in ~10 to 30 tries, reproduced without any hook
(bench/tmux_transport_bench.py). An attached control client also counts as a person looking at
its session's current window: no bell marks it and its pane gets focus-in.

Hooks are shared with the user's own configuration: ours are appended (`set-hook -ga`), name our
channel, and only entries that name it are ever removed (older daemons' `kill -USR1` entries
carried an `osf-tmux-wake:` marker, so they are recognised and removed too). tmux keeps the
hooks of panes and windows (`pane-died`, `window-resized`, ...) among the global window options:
`show-hooks -g` does not list them, `show-hooks -gw` does, so both are read before anything is
removed or counted; a start removes what an earlier daemon left, so entries never pile up."""

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


# Where tmux lists global hooks: the session ones, then those of windows and panes (tmux 3.2
# and later keep these apart; an older tmux refuses `-w`, and lists all under `-g`).
LISTINGS = (("show-hooks", "-g"), ("show-hooks", "-gw"))


def listing(tmux: Tmux) -> str:
    """Every global hook entry, session, window and pane ones together. Raises TmuxError only
    when neither list could be read."""
    out: list[str] = []
    errors: list[TmuxError] = []
    for command in LISTINGS:
        try:
            out.append(tmux.run(*command))
        except TmuxError as exc:
            errors.append(exc)
    if errors and not out:
        raise errors[0]
    return "".join(out)


def counts(show_hooks_output: str) -> dict[str, int]:
    """Per hook, how many entries of ours it holds (more than one: a daemon's leftovers)."""
    found: dict[str, int] = {}
    for name, _ in ours(show_hooks_output):
        found[name] = found.get(name, 0) + 1
    return found


def remove(tmux: Tmux) -> int:
    """Unset our entries (from this daemon or a killed one), never another's; how many."""
    try:
        entries = sorted(set(ours(listing(tmux))))
    except TmuxError:
        return 0
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


def release(tmux: Tmux) -> None:
    """Signal the channel once: a waiter a killed daemon left ends (or, with none, the next
    waiter returns at once, which costs one sweep)."""
    tmux.run("wait-for", "-S", CHANNEL)


class Waiter:
    """A `tmux wait-for` client on the wake channel; `fileno()` turns readable when it ends (the
    channel was signalled, or the server went away). Start a new one after each wake-up:
    signals sent in between are not lost, tmux keeps one for the next waiter."""

    def __init__(self, tmux_argv: Sequence[str]) -> None:
        self.argv = [*tmux_argv, "wait-for", CHANNEL]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> bool:
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,  # end-of-file here: it ended
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
        """True once the client has ended: `close` it then."""
        if self.proc is None or self.proc.stdout is None:
            return False
        while True:
            try:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
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
        if proc.poll() is None:
            proc.terminate()
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=2)
