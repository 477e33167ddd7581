"""The detectors that read the agent's bytes, each a boolean timeline of `blocked`: silence,
a trailing `?`, the prompt in the last 8 KB (evaluated after the run from the tee, in
continuous time)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from seedexp.agent import Write
from seedexp.plan import PROMPT

Interval = tuple[float, float]

QUESTION_QUIET = 1.0  # the trailing-? detector waits for this much silence
QUESTION_LINES = 12  # ... and looks at this many non-blank lines (a dialog's height)
TAIL_BYTES = 8192


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
