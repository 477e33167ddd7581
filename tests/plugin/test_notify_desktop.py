"""The desktop backend against a fake `org.freedesktop.Notifications` on a private session bus
(tests/support/session_bus.py): it answers, dies, comes back; the bus itself goes away and another
one is named in tmux's environment. What the notifier logs must say what really happened."""

from __future__ import annotations

import gc
import logging
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.plugin.notify import Notice, Notifier, NotifyConfig, NullBackend
from osf_tmux.plugin.notify_desktop import (
    BUS_VAR,
    DISMISS_BURST,
    DesktopBackend,
    find_bus,
    icon_path,
    parse_environment,
    tmux_bus,
)
from osf_tmux.tmux import ServerSpec, Tmux
from tests.plugin.test_notify import Recorder
from tests.support.session_bus import FakeNotifications, SessionBus
from tests.support.tmux_server import TmuxServer, retry_until

pytest.importorskip("desktop_notifier")
pytest.importorskip("dbus_fast")
needs_bus = pytest.mark.skipif(
    shutil.which("dbus-daemon") is None, reason="dbus-daemon is not installed"
)
# A private dbus-daemon and a fake notification service of the test's own: the live tier.
pytestmark = pytest.mark.live


def notice(n: int) -> Notice:
    return Notice(f"%{n}", "", f"work:{n}.0", "claude", "blocked", "Proceed?", f"rm x{n}")


@pytest.fixture(autouse=True)
def collected() -> Iterator[None]:
    """A closed backend leaves cycles (loop, connections) whose finalizers run Python code.
    Collected here, between tests, rather than wherever the collector next runs: CPython
    3.11.7 raises 'AST constructor recursion depth mismatch' when that is in the middle of
    compiling a module (pytest imports plugins at the end of a run)."""
    yield
    gc.collect()


@pytest.fixture
def bus_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend sets DBUS_SESSION_BUS_ADDRESS in the process (dbus-fast reads it there):
    restored after each test. (Set first: a `delenv` of a variable that is not there records
    nothing to undo, and the address a test leaves would reach every later test's tmux.)"""
    monkeypatch.setenv(BUS_VAR, "")
    monkeypatch.delenv(BUS_VAR)


@pytest.fixture
def bus(tmp_path: Path, bus_env: None) -> Iterator[SessionBus]:
    b = SessionBus(tmp_path / "bus").start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def service(bus: SessionBus, tmp_path: Path) -> Iterator[FakeNotifications]:
    s = FakeNotifications(bus, tmp_path / "bus").start()
    try:
        yield s
    finally:
        s.kill()


class Chain:
    """A notifier whose chain is the real desktop backend, then a recording terminal."""

    def __init__(self, desktop: DesktopBackend) -> None:
        self.desktop = desktop
        self.terminal = Recorder("terminal")
        self.notifier = Notifier(
            lambda: NotifyConfig(),
            lambda c: [desktop, self.terminal, NullBackend()],
            clock=FakeClock(),
            inline=True,
        )

    def deliver(self, n: int) -> tuple[str, float]:
        start = time.perf_counter()
        via = self.notifier.deliver(notice(n))
        return via, time.perf_counter() - start


@needs_bus
def test_answers_dies_falls_through_and_comes_back(
    bus: SessionBus, service: FakeNotifications, caplog: pytest.LogCaptureFixture
) -> None:
    clicked: list[str] = []
    desktop = DesktopBackend(clicked.append, env={BUS_VAR: bus.address}, timeout=5.0)
    chain = Chain(desktop)
    try:
        with caplog.at_level(logging.INFO, logger="osf_tmux"):
            via, first = chain.deliver(1)
            assert via == "desktop"
            [sent] = service.sent()
            assert sent["summary"] == "claude is waiting for you in work:1.0"
            assert sent["body"] == "Proceed?\nrm x1"
            assert sent["app_icon"] == icon_path().as_uri()  # ours, not Python's logo
            service.click()
            retry_until(lambda: clicked == ["%1"], timeout=5, what="the click to come back")

            service.kill()  # the notification daemon crashes; the bus stays
            caplog.clear()
            via, fell = chain.deliver(2)
            assert via == "terminal"
            assert [n.pane_id for n in chain.terminal.sent] == ["%2"]
            text = caplog.text
            assert "desktop notification failed" in text
            assert "org.freedesktop.Notifications was not provided" in text  # the real error
            assert "notified via terminal" in text and "notified via desktop" not in text
            status = chain.notifier.status()
            assert status["path"] == "terminal"
            assert "was not provided" in status["backends"]["desktop"]["last_error"]

            via, still = chain.deliver(3)  # still dead: straight to the terminal
            assert via == "terminal" and len(service.sent()) == 1

            service.start()
            caplog.clear()
            via, back = chain.deliver(4)
            assert via == "desktop"
            assert [s["summary"] for s in service.sent()][-1].endswith("work:4.0")
            assert "desktop notifications work (again)" in caplog.text
            assert chain.notifier.status()["path"] == "desktop"
    finally:
        desktop.close()
    print(
        f"\ndeliver: desktop {first * 1000:.1f} ms; service dead: fell through in "
        f"{fell * 1000:.1f} ms, then {still * 1000:.1f} ms; "
        f"back on the desktop {back * 1000:.1f} ms"
    )


@needs_bus
@pytest.mark.tmux
def test_bus_gone_then_a_new_bus_named_in_tmux(
    tmp_path: Path,
    bus_env: None,
    tmux_server: TmuxServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The daemon started without any bus (over ssh, from systemd): the bus named later in
    tmux's global environment is used at the next notification, and one named in the pane's
    session (what `update-environment` brings on attach) wins over it."""
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    tmux_server.cmd("set-environment", "-g", "-u", BUS_VAR, check=False)
    empty = tmp_path / "no-runtime"
    empty.mkdir()
    desktop = DesktopBackend(lambda p: None, tmux=tmux, env={"XDG_RUNTIME_DIR": str(empty)})
    chain = Chain(desktop)
    first = SessionBus(tmp_path / "one").start()
    second = SessionBus(tmp_path / "two").start()
    services = [
        FakeNotifications(first, tmp_path / "one").start(),
        FakeNotifications(second, tmp_path / "two").start(),
    ]
    session = tmux_server.cmd("display-message", "-p", "-t", "osf-base:", "#{session_id}").strip()
    note = Notice(
        "%0", "", "osf-base:0.0", "claude", "blocked", "Go?", session_id=session,
        session_name="osf-base",
    )  # fmt: skip
    try:
        with caplog.at_level(logging.INFO, logger="osf_tmux"):
            assert chain.notifier.deliver(note) == "terminal"
            assert "no session bus address" in desktop.reason

            tmux_server.cmd("set-environment", "-g", BUS_VAR, first.address)
            assert chain.notifier.deliver(note) == "desktop"
            assert len(services[0].sent()) == 1
            assert desktop.info()["bus_from"] == "tmux's global environment"

            tmux_server.cmd("set-environment", "-t", session, BUS_VAR, second.address)
            assert chain.notifier.deliver(note) == "desktop"
            assert len(services[1].sent()) == 1 and len(services[0].sent()) == 1
            assert desktop.info()["bus"] == second.address
            assert desktop.info()["bus_from"] == "tmux session osf-base's environment"

            second.stop()  # the whole bus goes (a logout): its service with it
            services[1].kill()
            caplog.clear()
            assert chain.notifier.deliver(note) == "terminal"
            assert "desktop notification failed" in caplog.text

            tmux_server.cmd("set-environment", "-t", session, "-u", BUS_VAR)
            assert chain.notifier.deliver(note) == "desktop"  # back to the global one
            assert len(services[0].sent()) == 2
    finally:
        desktop.close()
        for s in services:
            s.kill()
        first.stop()
        second.stop()


def test_bus_lookup_order(tmp_path: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path)}
    assert find_bus("unix:s", "unix:g", "unix:o", env, "$1").address == "unix:s"
    assert find_bus("", "unix:g", "unix:o", env).address == "unix:g"
    assert find_bus("", "", "unix:o", env).source == "the daemon's own environment"
    assert find_bus("", "", "", env).address == ""
    (tmp_path / "bus").write_text("")  # not a socket: not a bus
    assert find_bus("", "", "", env).address == ""
    (tmp_path / "bus").unlink()
    import socket

    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "bus"))
        found = find_bus("", "", "", env)
    assert found.address == f"unix:path={tmp_path / 'bus'}"
    assert found.source == "the per-user bus socket"


def test_environment_parsing() -> None:
    parsed = parse_environment(f"A=1\n-{BUS_VAR}\nB=x=y\n")
    assert parsed == {"A": "1", BUS_VAR: None, "B": "x=y"}


@pytest.mark.tmux
def test_tmux_bus_reads_session_and_global(tmux_server: TmuxServer) -> None:
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    session = tmux_server.cmd("display-message", "-p", "-t", "osf-base:", "#{session_id}").strip()
    tmux_server.cmd("set-environment", "-g", BUS_VAR, "unix:path=/g")
    assert tmux_bus(tmux, session) == ("", "unix:path=/g")
    tmux_server.cmd("set-environment", "-t", session, BUS_VAR, "unix:path=/s")
    assert tmux_bus(tmux, session) == ("unix:path=/s", "unix:path=/g")
    assert tmux_bus(tmux, "$999") == ("", "unix:path=/g")  # a session that is gone
    tmux_server.cmd("set-environment", "-t", session, "-r", BUS_VAR)  # as update-environment
    assert tmux_bus(tmux, session) == ("", "unix:path=/g")


def test_the_icon_is_ours_and_shipped() -> None:
    path = icon_path()
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert int.from_bytes(data[16:20], "big") == int.from_bytes(data[20:24], "big") == 64
    assert "desktop_notifier" not in str(path)
    assert os.access(path, os.R_OK)


def test_desktop_without_a_session_bus_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(BUS_VAR, raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    desktop = DesktopBackend(lambda pane: None, env={"XDG_RUNTIME_DIR": str(tmp_path)})
    try:
        with caplog.at_level(logging.DEBUG):
            assert desktop.is_available() is False
        assert "no notification service answers" in desktop.reason
        assert "no session bus address" in desktop.reason
        assert not [r for r in caplog.records if r.name.startswith("desktop_notifier")]
    finally:
        desktop.close()


def test_the_shipped_icon_is_what_the_tool_draws() -> None:
    from tools import draw_icon

    assert icon_path().read_bytes() == draw_icon.png(draw_icon.pixels())


# ---- a hung service, withdrawn pop-ups, clicks per server -------------------------------------


@needs_bus
def test_a_hung_service_falls_through_at_once_and_comes_back_without_stale_pop_ups(
    bus: SessionBus, service: FakeNotifications, caplog: pytest.LogCaptureFixture
) -> None:
    """dunst stopped (SIGSTOP), not dead: its name stays on the bus and nothing answers. The
    first notice waits a bounded time, the next ones none; the desktop is back as soon as the
    service answers, and the notices it was not given then never pop up late."""
    desktop = DesktopBackend(lambda p: None, env={BUS_VAR: bus.address})
    chain = Chain(desktop)
    try:
        assert chain.deliver(1)[0] == "desktop"
        service.hang()
        with caplog.at_level(logging.INFO, logger="osf_tmux"):
            via, fell = chain.deliver(2)
            assert via == "terminal"
            assert fell < 1.5  # one short timeout (it was two of 2 s)
            via, then = chain.deliver(3)
            assert via == "terminal"
        assert "notification service hangs" in caplog.text
        service.resume()
        n = iter(range(4, 100))
        retry_until(
            lambda: chain.deliver(next(n))[0] == "desktop",
            timeout=5,
            what="the desktop to be used again once the service answers",
        )
        retry_until(lambda: desktop.info()["hung"] is False, timeout=5)
        summaries = [s["summary"] for s in service.sent()]
        assert not [s for s in summaries if s.endswith(("work:2.0", "work:3.0"))], summaries
    finally:
        service.resume()
        desktop.close()
    print(f"\nhung service: fell through in {fell * 1000:.0f} ms, then {then * 1000:.1f} ms")


@needs_bus
def test_a_notice_the_service_takes_too_late_is_withdrawn(bus: SessionBus, tmp_path: Path) -> None:
    """A service that answers its capabilities but takes its time over Notify (it stalled
    between the two): the notice falls through, and when it does land it is closed at once."""
    slow = FakeNotifications(bus, tmp_path / "slow", notify_delay=1.5).start()
    desktop = DesktopBackend(lambda p: None, env={BUS_VAR: bus.address})
    chain = Chain(desktop)
    try:
        assert chain.deliver(1)[0] == "terminal"
        [late] = retry_until(lambda: slow.sent() or None, timeout=10, what="the late Notify")
        retry_until(lambda: late["id"] in slow.closed(), timeout=10, what="its withdrawal")
    finally:
        desktop.close()
        slow.kill()


@needs_bus
def test_a_pop_up_is_withdrawn_when_its_prompt_goes(
    bus: SessionBus, service: FakeNotifications
) -> None:
    from tests.plugin.test_notify import asking, move

    desktop = DesktopBackend(lambda p: None, env={BUS_VAR: bus.address})
    chain = Chain(desktop)
    try:
        prompt = asking("Do you want to proceed?", "rm -rf build")
        chain.notifier.on_transition(move("working", "blocked", snap=prompt))
        [popup] = service.sent()
        assert service.closed() == []
        chain.notifier.on_transition(move("blocked", "working", rule="spinner"))  # answered
        retry_until(lambda: service.closed() == [popup["id"]], timeout=5, what="the withdrawal")
    finally:
        desktop.close()


@needs_bus
@pytest.mark.parametrize("server", ["dunst", "gnome-shell"])
def test_closing_a_pop_up_shows_its_pane_under_dunst_only(
    bus: SessionBus, tmp_path: Path, server: str
) -> None:
    """dunst's default left click closes the pop-up (reason 2, dismissed by the user) instead of
    running its action: under dunst that is the click. A right click there closes them all at
    once: no pane. Elsewhere a close is a close (the click runs the action)."""
    service = FakeNotifications(bus, tmp_path / server, server=server).start()
    clicked: list[str] = []
    desktop = DesktopBackend(clicked.append, env={BUS_VAR: bus.address})
    chain = Chain(desktop)
    try:
        assert chain.deliver(1)[0] == "desktop"
        service.dismiss()
        retry_until(lambda: service.dismissed() == [1], timeout=5, what="the close")
        if server == "dunst":
            retry_until(lambda: clicked == ["%1"], timeout=5, what="the pane to be shown")
        chain.deliver(2)
        service.click()  # the action works everywhere (dunst: the middle click)
        retry_until(lambda: clicked[-1:] == ["%2"], timeout=5, what="the click")
        chain.deliver(3)
        chain.deliver(4)
        service.dismiss_all()
        retry_until(lambda: len(service.dismissed()) == 4, timeout=5, what="the closes")
        # A jump would come DISMISS_BURST after the closes: wait that out, then there is none.
        until = time.monotonic() + 3 * DISMISS_BURST
        retry_until(lambda: time.monotonic() > until, timeout=5)
        assert clicked == (["%1", "%2"] if server == "dunst" else ["%2"])
    finally:
        desktop.close()
        service.kill()


@needs_bus
def test_doctors_probe_tells_a_dead_service_from_a_hung_one_and_from_no_bus(
    bus: SessionBus, service: FakeNotifications, tmp_path: Path
) -> None:
    from osf_tmux.plugin.doctor import probe_desktop

    env = {"XDG_RUNTIME_DIR": str(tmp_path)}  # no per-user bus socket there
    found = probe_desktop(bus.address, env)
    assert found.answers and found.server == "osf-fake-notifications"
    service.hang()
    try:
        assert probe_desktop(bus.address, env).failure == "hung"
    finally:
        service.resume()
    service.kill()
    gone = probe_desktop(bus.address, env)
    assert (gone.answers, gone.failure) == (False, "no-service")
    assert "was not provided" in gone.reason
    assert probe_desktop("", env).failure == "no-bus"
    bus.stop()
    assert probe_desktop(bus.address, env).failure == "bus-gone"
