"""A stand-in for `ssh HOST osf-tmux events --hello` (bench/fleet_bench.py): speaks the remote
feed's protocol for `--panes` panes of the host named after `--`, then forwards every line the
benchmark writes into `$FLEET_BENCH_DIR/HOST.fifo`. No network, no remote daemon: what is
measured is the local daemon's side of the fleet."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

PANES = int(os.environ.get("FLEET_BENCH_PANES", "20"))


def main() -> None:
    argv = sys.argv[1:]
    host = argv[argv.index("--") + 1]
    fifo = os.path.join(os.environ["FLEET_BENCH_DIR"], f"{host}.fifo")
    with contextlib.suppress(FileExistsError):
        os.mkfifo(fifo)
    out = sys.stdout
    out.write(json.dumps({"kind": "hello", "version": "bench", "protocol": 1}) + "\n")
    for n in range(1, PANES + 1):
        state = "working" if n % 2 else "idle"
        line = {"kind": "state", "time": time.time(), "pane": f"%{n}", "target": f"w{n}:0.0",
                "agent": "claude", "before": None, "after": state}  # fmt: skip
        out.write(json.dumps(line) + "\n")
    out.write('{"kind":"synced"}\n')
    out.flush()
    fd = os.open(fifo, os.O_RDWR)  # O_RDWR: no end-of-file when the benchmark's writer closes
    buf = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            os.write(1, raw + b"\n")


if __name__ == "__main__":
    main()
