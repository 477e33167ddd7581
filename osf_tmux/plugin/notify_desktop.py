"""Desktop pop-ups through desktop-notifier, trusted only as far as they are seen to work.

desktop-notifier's `send` swallows every error (it logs a warning and returns), so a send
counts only when its `on_dispatched` callback ran. Each send first asks the service for its
capabilities (a millisecond when it answers): a service that is gone gives its error at once,
and one that hangs (stopped, not dead) is found out within `timeout` without having been sent
the notification, which it would otherwise show whenever it woke, long after the prompt. A
failed send drops the connection and tries a fresh one at once (the notification service or
the bus may have restarted); if that fails too the notice falls through to the next backend,
and each later notification probes again. A hung service is not asked again while it hangs:
its last question stays open, and the desktop is back the moment it answers. A pop-up is
withdrawn (`CloseNotification`) when its prompt goes.

A click on a pop-up shows its pane: the `default` action, which GNOME Shell, KDE Plasma and
mako run on a left click. dunst's default configuration closes a pop-up on a left click (the
action is on the middle one), so under dunst a pop-up closed by the person counts as a click
too, unless several close at once (a right click closes them all).

The bus comes from tmux, not from the environment the daemon happened to start with: the
tmux session's environment (where `update-environment` puts what an attaching client has),
then tmux's global one (`set-environment -g`), then the daemon's own, then the standard
per-user socket. It is looked up again for each notification, so a new desktop session is
picked up without restarting anything."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import logging
import os
import stat
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.plugin.notify import Notice
from osf_tmux.tmux import SEP, Tmux, TmuxError

log = logging.getLogger("osf_tmux.plugin.notify")
T = TypeVar("T")

BUS_VAR = "DBUS_SESSION_BUS_ADDRESS"
ICON = "osf-tmux.png"


def icon_path() -> Path:
    """Our own icon, shipped in the package (desktop-notifier's default is Python's logo)."""
    return Path(str(resources.files("osf_tmux.plugin") / "icons" / ICON))


@dataclass(frozen=True)
class BusAddress:
    address: str  # '' when none was found
    source: str  # where it was found, for the log and doctor


def parse_environment(text: str) -> dict[str, str | None]:
    """`show-environment` output: NAME=value, or -NAME for a variable removed in that scope."""
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        if line.startswith("-"):
            found[line[1:]] = None
        elif "=" in line:
            name, value = line.split("=", 1)
            found[name] = value
    return found


def tmux_bus(tmux: Tmux, session_id: str = "") -> tuple[str, str]:
    """(session value, global value) of the bus address in tmux's environments ('' if unset).
    One tmux call; a session that is gone just has no value."""
    mark = "OSFENV" + SEP
    commands = [["show-environment", "-g"]]
    if session_id:
        commands += [["display-message", "-p", mark], ["show-environment", "-t", session_id]]
    try:
        out = tmux.run_many(commands)
    except TmuxError:
        if not session_id:
            raise
        out = tmux.run("show-environment", "-g")
    glob, _, sess = out.partition(mark + "\n")
    return parse_environment(sess).get(BUS_VAR) or "", parse_environment(glob).get(BUS_VAR) or ""


def user_bus_socket(env: Mapping[str, str]) -> str:
    """The per-user bus of a systemd (or dbus-broker) login, where libdbus looks by default."""
    base = env.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    path = os.path.join(base, "bus")
    try:
        is_socket = stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return ""
    return f"unix:path={path}" if is_socket else ""


def find_bus(
    session: str, glob: str, own: str, env: Mapping[str, str], session_name: str = ""
) -> BusAddress:
    if session:
        return BusAddress(session, f"tmux session {session_name or '?'}'s environment")
    if glob:
        return BusAddress(glob, "tmux's global environment")
    if own:
        return BusAddress(own, "the daemon's own environment")
    socket = user_bus_socket(env)
    if socket:
        return BusAddress(socket, "the per-user bus socket")
    return BusAddress("", "nowhere")


NO_BUS = (
    f"no session bus address: {BUS_VAR} is in neither tmux's environment nor the daemon's, "
    "and there is no per-user bus socket ($XDG_RUNTIME_DIR/bus)"
)


class DesktopFailed(RuntimeError):
    pass


class _LastWarning(logging.Handler):
    """Keeps what desktop-notifier logged last: the real error of a send it swallowed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.text = ""

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.text = f"{type(exc).__name__}: {exc}" if exc else record.getMessage()


_warnings = _LastWarning()
_dn_log = logging.getLogger("desktop_notifier")
_dn_log.addHandler(_warnings)
_dn_log.propagate = False  # a traceback per failed send; our own log says what happened


class DesktopBackend:
    """desktop-notifier on a connection of its own, with its event loop on a thread (a click
    on a pop-up calls back: the click jumps to the pane)."""

    name = "desktop"

    def __init__(
        self,
        on_click: Callable[[str], None],
        clock: Clock | None = None,
        timeout: float = 0.5,
        tmux: Tmux | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.on_click = on_click
        self.clock = clock or SystemClock()
        self.timeout = timeout
        self.tmux = tmux
        self.env = dict(os.environ if env is None else env)
        self.own_bus = self.env.get(BUS_VAR, "")
        self.reason = "not probed yet"
        self.bus = BusAddress(self.own_bus, "the daemon's own environment")
        self.server = ""  # the notification service's name (GetServerInformation)
        self.failure = ""  # why the last probe failed: one of FAILURES, '' when it answered
        self.last_ok: float | None = None
        self._bus_known = False
        self._retry_at = float("-inf")
        self._probe_error = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._notifier: Any = None
        # The question a hung service has not answered yet; it answering ends the hang.
        self._hung: concurrent.futures.Future[Any] | None = None
        self._shown: dict[str, tuple[Any, str]] = {}  # pane -> (its notifier, pop-up id)
        self._dismissed: asyncio.TimerHandle | None = None
        self._burst_until = float("-inf")

    # ---- the backend protocol --------------------------------------------------------------

    def is_available(self, notice: Notice | None = None) -> bool:
        self._follow_bus(notice.session_id if notice else "", notice.session_name if notice else "")
        if self._hung is not None:
            return False
        if self._notifier is not None:
            if not self.server:  # connected while it hung: not asked yet
                self.server = self._server_name(self._ensure_loop(), self._notifier) or "?"
            return True
        if self.clock.now() < self._retry_at:
            return False
        return self._connect()

    def send(self, notice: Notice) -> None:
        if self._notifier is None and not self._connect():
            raise DesktopFailed(self.reason)
        error = self._send_once(notice)
        if error is None:
            return
        if self._hung is not None:  # a fresh connection would wait just as long
            self.reason = f"the notification service does not answer ({error})"
            raise DesktopFailed(self.reason)
        # The connection may be stale (the service or the bus restarted): a fresh one, once.
        self._drop()
        if self._connect():
            again = self._send_once(notice)
            if again is None:
                log.info("desktop: reconnected to the notification service after: %s", error)
                return
            error = again
            self._drop()
        elif self._probe_error == error:
            error = f"{error}; a fresh connection: the same"
        else:
            error = f"{error}; a fresh connection: {self._probe_error}"
        self.reason = f"the notification service did not take it ({error})"
        raise DesktopFailed(self.reason)

    def withdraw(self, pane_id: str) -> None:
        """Close the pane's pop-up, if one is up: its prompt went. Does not wait."""
        shown = self._shown.pop(pane_id, None)
        if shown is None or self._loop is None:
            return
        notifier, nid = shown
        future = asyncio.run_coroutine_threadsafe(notifier.clear(nid), self._loop)
        future.add_done_callback(_ignore_failure)
        log.debug("desktop: withdrew the pop-up for %s", pane_id)

    def probe(self) -> bool:
        """Whether a notification service answers now, on a fresh connection (for `doctor`)."""
        self._follow_bus("")
        self._drop()
        self._retry_at = float("-inf")
        return self._connect()

    def info(self) -> dict[str, Any]:
        return {
            "bus": self.bus.address,
            "bus_from": self.bus.source,
            "connected": self._notifier is not None,
            "hung": self._hung is not None,
            "server": self.server,
            "reason": self.reason,
        }

    def close(self) -> None:
        self._drop()
        if self._loop is not None:
            with contextlib.suppress(Exception):
                self._run(self._loop, _settle())
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(self.timeout)
            self._loop = self._thread = None

    # ---- the bus ---------------------------------------------------------------------------

    def _follow_bus(self, session_id: str, session_name: str = "") -> None:
        """Use the bus tmux names now; a different one drops the connection to the old."""
        if self.tmux is None:
            found = find_bus("", "", self.own_bus, self.env)
        else:
            try:
                sess, glob = tmux_bus(self.tmux, session_id)
            except TmuxError as exc:
                log.debug("could not read tmux's environment: %s", exc)
                return
            found = find_bus(sess, glob, self.own_bus, self.env, session_name or session_id)
        if self._bus_known and found.address == self.bus.address:
            self.bus = found  # the same bus, perhaps now found in another place
            return
        if self._bus_known:
            now = found.address or "none"
            log.info("desktop: session bus is now %s (from %s)", now, found.source)
        self._bus_known = True
        self.bus = found
        self._drop()
        self._retry_at = float("-inf")
        # dbus-fast reads the address from the environment when it connects.
        if found.address:
            os.environ[BUS_VAR] = found.address
        else:
            os.environ.pop(BUS_VAR, None)

    # ---- desktop-notifier ------------------------------------------------------------------

    def _connect(self) -> bool:
        """A fresh connection, kept if the notification service answers a capability query."""
        try:
            from desktop_notifier import DesktopNotifier, Icon
        except ImportError as exc:
            self.reason = f"desktop-notifier is not installed ({exc})"
            self._retry_at = float("inf")
            return False
        notifier = None
        try:
            loop = self._ensure_loop()
            notifier = self._run(loop, _construct(DesktopNotifier, Icon(path=icon_path())))
            asked = asyncio.run_coroutine_threadsafe(notifier.get_capabilities(), loop)
            self._wait(asked, notifier)
        except Exception as exc:
            hung = _is_timeout(exc)
            what = f"no answer within {self.timeout:g}s" if hung else f"{type(exc).__name__}: {exc}"
            self._probe_error = what
            self.failure = _failure(exc, self.bus.address)
            if self.failure == "no-bus":
                what = f"{NO_BUS} ({what})"
            self.reason = f"no notification service answers ({what})"
            if hung:
                self._notifier = notifier  # kept: its open question says when the hang ends
            elif notifier is not None:
                self._disconnect(notifier)
            return False
        self._notifier = notifier
        self.failure = ""
        self.server = self._server_name(loop, notifier)
        self.reason = "a notification service answers"
        return True

    def _server_name(self, loop: asyncio.AbstractEventLoop, notifier: Any) -> str:
        interface = getattr(getattr(notifier, "_backend", None), "interface", None)
        ask = getattr(interface, "call_get_server_information", None)
        if not callable(ask):
            return ""
        try:
            info = self._run(loop, ask())
        except Exception as exc:
            log.debug("desktop: no server information: %s", exc)
            return ""
        return str(info[0]) if info else ""

    def _wait(self, future: concurrent.futures.Future[T], notifier: Any) -> T:
        """The answer within `timeout`; else the service hangs: the question stays open, and
        its answer (or its error: the service died) ends the hang."""
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            if self._hung is None:
                log.info(
                    "desktop: the notification service hangs; asked nothing more till it answers"
                )
                self._hung = future
                future.add_done_callback(lambda f: self._answered(f, notifier))
            raise

    def _answered(self, future: concurrent.futures.Future[Any], notifier: Any) -> None:
        """On the loop's thread: the hung service's late answer."""
        if self._hung is not future:
            return
        self._hung = None
        if future.cancelled() or future.exception() is not None:
            log.info("desktop: the notification service that hung is gone")
            if self._notifier is notifier:
                self._notifier = None
                self._disconnect(notifier)
        else:
            log.info("desktop: the notification service answers again")
            self.reason = "a notification service answers"

    def _send_once(self, notice: Notice) -> str | None:
        """None when the service took the notice, else what went wrong."""
        loop = self._ensure_loop()
        notifier = self._notifier
        pane = notice.key  # another machine's %3 is not this server's %3
        taken = threading.Event()
        _warnings.text = ""
        try:
            # Asked first, uncached: a hung service must not be sent a notice it would show
            # whenever it wakes up.
            self._wait(asyncio.run_coroutine_threadsafe(_ping(notifier), loop), notifier)
            sent = asyncio.run_coroutine_threadsafe(
                notifier.send(
                    title=notice.title,
                    message=notice.body or notice.address,
                    on_dispatched=taken.set,
                    on_clicked=lambda: self._clicked(pane),
                    on_dismissed=lambda: self._closed_by_person(pane),
                ),
                loop,
            )
            try:
                nid = self._wait(sent, notifier)
            except concurrent.futures.TimeoutError:
                # Too late to count; if it ever lands, it goes at once.
                sent.add_done_callback(lambda f: self._withdraw_late(f, notifier))
                raise
        except Exception as exc:
            hung = _is_timeout(exc)
            return f"no answer within {self.timeout:g}s" if hung else f"{type(exc).__name__}: {exc}"
        if taken.is_set():
            self.last_ok = self.clock.wall()
            self._shown[pane] = (notifier, nid)
            return None
        return _warnings.text or "the notification was not dispatched"

    def _withdraw_late(self, future: concurrent.futures.Future[Any], notifier: Any) -> None:
        if future.cancelled() or future.exception() is not None or self._loop is None:
            return
        log.info("desktop: a notification the service took too late to count is withdrawn")
        asyncio.run_coroutine_threadsafe(
            notifier.clear(future.result()), self._loop
        ).add_done_callback(_ignore_failure)

    def _clicked(self, pane: str) -> None:
        self._shown.pop(pane, None)
        self.on_click(pane)

    def _closed_by_person(self, pane: str) -> None:
        """On the loop's thread: a pop-up closed by the person. Under dunst that is what a left
        click does; a right click closes every pop-up at once, which shows no pane."""
        self._shown.pop(pane, None)
        if self.server.lower() != "dunst" or self._loop is None:
            return
        now = self._loop.time()
        if self._dismissed is not None or now < self._burst_until:
            if self._dismissed is not None:
                self._dismissed.cancel()
                self._dismissed = None
            self._burst_until = now + DISMISS_BURST
            return
        self._dismissed = self._loop.call_later(DISMISS_BURST, self._dismissed_alone, pane)

    def _dismissed_alone(self, pane: str) -> None:
        self._dismissed = None
        self._burst_until = float("-inf")
        self.on_click(pane)

    def _drop(self) -> None:
        self._hung = None
        self._shown.clear()
        if self._notifier is not None:
            self._disconnect(self._notifier)
            self._notifier = None

    def _disconnect(self, notifier: Any) -> None:
        # desktop-notifier has no close(): its D-Bus backend keeps the connection in `bus`.
        # Without this every reconnection would leave a socket behind.
        bus = getattr(getattr(notifier, "_backend", None), "bus", None)
        disconnect = getattr(bus, "disconnect", None)
        if callable(disconnect) and self._loop is not None:
            loop = self._loop
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(disconnect)
                # The dropped connection is a web of cycles holding a socket and failed futures,
                # whose finalizers log. Collected here, on our loop's thread, once it has wound
                # down, rather than wherever the collector next runs (CPython 3.11.7 raises a
                # SystemError when that is in the middle of compiling something).
                loop.call_soon_threadsafe(_collect_later, loop)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(_loop_error)
            self._thread = threading.Thread(
                target=_run_loop, args=(loop,), name="osf-desktop", daemon=True
            )
            self._thread.start()
            self._loop = loop
        return self._loop

    def _run(self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise


DISMISS_BURST = 0.15  # pop-ups closed within this of each other were closed all at once


# Why no service answers, each with its own remedy (`doctor`): no bus address at all; a bus
# address that leads nowhere (the session ended); a bus without a notification service (it
# died or never ran); a service that is there and does not answer (stopped, stuck).
FAILURES = ("no-bus", "bus-gone", "no-service", "hung", "other")


def _failure(exc: BaseException, bus: str) -> str:
    if _is_timeout(exc):
        return "hung"
    if not bus:
        return "no-bus"
    try:
        from dbus_fast.errors import DBusError
    except ImportError:  # pragma: no cover - desktop-notifier depends on it
        return "other"
    if isinstance(exc, DBusError):
        return "no-service"  # the bus answered: nobody owns org.freedesktop.Notifications
    return "bus-gone" if isinstance(exc, OSError | EOFError) else "other"


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError | concurrent.futures.TimeoutError)


def _ignore_failure(future: concurrent.futures.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.debug("desktop: %s", future.exception())


async def _ping(notifier: Any) -> Any:
    """A question the service must answer now (desktop-notifier caches its capabilities)."""
    backend = getattr(notifier, "_backend", None)
    ask = getattr(backend, "_get_capabilities", None)
    return await (ask() if callable(ask) else notifier.get_capabilities())


def _loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    # dbus-fast's writer on a bus that died under it ('Bad file descriptor'): the failed send
    # already says what happened; asyncio's default would print a traceback to stderr.
    log.debug("desktop event loop: %s (%s)", context.get("message"), context.get("exception"))


def _collect_later(loop: asyncio.AbstractEventLoop) -> None:
    loop.call_later(0.2, gc.collect)


async def _settle() -> None:
    await asyncio.sleep(0.05)  # a dropped connection's last callbacks
    gc.collect()


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        # Closed here, on its own thread, once stopped: a loop left to the garbage collector
        # finalizes its transports at an arbitrary moment of some other thread.
        loop.close()


async def _construct(cls: Any, icon: Any) -> Any:
    # Built inside the loop: its D-Bus connection belongs to that loop.
    return cls(app_name="osf-tmux", app_icon=icon)
