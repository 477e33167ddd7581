"""Every detector's timeline against the ground truth the agent logged: missed prompts, false
`blocked`, latency, release; the tables and the report."""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from typing import Any

from seedexp.agent import Write, placed
from seedexp.detectors import TAIL_BYTES, Interval, Timeline
from seedexp.plan import PROMPT


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
