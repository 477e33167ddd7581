"""Every capture through the pane state machine at its recorded pace: where a prompt blinks.

    python tools/tracker_replay.py [folders] [--redraw-grace S]   # default: every folder
    python tools/tracker_replay.py --start-ups [folders]          # how start-ups end

For each capture with a `.timing` file and a labelled prompt, the screen is judged at every
pipe-pane read, at the moment the read arrived, and the verdicts go through `PaneTracker`
(judge/combine.py) with the daemon's timing, nobody looking at the pane. It prints:
- blinks: while one labelled prompt was on screen, the state left `blocked` and came back, and
  for how long (what a person sees on the status line; the daemon gathers a pane's reads until
  they pause for 90 ms, so blinks shorter than that rarely reach it);
- releases: for each answered prompt, the seconds from the read that ended it to the first
  state that is not `blocked`.
No tmux and no daemon: the pure pieces the daemon runs, so two commits can be compared."""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.combine import Observation, PaneTracker, Timing
from osf_tmux.judge.corpus import Capture, find_captures
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot

ROOT = Path(__file__).resolve().parent.parent
State = tuple[float, str | None]


@dataclass(frozen=True)
class Replayed:
    states: list[State]  # (time, state) at every change
    prompts: list[tuple[float, float]]  # each labelled prompt: (first read, read that ended it)
    waits: list[tuple[float, float]]  # the same, with blocked labels in a row joined

    def blinks(self) -> list[float]:
        """How long the state was not `blocked` each time it came back within one prompt."""
        out = []
        for start, end in self.prompts:
            inside = [(t, s) for t, s in self.states if start <= t < end]
            left = None
            for t, s in inside:
                if s == "blocked":
                    if left is not None:
                        out.append(t - left)
                    left = None
                elif left is None and any(x == "blocked" for u, x in inside if u < t):
                    left = t
        return out

    def releases(self) -> list[float]:
        """Seconds from the read that ended each answered prompt to the first state that is not
        `blocked` (0 when it had left `blocked` already)."""
        out = []
        for _, ended in self.waits:
            if ended == float("inf"):
                continue
            before = [s for t, s in self.states if t <= ended]
            if before and before[-1] != "blocked":
                out.append(0.0)
                continue
            left = next((t for t, s in self.states if t > ended and s != "blocked"), None)
            if left is not None:
                out.append(left - ended)
        return out


def has_prompt(capture: Capture) -> bool:
    """Whether the capture has its reads' times and a labelled prompt."""
    segments = capture.labels().get("segments", [])
    return any(s["state"] == "blocked" for s in segments) and bool(capture.timing())


def first_typed(capture: Capture) -> int | None:
    """The offset of the first key the lab typed, where its labels start with the agent's
    start-up (work) and reach its prompt (idle) before that; else None."""
    labels = capture.labels()
    segments = labels.get("segments", [])
    if len(segments) < 2 or [s["state"] for s in segments[:2]] != ["working", "idle"]:
        return None
    keys = [
        e["offset"] for e in labels.get("driver_events", []) if e.get("event") in ("keys", "typed")
    ]
    return min(keys) if keys and capture.timing() else None


def replay(
    capture: Capture,
    timing: Timing | None = None,
    manifest: Manifest | None = None,
    *,
    started: bool = False,
    until: int | None = None,
) -> Replayed:
    """`manifest`: the rules to judge with (default: the shipped ones for the capture's
    agent). `started`: the agent started in the pane at its first read, as the daemon tells the
    tracker of an agent it did not find running (`agent_started`). `until`: only the reads up to
    that offset (then the clock runs on as if nothing came)."""
    labels = capture.labels()
    agent, size = capture.agent(), capture.size()
    assert agent and size, f"{capture.name}: no agent or size in its labels"
    if manifest is None:
        manifest = load_rules().get(agent)
    data = capture.bytes_path.read_bytes()
    arrivals = [(o, at) for o, at in capture.timing() or [] if until is None or o <= until]
    screen = PaneScreen(*size)
    tracker = PaneTracker(timing)
    if started and arrivals:
        tracker.agent_started(arrivals[0][1])
    states: list[State] = []
    fed, shown, changed = 0, None, float("-inf")
    verdict: Verdict | None = None

    def step(snap: Snapshot | None, now: float) -> None:
        obs = Observation(
            True,
            verdict,
            False,
            quiet=now - changed,
            output_flow=manifest.output_flow,
            snapshot=snap,
            holds=manifest.holds,
        )
        state = tracker.update(obs, now, now).state
        if not states or states[-1][1] != state:
            states.append((now, state))

    for i, (offset, at) in enumerate(arrivals):
        screen.feed(data[fed:offset])
        fed = offset
        snap = screen.snapshot()
        if snap.rows != shown:
            shown, changed = snap.rows, at
        verdict = classify(snap, manifest)
        step(snap, at)
        following = arrivals[i + 1][1] if i + 1 < len(arrivals) else at + 10.0
        while (due := tracker.deadline()) is not None and due < following:
            step(None, max(due, at))
            if tracker.deadline() == due:
                break
    return Replayed(
        states, _spans(labels, arrivals, merge=False), _spans(labels, arrivals, merge=True)
    )


def _spans(
    labels: dict[str, object], arrivals: list[tuple[int, float]], merge: bool
) -> list[tuple[float, float]]:
    """(first read, read that ended it) of each labelled prompt; with `merge`, labels in a row
    that are all blocked (a pointer moved, a second question) are one wait."""
    segments = labels["segments"]
    assert isinstance(segments, list)

    def arrival(offset: int) -> float:
        return next((at for o, at in arrivals if o >= offset), float("inf"))

    spans = []
    start: float | None = None
    for seg in segments:
        if start is not None and (seg["state"] != "blocked" or not merge):
            spans.append((start, arrival(seg["offset"])))
            start = None
        if seg["state"] == "blocked" and start is None:
            start = arrival(seg["offset"])
    if start is not None:
        spans.append((start, float("inf")))
    return [(a, b) for a, b in spans if a != float("inf")]


def start_ups(folders: list[Path]) -> None:
    """How each start-up ends when nothing is typed, the agent started (`agent_started`) or
    found running: a start-up nobody asked for that ends `done`; and, played whole, the turns
    that end `done` after it (the first turn someone typed and those after), which must stay."""
    ended: dict[tuple[str, bool], int] = {}
    turns = {False: 0, True: 0}
    count = 0
    for folder in folders:
        for capture in find_captures(folder.resolve()):
            typed = first_typed(capture)
            if typed is None:
                continue
            count += 1
            agent = capture.agent() or "?"
            # The first turn typed: none in a capture that only types a draft.
            turn = next(
                (s["offset"] for s in capture.labels()["segments"][2:] if s["state"] != "idle"),
                None,
            )
            first_turn = next(
                (at for o, at in capture.timing() or [] if turn is not None and o >= turn),
                float("inf"),
            )
            for started in (False, True):
                if replay(capture, started=started, until=typed).states[-1][1] == "done":
                    ended[agent, started] = ended.get((agent, started), 0) + 1
                whole = replay(capture, started=started).states
                turns[started] += sum(1 for t, s in whole if s == "done" and t >= first_turn)
    print(f"start-ups played until the first key: {count}")
    for started in (False, True):
        done = {a: n for (a, s), n in sorted(ended.items()) if s == started}
        how = "started" if started else "found running"
        print(f"  {how}: start-ups ended done {sum(done.values())} {done}; "
              f"turns after them ended done {turns[started]}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--redraw-grace", type=float, default=Timing().redraw_grace)
    parser.add_argument(
        "--start-ups", action="store_true", help="how start-ups end instead (see start_ups)"
    )
    args = parser.parse_args()
    timing = Timing(redraw_grace=args.redraw_grace)
    folders = args.folders or sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    if args.start_ups:
        start_ups(folders)
        return 0
    blinks: list[float] = []
    releases: list[float] = []
    for folder in folders:
        for capture in find_captures(folder.resolve()):
            if not has_prompt(capture):
                continue
            result = replay(capture, timing)
            blinks += result.blinks()
            releases += result.releases()
            if result.blinks() or any(d > 1.0 for d in result.releases()):
                print(
                    f"{capture.name}: blinks {[round(b, 3) for b in result.blinks()]}"
                    f", releases {[round(d, 2) for d in result.releases()]}"
                )
    longer = [b for b in blinks if b >= 0.05]
    longest = max(blinks, default=0.0)
    print(f"blinks {len(blinks)} ({len(longer)} of 50 ms or more, longest {longest:.3f} s)")
    if releases:
        q = statistics.quantiles(releases, n=20) if len(releases) > 1 else releases * 19
        print(
            f"{len(releases)} releases: p50 {statistics.median(releases):.2f} s, "
            f"p95 {q[18]:.2f} s, max {max(releases):.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
