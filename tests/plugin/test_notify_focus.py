"""'Not for the pane you are looking at', with a real client attached to a private tmux server
through a pty: the terminal's focus reports (ESC [ I / ESC [ O, what a terminal sends once tmux
asks for them) decide, but only where `focus-events` is on; without it tmux's own view stands."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import shutil
import signal
from collections.abc import Iterator

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.watch import Transition
from osf_tmux.judge.combine import PaneState
from osf_tmux.plugin.notify import Notifier, NotifyConfig, NullBackend
from osf_tmux.plugin.notify_backends import looked_at
from osf_tmux.tmux import PaneInfo, ServerSpec, Tmux, list_panes
from tests.plugin.test_notify import Recorder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Client:
    """`tmux attach` on a pty of ours: what a terminal emulator would run."""

    def __init__(self, server: TmuxServer, session: str) -> None:
        self.server = server
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the client
            env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
            env["TERM"] = "xterm-256color"
            argv = [server.tmux, "-L", server.socket_name, "attach", "-t", session]
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        retry_until(lambda: self.flags() is not None, timeout=10, what="the client to attach")

    def flags(self) -> set[str] | None:
        self.drain()
        out = self.server.cmd("list-clients", "-F", "#{client_pid} #{client_flags}")
        for line in out.splitlines():
            pid, _, flags = line.partition(" ")
            if pid.isdigit() and int(pid) == self.pid:
                return set(flags.split(","))
        return None

    def focus(self, on: bool) -> None:
        os.write(self.fd, b"\x1b[I" if on else b"\x1b[O")
        retry_until(lambda: ("focused" in (self.flags() or set())) == on, timeout=5)

    def drain(self) -> None:
        """Read what tmux draws, so that it never blocks on a full pty."""
        with contextlib.suppress(OSError):
            while select.select([self.fd], [], [], 0)[0]:
                if not os.read(self.fd, 65536):
                    break

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


@pytest.fixture
def client(tmux_server: TmuxServer) -> Iterator[Client]:
    c = Client(tmux_server, "osf-base")
    try:
        yield c
    finally:
        c.close()


def pane_of(tmux: Tmux, session: str) -> PaneInfo:
    return next(p for p in list_panes(tmux) if p.session_name == session and p.active)


def test_focus_decides_only_with_focus_events(tmux_server: TmuxServer, client: Client) -> None:
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    pane = pane_of(tmux, "osf-base")
    assert pane.seen  # on the attached client's screen, as far as tmux knows

    tmux_server.cmd("set-option", "-g", "focus-events", "on")
    assert looked_at(tmux, pane)
    client.focus(False)  # the person went to the browser
    assert not looked_at(tmux, pane)
    client.focus(True)
    assert looked_at(tmux, pane)

    client.focus(False)
    tmux_server.cmd("set-option", "-g", "focus-events", "off")
    # Without focus events no terminal reports focus: a stale flag is no evidence.
    assert looked_at(tmux, pane)

    tmux_server.cmd("new-session", "-d", "-s", "elsewhere", "sleep 1000")
    other = pane_of(tmux, "elsewhere")
    assert not other.seen and not looked_at(tmux, other)  # nobody attached there


def test_a_prompt_in_the_active_pane_notifies_while_the_terminal_is_in_the_background(
    tmux_server: TmuxServer, client: Client
) -> None:
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    tmux_server.cmd("set-option", "-g", "focus-events", "on")
    pane = pane_of(tmux, "osf-base")
    rec = Recorder("terminal")
    notifier = Notifier(
        lambda: NotifyConfig(),
        lambda c: [rec, NullBackend()],
        clock=FakeClock(),
        inline=True,
        looking=lambda p: looked_at(tmux, p),
    )

    def block() -> None:
        was = PaneState("working", 1.0, None, "screen")
        now = PaneState("blocked", 2.0, "r", "screen")
        notifier.on_transition(Transition(pane, "claude", was, now, None))

    block()
    assert rec.sent == []  # looked at: quiet, and no cooldown started
    client.focus(False)
    block()
    assert [n.pane_id for n in rec.sent] == [pane.pane_id]
