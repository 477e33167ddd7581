"""Hook reports against the screen, on a fake clock: the priority order, expiry, and two real
Claude Code 2.1.328 sessions replayed with their hooks at the times they fired."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import report as endpoint
from osf_tmux.clock import FakeClock
from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.combine import Observation, PaneTracker, Report, Timing
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.vt.pane import PaneScreen
from tests.support.live import Pace

CLAUDE = Path(__file__).resolve().parents[2] / "captures" / "claude-2.1.328"
TIMING = Timing(idle_confirm=0.4, report_ttl=30, blocked_report_grace=2)


class Pane:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.tracker = PaneTracker(TIMING)

    def show(self, screen: str | None, report: Report | None, agent: bool = True) -> str | None:
        verdict = Verdict(screen, f"rule-{screen}", "claude") if screen else None
        obs = Observation(agent, verdict, False, report, quiet=1.0)
        return self.tracker.update(obs, self.clock.now(), self.clock.wall()).state

    def report(self, state: str, ago: float = 0.0) -> Report:
        return Report(state, self.clock.wall() - ago, "claude")


@pytest.mark.parametrize("reported", ["working", "done", "idle"])
def test_a_blocked_screen_beats_any_fresh_report(reported: str) -> None:
    p = Pane()
    assert p.show("blocked", p.report(reported)) == "blocked"


def test_a_fresh_report_beats_the_shell_back_in_the_foreground() -> None:
    # The agent's process is not (or no longer) seen in the pane, but it just reported.
    p = Pane()
    assert p.show(None, p.report("working"), agent=False) == "working"
    assert p.show(None, p.report("blocked"), agent=False) == "blocked"


def test_the_shell_in_the_foreground_beats_the_other_screen_rules() -> None:
    # Without a fresh report, a pane whose agent left shows nothing, whatever its screen says.
    p = Pane()
    assert p.show("working", None) == "working"
    assert p.show("working", None, agent=False) is None
    assert p.show("idle", p.report("working", ago=TIMING.report_ttl + 1), agent=False) is None


def test_a_fresh_report_beats_the_other_screen_rules() -> None:
    p = Pane()
    assert p.show("idle", p.report("working")) == "working"
    assert p.show("working", p.report("blocked", ago=0.1)) == "blocked"


def test_reports_expire() -> None:
    p = Pane()
    assert p.show("idle", p.report("working")) == "working"
    p.clock.advance(TIMING.report_ttl + 0.1)
    at = p.clock.wall() - TIMING.report_ttl - 0.1
    assert p.show("idle", Report("working", at, "claude")) == "working"  # confirming idle...
    p.clock.advance(TIMING.done_confirm + 0.1)
    assert p.show("idle", Report("working", at, "claude")) == "done"  # ...the turn ended


# ---- real sessions, replayed -------------------------------------------------------------------


@dataclass(frozen=True)
class Hook:
    offset: int
    t: float  # seconds since launch
    payload: dict[str, Any]


def claude_manifest() -> Manifest:
    return load_rules(None).get("claude")


def replay(
    name: str, hooks: list[Hook], step: int = 64, tail: float = 1.0
) -> list[tuple[float, str | None, str | None]]:
    """Feed a capture in small steps at its recorded pace, the hooks' reports arriving at their
    times; judge after each step and, like the daemon, again at the tracker's deadline when the
    pane falls quiet. All on a fake clock. Returns (t, screen verdict, state) per judgement."""
    labels = json.loads((CLAUDE / f"{name}.labels.json").read_text())
    data = (CLAUDE / f"{name}.bytes").read_bytes()
    anchors = [(int(s["offset"]), float(s["t"])) for s in labels["segments"]]
    anchors += [(int(e["offset"]), float(e["t"])) for e in labels["driver_events"]]
    anchors += [(h.offset, h.t) for h in hooks]
    pace = Pace(anchors, max_gap=float("inf"))
    manifest = claude_manifest()
    screen = PaneScreen(labels["cols"], labels["rows"])
    clock = FakeClock()
    start = clock.now()
    tracker = PaneTracker(TIMING)
    reports = sorted(
        (h.t, Report(state, clock.wall() + h.t, "claude"))
        for h in hooks
        if (state := endpoint.state_for("claude", h.payload)) is not None
    )
    out: list[tuple[float, str | None, str | None]] = []
    last_bytes = 0.0

    def judge(t: float) -> None:
        clock.t = start + t
        latest = next((r for at, r in reversed(reports) if at <= t), None)
        verdict = classify(screen.snapshot(), manifest)
        obs = Observation(True, verdict, False, latest, quiet=t - last_bytes)
        out.append((t, verdict.state, tracker.update(obs, clock.now(), clock.wall()).state))

    fed = 0
    for stop in sorted({*range(step, len(data), step), len(data), *(h.offset for h in hooks)}):
        t = pace.at(stop)
        deadline = tracker.deadline()
        if deadline is not None and deadline - start < t:
            # the daemon's timer, once the pane went quiet (select's timeout rounds up to the ms)
            judge(deadline - start + 0.001)
        screen.feed(data[fed:stop])
        fed = stop
        last_bytes = t
        judge(t)
    judge(last_bytes + tail)
    return out


def states_over(trace: list[tuple[float, str | None, str | None]]) -> list[str | None]:
    """The published states in order, repeats folded."""
    seq: list[str | None] = []
    for _, _, state in trace:
        if not seq or seq[-1] != state:
            seq.append(state)
    return seq


def j_hooks() -> list[Hook]:
    labels = json.loads((CLAUDE / "j_hooks_bash-120x32.labels.json").read_text())
    t0 = float(labels["t0_epoch"])
    out = []
    for line in (CLAUDE / "j_hooks_bash-120x32.hooks.jsonl").read_text().splitlines():
        event = json.loads(line)
        out.append(Hook(int(event["bytes_offset"]), float(event["t"]) - t0, event["payload"]))
    return out


def test_hooks_and_screen_through_an_approved_command() -> None:
    # j_hooks_bash: prompt, PermissionRequest, approved with Enter, tool runs 4 s, Stop.
    hooks = [h for h in j_hooks() if h.t < 20]  # up to the end of the bytes (idle_prompt: +60 s)
    trace = replay("j_hooks_bash-120x32", hooks)
    assert states_over(trace)[-4:] == ["working", "blocked", "working", "done"]
    blocked = [t for t, _, state in trace if state == "blocked"]
    # blocked from the PermissionRequest hook (4.653 s, just before the dialog is drawn) until
    # the screen shows the tool running after the approval (7.9 s)
    assert 4.6 < blocked[0] < 4.7 and 7.7 < blocked[-1] < 8.0


def test_a_prompt_rejected_with_esc_fires_no_hook_and_the_screen_clears_it() -> None:
    # d_bash_esc: the same Bash prompt, rejected with Esc at 7.949 s. Claude fires no hook for
    # that, so the last report stays "blocked" (still fresh: 30 s). Its hooks are placed the way
    # they came in j_hooks_bash: UserPromptSubmit 69 ms after Enter, PreToolUse, then
    # PermissionRequest 24 ms before the dialog is on screen.
    labels = json.loads((CLAUDE / "d_bash_esc-120x32.labels.json").read_text())
    enter = next(e for e in labels["driver_events"] if e["note"].startswith("Enter"))
    shown = next(s for s in labels["segments"] if s["state"] == "blocked")
    sample = {h.payload["hook_event_name"]: h.payload for h in j_hooks()}
    hooks = [
        Hook(enter["offset"], enter["t"] + 0.069, sample["UserPromptSubmit"]),
        Hook(shown["offset"] - 200, shown["t"] - 0.148, sample["PreToolUse"]),
        Hook(shown["offset"] - 1, shown["t"] - 0.024, sample["PermissionRequest"]),
    ]
    trace = replay("d_bash_esc-120x32", hooks)
    # rejected: no longer blocked once the prompt is gone, then idle (not done) once confirmed
    assert states_over(trace)[-4:] == ["working", "blocked", "working", "idle"]
    rejected = next(t for t, screen, _ in trace if t > shown["t"] and screen != "blocked")
    cleared = next(t for t, _, state in trace if t > shown["t"] and state == "idle")
    # The screen wins once the report is older than the grace and idle has been confirmed.
    report_at = shown["t"] - 0.024
    assert cleared <= max(rejected, report_at + TIMING.blocked_report_grace) + 0.7
    assert trace[-1][0] - report_at < TIMING.report_ttl  # the report was still fresh throughout
