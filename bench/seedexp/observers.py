"""The live side, in the benchmark process: the daemon's state polled through one control-mode
client, the 700 ms screen sweep, and the bot that plays the human."""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from osf_tmux.judge.classify import classify
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.vt.snapshot import Snapshot
from seedexp.plan import COLS, Task
from tests.support.tmux_server import TmuxServer


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
