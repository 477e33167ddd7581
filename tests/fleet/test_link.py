"""A host's link without ssh: the "ssh" is a small program that speaks (or breaks) the feed's
protocol, read through a selector as the daemon's loop reads it."""

from __future__ import annotations

import json
import logging
import selectors
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.fleet.link import (
    FIRST_RETRY,
    INCOMPATIBLE,
    LAST_RETRY,
    OFFLINE,
    ONLINE,
    HostLink,
)
from osf_tmux.fleet.remote import PROTOCOL, RemoteTransition
from tests.support.tmux_server import retry_until

HELLO = {"kind": "hello", "version": "9.9", "protocol": PROTOCOL}


def _msg(kind: str, pane: str, after: str | None, question: str = "") -> dict[str, object]:
    return {
        "kind": kind,
        "time": 1_800_000_000.0,
        "pane": pane,
        "target": "w:1.0",
        "agent": "claude",
        "before": None,
        "after": after,
        "rule": "r",
        "question": question,
    }


def _program(lines: list[object], *, then: str = "", code: int = 0) -> list[str]:
    """A stand-in for ssh: prints `lines` (JSON unless bytes), runs `then`, exits `code`."""
    text = [ln.decode() if isinstance(ln, bytes) else json.dumps(ln) for ln in lines]
    script = (
        "import sys, time\n"
        f"for line in {text!r}:\n"
        "    sys.stdout.write(line + '\\n'); sys.stdout.flush()\n"
        f"{then}\n"
        f"sys.exit({code})\n"
    )
    return [sys.executable, "-c", script]


class Rig:
    def __init__(self, tmp_path: Path, argv: list[str]) -> None:
        self.selector = selectors.DefaultSelector()
        self.clock = FakeClock()
        self.changes = 0
        self.transitions: list[RemoteTransition] = []
        self.link = HostLink(
            "devbox",
            argv,
            clock=self.clock,
            watch=self,
            errors=tmp_path / "host.err",
            remote_command="osf-tmux",
            on_change=self._changed,
            on_transition=self.transitions.append,
        )

    def _changed(self) -> None:
        self.changes += 1

    def watch(self, fd: int, on_ready: Callable[[], None]) -> None:
        self.selector.register(fd, selectors.EVENT_READ, on_ready)

    def unwatch(self, fd: int) -> None:
        self.selector.unregister(fd)

    def turn(self) -> None:
        for key, _ in self.selector.select(0.05):
            key.data()
        self.link.tick()

    def until(self, probe: Callable[[], bool], what: str) -> None:
        def step() -> bool:
            self.turn()
            return probe()

        retry_until(step, timeout=20, interval=0, what=what)


def test_a_remote_daemon_online_with_its_panes_and_their_transitions(tmp_path: Path) -> None:
    lines: list[object] = [
        HELLO,
        _msg("state", "%1", "working"),
        _msg("state", "%2", "idle"),
        {"kind": "synced"},
        _msg("transition", "%1", "blocked", "Proceed?"),
        _msg("transition", "%2", None),
        b"garbage",
        _msg("transition", "%9", "pwned"),
    ]
    rig = Rig(tmp_path, _program(lines, then="time.sleep(60)"))
    link = rig.link
    rig.until(lambda: link.counters["skipped"] == 2, "every line")
    assert link.state == ONLINE and link.version == "9.9" and link.error is None
    assert {p: (v.state, v.question) for p, v in link.panes.items()} == {
        "%1": ("blocked", "Proceed?")
    }
    assert [(t.pane.pane, t.before, t.after) for t in rig.transitions] == [
        ("%1", None, "working"),
        ("%2", None, "idle"),
        ("%1", "working", "blocked"),
        ("%2", "idle", None),
    ]
    assert link.status()["state"] == "online"
    link.close()
    assert link.panes == {} and link.proc is None


def test_the_stream_ending_makes_the_host_offline_without_panes_and_retried_later(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path, _program([HELLO, _msg("state", "%1", "blocked", "Go?")], code=255))
    link = rig.link
    rig.until(lambda: link.state == OFFLINE, "offline")
    assert link.panes == {}
    assert link.error == "the connection was lost"
    # Retried after 1 s, then 2 s, 4 s ... up to a minute; offline all along, since it went.
    link.argv = _program([], code=255)  # the host stays away
    since = link.since
    waits = []
    for _ in range(8):
        waits.append(round(link.next_try - rig.clock.now(), 3))
        rig.clock.advance(link.next_try - rig.clock.now())
        link.tick()  # connects
        assert link.proc is not None and link.state == OFFLINE
        rig.until(lambda: link.proc is None, "the next attempt ends")
    assert waits == [FIRST_RETRY, 2, 4, 8, 16, 32, LAST_RETRY, LAST_RETRY]
    assert link.state == OFFLINE and link.since == since


def test_what_ssh_said_is_the_error(tmp_path: Path) -> None:
    say = "sys.stderr.write('ssh: connect to host devbox port 22: Connection refused\\n')"
    rig = Rig(tmp_path, _program([], then=say, code=255))
    rig.until(lambda: rig.link.state == OFFLINE, "offline")
    assert rig.link.error == "ssh: connect to host devbox port 22: Connection refused"


def test_no_osf_tmux_there_or_an_older_one_is_incompatible(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "osf_tmux.fleet.link")
    missing = "sys.stderr.write('bash: line 1: osf-tmux: command not found\\n')"
    rig = Rig(tmp_path, _program([], then=missing, code=127))
    rig.until(lambda: rig.link.state == INCOMPATIBLE, "incompatible")
    assert "not installed there" in (rig.link.error or "")
    assert rig.link.next_try - rig.clock.now() == LAST_RETRY
    for _ in range(2):  # retried every minute: said once
        rig.clock.advance(LAST_RETRY)
        rig.link.tick()
        rig.until(lambda: rig.link.proc is None, "the retry ends")
    assert rig.link.counters["connects"] == 3
    assert caplog.text.count("host devbox: incompatible") == 1

    # An incompatible host that then cannot be reached at all: offline, and retried.
    rig.link.argv = _program([], code=255)
    rig.clock.advance(LAST_RETRY)
    rig.link.tick()
    rig.until(lambda: rig.link.state == OFFLINE, "offline")
    assert rig.link.proc is None and rig.link.next_try > rig.clock.now()

    older = "sys.stderr.write('Error: No such option: --hello\\n')"
    rig = Rig(tmp_path, _program([], then=older, code=2))
    rig.until(lambda: rig.link.state == INCOMPATIBLE, "incompatible")
    assert "older" in (rig.link.error or "")

    other = {**HELLO, "protocol": PROTOCOL + 1}
    rig = Rig(tmp_path, _program([other], then="time.sleep(60)"))
    rig.until(lambda: rig.link.state == INCOMPATIBLE, "incompatible")
    assert f"protocol {PROTOCOL + 1}" in (rig.link.error or "") and rig.link.proc is None


def test_a_remote_that_says_nothing_is_given_up_on(tmp_path: Path) -> None:
    rig = Rig(tmp_path, _program([], then="time.sleep(60)"))
    link = rig.link
    link.tick()
    assert link.proc is not None and link.state == "connecting"
    rig.clock.advance(link.deadline() - rig.clock.now())
    link.tick()
    assert link.state == OFFLINE and "no answer" in (link.error or "") and link.proc is None


def test_a_line_too_long_ends_the_link(tmp_path: Path) -> None:
    flood = "sys.stdout.write('x' * 200000); sys.stdout.flush(); time.sleep(60)"
    rig = Rig(tmp_path, _program([HELLO, _msg("state", "%1", "idle")], then=flood))
    rig.until(lambda: rig.link.state == OFFLINE, "offline")
    assert "longer than" in (rig.link.error or "") or "more than" in (rig.link.error or "")
    assert rig.link.panes == {}
