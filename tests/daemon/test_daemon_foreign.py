"""An agent pane whose pipe someone else holds (tmux-logging, a recorder): the daemon gets none
of its bytes and captures its screen instead. Before, it did so once per sweep (2 s): prompts
were announced up to 2.6 s late, and a prompt answered within a second or two could be missed
altogether or stay `blocked` after the answer. Now the screen is captured every 0.1 s while
the agent works or waits.

This test shows prompts for 0.8 s each, with gaps, and watches `@osf_state` meanwhile: every
prompt must be seen, and every answer (the prompt erased) too. With a capture every 2 s, the
chance to see all four prompts was about 0.4^4 = 3 %; with the 0.7 s of lateness it allows
(a busy machine: the daemon and this test's reader share two cores with three other workers),
(0.8 + 0.7) / 2 each, 32 %."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.daemon.test_daemon_live import claude_prompt, pane_status
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class StateLog(threading.Thread):
    """Reads the pane's `@osf_state` every 20 ms and keeps every change, with its time."""

    def __init__(self, feeder: Feeder) -> None:
        super().__init__(daemon=True)
        self.feeder = feeder
        self.changes: list[tuple[float, str | None]] = []
        self.stopping = False

    def run(self) -> None:
        last: str | None = "?"
        while not self.stopping:
            state = self.feeder.state()
            if state != last:
                self.changes.append((time.monotonic(), state))
                last = state
            time.sleep(0.02)

    def states_between(self, start: float, end: float) -> list[str | None]:
        before = [s for t, s in self.changes if t <= start][-1:]
        return before + [s for t, s in self.changes if start < t <= end]


@pytest.fixture
def daemon(tmux_server: TmuxServer, tmp_path: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(tmux_server, tmp_path)
    d.start()
    yield d
    d.stop()


# How late a prompt or its answer may show: a capture every 0.1 s while it works or waits, every
# 0.5 s while it sits idle (the gap before each prompt), and a loaded machine's scheduling.
LATE = 0.7


@pytest.mark.slow
def test_short_prompts_in_a_pane_with_someone_elses_pipe_are_all_seen(
    tmux_server: TmuxServer, daemon: DaemonProcess, tmp_path: Path
) -> None:
    server = tmux_server
    capture, point, size = claude_prompt()
    prompt = capture.bytes_path.read_bytes()[: point.offset]
    log = tmp_path / "their.log"
    feeder = Feeder(server, tmp_path, size[0], size[1], None)
    server.cmd("pipe-pane", "-O", "-t", feeder.pane, f"cat >> {log}")
    server.cmd("set-option", "-p", "-t", feeder.pane, "@osf-agent", "claude")
    watch = StateLog(feeder)
    try:
        retry_until(
            lambda: (s := pane_status(daemon, feeder.pane)) and s["pipe"] == "foreign",
            timeout=5,
            what="pane watched as someone else's",
        )
        # Its first state is published after its first capture is judged: prompts shown before
        # that would test the start-up, not the polling (a whole-suite run missed the first).
        retry_until(lambda: feeder.state() is not None, timeout=10, what="a first state")
        watch.start()
        windows = []
        for _ in range(4):
            feeder.write(b"\x1b[2J\x1b[H")  # the answer: the prompt is gone
            time.sleep(1.0)
            start = time.monotonic()
            feeder.write(prompt)
            time.sleep(0.8)
            windows.append((start, time.monotonic()))
        feeder.write(b"\x1b[2J\x1b[H")
        time.sleep(1.0)
        watch.stopping = True
        watch.join(timeout=5)
        seen = [("blocked" in watch.states_between(a, b + LATE)) for a, b in windows]
        assert all(seen), f"prompts seen: {seen}; states: {watch.changes}"
        # each answer seen too: the pane left `blocked` before the next prompt came
        released = [
            watch.states_between(b + LATE, a2)[-1] != "blocked"
            for (_, b), (a2, _) in zip(
                windows, [*windows[1:], (time.monotonic(), 0.0)], strict=True
            )
        ]
        assert all(released), f"answers seen: {released}; states: {watch.changes}"
        assert log.exists() and len(log.read_bytes()) >= 4 * len(prompt)  # theirs kept working
    finally:
        watch.stopping = True
        feeder.close()
        server.kill_pane(feeder.pane)


def test_a_pipe_opened_between_listing_and_attaching_is_not_replaced(
    tmux_server: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tmux-logging started by a hook of a new window, say: its `pipe-pane` lands after the
    daemon listed the pane (no pipe yet) and before the daemon's own `pipe-pane`, which used
    to replace it. Now the daemon's opens only where no pipe is open when tmux runs it."""
    server = tmux_server
    pane = server.new_pane(["sleep", "100000"], 80, 24)
    log = tmp_path / "their.log"
    run = tmp_path / "run"
    tmux = Tmux(ServerSpec(server.socket_name))
    theirs = ["pipe-pane", "-O", "-t", pane, f"cat >> {log}"]
    real = Tmux.run_many

    def first_theirs(self: Tmux, commands: Sequence[Sequence[str]]) -> str:
        if any(pane in c and any("pipe-pane" in a for a in c) for c in commands):
            server.cmd(*theirs)
            monkeypatch.setattr(Tmux, "run_many", real)
        return real(self, commands)

    daemon = Daemon(tmux, load_rules(None), PipeFactory(run), token=str(run))
    daemon.pipes.prepare()
    monkeypatch.setattr(Tmux, "run_many", first_theirs)
    try:
        daemon.sweep()
        assert server.cmd("display-message", "-p", "-t", pane, "#{@osf_pipe}").strip() == ""
        # theirs still receives
        tty = server.cmd("display-message", "-p", "-t", pane, "#{pane_tty}").strip()
        with open(tty, "w") as out:
            out.write("for their log\r\n")
        retry_until(lambda: log.exists() and b"their log" in log.read_bytes(), timeout=5)
        daemon.sweep()
        assert daemon.table.panes[pane].mode == "foreign"
    finally:
        daemon.registry.close_all()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
