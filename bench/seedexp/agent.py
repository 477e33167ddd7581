"""The fake agent, run inside the pane on a real PTY: a Claude-Code-like TUI drawn the way Ink
draws it, driven by the plan, with keys from the bot. It logs ground-truth events and tees every
byte it writes, with the moment the write returned, for the byte detectors."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import struct
import time
import traceback
import tty
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seedexp.plan import PROMPT, VERBS, Step, Task, plan_from_json

SPIN_HZ = 10.0
_RECORD = struct.Struct("<dI")  # tee record: monotonic time the write returned, length


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
