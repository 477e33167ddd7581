"""The ways a notice reaches a person: the desktop, or the terminal through tmux.

Each backend says whether it can work (`is_available`) and may raise from `send`; the
Notifier moves on to the next one. Both run on the notifier's thread, never the daemon's."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.plugin.notify import Backend, Notice, Notifier, NotifyConfig, NullBackend, read_config
from osf_tmux.tmux import SEP, Tmux, TmuxError

log = logging.getLogger("osf_tmux.plugin.notify")
T = TypeVar("T")


class DesktopBackend:
    """desktop-notifier, used only when a notification service answers its capability query.

    Without one (no D-Bus session, a headless box, ssh) `send` would still "succeed" and log a
    traceback each time, so the probe decides, under a timeout, and is repeated now and then in
    case a desktop session appears later. Its event loop runs on a thread of its own so that a
    click on a notification can call back: the click jumps to the pane."""

    name = "desktop"

    def __init__(
        self,
        on_click: Callable[[str], None],
        clock: Clock | None = None,
        timeout: float = 2.0,
        reprobe: float = 300.0,
    ) -> None:
        self.on_click = on_click
        self.clock = clock or SystemClock()
        self.timeout = timeout
        self.reprobe = reprobe
        self.reason = "not probed yet"
        self._available: bool | None = None
        self._probed_at = float("-inf")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._notifier: Any = None

    def is_available(self) -> bool:
        now = self.clock.now()
        stale = now - self._probed_at > self.reprobe
        if self._available is None or (not self._available and stale):
            self._probed_at = now
            self._available = self._probe()
        return self._available

    def _probe(self) -> bool:
        try:
            from desktop_notifier import DesktopNotifier
        except ImportError as exc:
            self.reason = f"desktop-notifier is not installed ({exc})"
            return False
        # It logs a warning with a traceback for every failed send; our own log says enough.
        logging.getLogger("desktop_notifier").setLevel(logging.CRITICAL + 1)
        try:
            loop = self._ensure_loop()
            self._notifier = self._run(loop, _construct(DesktopNotifier))
            self._run(loop, self._notifier.get_capabilities())
        except Exception as exc:
            self.reason = f"no notification service answers ({type(exc).__name__}: {exc})"
            return False
        self.reason = "a notification service answers"
        return True

    def send(self, notice: Notice) -> None:
        loop = self._ensure_loop()
        pane = notice.pane_id
        self._run(
            loop,
            self._notifier.send(
                title=notice.title,
                message=notice.body or notice.address,
                on_clicked=lambda: self.on_click(pane),
            ),
        )

    def close(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop = None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="osf-desktop", daemon=True).start()
            self._loop = loop
        return self._loop

    def _run(self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(self.timeout)


async def _construct(cls: Any) -> Any:
    # Built inside the loop: its D-Bus connection belongs to that loop.
    return cls(app_name="osf-tmux")


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

    def is_available(self) -> bool:
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
                [["display-message", "-c", cl.name, "-d", "5000", text] for cl in clients]
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


def default_chain(
    tmux: Tmux, on_click: Callable[[str], None], clock: Clock | None = None
) -> Callable[[NotifyConfig], Sequence[Backend]]:
    """The chain for a config: the desktop (one instance for the daemon's life), then tmux,
    then nothing. A reload builds a new chain around the same desktop backend."""
    desktop = DesktopBackend(on_click, clock)

    def chain(config: NotifyConfig) -> list[Backend]:
        out: list[Backend] = [desktop] if config.desktop else []
        return [*out, TerminalBackend(tmux, config), NullBackend()]

    return chain


def start_notifier(tmux: Tmux, stamp: Path) -> Notifier:
    """The daemon's notifier: options read now and after each plugin (re)load, which touches
    `stamp`; a click on a desktop notification shows the pane on the client used last."""
    from osf_tmux.plugin.jump import focus

    own = Tmux(tmux.server)  # its own instance: it runs on the notifier's threads

    def on_click(pane_id: str) -> None:
        with contextlib.suppress(TmuxError):
            focus(own, pane_id)

    return Notifier(lambda: read_config(own), default_chain(own, on_click), stamp=stamp)
