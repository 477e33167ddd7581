"""Does the daemon's memory grow with time? A long synthetic replay through one daemon.

  python bench/memory_soak.py [--minutes 20] [--warmup 4] [--panes 12] [--tracemalloc]
                              [--json FILE]

On a private tmux server (`-L`, `-f /dev/null`; never the default server): `--panes` panes each
replay lab captures (captures/*-lab*, one agent and size per pane) one after another at their
recorded pace, in a new order every round (bench/soak_pane.py), marked with `@osf-agent`. While
it runs, a pane is closed and a new one opened every `--churn` s (new pane ids: what grows with
closed panes shows), a window is resized every `--resize` s, an `osf-tmux events` subscriber
comes and goes every `--subscribe` s, and every notification runs `@osf-notify-command` (a
`cat` into a file: a backend that always answers).

The daemon's RSS and CPU are read from /proc every `--sample` s; after the warm-up the growth
is the least-squares slope of RSS over time, in KB a minute (target: < 20). With
`--tracemalloc` the daemon runs under tracemalloc (this script's `_child`, as
bench/loop_profile.py runs it under cProfile): a snapshot at the end of the warm-up and one at
the end, and the allocation sites that grew most in between are printed (the RSS figures are then
inflated by tracemalloc's own bookkeeping: read them from a run without it). Prints numbers."""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.live import DaemonProcess  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

PLAYER = ROOT / "bench" / "soak_pane.py"
SIZES = ((120, 32), (80, 24))


def proc_sample(pid: int) -> tuple[float, int]:
    """(CPU seconds, RSS KB) of a process, from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return cpu, rss


def slope_per_minute(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) in value per minute."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return float("nan")
    return 60 * sum((t - mx) * (v - my) for t, v in points) / var


def playlists() -> list[tuple[str, tuple[int, int], list[list[str]]]]:
    """(agent, size, [[bytes, timing], ...]) for every lab folder and size that has captures."""
    out = []
    for folder in sorted((ROOT / "captures").glob("*-lab*")):
        for cols, rows in SIZES:
            found: list[list[str]] = []
            agent = None
            for labels in sorted(folder.glob(f"*-{cols}x{rows}.labels.json")):
                stem = str(labels)[: -len(".labels.json")]
                data, timing = Path(stem + ".bytes"), Path(stem + ".timing")
                if not (data.exists() and timing.exists()):
                    continue
                agent = agent or json.loads(labels.read_text()).get("agent")
                found.append([str(data), str(timing)])
            if agent and found:
                out.append((agent, (cols, rows), found))
    return out


class TracedDaemon(DaemonProcess):
    """The daemon as DaemonProcess starts it, under tracemalloc; SIGUSR2 writes a snapshot."""

    debug = False

    def __init__(self, server: TmuxServer, home: Path, snapshots: Path) -> None:
        super().__init__(server, home)
        self.snapshots = snapshots

    def cli_command(self) -> list[str]:
        return [sys.executable, __file__, "_child", str(self.snapshots), "--"]

    def start(self, timeout: float = 300) -> None:
        super().start(timeout)


class PlainDaemon(DaemonProcess):
    debug = False

    def start(self, timeout: float = 300) -> None:  # a loaded machine starts it slowly
        super().start(timeout)


def child(snapshots: str, argv: list[str]) -> None:
    """The daemon's CLI in this process, traced; each SIGUSR2 dumps snapshot-N."""
    from osf_tmux.cli.main import main as cli_main

    tracemalloc.start(6)
    count = [0]

    def dump(signum: int, frame: object) -> None:
        count[0] += 1
        tracemalloc.take_snapshot().dump(os.path.join(snapshots, f"snapshot-{count[0]}"))

    signal.signal(signal.SIGUSR2, dump)
    cli_main(argv)


def top_growth(before: Path, after: Path, top: int) -> list[str]:
    old = tracemalloc.Snapshot.load(str(before))
    new = tracemalloc.Snapshot.load(str(after))
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
    old, new = old.filter_traces(ignore), new.filter_traces(ignore)
    lines = []
    grew = [s for s in new.compare_to(old, "traceback") if s.size_diff > 0]
    for stat in sorted(grew, key=lambda s: -s.size_diff)[:top]:
        frames = [f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback][-4:]
        lines.append(
            f"  {stat.size_diff / 1024:+9.1f} KB {stat.count_diff:+7d} blocks  "
            f"(now {stat.size / 1024:8.1f} KB)  {' <- '.join(reversed(frames))}"
        )
    total = sum(s.size for s in new.statistics("filename")) - sum(
        s.size for s in old.statistics("filename")
    )
    lines.insert(0, f"  traced memory grew {total / 1024:+.1f} KB between the snapshots")
    return lines


class Soak:
    def __init__(self, server: TmuxServer, work: Path, args: argparse.Namespace) -> None:
        self.server, self.work, self.args = server, work, args
        self.rng = random.Random(args.seed)
        self.lists = playlists()
        self.panes: list[str] = []
        self.opened = self.closed = self.resized = self.subscribers = 0
        self.sub: subprocess.Popen[bytes] | None = None

    def open_pane(self) -> None:
        agent, (cols, rows), caps = self.rng.choice(self.lists)
        n = self.opened
        playlist = self.work / f"playlist-{n}.json"
        seed = self.rng.randrange(1 << 30)
        playlist.write_text(json.dumps({"captures": caps, "max_gap": 1.0, "seed": seed}))
        pane = self.server.new_pane([sys.executable, str(PLAYER), str(playlist)], cols, rows)
        self.server.cmd("set-option", "-p", "-t", pane, "@osf-agent", agent)
        self.panes.append(pane)
        self.opened += 1

    def close_pane(self) -> None:
        pane = self.panes.pop(0)
        self.server.kill_pane(pane)
        self.closed += 1

    def resize(self) -> None:
        pane = self.rng.choice(self.panes)
        cols, rows = self.rng.choice(SIZES)
        self.server.cmd("resize-window", "-t", pane, "-x", str(cols), "-y", str(rows), check=False)
        self.resized += 1

    def toggle_subscriber(self, daemon: DaemonProcess) -> None:
        if self.sub is not None:
            self.sub.terminate()
            self.sub.wait(timeout=10)
            self.sub = None
            return
        self.sub = subprocess.Popen(
            [sys.executable, "-m", "osf_tmux", "-L", self.server.socket_name, "events", "--json"],
            env=daemon.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.subscribers += 1

    def stop(self) -> None:
        if self.sub is not None:
            self.sub.terminate()
            self.sub.wait(timeout=10)


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="osf-memsoak-") as tmp:
        work = Path(tmp)
        snaps = work / "snapshots"
        snaps.mkdir()
        notified = work / "notified.jsonl"
        (work / "home").mkdir()
        server = TmuxServer()
        server.start()
        daemon: DaemonProcess = (
            TracedDaemon(server, work / "home", snaps)
            if args.tracemalloc
            else PlainDaemon(server, work / "home")
        )
        soak = Soak(server, work, args)
        try:
            server.cmd("set-option", "-g", "@osf-notify-desktop", "off")
            server.cmd("set-option", "-g", "@osf-notify-done", "on")
            server.cmd(
                "set-option", "-g", "@osf-notify-command", f"cat >> {shlex.quote(str(notified))}"
            )
            for _ in range(args.panes):
                soak.open_pane()
            daemon.start()
            assert daemon.proc is not None
            pid = daemon.proc.pid
            start = time.monotonic()
            end = start + args.minutes * 60
            warm = start + args.warmup * 60
            samples: list[tuple[float, float, int]] = []
            due = {"sample": start, "churn": start + args.churn, "resize": start + args.resize,
                   "subscribe": start + args.subscribe}  # fmt: skip
            snapped = 0  # snapshots asked for: at the end of the warm-up, then every --snap-every
            while time.monotonic() < end:
                now = time.monotonic()
                if daemon.proc.poll() is not None:
                    raise RuntimeError(f"the daemon exited ({daemon.proc.returncode})")
                if now >= due["sample"]:
                    cpu, rss = proc_sample(pid)
                    samples.append((now - start, cpu, rss))
                    print(f"  {now - start:7.0f}s  RSS {rss / 1024:6.1f} MB  CPU {cpu:7.1f}s",
                          flush=True)  # fmt: skip
                    due["sample"] += args.sample
                if args.tracemalloc and now >= warm + snapped * 60 * (args.snap_every or 1e9):
                    daemon.proc.send_signal(signal.SIGUSR2)
                    snapped += 1
                if now >= due["churn"]:
                    soak.close_pane()
                    soak.open_pane()
                    due["churn"] += args.churn
                if now >= due["resize"]:
                    soak.resize()
                    due["resize"] += args.resize
                if now >= due["subscribe"]:
                    soak.toggle_subscriber(daemon)
                    due["subscribe"] += args.subscribe
                time.sleep(max(0.05, min(due.values()) - time.monotonic()))
            if args.tracemalloc:
                daemon.proc.send_signal(signal.SIGUSR2)
                snapped += 1
                last = snaps / f"snapshot-{snapped}"
                retry_until(last.exists, timeout=60, what="snapshot")
                time.sleep(2)  # the dump is written by then (the file appears as it starts)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    for one in snaps.iterdir():
                        (args.keep / one.name).write_bytes(one.read_bytes())
            status = daemon.status()
        finally:
            soak.stop()
            daemon.stop()
            server.kill()
        after = [(t, rss) for t, _, rss in samples if t >= args.warmup * 60]
        cpu_span = samples[-1][1] - next(c for t, c, _ in samples if t >= args.warmup * 60)
        span = after[-1][0] - after[0][0] if len(after) > 1 else float("nan")
        result: dict[str, Any] = {
            "minutes": args.minutes,
            "warmup_minutes": args.warmup,
            "panes": args.panes,
            "tracemalloc": args.tracemalloc,
            "opened": soak.opened,
            "closed": soak.closed,
            "resized": soak.resized,
            "subscribers": soak.subscribers,
            "notifications": sum(1 for _ in notified.open()) if notified.exists() else 0,
            "rss_start_mb": round(samples[0][2] / 1024, 1),
            "rss_warm_mb": round(after[0][1] / 1024, 1) if after else None,
            "rss_end_mb": round(samples[-1][2] / 1024, 1),
            "rss_growth_kb_per_min": round(slope_per_minute(after), 1),
            "cpu_percent_after_warmup": round(100 * cpu_span / span, 1) if span else None,
            "loadavg": os.getloadavg(),
            "counters": status.get("counters"),
            "rss_series": [(round(t), rss) for t, _, rss in samples],
        }
        if args.tracemalloc:
            result["top_growth"] = top_growth(snaps / "snapshot-1", last, args.top)
            if snapped > 2:  # what still grew between the last two: what fills late
                result["top_growth"].append("  between the last two snapshots:")
                before = snaps / f"snapshot-{snapped - 1}"
                result["top_growth"] += top_growth(before, last, args.top)
        return result


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_child":
        child(sys.argv[2], sys.argv[4:])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=20)
    p.add_argument("--warmup", type=float, default=4)
    p.add_argument("--panes", type=int, default=12)
    p.add_argument("--churn", type=float, default=20, help="s between a pane closed and opened")
    p.add_argument("--resize", type=float, default=15, help="s between two window resizes")
    p.add_argument("--subscribe", type=float, default=10, help="s an events subscriber lives")
    p.add_argument("--sample", type=float, default=10, help="s between two /proc samples")
    p.add_argument("--tracemalloc", action="store_true")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--snap-every", type=float, help="minutes between snapshots after the warm-up")
    p.add_argument("--keep", type=Path, help="copy the tracemalloc snapshots into this folder")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the result here too")
    args = p.parse_args()
    result = run(args)
    for line in result.pop("top_growth", []):
        print(line)
    series = result.pop("rss_series")
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps({**result, "rss_series": series}, indent=1) + "\n")


if __name__ == "__main__":
    main()
