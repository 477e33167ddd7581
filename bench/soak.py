"""The soak: real agents from the lab, one osf-tmux daemon, for as long as you say.

  python bench/soak.py --duration 30m [--agents claude,claude,codex,gemini] [--out DIR]
  python bench/soak.py --duration 2h --out DIR
  python bench/soak.py --agents codex --pipe foreign --turns text --duration 10m
      (many short rounds: how soon a new pane's agent shows idle, `first idle` below)

A private tmux server (`-L osf-soak-PID-RANDOM -f /dev/null`; never the default server) and the
daemon for it, with `@osf-notify-command` writing each notification to a file (a backend that
can be counted). One slot per `--agents` entry plays rounds until the duration is up: a round
is one agent session in a pane of its own (tools/agentlab drives the real CLI against its fake
model server and types with `send-keys`): start-up, then a text answer, a command approved, the
same command asked again right after that answer, a command rejected with No, an edit and a new
file (two dialogs, the second right after the first is answered), a question (agents that have
one), a command rejected with Esc, and text again. The session is closed and the next round
opens a new pane. Rounds alternate pipe modes: the daemon's own pipe, or another tool holding the
pane's pipe (`pipe-pane -o 'cat >/dev/null'` in the same tmux command that makes the pane, so it
is there before the daemon sees the pane).

While they play, `@osf_state` of every pane is read every 0.1 s, and the daemon's CPU and RSS
from /proc every `--sample` s. Afterwards each round's published states are compared with what
the lab saw on screen (its labelled cues; tests/support/live_agents.py's check):

  prompts              each dialog the lab saw (a `blocked` label)
  notified once/never/more   notifications of that pane from the dialog's label to the next
                       label (+1 s); `extra`: notifications outside every dialog
  false blocked, stale blocked   as the live-agents lane counts them; "into a dialog": the
                       stretch went on into a dialog the lab saw later (the daemon's frame
                       ahead of the lab's poll, which a loaded machine delays)
  false done           stretches of `done` while the lab saw no idle input (GRACE before an
                       idle label, BOUND after it left), Codex's mid-turn idle included
  late                 a labelled state not published within BOUND
  first idle           s from the lab's first idle input (start-up done) to the first idle or
                       done published, per pipe mode; "not shown": not before the lab's first
                       prompt (the pane's first state came later)
  blocked latency      lab's poll -> `@osf_state` blocked; notification latency: lab's poll ->
                       the notify command's run (p50/p95)
  memory               RSS every `--sample` s; growth = least-squares slope after `--warmup`

A round the lab cannot play (an agent crashed, a cue never came) is reported and the slot goes
on with the next one; the daemon exiting is reported and it is started again. At the end (or on
Ctrl-C / SIGTERM) only what this run started is stopped: its tmux server (by its pid), the
daemon, the fake model servers and processes left in its own run directories. Writes
report.txt and report.json into `--out` (default: a new directory under /tmp) and prints the
text. Agents: tools/agentlab/install.sh claude codex gemini."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.live import DaemonProcess  # noqa: E402
from tests.support.live_agents import (  # noqa: E402
    BOUND,
    GRACE,
    Label,
    Sample,
    _minus,
    accepted,
    check,
)
from tests.support.tmux_server import TmuxServer  # noqa: E402
from tools.agentlab.agents import AGENTS  # noqa: E402
from tools.agentlab.base import AgentSpec  # noqa: E402
from tools.agentlab.driver import DriverError, Recorder, Tmux  # noqa: E402
from tools.agentlab.shapes import Scenario  # noqa: E402

# The turns of one round, in order; an agent plays those it has. bash_yes twice: the same
# question asked again right after it was answered. A rejection ends the round, by No in odd
# rounds and by Esc in even ones: Claude Code sends the next prompt in the same message as the
# rejected tool's result, which the fake model server reads as the rejected turn going on.
ROUND = ("text", "bash_yes", "bash_yes", "edit_write", "question")
REJECT = ("bash_no", "bash_esc")
STATE_EVERY = 0.1  # s between two reads of every pane's @osf_state
NOTIFY_AFTER = 1.0  # s after a dialog's last label a notification still counts for it


class Stopped(DriverError):
    """The soak ends (duration up, or a signal): the round in play stops at its next step."""


class SharedTmux(Tmux):
    """The soak's tmux server as the lab's driver sees it: `lab:0.0` is this round's pane (a
    session of its own), and killing "the server" closes only that session."""

    def __init__(self, socket: str, session: str, stop: threading.Event) -> None:
        super().__init__()
        self.socket, self.session, self.stop = socket, session, stop

    def __call__(self, *args: str, check: bool = True) -> str:
        if self.stop.is_set() and args[:1] != ("kill-session",):
            raise Stopped("the soak is over")
        args = tuple(f"{self.session}:0.0" if a == "lab:0.0" else a for a in args)
        return super().__call__(*args, check=check)

    def kill(self) -> None:
        if self.started:
            self("kill-session", "-t", self.session, check=False)
            self.started = False


class RoundRecorder(Recorder):
    """The lab's recorder, playing one round in a pane of the soak's server."""

    def __init__(self, slot: str, foreign: bool, tmux: SharedTmux, **kw: Any) -> None:
        super().__init__(**kw)
        self.slot, self.foreign = slot, foreign
        self.tmux = self.shared = tmux

    def run_name(self) -> str:
        return self.slot  # two slots of one agent must not share a run directory

    def start_server(self, command: str) -> None:
        target = f"{self.shared.session}:0.0"
        args = ["new-session", "-d", "-s", self.shared.session, "-x", str(self.cols),
                "-y", str(self.rows), command]  # fmt: skip
        if self.foreign:
            # In the same command list: the pipe is held before any hook reaches the daemon.
            args += [";", "pipe-pane", "-o", "-t", target, "cat >/dev/null"]
        self.tmux(*args)
        self.tmux.started = True


def round_scenario(agent: AgentSpec, number: int, turns: tuple[str, ...] | None = None) -> Scenario:
    """One agent session playing the ROUND turns one after another (or only `turns`, with no
    rejection after them). Each lab scenario starts by waiting for the idle input box, so they
    chain; they share the agent's script."""
    have = agent.configured_scenarios(None)
    reject = [r for r in (REJECT[number % 2], *REJECT) if r in have][:1] if turns is None else []
    parts = [have[name] for name in (*(turns or ROUND), *reject) if name in have]
    actions = [a for p in parts for a in p.actions]
    first = parts[0]
    names = "+".join(p.name for p in parts)
    return Scenario(f"round{number}", names, first.script, actions, first.files, {})


@dataclass
class RoundLog:
    """What one round saw: the lab's labels, the pane it ran in, how it ended."""

    slot: str
    agent: str
    number: int
    foreign: bool
    session: str
    pane: str | None = None
    labels: list[Label] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0
    error: str | None = None
    detail: str = ""  # the lab's whole message (the screen it waited on)

    def listener(self, kind: str, info: dict[str, Any]) -> None:
        if kind == "label":
            self.labels.append(Label(str(info["state"]), float(info["epoch"]), str(info["note"])))


class States(threading.Thread):
    """Reads `@osf_state` of every pane every STATE_EVERY s: samples per pane id."""

    def __init__(self, server: TmuxServer) -> None:
        super().__init__(daemon=True, name="soak-states")
        self.server = server
        self.samples: dict[str, list[Sample]] = {}
        self.failed = 0
        self.stopped = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                out = self.server.cmd(
                    "list-panes", "-a", "-F", "#{pane_id}\t#{@osf_state}", check=False
                )
            except Exception:  # a tmux call that timed out on a loaded machine: read again
                self.failed += 1
                continue
            now = time.time()
            with self.lock:
                for line in out.splitlines():
                    pane, _, state = line.partition("\t")
                    self.samples.setdefault(pane, []).append(Sample(now, state or None))
            self.stopped.wait(STATE_EVERY)

    def of(self, pane: str) -> list[Sample]:
        with self.lock:
            return list(self.samples.get(pane, []))


def proc_cpu_rss(pid: int) -> tuple[float, int] | None:
    """(CPU seconds, RSS KB) of a process from /proc; None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = next((int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:")), 0)
    return cpu, rss


class Soak:
    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        self.args, self.out = args, out
        self.work = Path(tempfile.mkdtemp(prefix="osf-soak-"))
        self.run_root = self.work / "runs"
        self.notified = self.work / "notified.log"
        self.stop = threading.Event()
        self.server = TmuxServer(f"osf-soak-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        self.daemon = DaemonProcess(self.server, self.work / "home")
        self.daemon.debug = False
        self.states = States(self.server)
        self.rounds: list[RoundLog] = []
        self.lock = threading.Lock()
        self.resources: list[dict[str, Any]] = []
        self.daemon_exits: list[str] = []
        self.t0 = 0.0

    # -- setting up and tearing down ----------------------------------------------------------
    def start(self) -> None:
        (self.work / "home").mkdir()
        self.server.start()
        cmd = self.server.cmd
        cmd("set-option", "-g", "default-terminal", "tmux-256color")
        cmd("set-option", "-g", "remain-on-exit", "on")  # a crashed agent's pane stays readable
        cmd("set-option", "-g", "@osf-notify-desktop", "off")
        log = shlex.quote(str(self.notified))
        # One write per notification (O_APPEND): lines of commands run at once never mix.
        cmd("set-option", "-g", "@osf-notify-command",
            f'line=$(cat); printf "%s %s\\n" "$(date +%s.%N)" "$line" >> {log}')  # fmt: skip
        self.daemon.start(timeout=300)
        self.states.start()
        self.t0 = time.time()

    def close(self) -> None:
        """Only what this run started: the rounds stop at their next step (their sessions,
        fake servers and stray processes go with them), then the sampler, the daemon and the
        tmux server (kill-server, then its pid)."""
        self.stop.set()
        self.states.stopped.set()
        if self.states.is_alive():
            self.states.join(timeout=10)
        with contextlib.suppress(Exception):
            self.daemon.stop()
        with contextlib.suppress(Exception):
            self.server.kill()

    # -- the slots ----------------------------------------------------------------------------
    def slot(self, index: int, agent: AgentSpec, end: float) -> None:
        name = f"{agent.name}{index}"
        number = 0
        while not self.stop.is_set() and time.time() < end:
            number += 1
            foreign = (
                (index + number) % 2 == 0
                if self.args.pipe == "both"
                else self.args.pipe == "foreign"
            )
            session = f"{name}-r{number}"
            log = RoundLog(name, agent.name, number, foreign, session)
            with self.lock:
                self.rounds.append(log)
            tmux = SharedTmux(self.server.socket_name, session, self.stop)
            out_dir = self.work / "labs" / session
            recorder = RoundRecorder(
                name,
                foreign,
                tmux,
                agent=agent,
                scenario=round_scenario(agent, number, self.args.turns),
                cols=self.args.cols,
                rows=self.args.rows,
                out_dir=out_dir,
                verbose=self.args.verbose,
                listener=self.listener(log, tmux),
                run_root=self.run_root,
                pipe=False,
            )
            log.started = time.time()
            try:
                recorder.run()
            except Stopped:
                log.error = "stopped: the soak ended during the round"
            except Exception as exc:  # an agent that crashed or hung: report it, go on
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                log.error = f"{type(exc).__name__}: {first}"[:300]
                log.detail = str(exc)[-3000:]
                if self.args.verbose:
                    traceback.print_exc()
            finally:
                log.ended = time.time()
                shutil.rmtree(out_dir, ignore_errors=True)
            print(f"  {self.clock()} {session}: {len(log.labels)} labels"
                  f"{', ' + log.error if log.error else ''}", flush=True)  # fmt: skip

    def listener(self, log: RoundLog, tmux: SharedTmux) -> Any:
        def hear(kind: str, info: dict[str, Any]) -> None:
            if kind == "ready":
                log.pane = tmux("display", "-p", "-t", "lab:0.0", "#{pane_id}").strip()
            log.listener(kind, info)

        return hear

    def clock(self) -> str:
        return f"{(time.time() - self.t0) / 60:6.1f} min"

    def watch(self, end: float) -> None:
        """The daemon's CPU and RSS every `--sample` s; a daemon that exited is restarted."""
        while not self.stop.wait(min(self.args.sample, max(end - time.time(), 0.1))):
            proc = self.daemon.proc
            if proc is not None and proc.poll() is not None:
                self.daemon_exits.append(f"{self.clock()}: exit status {proc.returncode}")
                print(f"  {self.clock()} the daemon exited ({proc.returncode}); restarting",
                      flush=True)  # fmt: skip
                self.daemon.proc = None
                with contextlib.suppress(Exception):
                    self.daemon.start(timeout=300)
                continue
            got = proc_cpu_rss(proc.pid) if proc is not None else None
            if got is not None:
                cpu, rss = got
                self.resources.append({"t": round(time.time() - self.t0, 1), "cpu": cpu,
                                       "rss_kb": rss, "load": os.getloadavg()[0]})  # fmt: skip
            if time.time() >= end:
                return

    def run(self) -> None:
        end = time.time() + self.args.duration
        agents = [AGENTS[a] for a in self.args.agents]
        threads = [
            threading.Thread(target=self.slot, args=(i, a, end), name=f"slot{i}", daemon=True)
            for i, a in enumerate(agents)
        ]
        for i, t in enumerate(threads):
            t.start()
            time.sleep(min(5.0, self.args.duration / 10) if i + 1 < len(threads) else 0)
        self.watch(end)
        # Rounds in play at the end stop at their next step; their labels so far count.
        self.stop.set()
        for t in threads:
            t.join(timeout=60)
        time.sleep(BOUND)

    # -- the report -----------------------------------------------------------------------------
    def notifications(self) -> list[tuple[float, dict[str, Any]]]:
        out = []
        if self.notified.exists():
            for line in self.notified.read_text(errors="replace").splitlines():
                at, _, data = line.partition(" ")
                with contextlib.suppress(ValueError):
                    out.append((float(at), json.loads(data)))
        return out

    def report(self) -> dict[str, Any]:
        notes = self.notifications()
        per_agent: dict[str, dict[str, Any]] = {}
        blocked_lat: dict[str, list[float]] = {}
        notify_lat: dict[str, list[float]] = {}
        problems: list[str] = []
        used: set[int] = set()
        starts: dict[str, dict[str, list[float | None]]] = {}
        for r in self.rounds:
            a = per_agent.setdefault(r.agent, {
                "version": AGENTS[r.agent].version(), "rounds": 0, "rounds_failed": 0,
                "failures": [], "prompts": 0, "notified_once": 0, "notified_never": 0,
                "notified_more": 0, "false_blocked": 0, "false_blocked_into_dialog": 0,
                "stale_blocked": 0, "false_done": 0,
                "false_done_seconds": 0.0, "late": 0, "own_pipe_rounds": 0,
                "foreign_pipe_rounds": 0})  # fmt: skip
            a["rounds"] += 1
            a["foreign_pipe_rounds" if r.foreign else "own_pipe_rounds"] += 1
            if r.error and not r.error.startswith("stopped"):
                a["rounds_failed"] += 1
                a["failures"].append(f"{r.session}: {r.error}")
                a.setdefault("failure_screens", []).append(r.detail)
            if r.pane is None or not r.labels:
                continue
            # After a failed round's last label the lab no longer knows the screen (it waited
            # for a cue that never came): what follows is not judged.
            until = r.labels[-1].epoch + BOUND if r.error else r.ended + BOUND
            samples = self.states.of(r.pane)
            samples = [s for s in samples if r.started <= s.epoch <= until]
            verdict = check(r.labels, samples)
            mode = "foreign pipe" if r.foreign else "own pipe"
            starts.setdefault(r.agent, {}).setdefault(mode, []).append(
                first_idle_delay(r.labels, samples)
            )
            for p in verdict.problems:
                if p.startswith("false blocked"):
                    a["false_blocked"] += 1
                    # The daemon saw the dialog before the lab's poll did (a loaded lab).
                    a["false_blocked_into_dialog"] += "went on into the lab's next dialog" in p
                elif p.startswith("blocked held"):
                    a["stale_blocked"] += 1
                else:
                    a["late"] += 1
                problems.append(f"{r.session} ({mode}): {p}")
            for t in verdict.transitions:
                if t.label.state == "blocked" and t.latency is not None and t.timed:
                    blocked_lat.setdefault(r.agent, []).append(t.latency)
            judged = [s for s in samples if not r.error or s.epoch <= r.labels[-1].epoch]
            for lo, hi in false_done(r.labels, judged):
                a["false_done"] += 1
                a["false_done_seconds"] += hi - lo + STATE_EVERY
                problems.append(f"{r.session} ({mode}): false done for {hi - lo + STATE_EVERY:.2f}s"
                                f" at {lo - r.labels[0].epoch:+.1f}s")  # fmt: skip
            mine = [(i, at) for i, (at, n) in enumerate(notes)
                    if n.get("pane") == r.pane and n.get("state") == "blocked"
                    and r.started <= at <= r.ended + BOUND]  # fmt: skip
            prompts = [k for k, lab in enumerate(r.labels) if lab.state == "blocked"]
            hits_of: dict[int, list[tuple[int, float]]] = {k: [] for k in prompts}
            for i, at in mine:
                # The latest dialog shown by then, if it was still up (or had just gone).
                k = max((k for k in prompts if r.labels[k].epoch - GRACE <= at), default=None)
                if k is None:
                    continue
                nxt = r.labels[k + 1].epoch if k + 1 < len(r.labels) else r.ended
                if at <= nxt + NOTIFY_AFTER:
                    hits_of[k].append((i, at))
                    used.add(i)
            for k in prompts:
                lab = r.labels[k]
                a["prompts"] += 1
                hits = hits_of[k]
                if not hits:
                    a["notified_never"] += 1
                    problems.append(f"{r.session} ({mode}): not notified: {lab.note}")
                else:
                    a["notified_once" if len(hits) == 1 else "notified_more"] += 1
                    notify_lat.setdefault(r.agent, []).append(round(hits[0][1] - lab.epoch, 3))
                    if len(hits) > 1:
                        problems.append(f"{r.session} ({mode}): notified {len(hits)} times: "
                                        f"{lab.note}")  # fmt: skip
        extra = len(notes) - len(used)
        for name, a in per_agent.items():
            a["false_done_seconds"] = round(a["false_done_seconds"], 2)
            a["blocked_latency"] = pcts(blocked_lat.get(name, []))
            a["notify_latency"] = pcts(notify_lat.get(name, []))
            a["first_idle"] = {
                mode: {**pcts([d for d in ds if d is not None]), "never": ds.count(None)}
                for mode, ds in sorted(starts.get(name, {}).items())
            }
        return {
            "duration_s": round(time.time() - self.t0),
            "agents": self.args.agents,
            "size": f"{self.args.cols}x{self.args.rows}",
            "per_agent": per_agent,
            "notifications": len(notes),
            "notifications_outside_prompts": extra,
            "daemon_exits": self.daemon_exits,
            "memory": memory(self.resources, self.args.warmup),
            "load_average": load_summary(self.resources),
            "problems": problems,
            "resources": self.resources,
        }


def false_done(labels: list[Label], samples: list[Sample]) -> list[tuple[float, float]]:
    """Stretches of published `done` outside every idle the lab saw (from GRACE before its
    label to BOUND after the next label: the daemon may see the frame first, or leave late).
    A mid-turn idle (the turn goes on) is no idle: done there is a flash."""
    spans = []
    for k, lab in enumerate(labels):
        if lab.state == "idle" and not lab.mid_turn:
            nxt = labels[k + 1].epoch if k + 1 < len(labels) else float("inf")
            spans.append((lab.epoch - GRACE, nxt + BOUND))
    runs: list[tuple[float, float]] = []
    for s in samples:
        if s.state != "done":
            continue
        if runs and s.epoch - runs[-1][1] <= 2 * STATE_EVERY + 0.2:
            runs[-1] = (runs[-1][0], s.epoch)
        else:
            runs.append((s.epoch, s.epoch))
    return _minus(runs, spans)


def first_idle_delay(labels: list[Label], samples: list[Sample]) -> float | None:
    """s from the lab's first idle input (the agent started) to the first idle or done
    published, from GRACE before it until the lab's next label (its first prompt typed); None
    if it was not published by then. Negative: the daemon showed idle before the lab's poll saw
    the prompt (a blank screen of a known agent is idle)."""
    if not labels or labels[0].state != "idle":
        return None
    first = labels[0]
    hi = labels[1].epoch if len(labels) > 1 else first.epoch + BOUND
    hit = next(
        (
            s
            for s in samples
            if first.epoch - GRACE <= s.epoch <= hi and s.state in accepted(first.state)
        ),
        None,
    )
    return None if hit is None else round(hit.epoch - first.epoch, 3)


def pcts(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "p50": round(statistics.median(ordered), 3),
            "p95": round(p95, 3), "max": round(ordered[-1], 3)}  # fmt: skip


def memory(resources: list[dict[str, Any]], warmup: float) -> dict[str, Any]:
    if not resources:
        return {}
    after = [(r["t"], r["rss_kb"]) for r in resources if r["t"] >= warmup]
    cpu_after = [(r["t"], r["cpu"]) for r in resources if r["t"] >= warmup]
    span = cpu_after[-1][0] - cpu_after[0][0] if len(cpu_after) > 1 else 0.0
    return {
        "rss_first_mb": round(resources[0]["rss_kb"] / 1024, 1),
        "rss_after_warmup_mb": round(after[0][1] / 1024, 1) if after else None,
        "rss_last_mb": round(resources[-1]["rss_kb"] / 1024, 1),
        "rss_max_mb": round(max(r["rss_kb"] for r in resources) / 1024, 1),
        "growth_kb_per_min_after_warmup": round(slope(after), 1) if len(after) > 2 else None,
        "warmup_s": warmup,
        "cpu_percent_after_warmup": (
            round(100 * (cpu_after[-1][1] - cpu_after[0][1]) / span, 2) if span else None
        ),
    }


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value), per minute."""
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    return 60 * sum((t - mx) * (v - my) for t, v in points) / var if var else float("nan")


def load_summary(resources: list[dict[str, Any]]) -> dict[str, Any]:
    loads = [r["load"] for r in resources]
    if not loads:
        return {}
    return {"min": round(min(loads), 2), "median": round(statistics.median(loads), 2),
            "max": round(max(loads), 2), "cores": os.cpu_count()}  # fmt: skip


def text_report(rep: dict[str, Any]) -> str:
    lines = [
        f"soak: {rep['duration_s'] / 60:.1f} min, agents {','.join(rep['agents'])}, "
        f"panes {rep['size']}; load average (1 min) {fmt_load(rep['load_average'])}",
        "",
        "| agent | rounds (failed) | prompts | notified once / never / more | false blocked | "
        "stale blocked | false done | late | blocked p50/p95 | notified p50/p95 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, a in rep["per_agent"].items():
        b, n = a["blocked_latency"], a["notify_latency"]
        lines.append(
            f"| {name} {a['version']} | {a['rounds']} ({a['rounds_failed']}) | {a['prompts']} | "
            f"{a['notified_once']} / {a['notified_never']} / {a['notified_more']} | "
            f"{a['false_blocked']} ({a['false_blocked_into_dialog']} into a dialog) | "
            f"{a['stale_blocked']} | {a['false_done']} "
            f"({a['false_done_seconds']} s) | {a['late']} | {ms(b)} | {ms(n)} |"
        )
    lines += ["", "first idle after start-up (the lab's idle input -> @osf_state idle/done):"]
    for name, a in rep["per_agent"].items():
        for mode, f in a["first_idle"].items():
            shown = f"shown in {f['n']}" + (
                f": p50 {f['p50']:.2f} s, p95 {f['p95']:.2f} s, max {f['max']:.2f} s"
                if f["n"]
                else ""
            )
            lines.append(f"  {name} ({mode}): {shown}; not shown before the first prompt: "
                         f"{f['never']}")  # fmt: skip
    m = rep["memory"]
    lines += [
        "",
        f"notifications: {rep['notifications']} ({rep['notifications_outside_prompts']} "
        "outside every dialog the lab saw)",
        f"daemon: RSS {m.get('rss_first_mb')} MB at start, {m.get('rss_after_warmup_mb')} MB "
        f"after the warm-up ({m.get('warmup_s', 0) / 60:.0f} min), {m.get('rss_last_mb')} MB at "
        f"the end (max {m.get('rss_max_mb')}); growth after the warm-up "
        f"{m.get('growth_kb_per_min_after_warmup')} KB/min; CPU "
        f"{m.get('cpu_percent_after_warmup')} % of a core",
        f"daemon exits: {', '.join(rep['daemon_exits']) or 'none'}",
    ]
    for name, a in rep["per_agent"].items():
        for f in a["failures"]:
            lines.append(f"round failed ({name}): {f}")
    if rep["problems"]:
        lines += ["", f"problems ({len(rep['problems'])}):"]
        lines += [f"  {p}" for p in rep["problems"][:200]]
    return "\n".join(lines)


def ms(p: dict[str, Any]) -> str:
    if not p.get("n"):
        return "-"
    return f"{p['p50'] * 1000:.0f} / {p['p95'] * 1000:.0f} ms (n={p['n']})"


def fmt_load(load: dict[str, Any]) -> str:
    if not load:
        return "?"
    return (
        f"median {load['median']} (min {load['min']}, max {load['max']}) on {load['cores']} cores"
    )


def duration(text: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smh]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 30m, 2h)")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


@contextlib.contextmanager
def signals_stop(soak: Soak) -> Iterator[None]:
    """SIGTERM and SIGINT end the soak the normal way: report, then clean up."""

    def stop(signum: int, frame: object) -> None:
        soak.stop.set()

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--duration", type=duration, default=duration("30m"), help="e.g. 30m, 2h")
    p.add_argument("--agents", default="claude,claude,codex,gemini",
                   type=lambda s: [a.strip() for a in s.split(",") if a.strip()])  # fmt: skip
    p.add_argument("--size", default="120x32")
    p.add_argument("--turns", type=lambda s: tuple(x.strip() for x in s.split(",") if x.strip()),
                   help=f"play only these lab scenarios (default: {','.join(ROUND)} and a "
                   "rejection)")  # fmt: skip
    p.add_argument(
        "--pipe",
        choices=("both", "own", "foreign"),
        default="both",
        help="whose pipe the rounds' panes have (both: alternately)",
    )
    p.add_argument("--warmup", type=duration, default=duration("5m"))
    p.add_argument("--sample", type=float, default=10.0, help="s between /proc samples")
    p.add_argument("--out", type=Path, help="report.txt and report.json go here")
    p.add_argument("--keep", action="store_true", help="keep the work directory (daemon log)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    args.cols, args.rows = (int(x) for x in args.size.split("x"))
    missing = [a for a in args.agents if a not in AGENTS or not AGENTS[a].installed()]
    if missing:
        sys.exit(
            f"not installed: {', '.join(missing)} (tools/agentlab/install.sh {' '.join(missing)})"
        )
    out = args.out or Path(tempfile.mkdtemp(prefix="osf-soak-report-"))
    out.mkdir(parents=True, exist_ok=True)
    soak = Soak(args, out)
    print(f"soak: {args.duration / 60:.0f} min of {','.join(args.agents)} on tmux -L "
          f"{soak.server.socket_name}; work directory {soak.work}", flush=True)  # fmt: skip
    with signals_stop(soak):
        try:
            soak.start()
            soak.run()
        finally:
            soak.close()
    rep = soak.report()
    log = soak.work / "home" / "daemon.stderr"
    rep["daemon_log_warnings"] = warning_counts(log)
    text = text_report(rep)
    if rep["daemon_log_warnings"]:
        text += "\n\ndaemon log warnings:\n" + "\n".join(
            f"  {n:5d}  {w}" for w, n in rep["daemon_log_warnings"].items()
        )
    (out / "report.json").write_text(json.dumps(rep, indent=1) + "\n")
    (out / "report.txt").write_text(text + "\n")
    if not args.keep:  # before printing: a closed stdout must not leave it behind
        shutil.rmtree(soak.work, ignore_errors=True)
    print(text)
    print(f"\nreport: {out}/report.txt, {out}/report.json")
    if args.keep:
        print(f"work directory kept: {soak.work}")


def warning_counts(log: Path) -> dict[str, int]:
    """WARNING/ERROR lines of the daemon's log, counted by their text with numbers and pane
    ids blanked."""
    if not log.exists():
        return {}
    counts: dict[str, int] = {}
    for line in log.read_text(errors="replace").splitlines():
        if "WARNING" not in line and "ERROR" not in line:
            continue
        text = re.sub(r"%\d+|\d+(\.\d+)?", "N", line.split(" ", 2)[-1])[:160]
        counts[text] = counts.get(text, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


if __name__ == "__main__":
    main()
