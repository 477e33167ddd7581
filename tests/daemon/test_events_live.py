"""`osf-tmux wait` and `osf-tmux events` against the real daemon, in a private tmux server, with
a replayed Claude Code permission prompt in fresh panes.

`wait` returns on the daemon's transition (it is subscribed before the prompt's bytes are
written), on --timeout with 124, and with 4 when its pane closes. Two readers, one of which
never reads: that one is dropped, the other gets every event, and the daemon still judges every
prompt. The daemon runs with a small per-reader backlog (OSF_TMUX_EVENTS_BACKLOG) so that a
handful of events overflow it. No test asserts how long anything took (a shared machine): the
times are printed, and bench/events_bench.py measures them for bench/RESULTS.md."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.daemon.feed import socket_path, unix_address
from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.tmux import ServerSpec
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

CAPTURE = Path(__file__).resolve().parents[2] / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)
BACKLOG = 1024


class Lines:
    """A child's stdout, collected line by line on a thread as it comes."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in list(self.lines)]


@dataclass
class Rig:
    server: TmuxServer
    daemon: DaemonProcess
    home: Path
    panes: list[Feeder] = field(default_factory=list)
    children: list[subprocess.Popen[str]] = field(default_factory=list)

    @property
    def files(self) -> DaemonFiles:
        return DaemonFiles.for_server(ServerSpec(self.server.socket_name), self.daemon.env)

    def pane(self) -> Feeder:
        """A new pane the daemon has taken as Claude's."""
        feeder = Feeder(self.server, self.home, 120, 32, "claude")
        self.panes.append(feeder)
        retry_until(
            lambda: any(
                p.get("pane") == feeder.pane and p.get("agent") == "claude" and p["pipe"] == "pipe"
                for p in self.daemon.status().get("panes", [])
            ),
            timeout=10,
            what="the daemon to take the pane as claude's",
        )
        return feeder

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "osf_tmux", "-L", self.server.socket_name, *args]
        proc = subprocess.Popen(
            argv, env=self.daemon.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.children.append(proc)
        return proc

    def subscribed(self, proc: subprocess.Popen[str]) -> None:
        """Until the daemon has taken `proc` as a reader (it logs each one, with its pid)."""
        mark = f"event feed: reader pid {proc.pid} connected"
        retry_until(
            lambda: mark in self.log() or proc.poll() is not None,
            timeout=20,
            what=f"pid {proc.pid} to subscribe",
        )
        assert proc.poll() is None, proc.communicate()

    def log(self) -> str:
        log = self.files.log
        return log.read_text(errors="replace") if log.exists() else ""

    def events_status(self) -> dict[str, Any]:
        return dict(self.daemon.status().get("events") or {})


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    home = tmp_path_factory.mktemp("events-live")
    server = TmuxServer()
    server.start()
    daemon = DaemonProcess(server, home)
    daemon.env["OSF_TMUX_EVENTS_BACKLOG"] = str(BACKLOG)
    it = Rig(server, daemon, home)
    daemon.start()
    try:
        yield it
    finally:
        for proc in it.children:
            if proc.poll() is None:
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=10)
        daemon.stop()
        for f in it.panes:
            f.close()
        server.kill()


def exited_at(proc: subprocess.Popen[str], timeout: float) -> float:
    """The wall time at which `proc` exited (checked every millisecond)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        assert time.monotonic() < deadline, "the process did not end"
        time.sleep(0.001)
    return time.time()


def test_wait_returns_on_the_transition(rig: Rig) -> None:
    feeder = rig.pane()
    proc = rig.spawn("wait", feeder.pane, "--until", "blocked", "--json", "--timeout", "60")
    rig.subscribed(proc)
    written = time.time()
    feeder.write(CAPTURE.read_bytes()[:BLOCKED_AT])
    done = exited_at(proc, 30)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    event = json.loads(out)
    assert (event["pane"], event["after"], event["agent"]) == (feeder.pane, "blocked", "claude")
    assert event["question"] == "Do you want to proceed?"
    assert written <= event["time"] <= done  # this prompt's transition, and wait ended on it
    print(
        f"\nwait exited {(done - event['time']) * 1000:.0f} ms after the daemon's transition "
        f"({(done - written) * 1000:.0f} ms after the prompt's bytes)"
    )
    # The pane is blocked now: waiting for it returns at once, unless --next.
    again = rig.spawn("wait", feeder.pane, "--until", "blocked")
    assert again.wait(timeout=30) == 0
    assert again.communicate()[0].split("\t") == [
        feeder.pane,
        event["target"],
        "claude",
        "blocked\n",
    ]


def test_wait_times_out_with_124(rig: Rig) -> None:
    feeder = rig.pane()
    proc = rig.spawn("wait", feeder.pane, "--until", "done", "--timeout", "1.5")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 124, err
    assert out == "" and f"timed out after 1.5 s: {feeder.pane} (" in err
    assert "did not get to done" in err


def test_wait_ends_with_4_when_its_pane_closes(rig: Rig) -> None:
    feeder = rig.pane()
    proc = rig.spawn("wait", feeder.pane, "--until", "done")
    rig.subscribed(proc)
    rig.server.kill_pane(feeder.pane)
    exited_at(proc, 30)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 4, err
    # Subscribed, then asked tmux which pane it is: a kill that lands between the two finds no
    # pane there, one after them is reported on the feed. Both are the pane gone (4).
    assert (f"pane {feeder.pane}" in err and "closed" in err) or "no such pane" in err, err
    missing = rig.spawn("wait", feeder.pane, "--until", "done")  # and now it is not there
    assert missing.wait(timeout=30) == 4
    assert "no such pane" in missing.communicate()[1]


def test_wait_any_says_which_pane(rig: Rig) -> None:
    quiet, asking = rig.pane(), rig.pane()
    proc = rig.spawn("wait", "--any", "--until", "blocked", "--next", "--timeout", "60")
    rig.subscribed(proc)
    asking.write(CAPTURE.read_bytes()[:BLOCKED_AT])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.split("\t")[0] == asking.pane != quiet.pane


def test_a_stalled_reader_is_dropped_the_other_reads_on_and_the_daemon_keeps_pace(
    rig: Rig,
) -> None:
    reader = Lines(rig.spawn("events", "--json"))
    rig.subscribed(reader.proc)
    stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with unix_address(socket_path(rig.files.runtime)) as address:
        stalled.connect(address)  # and never reads, until the end
    dropped_before = rig.events_status().get("dropped", 0)
    panes, latencies = [], []
    for _ in range(6):
        feeder = rig.pane()
        panes.append(feeder)
        written = time.monotonic()
        feeder.write(CAPTURE.read_bytes()[:BLOCKED_AT])
        retry_until(lambda f=feeder: f.state() == "blocked", timeout=10, interval=0.002)  # type: ignore[misc]
        latencies.append(time.monotonic() - written)
    for feeder in panes:
        rig.server.kill_pane(feeder.pane)
    ids = {f.pane for f in panes}

    def heard_all() -> bool:
        events = reader.events()
        blocked = {
            e["pane"] for e in events if e["kind"] == "transition" and e["after"] == "blocked"
        }
        gone = {e["pane"] for e in events if e["kind"] == "gone"}
        return ids <= blocked and ids <= gone

    retry_until(heard_all, timeout=20, what="the reading reader to hear every prompt and close")
    retry_until(
        lambda: rig.events_status().get("dropped", 0) > dropped_before,
        timeout=10,
        what="status.json to count the stalled reader as dropped",
    )
    assert reader.proc.poll() is None  # still reading
    assert f"event feed: dropped reader pid {os.getpid()}" in rig.log()
    # What the stalled reader gets when it finally reads: part of the feed, then the end.
    stalled.settimeout(10)
    data = b""
    while chunk := stalled.recv(65536):
        data += chunk
    stalled.close()
    kinds = [json.loads(x)["kind"] for x in data.decode().splitlines()]
    assert "bye" not in kinds
    assert len(kinds) < len(reader.events())
    # The daemon judged each prompt with the stalled reader attached (every pane reached
    # blocked above); how fast is bench/events_bench.py's to measure.
    ms = sorted(round(x * 1000) for x in latencies)
    print(f"\nprompt -> @osf_state blocked with a stalled reader attached: {ms} ms")


def test_the_readers_hear_the_daemon_stop(rig: Rig) -> None:
    reader = rig.spawn("events")
    waiter = rig.spawn("wait", "--any", "--until", "done", "--next")
    rig.subscribed(reader)
    rig.subscribed(waiter)
    rig.daemon.stop()
    for proc in (reader, waiter):
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 3, err
        assert "daemon stopped" in err
    gone = rig.spawn("events")
    assert gone.wait(timeout=30) == 3
    assert "not running" in gone.communicate()[1]
