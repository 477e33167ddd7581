"""The event feed without tmux: its wire format, what `wait` waits for, the server in this
process on a real Unix socket (snapshot, transitions, a closed pane, a reader that stops reading
is dropped while another keeps reading, bye, privacy), and the sweep's `on_pane_gone`."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from osf_tmux.cli.app import cli as main
from osf_tmux.clock import FakeClock
from osf_tmux.daemon.events import EventHub, backlog_from, fan_out
from osf_tmux.daemon.feed import (
    Event,
    FeedClosed,
    FeedError,
    Subscription,
    Wait,
    check_private,
    socket_path,
    unix_address,
)
from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import Transition
from osf_tmux.judge.combine import PaneState
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import PANE_FIELDS, SEP, PaneInfo, ServerSpec, Tmux
from osf_tmux.vt.snapshot import Snapshot
from tests.support.tmux_server import retry_until

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676


def pane(pane_id: str = "%3", window: str = "1") -> PaneInfo:
    return PaneInfo(
        pane_id=pane_id, pid=123, tty="/dev/pts/9", width=120, height=32, piped=False,
        dead=True, active=False, window_active=False, window_id="@1", session_id="$1",
        session_name="work", window_index=window, pane_index="0", session_attached=0,
        current_command="sh", agent_override="", report="", our_pipe="", alt_screen=False,
    )  # fmt: skip


def change(
    before: str | None, after: str | None, info: PaneInfo | None = None, at: float = 100.0
) -> Transition:
    snap = blocked_snapshot() if after == "blocked" else None
    return Transition(
        info or pane(),
        "claude",
        PaneState(before, at - 1, None, "screen"),
        PaneState(after, at, "rule-x" if after else None, "screen"),
        snap,
    )


_BLOCKED: list[Snapshot] = []


def blocked_snapshot() -> Snapshot:
    if not _BLOCKED:
        [(_, snap)] = snapshots_at(CAPTURE.read_bytes(), 120, 32, [BLOCKED_AT])
        _BLOCKED.append(snap)
    return _BLOCKED[0]


# ---- the wire format ---------------------------------------------------------------------------


def test_an_event_survives_json_and_junk_is_skipped() -> None:
    event = Event("transition", 12.5, "%3", "work:1.0", "claude", "working", "blocked", "r", "Ok?")
    assert Event.from_json(event.to_json()) == event
    assert json.loads(event.to_json())["after"] == "blocked"
    assert Event.from_json("not json") is None
    assert Event.from_json('{"kind": "something-newer", "pane": "%1"}') is None
    assert Event.from_json("[1, 2]") is None
    odd = Event.from_json('{"kind": "gone", "time": "soon", "pane": 5, "extra": 1}')
    assert odd == Event("gone")  # wrong types fall back to nothing, unknown keys are ignored


def test_the_text_line_has_eight_tab_separated_fields() -> None:
    event = Event("transition", 0.0, "%3", "work:1.0", "claude", "working", "blocked", "r", "a\tb?")
    fields = event.line().split("\t")
    assert fields[1:] == ["%3", "work:1.0", "claude", "working", "blocked", "r", "a b?"]
    assert len(fields[0]) == 8  # HH:MM:SS
    gone = Event("gone", 0.0, "%3", "work:1.0", "claude", "idle").line().split("\t")
    assert gone[4:] == ["idle", "gone", "-", "-"]


# ---- what wait waits for -------------------------------------------------------------------------


def test_wait_for_one_pane() -> None:
    wait = Wait("%3", frozenset({"blocked"}))
    assert wait.feed(Event("state", pane="%3", after="working")) is None
    assert wait.feed(Event("synced")) is None
    assert wait.feed(Event("transition", pane="%4", after="blocked")) is None  # another pane
    assert wait.feed(Event("gone", pane="%4")) is None
    assert wait.feed(Event("transition", pane="%3", after="idle")) is None
    outcome = wait.feed(Event("transition", pane="%3", before="working", after="blocked"))
    assert outcome is not None and outcome.how == "reached" and outcome.event.pane == "%3"


def test_a_pane_already_in_the_state_counts_unless_next() -> None:
    now = Event("state", pane="%3", after="blocked")
    reached = Wait("%3", frozenset({"blocked", "done"})).feed(now)
    assert reached is not None and reached.how == "reached"
    assert Wait("%3", frozenset({"blocked"}), fresh=True).feed(now) is None


def test_wait_ends_when_its_pane_closes_or_the_daemon_stops() -> None:
    wait = Wait("%3", frozenset({"done"}))
    gone = wait.feed(Event("gone", pane="%3"))
    assert gone is not None and gone.how == "gone"
    bye = wait.feed(Event("bye"))
    assert bye is not None and bye.how == "stopped"


def test_wait_for_any_pane() -> None:
    wait = Wait(None, frozenset({"blocked"}))
    assert wait.feed(Event("gone", pane="%4")) is None  # one pane closing ends nothing
    assert wait.feed(Event("transition", pane="%4", after="done")) is None
    outcome = wait.feed(Event("transition", pane="%7", after="blocked"))
    assert outcome is not None and outcome.event.pane == "%7"


# ---- the server in this process -------------------------------------------------------------


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[EventHub]:
    it = EventHub(tmp_path / "run", clock=FakeClock())
    it.start()
    yield it
    it.close()


def read_until(sub: Subscription, kind: str, timeout: float = 5.0) -> list[Event]:
    got: list[Event] = []
    deadline = time.monotonic() + timeout
    while not got or got[-1].kind != kind:
        left = max(deadline - time.monotonic(), 0.0)
        event = sub.read(left)
        assert event is not None, f"no {kind} within {timeout} s; got {got}"
        got.append(event)
    return got


def test_the_socket_is_private(hub: EventHub) -> None:
    assert stat.S_IMODE(hub.runtime.stat().st_mode) == 0o700
    assert stat.S_IMODE(hub.path.stat().st_mode) == 0o600
    assert stat.S_ISSOCK(hub.path.stat().st_mode)


def test_a_new_reader_gets_the_panes_as_they_are_then_each_change(hub: EventHub) -> None:
    with Subscription.connect(hub.path) as first:
        assert [e.kind for e in read_until(first, "synced")] == ["synced"]  # nothing yet
        hub.on_transition(change(None, "working", pane("%3")))
        hub.on_transition(change(None, "idle", pane("%4", "2")))
        hub.on_transition(change("working", "blocked", pane("%3")))
        seen = [read_until(first, "transition") for _ in range(3)]
        blocked = seen[-1][-1]
        assert (blocked.pane, blocked.before, blocked.after) == ("%3", "working", "blocked")
        assert blocked.target == "work:1.0" and blocked.agent == "claude"
        assert blocked.question == "Do you want to proceed?"  # read off the prompt on screen
        assert blocked.rule == "rule-x" and blocked.time == 100.0
    with Subscription.connect(hub.path) as second:
        now = read_until(second, "synced")
        states = {e.pane: e for e in now if e.kind == "state"}
        assert set(states) == {"%3", "%4"}
        assert states["%3"].after == "blocked" and states["%3"].before is None
        assert states["%3"].question == "Do you want to proceed?"
        assert states["%4"].after == "idle" and states["%4"].target == "work:2.0"
        hub.on_transition(change("idle", None, pane("%4", "2")))  # the agent left the pane
        read_until(second, "transition")
    with Subscription.connect(hub.path) as third:
        assert {e.pane for e in read_until(third, "synced") if e.kind == "state"} == {"%3"}


def test_a_closed_pane_is_reported_with_its_last_state(hub: EventHub) -> None:
    with Subscription.connect(hub.path) as sub:
        read_until(sub, "synced")
        hub.on_transition(change(None, "done", pane("%3")))
        read_until(sub, "transition")
        hub.on_pane_gone(pane("%3"))
        hub.on_pane_gone(pane("%9"))  # a pane that never had an agent: reported too (for wait)
        gone = read_until(sub, "gone")[-1]
        assert (gone.pane, gone.before, gone.after, gone.agent) == ("%3", "done", None, "claude")
        other = read_until(sub, "gone")[-1]
        assert (other.pane, other.before, other.agent) == ("%9", None, None)
    with Subscription.connect(hub.path) as later:
        assert [e.kind for e in read_until(later, "synced")] == ["synced"]


def test_a_reader_that_stops_reading_is_dropped_and_the_others_keep_reading(
    tmp_path: Path,
) -> None:
    hub = EventHub(tmp_path / "run", backlog=4096, sndbuf=4096)
    hub.start()
    try:
        stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with unix_address(hub.path) as address:
            stalled.connect(address)
        reader = Subscription.connect(hub.path)
        read_until(reader, "synced")
        retry_until(lambda: hub.status()["readers"] == 2, timeout=5)
        n = 300
        got: list[Event] = []
        for i in range(n):  # a reader that keeps up: it takes each event before the next
            hub.on_transition(change("working", "idle" if i % 2 else "working", at=float(i)))
            got.append(read_until(reader, "transition")[-1])
        assert [e.time for e in got] == [float(i) for i in range(n)]  # all, in order
        assert hub.status()["dropped"] == 1 and hub.status()["readers"] == 1
        # The stalled reader, when it finally reads: what the kernel and its backlog held,
        # then the end, without a bye.
        stalled.settimeout(5)
        data = b""
        while chunk := stalled.recv(65536):
            data += chunk
        lines = data.decode().splitlines()
        assert 1 < len(lines) < n // 4
        assert '"kind":"bye"' not in data.decode()
        hub.on_transition(change("idle", "blocked"))  # the other reader still hears
        assert read_until(reader, "transition")[-1].after == "blocked"
        reader.close()
        stalled.close()
    finally:
        hub.close()


def test_a_reader_that_talks_is_dropped(hub: EventHub) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with unix_address(hub.path) as address:
        sock.connect(address)
    sock.sendall(b"x" * 10_000)
    sock.settimeout(5)
    with contextlib.suppress(ConnectionResetError):  # closed with its talk unread: a reset
        while sock.recv(65536):
            pass
    assert hub.status()["dropped"] == 1
    sock.close()


def test_close_says_bye_and_takes_the_socket_away(tmp_path: Path) -> None:
    hub = EventHub(tmp_path / "run")
    hub.start()
    sub = Subscription.connect(hub.path)
    read_until(sub, "synced")
    hub.close()
    assert read_until(sub, "bye")[-1].kind == "bye"
    with pytest.raises(FeedClosed) as closed:
        sub.read(5)
    assert closed.value.said_bye and "stopped" in str(closed.value)
    assert not hub.path.exists()
    with pytest.raises(FeedError, match="not running"):
        Subscription.connect(hub.path)


def test_close_after_the_feed_thread_ended_on_its_own(tmp_path: Path) -> None:
    # The race CI met: `close` says "closing", the feed's thread (awake for a reader) sees it and
    # ends, closing its wake-up pipe, all before `close` writes its wake-up byte. That write, and
    # any late transition's, must not go to the closed number (EBADF, or someone else's file).
    hub = EventHub(tmp_path / "run")
    hub.start()
    thread = hub._thread
    assert thread is not None
    hub._closing = True
    with Subscription.connect(hub.path):  # wakes the thread, which then ends
        thread.join(5)
    assert not thread.is_alive()
    hub.on_transition(change("idle", "blocked"))
    hub.close()
    assert not hub.path.exists()


def test_a_stale_socket_of_a_killed_daemon_is_replaced(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_path(run)))
    stale.close()  # the file stays, nobody listens: as after kill -9
    with pytest.raises(FeedError, match="not running"):
        Subscription.connect(socket_path(run))
    hub = EventHub(run)
    hub.start()
    try:
        with Subscription.connect(hub.path) as sub:
            read_until(sub, "synced")
    finally:
        hub.close()


def test_a_path_too_long_for_a_socket_address_still_works(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(["d" * 30] * 5)) / "run"
    assert len(str(socket_path(deep))) > 110
    hub = EventHub(deep)
    hub.start()
    try:
        with Subscription.connect(hub.path) as sub:
            read_until(sub, "synced")
    finally:
        hub.close()


def test_a_folder_others_can_enter_is_not_read(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    os.chmod(run, 0o755)
    with pytest.raises(FeedError, match="not private"):
        check_private(run)
    os.chmod(run, 0o700)
    check_private(run)


def test_backlog_from_the_environment() -> None:
    assert backlog_from({}) == 64 * 1024
    assert backlog_from({"OSF_TMUX_EVENTS_BACKLOG": "2048"}) == 2048
    assert backlog_from({"OSF_TMUX_EVENTS_BACKLOG": "12"}) == 1024
    assert backlog_from({"OSF_TMUX_EVENTS_BACKLOG": "lots"}) == 64 * 1024


def test_fan_out_calls_each_listener_even_after_one_fails() -> None:
    heard: list[str] = []

    def broken(t: Transition) -> None:
        raise RuntimeError("boom")

    fan_out(broken, lambda t: heard.append(t.pane.pane_id))(change("idle", "done"))
    assert heard == ["%3"]


# ---- the daemon's sweep tells when a pane closed -------------------------------------------------


class ListingTmux(Tmux):
    """Answers the sweep's list-panes with the panes in `listing`."""

    def __init__(self) -> None:
        super().__init__(ServerSpec("osf-test-never-started"))
        self.listing: list[PaneInfo] = []

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        if commands and list(commands[0][:2]) == ["list-panes", "-a"]:
            return "".join(_row(p) + "\n" for p in self.listing)
        return ""


def _row(p: PaneInfo) -> str:
    values = {
        "pane_id": p.pane_id, "pane_pid": str(p.pid), "pane_tty": p.tty,
        "pane_width": str(p.width), "pane_height": str(p.height), "pane_pipe": "0",
        "pane_dead": "1", "pane_active": "0", "window_active": "0", "window_id": p.window_id,
        "session_id": p.session_id, "session_name": p.session_name,
        "window_index": p.window_index, "pane_index": p.pane_index, "session_attached": "0",
        "pane_current_command": p.current_command,
    }  # fmt: skip
    return SEP.join(values.get(f, "") for f in PANE_FIELDS)


def test_the_sweep_reports_each_pane_that_closed(tmp_path: Path) -> None:
    tmux = ListingTmux()
    gone: list[PaneInfo] = []
    daemon = Daemon(
        tmux,
        load_rules(None),
        PipeFactory(tmp_path / "run"),
        "token",
        clock=FakeClock(),
        identify=lambda pid: [],
        on_pane_gone=gone.append,
    )
    tmux.listing = [pane("%3"), pane("%4", "2")]
    daemon.sweep()
    assert set(daemon.table.panes) == {"%3", "%4"} and gone == []
    tmux.listing = [pane("%4", "2")]
    daemon.sweep()
    assert [p.pane_id for p in gone] == ["%3"] and gone[0].address == "work:1.0"
    daemon.sweep()
    assert len(gone) == 1


# ---- the commands, without a daemon --------------------------------------------------------------


def test_wait_needs_a_pane_or_any(tmp_path: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    res = CliRunner().invoke(main, ["-L", "osf-none", "wait", "--until", "blocked"], env=env)
    assert res.exit_code == 2 and "--any" in res.output
    res = CliRunner().invoke(
        main, ["-L", "osf-none", "wait", "%1", "--any", "--until", "idle"], env=env
    )
    assert res.exit_code == 2


@pytest.mark.parametrize("args", [["wait", "%1", "--until", "blocked"], ["events", "--json"]])
def test_without_a_daemon_they_say_so(tmp_path: Path, args: list[str]) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    res = CliRunner().invoke(main, ["-L", "osf-none", *args], env=env)
    assert res.exit_code == 3
    assert "daemon is not running" in res.output


def test_wait_any_with_an_in_process_daemon_feed(tmp_path: Path) -> None:
    """`wait` as a command, against a feed served in this process (--any asks tmux nothing)."""
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    runtime = DaemonFiles.for_server(ServerSpec("osf-none"), env).runtime
    hub = EventHub(runtime)
    hub.start()
    try:
        with Subscription.connect(hub.path) as sub:
            read_until(sub, "synced")
            hub.on_transition(change(None, "idle", pane("%3")))
            read_until(sub, "transition")

        def wait(*args: str) -> Result:
            return CliRunner().invoke(main, ["-L", "osf-none", "wait", "--any", *args], env=env)

        now = wait("--until", "idle", "--timeout", "0")  # as it is now: counts even at 0 s
        assert now.exit_code == 0 and now.output == "%3\twork:1.0\tclaude\tidle\n"
        later = wait("--until", "idle", "--next", "--timeout", "0.2")
        assert later.exit_code == 124
        assert "osf-tmux: timed out after 0.2 s: no pane got to idle" in later.output
        timer = threading.Timer(0.3, hub.on_transition, [change("idle", "blocked", pane("%4"))])
        timer.start()
        asked = wait("--until", "blocked", "--json", "--timeout", "20")
        timer.join()
        assert asked.exit_code == 0, asked.output
        event = json.loads(asked.output)
        assert (event["pane"], event["after"], event["question"]) == (
            "%4",
            "blocked",
            "Do you want to proceed?",
        )
    finally:
        hub.close()
    stopped = CliRunner().invoke(main, ["-L", "osf-none", "events"], env=env)
    assert stopped.exit_code == 3 and "not running" in stopped.output
