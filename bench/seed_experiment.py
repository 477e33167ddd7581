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
how long an erased prompt stays in the stripped 8 KB tail when later prompts are left aside."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import tty
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.judge.classify import classify  # noqa: E402
from osf_tmux.judge.ruleset import load_rules  # noqa: E402
from osf_tmux.vt.snapshot import Snapshot  # noqa: E402
from tests.live import DaemonProcess  # noqa: E402
from tests.tmux_server import TmuxServer, retry_until  # noqa: E402

COLS, ROWS = 120, 32
SPIN_HZ = 10.0
PROMPT = "Do you want to proceed?"
QUESTION_QUIET = 1.0  # the trailing-? detector waits for this much silence
QUESTION_LINES = 12  # ... and looks at this many non-blank lines (a dialog's height)
TAIL_BYTES = 8192
STATE_POLL = 0.02
SWEEP = 0.7
_RECORD = struct.Struct("<dI")  # tee record: monotonic time the write returned, length

# ---------------------------------------------------------------------------------------------
# the plan: what the agent does, fixed by the seed
# ---------------------------------------------------------------------------------------------

REQUESTS = [
    "fix the flaky cache test",
    "why does the build fail on main?",
    "add a --dry-run flag to the deploy script",
    "rename UserStore to AccountStore everywhere",
    "bump the linter and fix what it finds",
    "write a test for the retry helper",
    "can you make the logs less noisy?",
    "update the changelog for 2.4",
]
TOOLS = [
    ("Run the test suite", "npm test -- --grep cache", "41 passing (3s)"),
    ("Rebuild the project", "make clean && make -j4", "built 212 objects"),
    ("Search for the old name", "rg -n UserStore src", "37 matches in 12 files"),
    ("Apply the rename", "sed -i s/UserStore/AccountStore/g src/*.ts", "12 files changed"),
    ("Run the linter", "npx eslint --fix src", "0 problems"),
    ("Check the deploy script", "bash -n scripts/deploy.sh && echo ok", "ok"),
    ("Show recent commits", "git log --oneline -20", "20 commits"),
    ("Install dependencies", "npm ci", "added 812 packages in 5s"),
]
ANSWERS = [
    "Done: the cache test now waits for the server before it asserts.",
    "The build failed on a missing generated file; it is rebuilt and committed now.",
    "Added --dry-run; it prints every step and changes nothing.",
    "Renamed in 12 files; the tests pass.",
    "The linter is bumped and its 4 findings are fixed.",
    "Done. Want me to also run the full suite on CI?",
    "The logs are quieter now. Should I do the same for the worker?",
    "Updated. Do you want a release tag as well?",
]
VERBS = ["Pondering", "Reticulating", "Newspapering", "Considering", "Brewing", "Crunching"]


@dataclass(frozen=True)
class Step:
    kind: str  # think | tool
    seconds: float
    title: str = ""
    command: str = ""
    result: str = ""
    ask: bool = False  # a permission dialog before the tool runs


@dataclass(frozen=True)
class Task:
    request: str
    steps: tuple[Step, ...]
    answer: str


def make_plan(seed: int, tasks: int) -> list[Task]:
    rng = random.Random(seed)
    plan = []
    for _ in range(tasks):
        steps = [Step("think", rng.uniform(1.0, 3.0))]
        for _ in range(rng.randint(1, 3)):
            title, command, result = rng.choice(TOOLS)
            steps.append(
                Step("tool", rng.uniform(0.5, 6.0), title, command, result, rng.random() < 0.45)
            )
            steps.append(Step("think", rng.uniform(0.5, 2.0)))
        plan.append(Task(rng.choice(REQUESTS), tuple(steps), rng.choice(ANSWERS)))
    return plan


def plan_to_json(plan: list[Task]) -> str:
    return json.dumps([asdict(t) for t in plan], indent=1)


def plan_from_json(text: str) -> list[Task]:
    return [
        Task(t["request"], tuple(Step(**s) for s in t["steps"]), t["answer"])
        for t in json.loads(text)
    ]


# ---------------------------------------------------------------------------------------------
# the fake agent (runs inside the pane)
# ---------------------------------------------------------------------------------------------


def placed(text: str) -> str:
    """`text` with every word put at its column by `CSI n G`, the spaces never written: what
    Claude Code does, and why stripping escapes yields `Doyouwanttoproceed?`."""
    return "".join(f"\x1b[{m.start() + 1}G{m.group()}" for m in re.finditer(r"\S+", text))


class FakeAgent:
    """A Claude-Code-like TUI driven by a plan; keys come from the bot through the PTY."""

    def __init__(self, plan: list[Task], events: Path, tee: Path) -> None:
        self.plan = plan
        self.cols, self.rows = os.get_terminal_size(1)
        self.live_rows = 0  # rows of the live area; the cursor sits on its last row
        self.events = events.open("a", buffering=1)
        self.tee = tee.open("ab", buffering=0)
        self.task_started = 0.0
        self.verb = VERBS[0]
        self.frames = 0

    # ---- output ----------------------------------------------------------------------------

    def write(self, text: str) -> float:
        data = text.encode()
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]
        t = time.monotonic()
        self.tee.write(_RECORD.pack(t, len(data)) + data)
        return t

    def event(self, name: str, t: float, **fields: Any) -> None:
        self.events.write(json.dumps({"t": t, "ev": name, **fields}) + "\n")

    def redraw(self, live: Sequence[str], transcript: Sequence[str] = ()) -> float:
        """Erase the live area (cursor up to its first row, `ESC[J`), append transcript lines
        above it, draw the new live area: one write, so tmux never shows half of it."""
        out = "\r"
        if self.live_rows > 1:
            out += f"\x1b[{self.live_rows - 1}A"
        if self.live_rows:
            out += "\x1b[J"
        out += "".join(line + "\r\n" for line in transcript)
        out += "\r\n".join(live)
        self.live_rows = len(live)
        return self.write(out)

    def rule(self, color: int = 244, char: str = "─") -> str:
        return f"\x1b[38;5;{color}m{char * self.cols}\x1b[39m"

    def spinner_row(self) -> str:
        glyph = "·✢✳✶✻✽"[self.frames % 6]
        secs = int(time.monotonic() - self.task_started)
        return f"\x1b[38;5;174m{glyph}\x1b[39m {self.verb}… ({secs}s · ↓ {self.frames * 3} tokens)"

    def working_area(self) -> list[str]:
        footer = "  ⏸ manual mode on · esc to interrupt · ← for agents"
        return [self.spinner_row(), "", self.rule(), "❯ ", self.rule(), footer]

    def idle_area(self, typed: str = "") -> list[str]:
        return [self.rule(), f"❯ {typed}", self.rule(), "  ⏸ manual mode on · ? for shortcuts"]

    def dialog_area(self, step: Step) -> list[str]:
        program = step.command.split()[0]
        return [
            self.rule(153),
            " \x1b[1mBash command\x1b[22m",
            placed(f" {step.title}"),
            self.rule(239, "╌"),
            placed(f" {step.command}"),
            self.rule(239, "╌"),
            placed(f" {PROMPT}"),
            " \x1b[38;5;153m❯\x1b[39m" + placed("   1. Yes"),
            placed(f"   2. Yes, and don't ask again for {program} commands in /home/dev/proj"),
            placed("   3. No"),
            "",
            " \x1b[38;5;246mEsc to cancel · Tab to amend\x1b[39m",
        ]

    # ---- input -----------------------------------------------------------------------------

    def keys(self) -> str:
        data = os.read(0, 1024)
        if not data:  # the pane is gone: without this, every wait for a key would spin
            raise SystemExit(0)
        return data.decode(errors="ignore")

    def read_task(self) -> str:
        typed = ""
        while True:
            for ch in self.keys():
                if ch in "\r\n" and typed:
                    return typed
                if ch == "\x7f":
                    typed = typed[:-1]
                elif ch.isprintable():
                    typed += ch
            self.redraw(self.idle_area(typed))

    def wait_answer(self) -> None:
        while not any(ch in "1\r" for ch in self.keys()):
            pass

    # ---- the turn --------------------------------------------------------------------------

    def spin(self, seconds: float) -> None:
        """Animate the spinner row, the first row of the working area, at 10 Hz."""
        end = time.monotonic() + seconds
        up = self.live_rows - 1
        while True:
            self.frames += 1
            self.write(f"\x1b[{up}A\r{self.spinner_row()}\x1b[K\x1b[{up}B\r")
            pause = min(1 / SPIN_HZ, end - time.monotonic())
            if pause <= 0:
                return
            time.sleep(pause)

    def run_task(self, i: int, task: Task, typed: str) -> None:
        self.task_started = time.monotonic()
        self.verb = VERBS[i % len(VERBS)]
        t = self.redraw(self.working_area(), [f"\x1b[48;5;237m❯ {typed}\x1b[49m", ""])
        self.event("task_start", t, task=i)
        for step in task.steps:
            if step.kind == "think":
                self.spin(step.seconds)
                continue
            header = [placed(f"● I'll {step.title.lower()}."), "", f"● Bash({step.command})"]
            if step.ask:
                t = self.redraw(self.dialog_area(step), header)
                self.event("prompt_drawn", t, task=i)
                self.wait_answer()
                t = self.redraw(self.working_area())
                self.event("prompt_erased", t, task=i)
                header = []
            else:
                self.redraw(self.working_area(), header)
            t = time.monotonic()
            self.event("tool_start", t, task=i, seconds=step.seconds)
            time.sleep(step.seconds)  # a quiet tool: not one byte until it ends
            t = self.redraw(self.working_area(), [f"  ⎿  {step.result}", ""])
            self.event("tool_end", t, task=i)
        t = self.redraw(self.idle_area(), [placed(f"● {task.answer}"), ""])
        self.event("task_end", t, task=i)

    def run(self) -> None:
        banner = [
            "",
            " \x1b[38;5;174m▐▛███▜▌\x1b[39m   Claude Code (osf-tmux seed experiment)",
            "▝▜█████▛▘  a fake agent: the words and layout of Claude Code 2.1",
            "  ▘▘ ▝▝    /home/dev/proj",
            "",
        ]
        t = self.redraw(self.idle_area(), banner)
        self.event("ready", t)
        for i, task in enumerate(self.plan):
            self.run_task(i, task, self.read_task())
        self.event("all_done", time.monotonic())
        while True:  # stay at the prompt until the pane is killed
            self.keys()


def agent_main(args: argparse.Namespace) -> None:
    err = Path(args.events).with_suffix(".stderr")
    try:
        tty.setraw(0)  # keys arrive one by one, and \n is not turned into \r\n on output
        signal.signal(signal.SIGWINCH, signal.SIG_IGN)
        plan = plan_from_json(Path(args.plan).read_text())
        FakeAgent(plan, Path(args.events), Path(args.tee)).run()
    except Exception:
        err.write_text(traceback.format_exc())
        raise


# ---------------------------------------------------------------------------------------------
# the live observers (in the benchmark process)
# ---------------------------------------------------------------------------------------------


class StatePoller(threading.Thread):
    """Polls the pane's `@osf_state` through one control-mode client on the placeholder session
    (never the agent's session: an attached client would count as someone looking at it)."""

    def __init__(self, server: TmuxServer, pane: str, interval: float) -> None:
        super().__init__(daemon=True)
        self.pane = pane
        self.interval = interval
        self.samples: list[tuple[float, str]] = []
        self.round_trips: list[float] = []
        self.stop_flag = threading.Event()
        argv = [server.tmux, "-L", server.socket_name, "-f", "/dev/null"]
        self.proc = subprocess.Popen(
            [*argv, "-C", "attach", "-t", "osf-base"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, command: str) -> list[str]:
        """One command's output: the lines between its `%begin ... 1` and `%end`/`%error`
        (flag 1: our own command; notifications outside blocks are skipped)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] | None = None
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("%begin") and line.endswith(" 1"):
                lines = []
            elif lines is not None and line.startswith(("%end", "%error")):
                return lines
            elif lines is not None:
                lines.append(line)
        raise RuntimeError("the control-mode client went away")

    def run(self) -> None:
        command = f"show-options -p -q -v -t {self.pane} @osf_state"
        next_at = time.monotonic()
        while not self.stop_flag.is_set():
            sent = time.monotonic()
            out = self.ask(command)
            got = time.monotonic()
            self.samples.append((got, out[0].strip() if out else ""))
            self.round_trips.append(got - sent)
            next_at += self.interval
            self.stop_flag.wait(max(0.0, next_at - time.monotonic()))

    def stop(self) -> None:
        self.stop_flag.set()
        self.join(timeout=5)
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class ScreenSweep(threading.Thread):
    """The seed's screen detector: `capture-pane -p` every 700 ms, classified by the shipped
    claude rules. tmux renders the screen, so the sweep needs no emulator at all."""

    def __init__(self, server: TmuxServer, pane: str, interval: float) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.pane = pane
        self.interval = interval
        self.manifest = load_rules().get("claude")
        self.samples: list[tuple[float, str]] = []
        self.stop_flag = threading.Event()

    def run(self) -> None:
        next_at = time.monotonic()
        while not self.stop_flag.is_set():
            text = self.server.cmd("capture-pane", "-p", "-t", self.pane)
            t = time.monotonic()
            snap = Snapshot.from_text(text.removesuffix("\n"), cols=COLS)
            self.samples.append((t, classify(snap, self.manifest).state))
            next_at += self.interval
            self.stop_flag.wait(max(0.0, next_at - time.monotonic()))

    def stop(self) -> None:
        self.stop_flag.set()
        self.join(timeout=5)


def follow(path: Path, stop_at: float | None = None) -> Iterator[dict[str, Any]]:
    """Events the agent appends to `path`, as they come (polled every 10 ms)."""
    with path.open() as f:
        buf = ""
        while stop_at is None or time.monotonic() < stop_at:
            chunk = f.read()
            if not chunk:
                time.sleep(0.01)
                yield {}  # a tick, so the caller can act on time alone
                continue
            buf += chunk
            *lines, buf = buf.split("\n")
            for line in lines:
                if line:
                    yield json.loads(line)


class Bot:
    """The human: answers a dialog 3-8 s after it appears, types a task 3-10 s after one ends."""

    def __init__(self, server: TmuxServer, pane: str, plan: list[Task], seed: int) -> None:
        self.server = server
        self.pane = pane
        self.plan = plan
        self.rng = random.Random(f"bot-{seed}")

    def send(self, *keys: str) -> None:
        self.server.cmd("send-keys", "-t", self.pane, *keys)

    def run(self, events: Path, start: float, stall: float = 60.0) -> float:
        """Drive the agent through the plan; returns when the run ends (the moment the bot
        would have typed one more task)."""
        due = start + self.rng.uniform(3, 10)
        action: tuple[str, int] = ("type", 0)
        last_event = time.monotonic()
        for ev in follow(events):
            now = time.monotonic()
            if ev:
                last_event = now
            name = ev.get("ev")
            if name == "prompt_drawn":
                due, action = ev["t"] + self.rng.uniform(3, 8), ("answer", ev["task"])
            elif name == "task_end":
                nxt = ev["task"] + 1
                due = ev["t"] + self.rng.uniform(3, 10)
                action = ("type", nxt) if nxt < len(self.plan) else ("finish", nxt)
            if action[0] and now >= due:
                kind, i = action
                if kind == "finish":
                    return due
                if kind == "answer":
                    self.send("1")
                else:
                    self.send("-l", self.plan[i].request)
                    time.sleep(0.15)  # a person presses Enter a moment after typing
                    self.send("Enter")
                action = ("", -1)
            if now - last_event > stall and action[0] == "":
                raise RuntimeError(f"the fake agent has been silent for {stall:.0f} s")
        raise AssertionError("unreachable")


# ---------------------------------------------------------------------------------------------
# analysis: every detector becomes a boolean timeline, compared with the ground truth
# ---------------------------------------------------------------------------------------------

Interval = tuple[float, float]


@dataclass
class Timeline:
    """A piecewise-constant signal: `changes` are (time, blocked) in time order, each value
    holding until the next change; False before the first."""

    changes: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, t: float, value: bool) -> None:
        if not self.changes or self.changes[-1][1] != value:
            self.changes.append((t, value))

    def runs(self, start: float, end: float) -> list[Interval]:
        """Maximal blocked intervals, clipped to [start, end]."""
        out: list[Interval] = []
        on: float | None = None
        for t, value in self.changes:
            if value and on is None:
                on = t
            elif not value and on is not None:
                if t > start and on < end:
                    out.append((max(on, start), min(t, end)))
                on = None
        if on is not None and on < end:
            out.append((max(on, start), end))
        return [r for r in out if r[1] > r[0]]


def from_samples(samples: list[tuple[float, str]]) -> Timeline:
    line = Timeline()
    for t, state in samples:
        line.add(t, state == "blocked")
    return line


_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]"  # two- and three-byte escapes
    r"|[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]"  # other controls; CR and LF stay as line ends
)


def strip_escapes(data: bytes) -> str:
    return _ESCAPE.sub("", data.decode("utf-8", errors="replace"))


@dataclass(frozen=True)
class Write:
    t: float
    data: bytes


def read_tee(path: Path) -> list[Write]:
    raw = path.read_bytes()
    out = []
    pos = 0
    while pos + _RECORD.size <= len(raw):
        t, n = _RECORD.unpack_from(raw, pos)
        pos += _RECORD.size
        out.append(Write(t, raw[pos : pos + n]))
        pos += n
    return out


def silence_timeline(writes: list[Write], threshold: float, end: float) -> Timeline:
    line = Timeline()
    times = [w.t for w in writes] + [end]
    for a, b in itertools.pairwise(times):
        if b - a > threshold:
            line.add(a + threshold, True)
            line.add(b, False)
    return line


def content_timelines(writes: list[Write], end: float) -> dict[str, Timeline]:
    """The detectors that read the output's text, judged after every write."""
    literal = re.compile(re.escape(PROMPT))
    spaced = re.compile(r"\s*".join(re.escape(w) for w in PROMPT.split()))
    question = Timeline()
    tail_literal = Timeline()
    tail_spaced = Timeline()
    stream = bytearray()
    for i, w in enumerate(writes):
        stream += w.data
        nxt = writes[i + 1].t if i + 1 < len(writes) else end
        tail = strip_escapes(bytes(stream[-TAIL_BYTES:]))
        tail_literal.add(w.t, literal.search(tail) is not None)
        tail_spaced.add(w.t, spaced.search(tail) is not None)
        lines = [ln for ln in re.split(r"[\r\n]", tail) if ln.strip()][-QUESTION_LINES:]
        asks = any(ln.rstrip().endswith("?") for ln in lines)
        question.add(w.t, False)
        if asks and nxt - w.t > QUESTION_QUIET:
            question.add(w.t + QUESTION_QUIET, True)
    return {
        "trailing `?` (1 s quiet)": question,
        "tail 8 KB, literal prompt": tail_literal,
        "tail 8 KB, spaces ignored": tail_spaced,
    }


@dataclass(frozen=True)
class GroundTruth:
    start: float
    end: float
    prompts: list[Interval]
    tools: list[Interval]
    tasks: list[Interval]

    def phases(self) -> dict[str, list[Interval]]:
        """Time split by what the agent was doing: every instant is in exactly one phase."""
        busy = sorted(self.prompts + self.tools)
        thinking = [piece for task in self.tasks for piece in subtract([task], busy)]
        return {
            "prompt": self.prompts,
            "quiet tool": self.tools,
            "thinking": thinking,
            "idle": subtract([(self.start, self.end)], self.tasks),
        }


def ground_truth(events: list[dict[str, Any]], start: float, end: float) -> GroundTruth:
    def pairs(a: str, b: str) -> list[Interval]:
        opened = [e["t"] for e in events if e["ev"] == a]
        closed = [e["t"] for e in events if e["ev"] == b]
        return list(zip(opened, closed, strict=True))

    return GroundTruth(
        start,
        end,
        pairs("prompt_drawn", "prompt_erased"),
        pairs("tool_start", "tool_end"),
        pairs("task_start", "task_end"),
    )


def subtract(base: list[Interval], cuts: list[Interval]) -> list[Interval]:
    out = []
    for a, b in base:
        pieces = [(a, b)]
        for c, d in cuts:
            pieces = [p for x, y in pieces for p in ((x, min(y, c)), (max(x, d), y)) if p[1] > p[0]]
        out += pieces
    return out


def overlap(a: Interval, b: Interval) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def total(intervals: list[Interval]) -> float:
    return sum(b - a for a, b in intervals)


def tail_linger(writes: list[Write], prompts: list[Interval]) -> list[float]:
    """Seconds each erased prompt's text stays within the last 8 KB of output. Unlike the
    release above, later prompts do not cut it short: this is how long a tail-based detector
    would keep reporting that one prompt. A prompt still in the tail when the run ends counts
    up to the last write."""
    text = placed(f" {PROMPT}").encode()
    starts, pos = [], 0
    for w in writes:
        starts.append(pos)
        pos += len(w.data)
    out = []
    for drawn, erased in prompts:
        k = next(i for i, w in enumerate(writes) if w.t == drawn)
        begin = starts[k] + writes[k].data.find(text)
        gone = next(
            (
                w.t
                for w, st in zip(writes, starts, strict=True)
                if st + len(w.data) > begin + TAIL_BYTES
            ),
            writes[-1].t,
        )
        out.append(gone - erased)
    return out


def task_ends_flagged(line: Timeline, gt: GroundTruth) -> int:
    """How many of the stretches between a task's end and the next task (or the run's end)
    the detector called blocked at some point."""
    ends = [b for _, b in gt.tasks]
    starts = [a for a, _ in gt.tasks[1:]] + [gt.end]
    runs = line.runs(gt.start, gt.end)
    return sum(
        1 for gap in zip(ends, starts, strict=True) if any(overlap(r, gap) > 0 for r in runs)
    )


@dataclass
class Score:
    name: str
    prompts: int
    missed: int
    no_prompt_seconds: float  # blocked while no prompt was on screen, release tails included
    false_seconds: float  # ... not counting release tails
    alarms: int
    latencies: list[float]
    releases: list[float]
    capped: int  # releases cut short by the next prompt (the detector still said blocked)
    blocked_share: dict[str, float]  # phase -> share of its time the detector said blocked


def score(name: str, line: Timeline, gt: GroundTruth) -> Score:
    runs = line.runs(gt.start, gt.end)
    latencies: list[float] = []
    releases: list[float] = []
    excused: list[Interval] = []
    missed = capped = 0
    for k, (drawn, erased) in enumerate(gt.prompts):
        hits = [r for r in runs if overlap(r, (drawn, erased)) > 0]
        if not hits:
            missed += 1
            excused.append((drawn, erased))
            continue
        latencies.append(max(hits[0][0], drawn) - drawn)
        limit = gt.prompts[k + 1][0] if k + 1 < len(gt.prompts) else gt.end
        release = min(max(hits[-1][1], erased), limit) - erased
        capped += hits[-1][1] > limit
        releases.append(release)
        excused.append((drawn, erased + release))
    false_parts = subtract(runs, excused)
    alarms = sum(1 for r in runs if not any(overlap(r, p) > 0 for p in gt.prompts))
    share = {
        phase: sum(overlap(r, p) for r in runs for p in spans) / max(total(spans), 1e-9)
        for phase, spans in gt.phases().items()
    }
    return Score(
        name,
        len(gt.prompts),
        missed,
        total(subtract(runs, gt.prompts)),
        total(false_parts),
        alarms,
        latencies,
        releases,
        capped,
        share,
    )


def state_share(samples: list[tuple[float, str]], gt: GroundTruth) -> dict[str, dict[str, float]]:
    """For the screen detectors: phase -> state -> share of the phase's time."""
    out: dict[str, dict[str, float]] = {}
    for phase, spans in gt.phases().items():
        acc: dict[str, float] = {}
        for (t, state), nxt in itertools.pairwise([*samples, (gt.end, "")]):
            for span in spans:
                acc[state or "none"] = acc.get(state or "none", 0.0) + overlap((t, nxt[0]), span)
        whole = max(total(spans), 1e-9)
        out[phase] = {s: v / whole for s, v in sorted(acc.items()) if v > 0}
    return out


def fmt_seconds(values: list[float], pick: str) -> str:
    if not values:
        return "–"
    v = statistics.median(values) if pick == "p50" else max(values)
    return f"{v:.2f}"


def table(scores: list[Score]) -> str:
    head = (
        "| detector | prompts | missed | blocked, no prompt: s | ... not a release: s "
        "| false alarms | latency p50 s | latency max s | release p50 s | release max s |"
    )
    rows = [head, "|" + " --- |" * 10]
    for s in scores:
        rel_max = fmt_seconds(s.releases, "max")
        if s.capped:
            rel_max = f"≥ {rel_max} ({s.capped} capped)"
        rows.append(
            f"| {s.name} | {s.prompts} | {s.missed} | {s.no_prompt_seconds:.1f} "
            f"| {s.false_seconds:.1f} | {s.alarms} "
            f"| {fmt_seconds(s.latencies, 'p50')} | {fmt_seconds(s.latencies, 'max')} "
            f"| {fmt_seconds(s.releases, 'p50')} | {rel_max} |"
        )
    return "\n".join(rows)


def share_table(scores: list[Score], gt: GroundTruth) -> str:
    phases = list(gt.phases())
    spans = gt.phases()
    head = "| detector | " + " | ".join(f"{p} ({total(spans[p]):.0f} s)" for p in phases) + " |"
    rows = [head, "|" + " --- |" * (len(phases) + 1)]
    for s in scores:
        cells = " | ".join(f"{100 * s.blocked_share[p]:.0f} %" for p in phases)
        rows.append(f"| {s.name} | {cells} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------


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


def report(result: dict[str, Any]) -> str:
    lines = [
        f"seed {result['seed']}, {result['tasks']} tasks, {result['duration']:.0f} s, "
        f"{result['writes']} writes / {result['bytes']} bytes from the agent",
        "",
        result["table"],
        "",
        "share of each phase's time said `blocked`:",
        "",
        result["share_table"],
        "",
        f"task ends after which a detector said `blocked` before the next task "
        f"(of {result['tasks']}):",
        *(f"  {name}: {n}" for name, n in result["task_ends_flagged"].items()),
        "",
        "an erased prompt stays in the stripped 8 KB tail (later prompts aside) for "
        f"p50 {statistics.median(result['tail_linger']):.1f} s, "
        f"max {max(result['tail_linger']):.1f} s after it is gone",
        "",
        "states the screen detectors reported per phase (share of the phase's time):",
    ]
    for key in ("daemon_states", "sweep_states"):
        lines.append(f"  {key}:")
        for phase, states in result[key].items():
            cells = ", ".join(f"{s} {100 * v:.1f} %" for s, v in states.items())
            lines.append(f"    {phase:11} {cells}")
    lines += [
        "",
        f"daemon CPU over the run: {result['daemon_cpu_percent']:.2f} % of a core; "
        f"counters {result['daemon_counters']}",
        f"state poll interval: p50 {1000 * (result['poll_interval_p50'] or 0):.1f} ms, "
        f"max {1000 * (result['poll_interval_max'] or 0):.1f} ms; one poll's round trip: "
        f"p50 {1000 * result['poll_round_trip_p50']:.2f} ms, "
        f"max {1000 * result['poll_round_trip_max']:.1f} ms",
    ]
    return "\n".join(lines)


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
