"""Notifications when an agent starts waiting: what to say, when to stay quiet, whom to tell.

The daemon calls `Notifier.on_transition` from its loop; that only decides and queues, so a
slow desktop service can never stall the judging of panes. A worker thread delivers through
the first backend that works: the desktop (when a notification service answers), else tmux
itself (display-message, the bell, OSC 9/777 to the clients' terminals), else nothing, quietly.

Configuration comes from the plugin's tmux options, read at start and again after a plugin
(re)load touches the stamp file. Time comes from the daemon's injected clock."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.judge.question import ask_excerpt, clean
from osf_tmux.plugin import options as po
from osf_tmux.tmux import Tmux, TmuxError

if TYPE_CHECKING:
    from osf_tmux.daemon.loop import Transition

log = logging.getLogger("osf_tmux.plugin.notify")

NOTIFY_OPTIONS = tuple(o.name for o in po.OPTIONS if o.name.startswith("@osf-notify-"))


@dataclass(frozen=True)
class NotifyConfig:
    states: frozenset[str] = frozenset({"blocked"})
    cooldown: float = 30.0
    desktop: bool = True
    message: bool = True
    bell: bool = True
    osc: bool = True

    @classmethod
    def from_values(cls, values: Mapping[str, str]) -> NotifyConfig:
        """From option values; an unset ('') or malformed one keeps its default."""

        def flag(name: str) -> bool:
            value = values.get(name, "").strip()
            return po.is_on(value or po.BY_NAME[name].default)

        states = frozenset(s for s in ("blocked", "done") if flag(f"@osf-notify-{s}"))
        return cls(
            states=states,
            cooldown=po.seconds(values.get("@osf-notify-cooldown", ""), 30.0),
            desktop=flag("@osf-notify-desktop"),
            message=flag("@osf-notify-message"),
            bell=flag("@osf-notify-bell"),
            osc=flag("@osf-notify-osc"),
        )


def read_config(tmux: Tmux) -> NotifyConfig:
    try:
        return NotifyConfig.from_values(po.read_values(tmux, NOTIFY_OPTIONS))
    except TmuxError as exc:
        log.warning("could not read notification options (using defaults): %s", exc)
        return NotifyConfig()


# ---- what to say ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Notice:
    pane_id: str
    pane_tty: str
    address: str
    agent: str
    state: str
    question: str = ""
    detail: str = ""

    @property
    def title(self) -> str:
        verb = "is waiting for you" if self.state == "blocked" else "finished"
        return f"{self.agent} {verb} in {self.address}"

    @property
    def body(self) -> str:
        return "\n".join(t for t in (self.question, self.detail) if t)

    def line(self, limit: int = 200) -> str:
        parts = [self.title, self.question, self.detail]
        return clean(" — ".join(p for p in parts if p), limit)


def notice_for(t: Transition) -> Notice:
    question, detail = ask_excerpt(t.snapshot) if t.after.state == "blocked" else ("", "")
    return Notice(
        pane_id=t.pane.pane_id,
        pane_tty=t.pane.tty,
        address=t.pane.address,
        agent=clean(t.agent or "agent", 40),
        state=t.after.state or "",
        question=question,
        detail=detail,
    )


# ---- how to say it -------------------------------------------------------------------------


class Backend(Protocol):
    name: str

    def is_available(self) -> bool: ...

    def send(self, notice: Notice) -> None: ...


class NullBackend:
    """The end of the chain: nobody to tell. Never fails."""

    name = "none"

    def is_available(self) -> bool:
        return True

    def send(self, notice: Notice) -> None:
        log.debug("no way to notify about %s", notice.address)


class Notifier:
    """Decides which transitions notify and hands them to a delivery thread."""

    def __init__(
        self,
        load_config: Callable[[], NotifyConfig],
        chain: Callable[[NotifyConfig], Sequence[Backend]],
        *,
        clock: Clock | None = None,
        stamp: Path | None = None,
        inline: bool = False,
    ) -> None:
        self.load_config = load_config
        self.make_chain = chain
        self.clock = clock or SystemClock()
        self.stamp = stamp
        self.inline = inline
        self._stamp_seen = self._stamp_mtime()
        self.config = load_config()
        self.chain = list(chain(self.config))
        self.last: dict[tuple[str, str], float] = {}
        self.delivered: list[tuple[str, Notice]] = []  # (backend, notice), for tests and doctor
        self._queue: queue.Queue[Notice | None] = queue.Queue(maxsize=100)
        self._thread: threading.Thread | None = None
        if not inline:
            self._thread = threading.Thread(target=self._work, name="osf-notify", daemon=True)
            self._thread.start()

    def on_transition(self, t: Transition) -> None:
        self._maybe_reload()
        state = t.after.state
        if state is None or state not in self.config.states or t.pane.seen:
            return
        key = (t.pane.pane_id, state)
        now = self.clock.now()
        if now - self.last.get(key, float("-inf")) < self.config.cooldown:
            return
        self.last[key] = now
        notice = notice_for(t)
        if self.inline:
            self.deliver(notice)
            return
        try:
            self._queue.put_nowait(notice)
        except queue.Full:
            log.warning("notifications pile up; dropped one for %s", notice.address)

    def deliver(self, notice: Notice) -> str:
        """Through the first backend that is available and does not fail; its name."""
        for backend in self.chain:
            try:
                if not backend.is_available():
                    continue
                backend.send(notice)
            except Exception as exc:  # a backend must never take notifications down
                log.debug("%s backend failed: %s", backend.name, exc)
                continue
            self.delivered.append((backend.name, notice))
            del self.delivered[:-20]
            log.info("notified via %s: %s", backend.name, notice.line())
            return backend.name
        return "none"

    def describe(self) -> str:
        """Which backend a notification would go through now."""
        for backend in self.chain:
            with contextlib.suppress(Exception):
                if backend.is_available():
                    return backend.name
        return "none"

    def close(self, timeout: float = 2.0) -> None:
        if self._thread is not None:
            with contextlib.suppress(queue.Full):
                self._queue.put_nowait(None)
            self._thread.join(timeout)
            self._thread = None
        for backend in self.chain:
            closer = getattr(backend, "close", None)
            if callable(closer):
                with contextlib.suppress(Exception):
                    closer()

    def _work(self) -> None:
        log.info("notifications go through: %s", self.describe())
        while (notice := self._queue.get()) is not None:
            self.deliver(notice)

    def _maybe_reload(self) -> None:
        mtime = self._stamp_mtime()
        if mtime == self._stamp_seen:
            return
        self._stamp_seen = mtime
        config = self.load_config()
        if config != self.config:
            log.info("notification options changed: %s", config)
            self.config = config
            self.chain = list(self.make_chain(config))

    def _stamp_mtime(self) -> int | None:
        if self.stamp is None:
            return None
        try:
            return self.stamp.stat().st_mtime_ns
        except OSError:
            return None
