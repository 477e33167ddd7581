"""Runs in a tmux pane: plays a loop of working frames forever (bench/agent_frames.py writes it).

replay_pane.py LOOP.json      {"prefix": base64, "frames": [[pause seconds, base64], ...]}"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
import tty


def main() -> None:
    tty.setraw(0)  # no output processing: the bytes reach tmux as the agent wrote them
    with open(sys.argv[1], encoding="utf-8") as f:
        loop = json.load(f)
    frames = [(float(pause), base64.b64decode(chunk)) for pause, chunk in loop["frames"]]
    os.write(1, base64.b64decode(loop["prefix"]))
    due = time.monotonic()
    while True:
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
