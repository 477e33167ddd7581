"""What a hook report costs the agent (budget: <= 50 ms), on a private tmux server. Prints numbers.

  python bench/hook_bench.py [--runs 40]

Each run is what an agent does for one hook: start the endpoint with a real payload on stdin
(Claude 2.1.328's PreToolUse from the captures) and wait for it to exit. The endpoint sets
`@osf_report` on a real pane and signals the daemon's wake channel, on which a stand-in daemon
(a thread running `tmux wait-for` again and again) counts the wake-ups.
Baselines: the interpreter alone, and one bare tmux call, to show where the time goes."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.agents import hooks as agent_hooks  # noqa: E402
from osf_tmux.daemon.tmux_hooks import CHANNEL  # noqa: E402
from tests.support.tmux_server import TmuxServer  # noqa: E402

HOOKS = ROOT.parent / "shared" / "captures" / "claude-2.1.328" / "j_hooks_bash-120x32.hooks.jsonl"
if not HOOKS.exists():
    HOOKS = Path("/work/shared/captures/claude-2.1.328/j_hooks_bash-120x32.hooks.jsonl")


class StandIn(threading.Thread):
    """Waits on the wake channel like the daemon's waiter does, and counts the wake-ups."""

    def __init__(self, server: TmuxServer) -> None:
        super().__init__(daemon=True)
        self.argv = [server.tmux, "-L", server.socket_name, "wait-for", CHANNEL]
        self.woken = 0
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            subprocess.run(self.argv, check=False)
            self.woken += 1


def payload() -> bytes:
    for line in HOOKS.read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "PreToolUse":
            return json.dumps(event["payload"]).encode()
    raise SystemExit("no PreToolUse payload in " + str(HOOKS))


def spawn(argv: list[str], data: bytes | None, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run. CPU time (user + system of the process and what it waited
    for) moves less than wall time when other work shares the machine."""
    stdin = subprocess.PIPE if data is not None else subprocess.DEVNULL
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=stdin, env=env)
    if data is not None and proc.stdin is not None:
        proc.stdin.write(data)
        proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - t) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def timed(
    runs: int, variants: dict[str, Callable[[], tuple[float, float]]]
) -> dict[str, tuple[list[float], list[float]]]:
    """Runs the variants in turn, round after round, so that the machine's load (other
    processes come and go) falls on all of them alike."""
    out: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in variants}
    for run in variants.values():
        run()  # warm the page cache
    for _ in range(runs):
        for name, run in variants.items():
            wall, cpu = run()
            out[name][0].append(wall)
            out[name][1].append(cpu)
    return {name: (sorted(w), sorted(c)) for name, (w, c) in out.items()}


def show(name: str, wall: list[float], cpu: list[float]) -> None:
    p90 = wall[min(len(wall) - 1, int(len(wall) * 0.9))]
    print(
        f"{name:<42} wall min {wall[0]:5.1f} p50 {statistics.median(wall):5.1f} "
        f"p90 {p90:5.1f} max {wall[-1]:5.1f} | cpu p50 {statistics.median(cpu):5.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    server = TmuxServer()
    server.start()
    stand_in = StandIn(server)
    stand_in.start()
    try:
        pane = server.new_pane(["sleep", "3600"], 80, 24)
        socket = server.cmd("display-message", "-p", "#{socket_path}").strip()
        env = {**os.environ, "TMUX": f"{socket},{server.pid},0", "TMUX_PANE": pane}
        data = payload()
        hook = agent_hooks.report_command("claude")
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.runs} runs")
        print(f"hook command: {hook}")

        def run_hook() -> tuple[float, float]:
            return spawn(["/bin/sh", "-c", hook], data, env)  # agents run hooks through sh

        def run_module() -> tuple[float, float]:
            return spawn(
                [sys.executable, "-I", "-m", "osf_tmux.agents.report", "claude"], data, env
            )

        def bare_python() -> tuple[float, float]:
            return spawn([sys.executable, "-I", "-S", "-c", "pass"], None, env)

        def bare_tmux() -> tuple[float, float]:
            argv = [server.tmux, "-S", socket, "set-option", "-p", "-t", pane, "@osf_x", "1"]
            return spawn(argv, None, env)

        results = timed(
            args.runs,
            {
                "hook as installed (sh -c, -I -S script)": run_hook,
                "python -I -m osf_tmux.agents.report (site, runpy)": run_module,
                "baseline: python -I -S -c pass": bare_python,
                "baseline: one tmux set-option": bare_tmux,
            },
        )
        for name, (wall, cpu) in results.items():
            show(name, wall, cpu)
        report = server.cmd("show-options", "-p", "-v", "-t", pane, "@osf_report").strip()
        print(f"@osf_report on {pane}: {report!r}")
    finally:
        stand_in.stopping = True
        server.cmd("wait-for", "-S", CHANNEL)
        stand_in.join(timeout=10)
        print(f"stand-in daemon woken {stand_in.woken - 1} times")
        server.kill()


if __name__ == "__main__":
    main()
