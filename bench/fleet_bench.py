"""The fleet at scale: a local daemon linked to `--hosts` hosts of `--panes` agent panes each.

  python bench/fleet_bench.py [--hosts 10] [--panes 20] [--seconds 20] [--rate 20] [--trials 30]

The hosts are stand-ins (bench/fake_ssh.py, put first on the daemon's PATH as `ssh`): each
speaks the remote feed's protocol and forwards what the benchmark writes into its FIFO, so the
numbers are the local daemon's side alone (a real remote adds its own daemon's judging and the
network). Measured:

- the local daemon's CPU (% of a core) and RSS with every host online and nothing changing;
- the same while `--rate` remote panes a second change state (working <-> idle), spread over
  all hosts;
- latency from a remote pane's `blocked` line leaving the "remote" to the local status line's
  count (`@osf_blocked_count`, what the status line shows) changing: `--trials` times, one at
  a time, on random hosts and panes. Target: <= 300 ms on loopback (issue #32)."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from daemon_bench import proc_times  # noqa: E402

from tests.support.live import DaemonProcess  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

FAKE_SSH = ROOT / "bench" / "fake_ssh.py"


def line(pane: int, after: str, question: str = "") -> bytes:
    msg = {"kind": "transition", "time": time.time(), "pane": f"%{pane}", "target": f"w{pane}:0.0",
           "agent": "claude", "before": None, "after": after, "rule": "bench",
           "question": question}  # fmt: skip
    return (json.dumps(msg) + "\n").encode()


class Hosts:
    def __init__(self, folder: Path, count: int) -> None:
        self.names = [f"h{n}" for n in range(count)]
        self.folder = folder
        self.fds: dict[str, int] = {}
        self.lock = threading.Lock()

    def send(self, host: str, data: bytes) -> None:
        with self.lock:
            fd = self.fds.get(host)
            if fd is None:
                fd = self.fds[host] = os.open(self.folder / f"{host}.fifo", os.O_WRONLY)
            os.write(fd, data)


def cpu_over(pid: int, seconds: float) -> tuple[float, int]:
    cpu0, _ = proc_times(pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    cpu1, rss = proc_times(pid)
    return 100 * (cpu1 - cpu0) / (time.monotonic() - t0), rss


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--panes", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rate", type=float, default=20, help="remote changes a second")
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="osf-fleet-") as tmp:
        home = Path(tmp)
        bin_dir = home / "bin"
        bin_dir.mkdir()
        ssh = bin_dir / "ssh"
        ssh.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_SSH} "$@"\n')
        ssh.chmod(0o755)
        server = TmuxServer()
        server.start()
        daemon = DaemonProcess(server, home)
        daemon.debug = False
        daemon.env["PATH"] = f"{bin_dir}:{daemon.env['PATH']}"
        daemon.env["FLEET_BENCH_DIR"] = str(home)
        daemon.env["FLEET_BENCH_PANES"] = str(args.panes)
        daemon.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        hosts = Hosts(home, args.hosts)
        for name, value in (
            ("@osf-hosts", " ".join(hosts.names)),
            ("@osf-notify-desktop", "off"),
            ("@osf-notify-message", "off"),
        ):
            server.cmd("set-option", "-g", name, value)
        try:
            daemon.start()
            assert daemon.proc is not None
            pid = daemon.proc.pid
            total = args.hosts * args.panes
            retry_until(
                lambda: sum(1 for p in daemon.status().get("panes", []) if p.get("host")) == total,
                timeout=60,
                what=f"{total} remote panes",
            )
            print(f"{args.hosts} hosts x {args.panes} panes online; load {os.getloadavg()[0]:.1f}")
            idle_cpu, idle_rss = cpu_over(pid, args.seconds)
            print(f"at rest: CPU {idle_cpu:.2f} % of a core, RSS {idle_rss / 1024:.1f} MB")

            stop = threading.Event()
            sent = [0]

            def churn() -> None:
                rng = random.Random(1)
                states = {(h, p): "working" if p % 2 else "idle" for h in hosts.names
                          for p in range(1, args.panes + 1)}  # fmt: skip
                while not stop.is_set():
                    h, p = rng.choice(hosts.names), rng.randint(1, args.panes)
                    new = "idle" if states[(h, p)] == "working" else "working"
                    states[(h, p)] = new
                    hosts.send(h, line(p, new))
                    sent[0] += 1
                    time.sleep(1 / args.rate)

            worker = threading.Thread(target=churn, daemon=True)
            worker.start()
            busy_cpu, busy_rss = cpu_over(pid, args.seconds)
            stop.set()
            worker.join()
            rate = sent[0] / args.seconds
            print(f"{rate:.1f} remote changes/s: CPU {busy_cpu:.2f} % of a core, "
                  f"RSS {busy_rss / 1024:.1f} MB")  # fmt: skip

            def count() -> int:
                return int(server.cmd("show-options", "-gqv", "@osf_blocked_count").strip() or 0)

            time.sleep(1)
            base = count()
            rng = random.Random(2)
            latencies = []
            for _ in range(args.trials):
                h, p = rng.choice(hosts.names), rng.randint(1, args.panes)
                t0 = time.monotonic()
                hosts.send(h, line(p, "blocked", "Do you want to proceed?"))
                retry_until(lambda: count() == base + 1, timeout=10, interval=0.002)
                latencies.append(time.monotonic() - t0)
                hosts.send(h, line(p, "working"))
                retry_until(lambda: count() == base, timeout=10, interval=0.002)
            ms = sorted(x * 1000 for x in latencies)
            print(
                f"remote blocked -> local count: p50 {statistics.median(ms):.0f} ms, "
                f"p90 {ms[int(0.9 * (len(ms) - 1))]:.0f} ms, max {ms[-1]:.0f} ms "
                f"({len(ms)} trials); load {os.getloadavg()[0]:.1f}"
            )
        finally:
            daemon.stop()
            server.kill()


if __name__ == "__main__":
    main()
