"""The live-agents lane's machinery: the osf-tmux daemon on the agent lab's private tmux server,
`@osf_state` sampled while the lab plays a scenario, and the check of what the daemon published
against the states the lab saw on screen (its labelled cues).

The lab (tools/agentlab) drives a real agent CLI against a fake model server and calls us back:
"ready" once its pane exists (the daemon starts then, before the agent), "label" each time a cue
shows, "event" for each key it sends ("end" stops the sampling)."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.live import DaemonProcess
from tests.support.tmux_server import TmuxServer

BOUND = 2.0  # s: the daemon publishes a labelled state at most this long after the lab saw it
GRACE = 0.5  # s: a blocked this close to a labelled transition into or out of blocked is timing
SAMPLE = 0.05  # s: how often `@osf_state` is read
# The lab labels what the screen shows; where the screen reads idle while the turn goes on (Codex
# 0.171 hides its status row while text streams and after an approved patch), its note says so.
# The daemon rightly holds working there (an agent that keeps printing has not returned to its
# prompt): such a label is no state change the daemon must publish (idle and working both do).
MID_TURN = re.compile(r"the turn goes on")


@dataclass(frozen=True)
class Label:
    """A state the lab saw on screen, from `epoch` (its capture-pane poll) to the next label."""

    state: str
    epoch: float
    note: str

    @property
    def mid_turn(self) -> bool:
        return self.state == "idle" and bool(MID_TURN.search(self.note))


@dataclass(frozen=True)
class Sample:
    epoch: float
    state: str | None  # `@osf_state` of the lab's pane; None while unset


BOOTING = "booting"  # the lab's state before its first label: the agent starts, no UI yet


@dataclass(frozen=True)
class Transition:
    label: Label
    previous: str  # the state the lab saw before (BOOTING before the first label)
    latency: float | None  # s from the lab's poll to the daemon's first matching sample

    @property
    def timed(self) -> bool:
        """Counts in the latency figures: not the first idle after start-up, which the daemon
        shows from the moment it knows the agent (its state for a screen with no other cue)."""
        return self.latency is not None and not (
            self.previous == BOOTING and self.label.state == "idle"
        )


@dataclass
class Verdict:
    transitions: list[Transition] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # s the daemon kept publishing blocked after each dialog the lab saw close
    releases: list[float] = field(default_factory=list)

    def latencies(self) -> list[float]:
        return [t.latency for t in self.transitions if t.timed and t.latency is not None]


def accepted(state: str) -> tuple[str, ...]:
    """The daemon states that match a labelled one: with no client attached nobody has seen the
    pane, so a finished turn shows as `done` rather than `idle`."""
    return ("idle", "done") if state == "idle" else (state,)


def truth_at(labels: list[Label], t: float) -> str:
    """The labelled state at time t (BOOTING before the first label)."""
    state = BOOTING
    for lab in labels:
        if lab.epoch > t:
            break
        state = lab.state
    return state


def check(
    labels: list[Label], samples: list[Sample], bound: float = BOUND, grace: float = GRACE
) -> Verdict:
    """Each labelled state change must show in `@osf_state` within `bound` (counted from `grace`
    before the lab's poll: the daemon may see the frame first); a label repeating the state
    before it must still show within `bound`; and no false blocked (`false_blocked`)."""
    verdict = Verdict()
    samples = sorted(samples, key=lambda s: s.epoch)
    changes = [lab for lab in labels if not lab.mid_turn]
    previous = BOOTING
    prev_epoch = float("-inf")
    for i, lab in enumerate(changes):
        want = accepted(lab.state)
        if lab.state == previous:
            # No change (a draft typed at the idle prompt, a second dialog): still published.
            after = [s for s in samples if lab.epoch <= s.epoch <= lab.epoch + bound]
            if after and not any(s.state in want for s in after):
                verdict.problems.append(
                    f"{lab.state} held ({lab.note}): @osf_state showed "
                    f"{', '.join(sorted({str(s.state) for s in after}))}"
                )
            prev_epoch = lab.epoch
            continue
        # Search from just before the poll (not before the previous label: that state's samples
        # would count) up to the bound, and not into the label after next (same state again).
        lo = max(lab.epoch - grace, prev_epoch)
        hi = lab.epoch + bound
        if i + 2 < len(changes):
            hi = min(hi, changes[i + 2].epoch)
        window = [s for s in samples if lo <= s.epoch <= hi]
        hit = next((s for s in window if s.state in want), None)
        before = [s for s in samples if s.epoch < lo]
        if hit is None:
            verdict.transitions.append(Transition(lab, previous, None))
            seen = sorted({str(s.state) for s in window})
            last = max((s.epoch for s in samples), default=lab.epoch) - lab.epoch
            verdict.problems.append(
                f"{previous} -> {lab.state} ({lab.note}): @osf_state not {'/'.join(want)} "
                f"within {min(bound, last):.2f}s; it showed {', '.join(seen) or 'nothing'}"
            )
        elif before and before[-1].state in want and hit is window[0]:
            # Already published before the window (the daemon ran ahead): held, not timed.
            verdict.transitions.append(Transition(lab, previous, None))
        else:
            verdict.transitions.append(Transition(lab, previous, round(hit.epoch - lab.epoch, 3)))
        previous, prev_epoch = lab.state, lab.epoch
    verdict.problems += false_blocked(labels, samples, bound, grace)
    spans = blocked_spans(labels)
    for i, (_, b) in enumerate(spans):
        next_a = spans[i + 1][0] if i + 1 < len(spans) else float("inf")
        freed = next((s for s in samples if s.epoch >= b and s.state != "blocked"), None)
        if b != float("inf") and freed is not None:  # until freed, or the next dialog showed
            verdict.releases.append(round(min(freed.epoch, next_a) - b, 3))
    return verdict


def blocked_spans(labels: list[Label]) -> list[tuple[float, float]]:
    """(from, to) of each stretch the lab saw a dialog: from its label to the next other one."""
    spans: list[tuple[float, float]] = []
    start: float | None = None
    for lab in labels:
        if lab.state == "blocked" and start is None:
            start = lab.epoch
        elif lab.state != "blocked" and start is not None:
            spans.append((start, lab.epoch))
            start = None
    if start is not None:
        spans.append((start, float("inf")))
    return spans


def false_blocked(
    labels: list[Label], samples: list[Sample], bound: float = BOUND, grace: float = GRACE
) -> list[str]:
    """Published `blocked` that no dialog on screen explains. Each stretch of it, minus the
    times the lab saw a dialog, must lie within `grace` before a dialog (the daemon saw the
    frame first), or start within `grace` after one closed and end within `bound` of that (a
    daemon slow to let go of an answered dialog is late, not wrong: up to the bound)."""
    # A run is blocked samples with no other state read between them: a reader slowed by a
    # loaded machine reads less often, and its gaps must not cut one stretch into many.
    runs: list[tuple[float, float]] = []
    was_blocked = False
    for s in sorted(samples, key=lambda s: s.epoch):
        if s.state == "blocked" and was_blocked:
            runs[-1] = (runs[-1][0], s.epoch)
        elif s.state == "blocked":
            runs.append((s.epoch, s.epoch))
        was_blocked = s.state == "blocked"
    spans = blocked_spans(labels)
    first = labels[0].epoch if labels else 0.0
    out: list[str] = []
    for piece_lo, piece_hi in _minus(runs, spans):
        early = any(piece_hi <= a and a - piece_lo <= grace for a, _ in spans)
        closed = [b for _, b in spans if b <= piece_lo <= b + grace]
        if early or any(piece_hi <= b + bound for b in closed):
            continue
        if closed:
            out.append(f"blocked held {piece_hi - max(closed):.2f}s after the dialog closed")
            continue
        # When the lab saw a dialog next tells a loaded lab (its poll late: a dialog just
        # after) from a daemon that saw one where there was none.
        later = min((a - piece_hi for a, _ in spans if a >= piece_hi), default=None)
        if later == 0:
            after = "; it went on into the lab's next dialog"
        elif later is not None:
            after = f"; the lab's next dialog {later:.2f}s after"
        else:
            after = "; no dialog after"
        out.append(
            f"false blocked for {piece_hi - piece_lo + SAMPLE:.2f}s from "
            f"{piece_lo - first:+.2f}s (first label = 0) while the lab saw "
            f"{truth_at(labels, piece_lo)}{after}"
        )
    return out


def _minus(
    runs: list[tuple[float, float]], spans: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The parts of `runs` outside every span."""
    pieces = list(runs)
    for a, b in spans:
        cut: list[tuple[float, float]] = []
        for lo, hi in pieces:
            if hi < a or lo > b:
                cut.append((lo, hi))
                continue
            if lo < a:
                cut.append((lo, a))
            if hi > b:
                cut.append((b, hi))
        pieces = cut
    return pieces


class Sampler(threading.Thread):
    """Reads `@osf_state` of one pane every SAMPLE seconds until stopped."""

    def __init__(self, server: TmuxServer, target: str) -> None:
        super().__init__(daemon=True)
        self.server, self.target = server, target
        self.samples: list[Sample] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        argv = [
            self.server.tmux, "-L", self.server.socket_name, "-f", "/dev/null",
            "show-options", "-p", "-v", "-t", self.target, "@osf_state",
        ]  # fmt: skip
        while not self.stopped.is_set():
            try:
                out = subprocess.run(argv, capture_output=True, text=True, timeout=5).stdout
            except subprocess.TimeoutExpired:
                out = ""
            # The moment the answer came back: the option was set by then.
            self.samples.append(Sample(time.time(), out.strip() or None))
            self.stopped.wait(SAMPLE)

    def stop(self) -> None:
        self.stopped.set()
        if self.is_alive():
            self.join(timeout=10)


class LiveRun:
    """The lab's listener: starts the daemon and the sampler when the lab's pane is ready,
    collects labels and events, stops both when the lab ends its scenario."""

    def __init__(self, home: Path) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.labels: list[Label] = []
        self.events: list[dict[str, Any]] = []
        self.daemon: DaemonProcess | None = None
        self.sampler: Sampler | None = None
        self.daemon_rc: int | None = None  # set if the daemon had exited before the end

    def __call__(self, kind: str, info: dict[str, Any]) -> None:
        if kind == "ready":
            server = TmuxServer(socket_name=str(info["socket"]))  # the lab's: not started by us
            self.daemon = DaemonProcess(server, self.home)
            self.daemon.start()
            self.sampler = Sampler(server, str(info["target"]))
            self.sampler.start()
        elif kind == "label":
            self.labels.append(Label(str(info["state"]), float(info["epoch"]), str(info["note"])))
        elif kind == "event":
            self.events.append(info)
            if info.get("event") == "end":
                self.finish()
                self.close()

    def finish(self) -> None:
        """The lab ends its scenario: the screen stays as it is, so give the daemon the rest of
        its bound to publish the last labelled state (the lab's settle may be shorter)."""
        if not self.labels or self.sampler is None:
            return
        last = self.labels[-1]
        want = accepted(last.state)
        sampler = self.sampler
        while time.time() < last.epoch + BOUND + SAMPLE and sampler.is_alive():
            if sampler.samples and sampler.samples[-1].state in want:
                return
            time.sleep(SAMPLE)

    def close(self) -> None:
        """Stop sampling, then the daemon (before the lab kills its tmux server)."""
        if self.sampler is not None:
            self.sampler.stop()
        if self.daemon is not None:
            if self.daemon.proc is not None and self.daemon_rc is None:
                self.daemon_rc = self.daemon.proc.poll()
            self.daemon.stop()

    def samples(self) -> list[Sample]:
        return list(self.sampler.samples) if self.sampler else []

    def daemon_log(self) -> str:
        return self.daemon.stderr() if self.daemon else ""

    def timeline(self) -> str:
        """Labels and the daemon's state changes, in seconds from the daemon's first sample."""
        samples = self.samples()
        t0 = samples[0].epoch if samples else 0.0
        rows = [(lab.epoch, f"lab    {lab.state:8s} {lab.note}") for lab in self.labels]
        rows += [(float(e["epoch"]), f"driver {e['event']:8s} {e['note']}") for e in self.events]
        last: str | bool | None = False
        for s in samples:
            if s.state != last:
                rows.append((s.epoch, f"daemon {s.state}"))
                last = s.state
        return "\n".join(f"{t - t0:7.2f}s {text}" for t, text in sorted(rows, key=lambda r: r[0]))


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
