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


CAPTURE = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)


def real(trials: int) -> None:
    """One real host through a private sshd on 127.0.0.1 (tests/support/sshd.py), with its own
    tmux server and daemon: a Claude Code prompt written into a remote pane, then the time until
    the remote daemon's own count changes and until the local one does (the difference is the
    ssh hop and the local daemon)."""
    import shlex

    from tests.support.live import Feeder
    from tests.support.sshd import running_sshd

    with tempfile.TemporaryDirectory(prefix="osf-fleet-real-") as tmp:
        home = Path(tmp)
        with running_sshd(home / "sshd") as sshd:
            remote, local = TmuxServer(), TmuxServer()
            remote.start()
            local.start()
            (home / "r").mkdir()
            (home / "l").mkdir()
            rd, ld = DaemonProcess(remote, home / "r"), DaemonProcess(local, home / "l")
            rd.debug = ld.debug = False
            ld.env["XDG_RUNTIME_DIR"] = str(sshd.controls)
            ld.env["OSF_SSH_CONFIG"] = str(sshd.client_config)
            ld.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
            env = [f"{k}={rd.env[k]}" for k in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME")]
            osf = Path(sys.executable).with_name("osf-tmux")
            command = shlex.join(["env", *env, str(osf), "-L", remote.socket_name])
            for name, value in (("@osf-hosts", sshd.name), ("@osf-remote-command", command),
                                ("@osf-notify-desktop", "off")):  # fmt: skip
                local.cmd("set-option", "-g", name, value)
            try:
                rd.start(timeout=60)
                ld.start(timeout=60)
                retry_until(
                    lambda: (
                        (ld.status().get("hosts") or {}).get(sshd.name, {}).get("state") == "online"
                    ),
                    timeout=30,
                )

                def count(server: TmuxServer) -> int:
                    out = server.cmd("show-options", "-gqv", "@osf_blocked_count").strip()
                    return int(out or 0)

                there, here = [], []
                data = CAPTURE.read_bytes()[:BLOCKED_AT]
                for _ in range(trials):
                    feeder = Feeder(remote, home, 120, 32, "claude")
                    retry_until(
                        lambda f=feeder: any(  # type: ignore[misc]
                            p.get("pane") == f.pane and p.get("pipe") == "pipe"
                            for p in rd.status().get("panes", [])
                        ),
                        timeout=10,
                    )
                    t0 = time.monotonic()
                    feeder.write(data)
                    t_remote = t_local = None
                    while t_local is None:
                        if t_remote is None and count(remote) == 1:
                            t_remote = time.monotonic() - t0
                        if count(local) == 1:
                            t_local = time.monotonic() - t0
                        if time.monotonic() - t0 > 10:
                            raise RuntimeError("no blocked count within 10 s")
                    there.append(t_remote if t_remote is not None else t_local)
                    here.append(t_local)
                    feeder.close()
                    remote.kill_pane(feeder.pane)
                    retry_until(lambda: count(local) == 0, timeout=10, interval=0.002)
                for what, xs in (("remote count", there), ("local count", here)):
                    ms = sorted(x * 1000 for x in xs)
                    print(f"prompt bytes -> {what}: p50 {statistics.median(ms):.0f} ms, "
                          f"max {ms[-1]:.0f} ms")  # fmt: skip
                hop = sorted((b - a) * 1000 for a, b in zip(there, here, strict=True))
                load = os.getloadavg()[0]
                print(f"the hop (local - remote): p50 {statistics.median(hop):.0f} ms, "
                      f"max {hop[-1]:.0f} ms ({trials} trials); load {load:.1f}")  # fmt: skip
            finally:
                ld.stop()
                rd.stop()
                local.kill()
                remote.kill()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--panes", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rate", type=float, default=20, help="remote changes a second")
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--real", type=int, metavar="N", help="N trials through a real sshd instead")
    args = ap.parse_args()
    if args.real:
        real(args.real)
        return
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
