"""Runs in a tmux pane: draws SOURCE's working frames forever (see bench/agent_frames.py).

replay_pane.py SOURCE      SOURCE: claude-2.1-issue, or an agent with a labelled capture"""

from __future__ import annotations

import os
import sys
import time
import tty

from agent_frames import source  # this script's folder is first on sys.path


def main() -> None:
    tty.setraw(0)  # no output processing: the bytes reach tmux as the agent wrote them
    prefix, frames = source(sys.argv[1])
    os.write(1, prefix)
    due = time.monotonic()
    for pause, chunk in frames:
        due += pause
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            due = time.monotonic()  # late (a busy machine): do not catch up in a burst
        os.write(1, chunk)


if __name__ == "__main__":
    main()
