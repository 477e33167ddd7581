"""The server side of a WebSocket (RFC 6455) on an accepted HTTP request: just enough for the fake
server to hold one text conversation with an agent (Amp's thread actor). No extensions are
accepted (the client's offer of permessage-deflate is declined by not answering it), so frames
are plain; client frames are masked, ours are not."""

from __future__ import annotations

import base64
import hashlib
import threading
from typing import BinaryIO

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


def accept_key(key: str) -> str:
    """The Sec-WebSocket-Accept answer to a client's Sec-WebSocket-Key."""
    return base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked frame."""
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([n])
    elif n < 1 << 16:
        head += bytes([126]) + n.to_bytes(2, "big")
    else:
        head += bytes([127]) + n.to_bytes(8, "big")
    return head + payload


class WebSocket:
    """An open connection: `recv` the next text message (None once closed), `send` one."""

    def __init__(self, rfile: BinaryIO, wfile: BinaryIO) -> None:
        self._r = rfile
        self._w = wfile
        self._lock = threading.Lock()
        self.closed = False

    def _read(self, n: int) -> bytes:
        data = self._r.read(n)
        if len(data) < n:
            raise EOFError
        return data

    def recv(self) -> str | None:
        message = b""
        try:
            while True:
                b0, b1 = self._read(2)
                fin, opcode, length = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
                if length == 126:
                    length = int.from_bytes(self._read(2), "big")
                elif length == 127:
                    length = int.from_bytes(self._read(8), "big")
                mask = self._read(4) if b1 & 0x80 else b"\0\0\0\0"
                raw = self._read(length)
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(raw))
                if opcode == CLOSE:
                    self._send(CLOSE, payload[:2])
                    self.closed = True
                    return None
                if opcode == PING:
                    self._send(PONG, payload)
                    continue
                if opcode in (TEXT, BINARY, CONTINUATION):
                    message += payload
                    if fin:
                        return message.decode("utf-8", "replace")
        except (EOFError, OSError, ValueError):
            self.closed = True
            return None

    def send(self, text: str) -> bool:
        """False when the client is gone."""
        return self._send(TEXT, text.encode())

    def _send(self, opcode: int, payload: bytes) -> bool:
        if self.closed:
            return False
        try:
            with self._lock:
                self._w.write(frame(opcode, payload))
                self._w.flush()
            return True
        except (OSError, ValueError):
            self.closed = True
            return False
