"""Live-agents lane (opt-in): the osf-tmux daemon watches REAL agent CLIs that the agent lab
(tools/agentlab) drives offline against its fake model server, in the lab's private tmux server.

At every state the lab sees on screen (its labelled cues), `@osf_state` must show that state
within BOUND seconds (`idle` may show as `done`: no client is attached); sampled every 50 ms,
`@osf_state` must never be `blocked` while the lab sees no dialog (GRACE around transitions).

    tools/agentlab/install.sh                                # once: the agents
    OSF_LIVE_AGENTS=1 .venv/bin/pytest -m live_agents -rs    # every agent (~9 min)
    OSF_LIVE_AGENTS=claude,gemini .venv/bin/pytest -m live_agents -k bash_yes

The lab's pane gets no pipe-pane sink of its own (pipe=False), so the daemon attaches its pipe as
it would for a user. Scenarios run one at a time (agents are heavy on a small machine)."""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.live_agents import BOUND, GRACE, Label, LiveRun, Sample, check, remove_tree
from tools.agentlab.agents import AGENTS
from tools.agentlab.base import lab_home
from tools.agentlab.driver import DriverError, Recorder

ENV = "OSF_LIVE_AGENTS"
OPT_IN = (
    f"live-agents lane is opt-in: {ENV}=1 (or a comma list of agents) "
    ".venv/bin/pytest -m live_agents; agents from tools/agentlab/install.sh"
)
RUN_ROOT = Path(tempfile.gettempdir()) / f"agentlab-live-{os.getpid()}"

WIDE, SMALL = (120, 32), (80, 24)
# Per agent: start-up, a text turn, commands approved and rejected, edits, an interrupt, the
# start-up dialogs the lab has, and a draft (prompt phrases typed, never sent: never blocked).
SCENARIOS: dict[str, list[str]] = {
    "claude": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
               "interrupt_esc", "draft", "trust_dialog", "apikey_dialog", "dialogs_answered"],
    "codex": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
              "interrupt_esc", "draft", "model_nudge", "trust_dialog"],
    "gemini": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
               "interrupt_ctrlc", "draft", "trust_dialog"],
    "aider": ["startup", "text", "bash_yes", "bash_no", "edit_write", "interrupt_ctrlc",
              "draft", "gitignore_question"],
    "pi": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_why", "edit_write",
           "write_editor", "question", "interrupt_esc", "draft", "session_cwd"],
    "cline": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
              "interrupt_esc", "question", "draft", "promo_popup"],
    "qwen": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
             "interrupt_esc", "draft", "trust_dialog"],
    "copilot": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
                "interrupt_esc", "interrupt_ctrlc", "plan", "question", "draft",
                "trust_dialog"],
    # Ctrl-C quits OpenCode and Kilo (their app.exit key): Esc Esc interrupts instead.
    "opencode": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_always",
                 "bash_interrupt", "edit_write", "question", "interrupt_esc", "draft",
                 "mini_bash_yes"],
    "kilo": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_always",
             "bash_interrupt", "edit_write", "question", "interrupt_esc", "draft"],
    "vibe": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
             "interrupt_esc", "question", "draft", "trust_dialog"],
    "kimi": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "edit_write",
             "interrupt_esc", "question", "draft"],
    # Ctrl-C only warns in Droid ("Press Ctrl+C again to exit"); Esc interrupts.
    "droid": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_interrupt",
              "edit_write", "question", "plan", "interrupt_esc", "draft", "trust_dialog"],
    "grok": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_feedback",
             "bash_interrupt", "edit_write", "interrupt_esc", "draft", "mode_switch"],
    "kimi-code": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "bash_feedback",
                  "question", "interrupt_esc", "draft", "trust_dialog"],
    # Esc does nothing on Grok Build's permission panel: Ctrl+c cancels it (bash_cancel).
    "grok-build": ["startup", "text", "bash_yes", "bash_no", "bash_cancel", "edit_write",
                   "question", "plan", "interrupt_esc", "draft"],
    # Esc does nothing at Auggie's tool approval: no bash_esc.
    "auggie": ["startup", "text", "bash_yes", "bash_no", "edit_write", "question",
               "interrupt_esc", "draft", "indexing_permission"],
    # Amp's No is "Reject with feedback" (a text box); Esc Esc interrupts; no question tool.
    "amp": ["startup", "text", "bash_yes", "bash_esc", "bash_no", "guarded_edit",
            "interrupt_esc", "draft", "welcome"],
}  # fmt: skip
# Scenarios played in one of the agent's named configurations (`scenario@config`, see the lab's
# `record --config`): Claude Code with a custom status line, which hides the footer's
# `esc to interrupt` for the whole turn in 2.1.25 - 2.1.221, and in bypass permissions mode.
CONFIGURED: dict[str, list[str]] = {
    "claude": ["text@statusline1", "bash_yes@statusline1", "thinking@statusline2",
               "text@bypass", "bash_run@bypass", "bash_run@bypass-statusline1"],
    "grok-build": ["bash_yes@remember"],
}  # fmt: skip
CASES = (
    [(agent, scen, WIDE) for agent, names in SCENARIOS.items() for scen in names]
    + [(agent, scen, SMALL) for agent in SCENARIOS for scen in ("bash_yes", "draft")]
    + [(agent, scen, WIDE) for agent, names in CONFIGURED.items() for scen in names]
)


def selected() -> set[str]:
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("", "0", "no", "false"):
        return set()
    if value in ("1", "yes", "true", "all"):
        return set(SCENARIOS)
    return {name.strip() for name in value.split(",")}


@pytest.fixture(scope="module")
def report(request: pytest.FixtureRequest) -> Iterator[list[dict[str, Any]]]:
    """Collects one row per scenario; prints latencies per agent at the end (and writes them
    as JSON lines to $OSF_LIVE_AGENTS_REPORT if set)."""
    rows: list[dict[str, Any]] = []
    yield rows
    remove_tree(RUN_ROOT)
    if not rows:
        return
    if path := os.environ.get("OSF_LIVE_AGENTS_REPORT"):
        with open(path, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    lines = ["live agents: daemon latency from the lab's capture-pane poll to @osf_state"]
    for agent in SCENARIOS:
        mine = [r for r in rows if r["agent"] == agent]
        if not mine:
            continue
        lat = [x for r in mine for x in r["latencies"]]
        passed = sum(1 for r in mine if not r["problems"])
        p50 = statistics.median(lat) if lat else float("nan")
        worst = max(lat) if lat else float("nan")
        held = max((x for r in mine for x in r["releases"]), default=float("nan"))
        lines.append(
            f"  {agent} {mine[0]['version']}: {passed}/{len(mine)} scenarios passed, "
            f"{len(lat)} transitions, latency p50 {p50:.3f}s max {worst:.3f}s; "
            f"blocked kept at most {held:.2f}s after a dialog closed"
        )
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            for line in lines:
                reporter.write_line(line)


@pytest.mark.live_agents
@pytest.mark.slow
@pytest.mark.tmux
@pytest.mark.skipif(not selected(), reason=OPT_IN)
@pytest.mark.parametrize(
    ("agent_name", "scenario", "size"), CASES, ids=lambda v: "x".join(map(str, v)) if
    isinstance(v, tuple) else str(v)
)  # fmt: skip
def test_live_agent(
    agent_name: str,
    scenario: str,
    size: tuple[int, int],
    tmp_path: Path,
    report: list[dict[str, Any]],
) -> None:
    if agent_name not in selected():
        pytest.skip(f"{agent_name} not selected by {ENV}={os.environ.get(ENV)}")
    agent = AGENTS[agent_name]
    if not agent.installed():
        pytest.skip(
            f"{agent_name} is not installed under {lab_home()} ({agent.binary()} missing): "
            f"run tools/agentlab/install.sh {agent_name}"
        )
    cols, rows = size
    name = f"{agent_name}/{scenario}-{cols}x{rows}"
    lab_error: DriverError | None = None
    base_name, _, config = scenario.partition("@")
    # OSF_LAB_CLAUDE_VERSION picks another installed Claude Code release (npm-claude-<VER>).
    played = agent.configured_scenarios(config or None)[base_name]
    for attempt in (1, 2):  # like the lab's --retries 1: a run the lab cannot play is retried
        run = LiveRun(tmp_path / f"daemon-{attempt}")
        recorder = Recorder(
            agent,
            played,
            cols,
            rows,
            tmp_path / f"lab-{attempt}",
            verbose=False,
            listener=run,
            run_root=RUN_ROOT,
            pipe=False,
        )
        try:
            recorder.run()
        except DriverError as exc:
            lab_error = exc
            continue
        finally:
            run.close()
        break
    else:
        pytest.fail(f"the lab could not play {name} (its cues, not the daemon): {lab_error}")

    verdict = check(run.labels, run.samples())
    if run.daemon_rc is not None:
        verdict.problems.append(f"the daemon exited early (status {run.daemon_rc})")
    report.append(
        {
            "agent": agent_name,
            "version": agent.version(),
            "scenario": scenario,
            "size": f"{cols}x{rows}",
            "attempt": attempt,
            "latencies": verdict.latencies(),
            "releases": verdict.releases,
            "transitions": [
                {"from": t.previous, "to": t.label.state, "note": t.label.note,
                 "latency": t.latency}
                for t in verdict.transitions
            ],
            "problems": verdict.problems,
        }
    )  # fmt: skip
    assert verdict.transitions or not run.labels, f"{name}: no labelled state change"
    assert not verdict.problems, (
        f"{name} (bound {BOUND}s, grace {GRACE}s):\n"
        + "\n".join(verdict.problems)
        + "\n\ntimeline:\n"
        + run.timeline()
        + "\n\ndaemon log:\n"
        + run.daemon_log()[-3000:]
    )


# The checker itself, on made-up timelines (always run: no agents, no tmux).


def timeline(*points: tuple[float, str | None]) -> list[Sample]:
    """Samples every 50 ms from 0 to 10 s; each point sets the state from its time on."""
    out, state = [], None
    marks = dict(points)
    for i in range(201):
        t = round(i * 0.05, 2)
        state = marks.get(t, state)
        out.append(Sample(t, state))
    return out


LABELS = [Label("idle", 1.0, "start"), Label("working", 2.0, "asked"),
          Label("blocked", 3.0, "dialog"), Label("working", 5.0, "approved"),
          Label("idle", 7.0, "done")]  # fmt: skip


def test_check_accepts_a_prompt_daemon() -> None:
    samples = timeline((0.9, "idle"), (2.1, "working"), (3.05, "blocked"), (5.1, "working"),
                       (7.4, "done"))  # fmt: skip
    verdict = check(LABELS, samples)
    assert not verdict.problems
    # The first idle is not timed: the daemon shows idle for an agent with no other cue.
    assert verdict.latencies() == pytest.approx([0.1, 0.05, 0.1, 0.4])


def test_check_flags_a_late_state_and_a_false_blocked() -> None:
    samples = timeline((1.0, "idle"), (2.0, "working"), (5.0, "working"), (5.8, "blocked"),
                       (6.5, "working"), (9.5, "done"))  # fmt: skip
    problems = check(LABELS, samples).problems
    assert any("working -> blocked" in p for p in problems)  # never published
    assert any("working -> idle" in p for p in problems)  # 2.5 s late
    assert any("false blocked" in p for p in problems)


def test_check_tolerates_blocked_within_grace_of_the_dialog() -> None:
    samples = timeline((1.0, "idle"), (2.0, "working"), (2.7, "blocked"), (5.3, "working"),
                       (7.0, "idle"))  # fmt: skip
    assert not check(LABELS, samples).problems


def test_check_tells_a_slow_release_from_a_false_blocked() -> None:
    slow = timeline((1.0, "idle"), (2.0, "working"), (3.0, "blocked"), (6.5, "working"),
                    (7.5, "done"))  # fmt: skip
    assert not check(LABELS, slow).problems  # let go of the dialog 1.5 s late: within bound
    stuck = timeline((1.0, "idle"), (2.0, "working"), (3.0, "blocked"), (7.2, "working"),
                     (7.5, "done"))  # fmt: skip
    problems = check(LABELS, stuck).problems
    assert any("blocked held" in p for p in problems)
    assert not any("false blocked" in p for p in problems)


def test_check_one_stretch_read_slowly_is_one_false_blocked() -> None:
    """A reader on a loaded machine reads every 0.5 s: a stretch of blocked is still one
    stretch (before: three of 0.05 s, the last two excused as within the grace), and it says
    that it went on into the dialog the lab saw late."""
    samples = [s for s in timeline((1.0, "idle"), (2.0, "working"), (2.0, "working"),
                                   (3.0, "blocked"), (5.0, "working"), (7.0, "idle"))
               if round(s.epoch * 100) % 50 == 0]  # fmt: skip
    early = [Label("idle", 1.0, "start"), Label("working", 1.5, "asked"),
             Label("blocked", 4.0, "dialog"), Label("working", 5.0, "approved"),
             Label("idle", 7.0, "done")]  # fmt: skip
    problems = [p for p in check(early, samples).problems if "false blocked" in p]
    assert problems == [
        "false blocked for 1.05s from +2.00s (first label = 0) while the lab saw working; "
        "it went on into the lab's next dialog"
    ]
    alone = timeline((1.0, "idle"), (2.0, "working"), (2.2, "blocked"), (2.4, "working"),
                     (3.0, "blocked"), (5.1, "working"), (7.0, "idle"))  # fmt: skip
    problems = [p for p in check(LABELS, alone).problems if "false blocked" in p]
    assert problems == [
        "false blocked for 0.20s from +1.20s (first label = 0) while the lab saw working; "
        "the lab's next dialog 0.65s after"
    ]


def test_check_mid_turn_idle_is_no_state_change() -> None:
    # Codex 0.171 after an approved patch: the screen reads idle while the turn goes on; the
    # daemon holds blocked until the next dialog 1.4 s later (within the bound), then idle.
    labels = [Label("idle", 1.0, "start"), Label("working", 2.0, "asked"),
              Label("blocked", 3.0, "edit"),
              Label("idle", 4.6, "edit approved; the turn goes on, but no status row"),
              Label("blocked", 6.0, "new file"), Label("idle", 8.5, "done")]  # fmt: skip
    samples = timeline((1.0, "idle"), (2.1, "working"), (3.05, "blocked"), (8.6, "idle"))
    verdict = check(labels, samples)
    assert not verdict.problems
    assert [t.label.state for t in verdict.transitions] == ["idle", "working", "blocked", "idle"]


def test_check_a_run_without_any_dialog() -> None:
    labels = [Label("idle", 1.0, "start"), Label("working", 2.0, "asked"),
              Label("idle", 4.0, "done")]  # fmt: skip
    samples = timeline((1.0, "idle"), (2.1, "working"), (4.2, "done"))
    verdict = check(labels, samples)
    assert not verdict.problems and verdict.releases == []
