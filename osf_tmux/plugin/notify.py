"""Notifications when an agent starts waiting: what to say, when to stay quiet, whom to tell.

The daemon calls `Notifier.on_transition` from its loop; that only queues, so neither a slow
desktop service, nor a tmux query, nor the user's command can stall the judging of panes. A
worker thread decides (cooldown, whether someone looks at the pane) and delivers through the
first backend that works: the desktop (when a notification service answers), else tmux itself
(display-message, the bell, OSC 9/777 to the clients' terminals), else nothing, quietly; then
the user's own command, if any. What worked and what failed is kept for status.json, where
`doctor` reads it.

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
from typing import TYPE_CHECKING, Any, Protocol

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.fleet.remote import RemoteTransition
from osf_tmux.judge.question import ask_context, ask_excerpt, clean, prompt_identity
from osf_tmux.plugin import options as po
from osf_tmux.plugin.notify_prompts import PromptBook
from osf_tmux.tmux import PaneInfo, Tmux, TmuxError

if TYPE_CHECKING:
    from osf_tmux.daemon.watch import Transition
    from osf_tmux.judge.combine import PaneState

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
    command: str = ""
    command_timeout: float = 10.0

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
            command=values.get("@osf-notify-command", "").strip(),
            command_timeout=po.seconds(values.get("@osf-notify-command-timeout", ""), 10.0),
        )


def read_config(tmux: Tmux) -> NotifyConfig:
    try:
        return NotifyConfig.from_values(po.read_values(tmux, NOTIFY_OPTIONS))
    except TmuxError as exc:
        log.warning("could not read notification options (using defaults): %s", exc)
        return NotifyConfig()


# ---- what to say (the question itself: osf_tmux/judge/question.py) -------------------------


@dataclass(frozen=True)
class Notice:
    pane_id: str
    pane_tty: str
    address: str
    agent: str
    state: str
    question: str = ""
    detail: str = ""
    session_id: str = ""
    since: float = 0.0  # wall-clock seconds: when the pane entered `state`
    # The dialog's rows around the question (the command or file it is about), and what makes
    # it the same question (osf_tmux/judge/question.py); both empty without a screen.
    context: tuple[str, ...] = ()
    identity: str = ""
    session_name: str = ""
    host: str | None = None  # another machine's pane (`@osf-hosts`): pane_id is its id there

    @property
    def key(self) -> str:
        """The pane among all machines' (a pop-up to withdraw, a click to follow)."""
        return f"{self.host}:{self.pane_id}" if self.host else self.pane_id

    @property
    def prompt(self) -> str:
        """What the pane asks, as far as the screen tells: a new one is worth a new notice."""
        return self.identity or f"{self.question}\n{self.detail}"

    @property
    def title(self) -> str:
        verb = "is waiting for you" if self.state == "blocked" else "finished"
        return f"{self.agent} {verb} in {self.address}"

    @property
    def about(self) -> tuple[str, ...]:
        """What the question is about: the dialog's rows, else the row above the question."""
        rows = self.context or ((self.detail,) if self.detail else ())
        return tuple(r for r in rows if r and r != self.question)

    @property
    def body(self) -> str:
        return clean_rows([self.question, *self.about], BODY_LIMIT)

    def line(self, limit: int = 200) -> str:
        parts = [self.title, self.question, " · ".join(self.about)]
        return clean(" — ".join(p for p in parts if p), limit)


BODY_LIMIT = 600


def clean_rows(rows: Sequence[str], limit: int) -> str:
    """Rows as lines of a pop-up's body, cut to `limit` characters in all."""
    text = "\n".join(r for r in rows if r)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


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
        session_id=t.pane.session_id,
        since=t.after.since,
        context=ask_context(t.snapshot) if t.after.state == "blocked" else (),
        identity=prompt_identity(t.snapshot) if t.after.state == "blocked" else "",
        session_name=t.pane.session_name,
    )


def remote_notice(t: RemoteTransition) -> Notice:
    """Another machine's pane: what its daemon said it asks (it has no screen here). Its
    address names the host (`devbox:work:1.0`); it has no tty here to ring."""
    pane = t.pane
    blocked = t.after == "blocked"
    return Notice(
        pane_id=pane.pane,
        pane_tty="",
        address=pane.address,
        agent=clean(pane.agent or "agent", 40),
        state=t.after or "",
        question=pane.question if blocked else "",
        since=pane.since or 0.0,
        identity=pane.question if blocked else "",
        host=pane.host,
    )


def remote_key(t: RemoteTransition) -> str:
    return f"{t.pane.host}/{t.pane.pane}"


def _shown(state: PaneState, standing_in: bool) -> bool:
    """Whether the agent itself showed `state` (a rule matched its screen, or a hook said so),
    rather than the daemon standing in for a prompt that went away."""
    return state.rule is not None and not standing_in


def pane_key(pane: PaneInfo) -> str:
    """A pane as the book of notified prompts knows it: `%5` of another tmux server (or after
    the pane was closed and the id reused) runs another process."""
    return f"{pane.pane_id}:{pane.pid}"


# ---- how to say it -------------------------------------------------------------------------


class Backend(Protocol):
    name: str

    def is_available(self, notice: Notice | None = None) -> bool:
        """Whether it can work now (for `notice`, when given: the desktop follows the bus
        address of the notice's tmux session)."""
        ...

    def send(self, notice: Notice) -> None:
        """Deliver, or raise: the notifier then tries the next backend."""
        ...


class Hook(Protocol):
    """Something run for each notification besides the chain (the user's command)."""

    def run(self, notice: Notice, config: NotifyConfig) -> None: ...

    def status(self) -> dict[str, Any]: ...


class NullBackend:
    """The end of the chain: nobody to tell. Never fails."""

    name = "none"

    def is_available(self, notice: Notice | None = None) -> bool:
        return True

    def send(self, notice: Notice) -> None:
        log.debug("no way to notify about %s", notice.address)


class Health:
    """What the notification path really did, for status.json (written by the daemon's
    thread while the notifier's thread updates it, hence the lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.path: str | None = None  # the way the last notification went (or would go)
        self.path_since: float | None = None
        self.backends: dict[str, dict[str, Any]] = {}
        self.last: dict[str, Any] | None = None

    def went(self, name: str, now: float) -> bool:
        """The path is now `name`; whether that is a change."""
        with self._lock:
            changed = self.path != name
            if changed:
                self.path, self.path_since = name, now
            return changed

    def ok(self, name: str, now: float) -> None:
        with self._lock:
            self.backends.setdefault(name, {})["last_ok"] = now

    def failed(self, name: str, error: str, now: float) -> None:
        with self._lock:
            b = self.backends.setdefault(name, {})
            b["last_error"], b["last_error_at"] = error, now

    def delivered(self, name: str, notice: Notice, now: float) -> None:
        with self._lock:
            self.last = {"via": name, "at": now, "pane": notice.pane_id, "address": notice.address}

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "path": self.path,
                "path_since": self.path_since,
                "backends": {k: dict(v) for k, v in self.backends.items()},
                "last": dict(self.last) if self.last else None,
            }


def tmux_seen(pane: PaneInfo) -> bool:
    return pane.seen


class Notifier:
    """Decides which transitions notify and delivers them, on a thread of its own."""

    def __init__(
        self,
        load_config: Callable[[], NotifyConfig],
        chain: Callable[[NotifyConfig], Sequence[Backend]],
        *,
        clock: Clock | None = None,
        stamp: Path | None = None,
        inline: bool = False,
        book: PromptBook | None = None,
        looking: Callable[[PaneInfo], bool] = tmux_seen,
        hooks: Sequence[Hook] = (),
    ) -> None:
        self.load_config = load_config
        self.make_chain = chain
        self.clock = clock or SystemClock()
        self.stamp = stamp
        self.inline = inline
        self.book = book or PromptBook()
        self.looking = looking
        self.hooks = list(hooks)
        self.health = Health()
        self._down: dict[str, str] = {}  # the ways out of order, and why (warned once)
        self.on_change: Callable[[], None] | None = None  # the daemon: rewrite status.json
        self._stamp_seen = self._stamp_mtime()
        self.config = load_config()
        self.chain = list(chain(self.config))
        self.delivered: list[tuple[str, Notice]] = []  # (backend, notice), for tests
        self._queue: queue.Queue[Transition | RemoteTransition | None] = queue.Queue(maxsize=100)
        self._thread: threading.Thread | None = None
        if not inline:
            self._thread = threading.Thread(target=self._work, name="osf-notify", daemon=True)
            self._thread.start()

    def on_transition(self, t: Transition) -> None:
        """From the daemon's loop: hand over what may matter, decide nothing here. (Every
        transition between agent states does: one away from a prompt settles whether it went.)"""
        if t.after.state is None and t.before.state != "blocked":
            return
        if self.inline:
            self.handle(t)
            return
        try:
            self._queue.put_nowait(t)
        except queue.Full:
            log.warning("notifications pile up; dropped one for %s", t.pane.address)

    def on_remote(self, t: RemoteTransition) -> None:
        """From the daemon's loop: another machine's pane changed state (the fleet's link)."""
        if t.before != "blocked" and t.after not in self.config.states:
            return  # a busy host's working <-> idle: nothing to say, no room taken in the queue
        if self.inline:
            self.handle_remote(t)
            return
        try:
            self._queue.put_nowait(t)
        except queue.Full:
            log.warning("notifications pile up; dropped one for %s", t.pane.address)

    def handle_remote(self, t: RemoteTransition) -> None:
        """Another machine's pane: as `handle`, on what its daemon said. Its daemon decided
        the state; the book here makes each prompt notify once, also when the link comes
        back and the remote daemon reports the same prompt again."""
        self._maybe_reload()
        key, now, state = remote_key(t), self.clock.wall(), t.after
        if t.before == "blocked" and state != "blocked":
            if state is not None:  # the agent there went on: the prompt was answered
                if self.book.forget(key, "blocked"):
                    log.debug("%s: the prompt went", t.pane.address)
                self._withdraw(f"{t.pane.host}:{t.pane.pane}")
            else:
                self.book.away(key, "blocked", now)
        if state is None or state not in self.config.states:
            return
        notice = remote_notice(t)
        entry = self.book.same(key, state, notice.prompt)
        if entry is not None:
            cooldown = self.config.cooldown
            since = entry.away if entry.away is not None else entry.at
            if state == "blocked" and entry.away is None:
                log.info("%s: not notified, already notified for this prompt", notice.address)
                return
            if 0 <= now - since < cooldown:
                log.info("%s: not notified, notified %.0fs ago", notice.address, now - since)
                return
        self.book.notified(key, state, notice.prompt, now)
        self._send(notice)

    def handle(self, t: Transition) -> None:
        """Decide about one transition and deliver if it notifies."""
        self._maybe_reload()
        state, pane = t.after.state, t.pane
        key, now = pane_key(pane), self.clock.wall()
        if t.before.state == "blocked" and state != "blocked":
            self._prompt_left(t, key, now)
        elif (
            state not in (None, "blocked")
            and t.before.state not in (None, "blocked")
            and self.book.forget(key, "blocked")
        ):
            # Settled on another state since: the prompt that left will not come back.
            self._withdraw(pane.pane_id)
        if state is None or state not in self.config.states:
            return
        if pane.seen and self.looking(pane):
            log.info("%s %s: not notified, someone looks at it", pane.pane_id, pane.address)
            return
        notice = notice_for(t)
        why = self._held(t, key, notice, now)
        if why:
            log.info("%s %s: not notified, %s", pane.pane_id, pane.address, why)
            return
        self.book.notified(key, state, notice.prompt, now)
        self._send(notice)

    def _send(self, notice: Notice) -> None:
        self.deliver(notice)
        for hook in self.hooks:
            try:
                hook.run(notice, self.config)
            except Exception:  # a hook must never take notifications down
                log.exception("notification hook failed")
        self._changed()

    def _prompt_left(self, t: Transition, key: str, now: float) -> None:
        """The pane left `blocked`. To a state the agent shows itself (it works, it sits at its
        input, a hook reported it), or while someone looked at it, the prompt went: whoever
        answered it and however, the next prompt is a new one, and its pop-up is withdrawn.
        To a screen no rule knows, to `working` only standing in for the prompt until the
        agent's input is confirmed, or to no agent at all, it may be the same prompt being
        redrawn (a resize, a re-seed): the entry stays, marked away since now."""
        after, pane = t.after, t.pane
        if after.state is not None and (pane.seen or _shown(after, t.standing_in[1])):
            if self.book.forget(key, "blocked"):
                log.debug("%s: the prompt went (%s)", pane.pane_id, after.rule or "answered")
            self._withdraw(pane.pane_id)
        else:
            self.book.away(key, "blocked", now)

    def _held(self, t: Transition, key: str, notice: Notice, now: float) -> str:
        """Why this notice stays unsent ('' if it goes out). A prompt notifies once while it
        waits; `cooldown` only covers the same prompt back from a screen no rule knew."""
        state = notice.state
        entry = self.book.same(key, state, notice.prompt)
        if entry is None:
            return ""
        cooldown = self.config.cooldown
        if state != "blocked":
            age = now - entry.at
            # A stamp from the future (the wall clock was set back) holds nothing up.
            return (
                f"notified {age:.0f}s ago (cooldown {cooldown:g}s)" if 0 <= age < cooldown else ""
            )
        if entry.away is None and t.before.state is None:
            return (
                "already notified for this prompt, which still waits "
                "(the daemon restarted or lost the agent meanwhile)"
            )
        if t.before.state is not None and _shown(t.before, t.standing_in[0]):
            return ""  # the agent showed another state in between: the prompt went
        gone = now - (entry.away if entry.away is not None else entry.at)
        if not 0 <= gone < cooldown:
            return ""
        return (
            f"the same prompt back after {gone:.1f}s on a screen no rule knew "
            f"(redrawn; cooldown {cooldown:g}s)"
        )

    def _withdraw(self, pane_id: str) -> None:
        for backend in self.chain:
            withdraw = getattr(backend, "withdraw", None)
            if callable(withdraw):
                try:
                    withdraw(pane_id)
                except Exception as exc:  # a pop-up left up is no reason to stop
                    log.debug("could not withdraw %s's notification: %s", pane_id, exc)

    def deliver(self, notice: Notice) -> str:
        """Through the first backend that is available and does not fail; its name."""
        now = self.clock.wall()
        skipped: list[str] = []
        for backend in self.chain:
            try:
                if not backend.is_available(notice):
                    why = getattr(backend, "reason", "")
                    skipped.append(f"{backend.name}: {why}" if why else backend.name)
                    if why:
                        self._outage(backend.name, why)
                    continue
                backend.send(notice)
            except Exception as exc:  # a backend must never take notifications down
                error = str(exc) or type(exc).__name__
                self.health.failed(backend.name, error, now)
                self._outage(backend.name, f"{backend.name} notification failed: {error}")
                skipped.append(f"{backend.name} failed: {error}")
                continue
            self.health.ok(backend.name, now)
            self.health.delivered(backend.name, notice, now)
            was_down = self._down.pop(backend.name, None) is not None
            went = self.health.went(backend.name, now)
            if was_down or (went and backend.name == "desktop"):
                log.info("%s notifications work (again)", backend.name)
            self.delivered.append((backend.name, notice))
            del self.delivered[:-20]
            also = f" ({'; '.join(skipped)})" if skipped and backend.name != "none" else ""
            log.info("notified via %s%s: %s", backend.name, also, notice.line())
            return backend.name
        return "none"

    def _outage(self, name: str, why: str) -> None:
        """A way that does not work: a warning when it stops, not at every notification."""
        if name in self._down:
            log.debug("%s still does not work: %s", name, why)
            return
        self._down[name] = why
        log.warning("%s; notifying the next way until it works again", why)

    def describe(self) -> str:
        """Which backend a notification would go through now (recorded as the path)."""
        name = "none"
        for backend in self.chain:
            with contextlib.suppress(Exception):
                if backend.is_available():
                    name = backend.name
                    break
        self.health.went(name, self.clock.wall())
        self._changed()
        return name

    def status(self) -> dict[str, Any]:
        """For status.json: the path really used, when each way last worked or failed, and
        what each backend knows about itself (the desktop: its bus and why it fails)."""
        data = self.health.snapshot()
        for backend in self.chain:
            info = getattr(backend, "info", None)
            if callable(info):
                with contextlib.suppress(Exception):
                    data["backends"].setdefault(backend.name, {}).update(info())
        for hook in self.hooks:
            with contextlib.suppress(Exception):
                data.update(hook.status())
        data["cooldown"] = self.config.cooldown
        return data

    def close(self, timeout: float = 2.0) -> None:
        if self._thread is not None:
            with contextlib.suppress(queue.Full):
                self._queue.put_nowait(None)
            self._thread.join(timeout)
            self._thread = None
        for part in [*self.chain, *self.hooks]:
            closer = getattr(part, "close", None)
            if callable(closer):
                with contextlib.suppress(Exception):
                    closer()

    def _changed(self) -> None:
        if self.on_change is not None:
            with contextlib.suppress(Exception):
                self.on_change()

    def _work(self) -> None:
        log.info("notifications go through: %s", self.describe())
        while (t := self._queue.get()) is not None:
            try:
                if isinstance(t, RemoteTransition):
                    self.handle_remote(t)
                else:
                    self.handle(t)
            except Exception:  # keep the thread: the next notification may well work
                log.exception("a notification failed")

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
