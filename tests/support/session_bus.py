"""A private D-Bus session bus (the distribution's dbus-daemon with a config of ours: no
service activation, so no real notification daemon can answer) and the fake notification
service of tests/support/fake_notifications.py on it, each a child process the test starts and kills
by pid."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.tmux_server import retry_until

DBUS_DAEMON = shutil.which("dbus-daemon")
SERVICE = Path(__file__).with_name("fake_notifications.py")

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


class SessionBus:
    """dbus-daemon on a socket under `home`; `address` is what DBUS_SESSION_BUS_ADDRESS holds."""

    def __init__(self, home: Path, name: str = "bus") -> None:
        if DBUS_DAEMON is None:
            raise RuntimeError("dbus-daemon is not installed")
        home.mkdir(parents=True, exist_ok=True)
        self.socket = home / f"{name}.sock"
        self.config = home / f"{name}.conf"
        self.config.write_text(CONFIG.format(socket=self.socket))
        self.proc: subprocess.Popen[bytes] | None = None
        self.address = ""

    def start(self) -> SessionBus:
        assert DBUS_DAEMON is not None
        self.proc = subprocess.Popen(
            [DBUS_DAEMON, f"--config-file={self.config}", "--nofork", "--print-address=1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline().decode().strip() if ready else ""
        if not line:
            self.stop()
            raise RuntimeError("dbus-daemon printed no address")
        self.address = line
        return self

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None


class FakeNotifications:
    """The fake service on `bus`; what it was sent is in `sent()`."""

    def __init__(
        self, bus: SessionBus, home: Path, server: str = "", notify_delay: float = 0.0
    ) -> None:
        self.bus = bus
        self.server = server or "osf-fake-notifications"
        self.notify_delay = notify_delay
        self.log = home / "notifications.jsonl"
        self.ready = home / "notifications.ready"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> FakeNotifications:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.ready.unlink(missing_ok=True)
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.bus.address}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(SERVICE),
                str(self.log),
                str(self.ready),
                self.server,
                str(self.notify_delay),
            ],
            env=env,
            stdin=subprocess.DEVNULL,
        )
        proc = self.proc
        retry_until(
            lambda: self.ready.exists() or proc.poll() is not None,
            timeout=15,
            what="the fake notification service to own its name",
        )
        if not self.ready.exists():
            raise RuntimeError(f"the fake notification service exited ({proc.returncode})")
        return self

    def kill(self) -> None:
        """Dies as a crashed notification daemon does: at once, its name released by the bus."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.proc = None

    def click(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR1)

    def dismiss(self) -> None:
        """The person closes the last pop-up (dunst's left click)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR2)

    def dismiss_all(self) -> None:
        """The person closes every pop-up at once (dunst's right click)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGHUP)

    def hang(self) -> None:
        """Stopped, not dead: its name stays on the bus, nothing is answered."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def sent(self) -> list[dict[str, Any]]:
        return [r for r in self.records() if "summary" in r]

    def closed(self) -> list[int]:
        """The ids withdrawn with CloseNotification."""
        return [r["closed"] for r in self.records() if "closed" in r]

    def dismissed(self) -> list[int]:
        """The ids the person closed (SIGUSR2, SIGHUP)."""
        return [r["dismissed"] for r in self.records() if "dismissed" in r]

    def records(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]
