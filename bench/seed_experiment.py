"""The seed experiment, reproduced: naive detectors and osf-tmux judge one fake agent side by side.

  .venv/bin/python bench/seed_experiment.py            30 tasks, seed 7 (about 10 minutes)
  .venv/bin/python bench/seed_experiment.py --quick    3 tasks (about 1 minute)
      [--seed N] [--tasks N] [--keep DIR] [--json PATH]

A fake agent runs on a real PTY in a pane of a private tmux server (own -L socket, -f /dev/null,
killed afterwards). It draws a Claude-Code-like UI the way Ink does: the live area at the bottom
is erased with cursor-up plus `ESC[J` and drawn again, a spinner row animates at 10 Hz (~60-70
bytes a frame), tools run silently for 0.5-6 s, and some tools first ask for permission with a
dialog whose words are placed with `CSI n G` (no spaces between them, as Claude Code does). A bot
answers a dialog 3-8 s after it appears and types the next task 3-10 s after a task ends.

Ground truth comes from the fake agent: it logs the moment each write of a dialog (and of its
erasure) returned. It also tees every byte it writes, with that moment, into a log: the daemon
owns the pane's only pipe-pane, and a second identical pane would be a different run (its own
scheduling and timing), so the byte-based detectors read this tee of the very same bytes.

Detectors:
  silence N s        blocked once the pane printed nothing for N s (3, 5, 8)
  trailing ?         quiet for 1 s and one of the last 12 non-blank lines of the escape-stripped
                     output ends in `?` (12 rows: a whole dialog)
  tail 8 KB          the last 8 KB of output, escapes stripped, contains the prompt: literally,
                     and with whitespace ignored (CSI n G leaves `Doyouwanttoproceed?`)
  screen 700 ms      `capture-pane -p` every 700 ms, classified with rules/claude.toml (tmux's
                     own screen, so no terminal emulator of ours or pyte's is involved)
  osf-tmux daemon    the real daemon; `@osf_state` polled every 20 ms through one tmux
                     control-mode client (no fork per poll; the run reports its round trip)

The byte detectors are evaluated after the run from the tee, in continuous time: each gets its
verdict at the exact moment it would fire, with no poll delay (their best case). The two screen
detectors are sampled live; their latencies include their sampling (700 ms sweep, 20 ms poll).

Metrics per detector, over the run (from the first moment every detector watches the pane to
the moment the bot would have typed one more task):
  missed      prompts during which the detector never said blocked
  no prompt   seconds of `blocked` with no prompt on screen (release tails included)
  not release ... the part of them that is not a prompt's release tail
  alarms      `blocked` episodes that overlap no prompt
  latency     prompt drawn -> first blocked (p50, max over detected prompts)
  release     prompt erased -> detector stops saying blocked (capped at the next prompt)
Also reported: the task ends after which each detector said blocked before the next task, and
how long an erased prompt stays in the stripped 8 KB tail when later prompts are left aside.

The parts are in bench/seedexp/: plan.py (the tasks), agent.py (the fake agent and its tee),
observers.py (state poller, screen sweep, bot), detectors.py (the byte detectors), scoring.py
(ground truth, scores, the report); this file runs them."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seedexp.agent import agent_main, read_tee  # noqa: E402
from seedexp.detectors import content_timelines, from_samples, silence_timeline  # noqa: E402
from seedexp.observers import Bot, ScreenSweep, StatePoller  # noqa: E402
from seedexp.plan import COLS, ROWS, make_plan, plan_to_json  # noqa: E402
from seedexp.scoring import (  # noqa: E402
    ground_truth,
    report,
    score,
    share_table,
    state_share,
    table,
    tail_linger,
    task_ends_flagged,
)

from tests.support.live import DaemonProcess  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

STATE_POLL = 0.02
SWEEP = 0.7


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (fields 14 and 15 of /proc/PID/stat)."""
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(after_name[11]) + int(after_name[12])) / os.sysconf("SC_CLK_TCK")


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    plan = make_plan(args.seed, args.tasks)
    asks = sum(s.ask for t in plan for s in t.steps)
    print(f"plan: {len(plan)} tasks, {asks} permission prompts (seed {args.seed})", flush=True)
    plan_path, events, tee = workdir / "plan.json", workdir / "events.jsonl", workdir / "tee.bin"
    plan_path.write_text(plan_to_json(plan))
    events.touch()
    server = TmuxServer()
    server.start()
    daemon = DaemonProcess(server, workdir)
    poller: StatePoller | None = None
    sweep: ScreenSweep | None = None
    try:
        agent = [sys.executable, str(Path(__file__).resolve()), "agent"]
        agent += ["--plan", str(plan_path), "--events", str(events), "--tee", str(tee)]
        pane = server.new_pane(agent, COLS, ROWS)
        server.cmd("set-option", "-p", "-t", pane, "@osf-agent", "claude")
        daemon.start()
        assert daemon.proc is not None
        retry_until(
            lambda: any(
                p.get("pane") == pane and p.get("state") in ("idle", "done")
                for p in daemon.status().get("panes", [])
            ),
            timeout=15,
            what="the daemon to see the fake agent at its prompt",
        )
        poller = StatePoller(server, pane, STATE_POLL)
        sweep = ScreenSweep(server, pane, SWEEP)
        poller.start()
        sweep.start()
        cpu0, t0 = cpu_seconds(daemon.proc.pid), time.monotonic()
        end = Bot(server, pane, plan, args.seed).run(events, t0)
        daemon_cpu = (cpu_seconds(daemon.proc.pid) - cpu0) / (time.monotonic() - t0)
        counters = daemon.status().get("counters", {})
    finally:
        for observer in (poller, sweep):
            if observer is not None:
                observer.stop()
        daemon.stop()
        server.kill()
        err = events.with_suffix(".stderr")
        if err.exists():
            print(err.read_text(), file=sys.stderr)

    assert poller is not None and sweep is not None
    evs = [json.loads(line) for line in events.read_text().splitlines() if line]
    gt = ground_truth(evs, t0, end)
    writes = read_tee(tee)
    timelines = {f"silence {s} s": silence_timeline(writes, s, end) for s in (3, 5, 8)}
    timelines.update(content_timelines(writes, end))
    timelines[f"screen, capture-pane every {SWEEP * 1000:.0f} ms"] = from_samples(sweep.samples)
    timelines[f"osf-tmux daemon (polled every {STATE_POLL * 1000:.0f} ms)"] = from_samples(
        poller.samples
    )
    scores = [score(name, line, gt) for name, line in timelines.items()]
    flagged = {name: task_ends_flagged(line, gt) for name, line in timelines.items()}
    linger = tail_linger(writes, gt.prompts)
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(poller.samples)]
    return {
        "seed": args.seed,
        "tasks": len(plan),
        "duration": end - t0,
        "writes": len(writes),
        "bytes": sum(len(w.data) for w in writes),
        "scores": [asdict(s) for s in scores],
        "table": table(scores),
        "share_table": share_table(scores, gt),
        "task_ends_flagged": flagged,
        "tail_linger": linger,
        "daemon_states": state_share(poller.samples, gt),
        "sweep_states": state_share(sweep.samples, gt),
        "daemon_cpu_percent": 100 * daemon_cpu,
        "daemon_counters": counters,
        "poll_interval_p50": statistics.median(gaps) if gaps else None,
        "poll_interval_max": max(gaps) if gaps else None,
        "poll_round_trip_p50": statistics.median(poller.round_trips),
        "poll_round_trip_max": max(poller.round_trips),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="role")
    ag = sub.add_parser("agent", help="(internal) the fake agent, run inside the pane")
    ag.add_argument("--plan", required=True)
    ag.add_argument("--events", required=True)
    ag.add_argument("--tee", required=True)
    ap.add_argument("--quick", action="store_true", help="3 tasks, about a minute")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tasks", type=int, default=None, help="default 30 (3 with --quick)")
    ap.add_argument("--keep", type=Path, help="keep the logs (plan, events, tee) in this dir")
    ap.add_argument("--json", type=Path, help="write the results as JSON here")
    args = ap.parse_args()
    if args.role == "agent":
        agent_main(args)
        return
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    args.tasks = args.tasks or (3 if args.quick else 30)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = run(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="osf-seed-") as tmp:
            result = run(args, Path(tmp))
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
