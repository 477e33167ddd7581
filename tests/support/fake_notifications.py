"""A stand-in for a desktop notification daemon: `org.freedesktop.Notifications` on the bus
named by DBUS_SESSION_BUS_ADDRESS, run as its own process so that a test can kill it (the
service dies, the bus stays) and start it again.

Each Notify call is appended to LOG as one JSON line, each CloseNotification as `{"closed": id}`
and each close by the person as `{"dismissed": id}`.
SIGUSR1 "clicks" the last notification (ActionInvoked with the `default` key, as a notification
daemon does on a click); SIGUSR2 closes it as the person would (NotificationClosed, reason 2:
what dunst's default left click does); SIGHUP closes every one still up that way (dunst's
right click). NAME is what GetServerInformation says the server is; NOTIFY_DELAY seconds pass
before a Notify is answered (a server that stalls). Once the name is owned, READY is created.

    python tests/support/fake_notifications.py LOG READY [NAME [NOTIFY_DELAY]]"""

# No `from __future__ import annotations`: dbus-fast reads the signatures from live annotations.
import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

from dbus_fast import RequestNameReply
from dbus_fast.aio import MessageBus
from dbus_fast.annotations import DBusSignature, DBusStr, DBusUInt32
from dbus_fast.service import ServiceInterface, dbus_method, dbus_signal

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"

Strings = Annotated[list[str], DBusSignature("as")]
Hints = Annotated[dict[str, Any], DBusSignature("a{sv}")]
Int = Annotated[int, DBusSignature("i")]
Info = Annotated[tuple[str, str, str, str], DBusSignature("ssss")]
Action = Annotated[tuple[int, str], DBusSignature("us")]
Closed = Annotated[tuple[int, int], DBusSignature("uu")]


class Notifications(ServiceInterface):
    def __init__(
        self, log: Path, server: str = "osf-fake-notifications", delay: float = 0.0
    ) -> None:
        super().__init__(NAME)
        self.log = log
        self.server = server
        self.delay = delay
        self.last = 0
        self.up: list[int] = []

    def _write(self, record: dict[str, Any]) -> None:
        with self.log.open("a") as f:
            f.write(json.dumps(record) + "\n")

    def dismiss(self, nids: list[int]) -> None:
        for nid in nids:
            if nid in self.up:
                self.up.remove(nid)
                self._write({"dismissed": nid})
                self.NotificationClosed(nid, 2)

    @dbus_method()
    async def Notify(
        self,
        app_name: DBusStr,
        replaces_id: DBusUInt32,
        app_icon: DBusStr,
        summary: DBusStr,
        body: DBusStr,
        actions: Strings,
        hints: Hints,
        expire_timeout: Int,
    ) -> DBusUInt32:
        if self.delay:
            await asyncio.sleep(self.delay)
        self.last += 1
        self.up.append(self.last)
        record = {
            "id": self.last,
            "app_name": app_name,
            "app_icon": app_icon,
            "summary": summary,
            "body": body,
            "actions": actions,
        }
        self._write(record)
        return self.last

    @dbus_method()
    def GetCapabilities(self) -> Strings:
        return ["body", "actions"]

    @dbus_method()
    def GetServerInformation(self) -> Info:
        return (self.server, "osf-tmux tests", "1.0", "1.2")

    @dbus_method()
    def CloseNotification(self, nid: DBusUInt32) -> None:
        self._write({"closed": nid})
        if nid in self.up:
            self.up.remove(nid)
        self.NotificationClosed(nid, 3)

    @dbus_signal()
    def ActionInvoked(self, nid: DBusUInt32, key: DBusStr) -> Action:
        return (nid, key)

    @dbus_signal()
    def NotificationClosed(self, nid: DBusUInt32, reason: DBusUInt32) -> Closed:
        return (nid, reason)


async def serve(log: Path, ready: Path, server: str, delay: float) -> None:
    bus = await MessageBus().connect()
    service = Notifications(log, server, delay)
    bus.export(PATH, service)
    reply = await bus.request_name(NAME)
    if reply != RequestNameReply.PRIMARY_OWNER:
        raise SystemExit(f"could not own {NAME}: {reply}")
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, lambda: service.ActionInvoked(service.last, "default"))
    loop.add_signal_handler(signal.SIGUSR2, lambda: service.dismiss([service.last]))
    loop.add_signal_handler(signal.SIGHUP, lambda: service.dismiss(list(service.up)))
    ready.touch()
    await bus.wait_for_disconnect()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    # The bus going away under us is what some tests do to a session's bus.
    with contextlib.suppress(OSError, EOFError):
        server = sys.argv[3] if len(sys.argv) > 3 else "osf-fake-notifications"
        delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
        asyncio.run(serve(Path(sys.argv[1]), Path(sys.argv[2]), server, delay))
