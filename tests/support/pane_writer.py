"""Runs inside a tmux pane: writes a file's bytes verbatim, then a completion token, then waits.

Usage: pane_writer.py FILE TOKEN. Raw mode turns off output processing (ONLCR), so the pane
receives exactly the file's bytes. The token goes out as OSC 7: it sets #{pane_path} and
draws nothing."""

from __future__ import annotations

import os
import sys
import time
import tty


def main() -> None:
    path, token = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        data = f.read()
    tty.setraw(0)
    view = memoryview(data + b"\x1b]7;file://osf/" + token.encode() + b"\x07")
    while view:
        view = view[os.write(1, view) :]
    while True:  # keep the pane (and its screen) alive until the test kills it
        time.sleep(3600)


if __name__ == "__main__":
    main()
