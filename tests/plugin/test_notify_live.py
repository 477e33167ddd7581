"""The real daemon notifying through a fake notification service on a private session bus,
with a replayed Claude Code permission prompt in panes of a private tmux server.

The daemon starts without any bus address of its own: it takes the one set in tmux's global
environment. In order: the desktop answers (and the notify command gets the event as data, a
prompt full of shell syntax running nothing); status.json and `doctor` tell the daemon's own
path; the service dies and the next prompt falls through to the terminal, the log saying why;
the service comes back and so does the desktop; a restarted daemon does not notify again for
the panes that still wait."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.plugin.notify_desktop import BUS_VAR
from osf_tmux.tmux import ServerSpec
from tests.support.live import DaemonProcess, Feeder
from tests.support.session_bus import FakeNotifications, SessionBus
from tests.support.tmux_server import TmuxServer, retry_until

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    # one module-scoped rig, and each test goes on from the state the one before left it in:
    # under xdist, one worker (--dist loadgroup)
    pytest.mark.xdist_group("notify_live"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="dbus-daemon is not installed"),
]

CAPTURE = Path(__file__).resolve().parents[2] / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)
WORKING_AT = 7176  # approved: the tool runs
# The prompt's question and command rows as Claude Code draws them, and what a hostile command
# would put there instead: command substitution, backticks, quotes, a `;`.
QUESTION = b"Do\x1b[5Gyou\x1b[9Gwant\x1b[14Gto\x1b[17Gproceed?"
EVIL_QUESTION = b"Do you want $(touch pwned1) `touch pwned2` \"q\" 'r'?"
DETAIL = (
    b"rm\x1b[5G-rf\x1b[9Gbuild\x1b[15G&&\x1b[18Gsleep\x1b[24G4\x1b[26G&&\x1b[29Gecho\x1b[34Gdone"
)
EVIL_DETAIL = b'echo "$(touch pwned3)"; touch pwned4 # \' `touch pwned5`'
# What the command does with the event: only ever "$VAR", so the shell never parses the text.
COMMAND = (
    'cd "{work}" && printf "%s\\n" "$OSF_AGENT" "$OSF_STATE" "$OSF_PANE" "$OSF_TARGET" '
    '"$OSF_QUESTION" "$OSF_DETAIL" "$OSF_SINCE" > "env-$OSF_PANE" && cat > "stdin-$OSF_PANE" '
    '&& echo "$OSF_PANE" >> runs'
)


def prompt_bytes(evil: bool = False) -> bytes:
    data = CAPTURE.read_bytes()[:BLOCKED_AT]
    if evil:
        assert data.count(QUESTION) == 1 and data.count(DETAIL) == 1
        data = data.replace(QUESTION, EVIL_QUESTION).replace(DETAIL, EVIL_DETAIL)
    return data


@dataclass
class Rig:
    server: TmuxServer
    bus: SessionBus
    service: FakeNotifications
    daemon: DaemonProcess
    work: Path
    home: Path
    panes: list[Feeder]

    def block(self, evil: bool = False) -> tuple[Feeder, float]:
        """A new pane that shows the prompt; (the pane, when its bytes were written)."""
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
        data = prompt_bytes(evil)
        start = time.monotonic()
        feeder.write(data)
        return feeder, start

    def address(self, feeder: Feeder) -> str:
        fmt = "#{session_name}:#{window_index}.#{pane_index}"
        return self.server.cmd("display-message", "-p", "-t", feeder.pane, fmt).strip()

    def popups_for(self, feeder: Feeder) -> list[dict[str, Any]]:
        where = self.address(feeder)
        return [s for s in self.service.sent() if s["summary"].endswith(f" in {where}")]

    def log(self) -> str:
        files = DaemonFiles.for_server(ServerSpec(self.server.socket_name), self.daemon.env)
        return files.log.read_text(errors="replace") if files.log.exists() else ""

    def notify_status(self) -> dict[str, Any]:
        return dict(self.daemon.status().get("notify") or {})

    def doctor(self) -> tuple[int, dict[str, dict[str, Any]]]:
        out = self.daemon.cli("doctor", "--json")
        return out.returncode, {c["name"]: c for c in json.loads(out.stdout)}


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    home = tmp_path_factory.mktemp("notify-live")
    work = home / "work"
    work.mkdir()
    server = TmuxServer()
    server.start()
    bus = SessionBus(home / "bus").start()
    service = FakeNotifications(bus, home / "bus").start()
    daemon = DaemonProcess(server, home)
    daemon.env.pop(BUS_VAR, None)  # started without a bus, as from systemd or over ssh
    (home / "run").mkdir()  # ... and no per-user bus socket in its runtime dir either
    server.cmd("set-environment", "-g", BUS_VAR, bus.address)
    server.cmd("set-option", "-g", "@osf-notify-command", COMMAND.format(work=work))
    it = Rig(server, bus, service, daemon, work, home, [])
    daemon.start()
    try:
        yield it
    finally:
        daemon.stop()
        for f in it.panes:
            f.close()
        service.kill()
        bus.stop()
        server.kill()


def test_desktop_notification_and_the_command_gets_data_not_code(rig: Rig) -> None:
    feeder, start = rig.block(evil=True)
    [popup] = retry_until(
        lambda: rig.popups_for(feeder) or None, timeout=10, interval=0.002, what="the pop-up"
    )
    latency = time.monotonic() - start
    assert popup["summary"].startswith("claude is waiting for you in ")
    assert "$(touch pwned1) `touch pwned2`" in popup["body"]
    env_file = rig.work / f"env-{feeder.pane}"
    runs = rig.work / "runs"  # written last, and shared by the module's tests: this pane's line
    retry_until(
        lambda: runs.exists() and feeder.pane in runs.read_text().split(),
        timeout=10,
        what="the notify command",
    )
    agent, state, pane, target, question, detail, since = env_file.read_text().splitlines()
    assert (agent, state, pane, target) == ("claude", "blocked", feeder.pane, rig.address(feeder))
    assert question == EVIL_QUESTION.decode()
    assert detail == EVIL_DETAIL.decode()
    assert abs(int(since) - time.time()) < 60
    event = json.loads((rig.work / f"stdin-{feeder.pane}").read_text())
    assert event["question"] == question and event["target"] == target
    assert event["pane"] == feeder.pane and event["agent"] == "claude"
    assert not sorted(p.name for p in rig.work.glob("pwned*")), "the prompt's text ran"
    assert not list(Path.cwd().glob("pwned*"))
    print(f"\nprompt bytes written -> desktop pop-up: {latency * 1000:.0f} ms")


def test_status_and_doctor_report_the_daemons_own_path(rig: Rig) -> None:
    status = retry_until(
        lambda: (s := rig.notify_status()).get("path") == "desktop" and s.get("last") and s,
        timeout=10,
        what="status.json to show the notification",
    )
    desktop = status["backends"]["desktop"]
    assert desktop["bus"] == rig.bus.address
    assert desktop["bus_from"] == "tmux's global environment"
    assert desktop["last_ok"] > time.time() - 60
    assert status["last"]["via"] == "desktop"
    _, checks = rig.doctor()
    note = checks["notifications"]
    assert note["level"] == "ok", note
    assert "through the desktop" in note["message"] and rig.bus.address in note["message"]
    assert checks["notify command"]["level"] == "ok"


def test_service_dies_the_next_prompt_reaches_the_terminal(rig: Rig) -> None:
    rig.service.kill()
    before = len(rig.service.sent())
    feeder, _ = rig.block()
    where = rig.address(feeder)
    line = retry_until(
        lambda: next(
            (x for x in rig.log().splitlines() if "notified via terminal" in x and where in x),
            None,
        ),
        timeout=10,
        what="a terminal notification in the log",
    )
    assert "desktop failed" in line and "was not provided" in line  # why, in the same line
    assert "desktop notification failed: the notification service did not take it" in rig.log()
    assert len(rig.service.sent()) == before
    retry_until(lambda: rig.notify_status().get("path") == "terminal", timeout=10)
    status, checks = rig.doctor()
    note = checks["notifications"]
    assert note["level"] == "warn" and status == 2
    assert "not the desktop" in note["message"] and "was not provided" in note["message"]
    assert "start your notification daemon" in note["fix"]  # the service died, not the bus


def test_service_back_the_desktop_again(rig: Rig) -> None:
    rig.service.start()
    feeder, _ = rig.block()
    retry_until(lambda: rig.popups_for(feeder) or None, timeout=10, what="a pop-up again")
    retry_until(lambda: rig.notify_status().get("path") == "desktop", timeout=10)
    assert "desktop notifications work (again)" in rig.log()
    assert rig.doctor()[1]["notifications"]["level"] == "ok"


def test_a_prompt_answered_unseen_and_asked_again_notifies_again(rig: Rig) -> None:
    """Answered without anyone looking (send-keys, a phone): its pop-up goes, and the same
    question asked again a moment later is a new prompt."""
    feeder, _ = rig.block()
    [first] = retry_until(lambda: rig.popups_for(feeder) or None, timeout=10, what="the pop-up")
    feeder.write(CAPTURE.read_bytes()[BLOCKED_AT:WORKING_AT])
    retry_until(
        lambda: first["id"] in rig.service.closed(), timeout=10, what="the pop-up to be withdrawn"
    )
    feeder.write(b"\x1b[H\x1b[2J" + prompt_bytes())
    retry_until(
        lambda: len(rig.popups_for(feeder)) == 2, timeout=10, what="the question notified again"
    )


def test_a_restarted_daemon_does_not_notify_again(rig: Rig) -> None:
    retry_until(  # every notification's command has finished (they run on their own)
        lambda: rig.log().count("notify command for") == rig.log().count("notified via"),
        timeout=10,
        what="the notify commands to finish",
    )
    popups = len(rig.service.sent())
    runs = (rig.work / "runs").read_text()
    rig.daemon.stop()
    mark = len(rig.log())
    rig.daemon.start()
    waiting = [f.pane for f in rig.panes]
    # Every pane is judged blocked again by the new daemon, and each is held: notified already.
    held = "not notified, already notified for this prompt, which still waits"
    retry_until(
        lambda: (
            all(f"{pane} " in rig.log()[mark:] for pane in waiting)
            and rig.log()[mark:].count(held) >= len(waiting)
        ),
        timeout=15,
        what="the new daemon to judge every waiting pane",
    )
    after = rig.log()[mark:]
    assert "notified via" not in after
    assert len(rig.service.sent()) == popups
    assert (rig.work / "runs").read_text() == runs
