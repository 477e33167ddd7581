"""A stand-in for a desktop notification daemon: `org.freedesktop.Notifications` on the bus
named by DBUS_SESSION_BUS_ADDRESS, run as its own process so that a test can kill it (the
service dies, the bus stays) and start it again.

Each Notify call is appended to LOG as one JSON line. SIGUSR1 "clicks" the last notification
(ActionInvoked with the `default` key, as a notification daemon does on a click). Once the name
is owned, READY is created.

    python tests/fake_notifications.py LOG READY"""

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
    def __init__(self, log: Path) -> None:
        super().__init__(NAME)
        self.log = log
        self.last = 0

    @dbus_method()
    def Notify(
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
        self.last += 1
        record = {
            "id": self.last,
            "app_name": app_name,
            "app_icon": app_icon,
            "summary": summary,
            "body": body,
            "actions": actions,
        }
        with self.log.open("a") as f:
            f.write(json.dumps(record) + "\n")
        return self.last

    @dbus_method()
    def GetCapabilities(self) -> Strings:
        return ["body", "actions"]

    @dbus_method()
    def GetServerInformation(self) -> Info:
        return ("osf-fake-notifications", "osf-tmux tests", "1.0", "1.2")

    @dbus_method()
    def CloseNotification(self, nid: DBusUInt32) -> None:
        self.NotificationClosed(nid, 3)

    @dbus_signal()
    def ActionInvoked(self, nid: DBusUInt32, key: DBusStr) -> Action:
        return (nid, key)

    @dbus_signal()
    def NotificationClosed(self, nid: DBusUInt32, reason: DBusUInt32) -> Closed:
        return (nid, reason)


async def serve(log: Path, ready: Path) -> None:
    bus = await MessageBus().connect()
    service = Notifications(log)
    bus.export(PATH, service)
    reply = await bus.request_name(NAME)
    if reply != RequestNameReply.PRIMARY_OWNER:
        raise SystemExit(f"could not own {NAME}: {reply}")
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, lambda: service.ActionInvoked(service.last, "default"))
    ready.touch()
    await bus.wait_for_disconnect()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    # The bus going away under us is what some tests do to a session's bus.
    with contextlib.suppress(OSError, EOFError):
        asyncio.run(serve(Path(sys.argv[1]), Path(sys.argv[2])))
