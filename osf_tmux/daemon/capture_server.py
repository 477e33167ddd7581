"""The daemon's side of `osf-tmux capture`: a socket in its private runtime folder that answers
one question, "what did pane %N draw lately, and what did you make of it?", with the pane's kept
bytes (daemon/recent.py) and its state.

Served from a thread of its own, so a slow or stuck client never holds up the loop; one request
a connection, from this user only, a few KiB at most; the answer is one JSON line."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import re
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from osf_tmux.daemon.events import peer_of
from osf_tmux.daemon.feed import unix_address
from osf_tmux.daemon.recent import Recording

log = logging.getLogger("osf_tmux.daemon.capture_server")

SOCKET_NAME = "capture.sock"
MAX_REQUEST = 4096
CLIENT_TIMEOUT = 5.0  # seconds a client may take to ask, and to read the answer
_PANE_ID = re.compile(r"^%\d{1,9}$")

# What the daemon knows of a pane: its state and the like, plus its kept bytes; None: no such
# agent pane. Called on this module's thread.
Lookup = Callable[[str], tuple[dict[str, Any], Recording | None] | None]


def socket_path(runtime: Path) -> Path:
    return runtime / SOCKET_NAME


def answer(lookup: Lookup, request: bytes) -> dict[str, Any]:
    """The reply to one request line (pure but for `lookup`)."""
    try:
        asked = json.loads(request)
    except (ValueError, UnicodeDecodeError):
        return {"error": "not a JSON request"}
    pane = asked.get("pane") if isinstance(asked, dict) else None
    if not isinstance(pane, str) or not _PANE_ID.match(pane):
        return {"error": "ask for a pane id like %3"}
    found = lookup(pane)
    if found is None:
        return {"error": f"no agent pane {pane} is watched"}
    info, recording = found
    if recording is None:
        return {"error": f"nothing kept for {pane} yet (its screen was never seeded)"}
    return {
        **info,
        "pane": pane,
        "data": base64.b64encode(recording.data).decode("ascii"),
        "timing": [[offset, t] for offset, t in recording.timing],
        "started": recording.started,
    }


class CaptureServer:
    def __init__(self, runtime: Path, lookup: Lookup) -> None:
        self.path = socket_path(runtime)
        self.lookup = lookup
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._closing = False
        self.counters = {"captures": 0, "refused": 0}

    def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a killed daemon's (we hold the daemon lock)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with unix_address(self.path) as address:
            listener.bind(address)
        self.path.chmod(0o600)
        listener.listen(4)
        listener.settimeout(0.5)  # so that `close` is heard
        self._listener = listener
        self._thread = threading.Thread(target=self._run, name="osf-capture", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closing = True
        if self._thread is not None:
            # The thread closes the listener as it ends (within its 0.5 s timeout): closed here
            # while it still waited in accept, the number could be reused under it.
            self._thread.join(2.0)
            self._thread = None
        elif self._listener is not None:
            self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def status(self) -> dict[str, Any]:
        return {"socket": str(self.path), **self.counters}

    def _run(self) -> None:
        listener = self._listener
        assert listener is not None
        with listener:
            while not self._closing:
                try:
                    sock, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                with sock:
                    self._serve(sock)

    def _serve(self, sock: socket.socket) -> None:
        if peer_of(sock) is None:
            self.counters["refused"] += 1
            log.warning("capture: refused a client of another user")
            return
        sock.settimeout(CLIENT_TIMEOUT)
        request = bytearray()
        try:
            while b"\n" not in request and len(request) <= MAX_REQUEST:
                chunk = sock.recv(MAX_REQUEST)
                if not chunk:
                    break
                request += chunk
            if len(request) > MAX_REQUEST:
                reply: dict[str, Any] = {"error": "request too long"}
            else:
                reply = answer(self.lookup, bytes(request).split(b"\n", 1)[0])
            if "error" not in reply:
                self.counters["captures"] += 1
            sock.sendall((json.dumps(reply) + "\n").encode())
        except OSError as exc:  # it went away or never read: nothing is lost but its answer
            log.info("capture: client gone: %s", exc)
