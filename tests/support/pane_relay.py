"""Runs inside a tmux pane: copies bytes from a FIFO to the pane verbatim, forever.

The test on the other end of the FIFO decides what the pane shows and when, so it knows the
exact byte offset the pane has reached. Raw mode keeps the tty from rewriting \\n as \\r\\n."""

from __future__ import annotations

import os
import sys
import time
import tty


def main() -> None:
    tty.setraw(0)
    fd = os.open(sys.argv[1], os.O_RDONLY)
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:  # the writer went away: keep the screen as it is
            time.sleep(3600)
            continue
        view = memoryview(chunk)
        while view:
            view = view[os.write(1, view) :]


if __name__ == "__main__":
    main()
