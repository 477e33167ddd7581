"""Runs inside a tmux pane: like pane_relay.py (a FIFO's bytes to the pane, verbatim), and it
also appends every byte typed into the pane (its stdin, in raw mode) to a file.

Usage: pane_recorder.py FIFO RECORD. The test draws a real agent's screen through the FIFO and
reads RECORD to see exactly which keys osf-tmux sent."""

from __future__ import annotations

import os
import selectors
import sys
import tty


def main() -> None:
    fifo, record = sys.argv[1], sys.argv[2]
    tty.setraw(0)
    sel = selectors.DefaultSelector()
    feed = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    sel.register(feed, selectors.EVENT_READ, "feed")
    sel.register(0, selectors.EVENT_READ, "keys")
    out = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    while True:
        for key, _ in sel.select():
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:  # the test closed the FIFO: keep the screen, keep recording keys
                sel.unregister(key.fd)
                continue
            target = 1 if key.data == "feed" else out
            view = memoryview(chunk)
            while view:
                view = view[os.write(target, view) :]


if __name__ == "__main__":
    main()
