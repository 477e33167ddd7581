"""The ways a notice reaches a person: the desktop (notify_desktop.py), the terminal through
tmux, and the user's own command (notify_command.py); who is looking at a pane; and the
daemon's notifier built from them.

Each backend says whether it can work (`is_available`) and may raise from `send`; the
Notifier moves on to the next one. All run on the notifier's thread, never the daemon's."""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.clock import Clock
from osf_tmux.plugin.notify import Backend, Notice, Notifier, NotifyConfig, NullBackend, read_config
from osf_tmux.plugin.notify_command import CommandRunner
from osf_tmux.plugin.notify_desktop import DesktopBackend
from osf_tmux.plugin.notify_prompts import PromptBook
from osf_tmux.tmux import SEP, PaneInfo, Tmux, TmuxError

log = logging.getLogger("osf_tmux.plugin.notify")


@dataclass(frozen=True)
class Client:
    name: str
    tty: str
    control: bool


def osc_bytes(notice: Notice) -> bytes:
    """OSC 9 (iTerm2, WezTerm, kitty, Ghostty) and OSC 777 (foot, VTE terminals): a terminal
    ignores the one it does not know. `;` separates OSC 777 fields, so none in the title."""
    title = notice.title.replace(";", ",")
    body = (notice.question or notice.detail or notice.address).replace(";", ",")
    return f"\x1b]9;{notice.line(160)}\x07\x1b]777;notify;{title};{body}\x07".encode()


def write_tty(path: str, data: bytes) -> None:
    """One write to a terminal we do not own; never blocks, never becomes our terminal."""
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


# How long the message stays: tmux (3.3a) draws it over the whole status line, the counts and
# marks the daemon publishes included, so a long message hid the very badge it is about (5 s:
# the count showed 6 s after the block). Two seconds to read who waits; the badge says it after.
MESSAGE_MS = 2000


class TerminalBackend:
    """Through tmux: a message on each attached client, the bell in the waiting pane (tmux
    flags its window and passes the bell on), and OSC notifications written to each client's
    own terminal, which reach a laptop even when tmux runs over ssh."""

    name = "terminal"

    def __init__(
        self,
        tmux: Tmux,
        config: NotifyConfig,
        write: Callable[[str, bytes], None] = write_tty,
    ) -> None:
        self.tmux = tmux
        self.config = config
        self.write = write

    def is_available(self, notice: Notice | None = None) -> bool:
        c = self.config
        return c.message or c.bell or c.osc

    def clients(self) -> list[Client]:
        fmt = SEP.join(("#{client_name}", "#{client_tty}", "#{client_control_mode}"))
        out = self.tmux.run("list-clients", "-F", fmt)
        found = []
        for line in out.splitlines():
            parts = line.split(SEP)
            if len(parts) == 3:
                found.append(Client(parts[0], parts[1], parts[2] == "1"))
        return found

    def send(self, notice: Notice) -> None:
        c = self.config
        clients = self.clients() if (c.message or c.osc) else []
        if c.message and clients:
            text = notice.line(120).replace("#", "##")
            self.tmux.run_many(
                [["display-message", "-c", cl.name, "-d", str(MESSAGE_MS), text] for cl in clients]
            )
        if c.bell and notice.pane_tty:
            with contextlib.suppress(OSError):
                self.write(notice.pane_tty, b"\a")
        if c.osc:
            data = osc_bytes(notice)
            for cl in clients:
                if cl.tty and not cl.control:
                    with contextlib.suppress(OSError):
                        self.write(cl.tty, data)


# ---- who is looking ------------------------------------------------------------------------

FOCUS_MIN_TMUX = (3, 3)  # the `focused` client flag; what 3.3a reports was checked by tests


def looked_at(tmux: Tmux, pane: PaneInfo) -> bool:
    """Whether a person looks at `pane`: it is on the screen of a client attached to its
    session, and, where the terminal reports focus (`focus-events on`), that client's
    terminal has the focus. Without focus events tmux cannot tell a terminal in the
    background from one in front, so a pane on screen counts as looked at."""
    if not pane.seen:
        return False
    head = "OSFFOCUS" + SEP
    fmt = SEP.join(("OSFCLIENT", "#{session_id}", "#{client_flags}"))
    try:
        out = tmux.run_many(
            [
                ["display-message", "-p", head + "#{focus-events}" + SEP + "#{version}"],
                ["list-clients", "-F", fmt],
            ]
        )
    except TmuxError as exc:
        log.debug("cannot tell who looks at %s (%s): taking it as looked at", pane.pane_id, exc)
        return True
    focus_events, version = False, (0, 0)
    clients: list[set[str]] = []
    for line in out.splitlines():
        parts = line.split(SEP)
        if parts[0] == "OSFFOCUS" and len(parts) == 3:
            focus_events = parts[1] in ("1", "on")
            m = re.match(r"(?:next-)?(\d+)\.(\d+)", parts[2])
            version = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        elif parts[0] == "OSFCLIENT" and len(parts) == 3 and parts[1] == pane.session_id:
            clients.append(set(parts[2].split(",")))
    trust_focus = focus_events and version >= FOCUS_MIN_TMUX
    return any("focused" in flags or not trust_focus for flags in clients)


# ---- the daemon's notifier ------------------------------------------------------------------


def default_chain(
    tmux: Tmux, on_click: Callable[[str], None], clock: Clock | None = None
) -> Callable[[NotifyConfig], Sequence[Backend]]:
    """The chain for a config: the desktop (one instance for the daemon's life), then tmux,
    then nothing. A reload builds a new chain around the same desktop backend."""
    desktop = DesktopBackend(on_click, clock, tmux=tmux)

    def chain(config: NotifyConfig) -> list[Backend]:
        out: list[Backend] = [desktop] if config.desktop else []
        return [*out, TerminalBackend(tmux, config), NullBackend()]

    return chain


def start_notifier(tmux: Tmux, stamp: Path, state: Path | None = None) -> Notifier:
    """The daemon's notifier: options read now and after each plugin (re)load, which touches
    `stamp`; the prompts notified kept in `state`; a click on a desktop notification shows the
    pane on the client used last."""
    from osf_tmux.plugin.jump import focus

    own = Tmux(tmux.server)  # its own instance: it runs on the notifier's threads

    def on_click(pane_id: str) -> None:
        if not pane_id.startswith("%"):
            return  # another machine's pane (`devbox:%3`): nothing of this server to show
        with contextlib.suppress(TmuxError):
            focus(own, pane_id)

    return Notifier(
        lambda: read_config(own),
        default_chain(own, on_click),
        stamp=stamp,
        book=PromptBook(state / "notify-prompts.json" if state else None),
        looking=lambda pane: looked_at(own, pane),
        hooks=[CommandRunner()],
    )
