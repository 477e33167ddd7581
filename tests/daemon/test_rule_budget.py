"""No rule can stall the daemon: regexes of the shapes that take exponential time are refused
when rules load (and by `rules check`), and every classification runs under a CPU budget, so
even a slow pattern the check lets through costs one budget and is then dropped."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from click.testing import CliRunner

from osf_tmux.cli.app import cli as main
from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.rule_budget import OverBudget, RuleBudget
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.daemon.watch import PaneWatch
from osf_tmux.judge.backtracking import exponential_risk
from osf_tmux.judge.combine import PaneTracker
from osf_tmux.judge.manifest import ManifestError, parse_manifest
from osf_tmux.judge.ruleset import RuleSet, load_rules
from osf_tmux.vt.pane import PaneScreen
from tests.daemon.test_daemon_settle import RecordingTmux, _info
from tests.support.live import DaemonProcess, Feeder
from tests.support.tmux_server import TmuxServer, retry_until

# Exponential in Python's engine (each measured at > 2 s of CPU on 40-60 characters).
EXPONENTIAL = [
    r"^(a+)+$",
    r"(a*)*$",
    r"(a|a)*$",
    r"(\w+\s?)*$",
    r"(x+x+)+y",
    r"((a+)b?)+$",
    r"(a?a)+$",
    r"^(?:a{1,2})+$",
    r"^(\s*\w+)*$",
    r"(?:[a-z]+[0-9]*)+$",
    r"(a|b|ab)*c",
]
# Repeats that cannot match one text in two ways, and what Python itself makes safe.
SAFE = [
    r"(\w+\s)*$",
    r"(ab+)+$",
    r"(?:\n ?│[^\n]*)*?x",
    r"^(?:[^\S\n]|│)*Allow",
    r"(a{2})+$",
    r"(?>a+)+$",
    r"(a++)+$",
    r"(?:\d+h\s*)?(?:\d+m\s*)?\d+s",
    r"(\w|\d)+$",  # Python reads the alternatives as one set
    r"(a|ab)*c",  # ... and this one as (ab?)*
]
# Polynomial, not exponential: the load-time check lets it through; the budget catches it.
POLYNOMIAL = r"^ * * * * * * *$"


def manifest_toml(agent: str, slow: str) -> str:
    return f"""
agent = "{agent}"
processes = ["{agent}"]

[[rule]]
id = "slow"
state = "blocked"
all = ['{slow}']

[[rule]]
id = "ask"
state = "blocked"
all = ['^Proceed\\? \\(y/n\\)']
"""


@pytest.mark.parametrize("source", EXPONENTIAL)
def test_exponential_patterns_are_refused_at_load(source: str) -> None:
    data = {"agent": "demo", "rule": [{"id": "r", "state": "blocked", "all": [source]}]}
    with pytest.raises(ManifestError, match="can take exponential time") as info:
        parse_manifest(data, "demo.toml")
    assert "rule r: all[1]" in str(info.value)


def test_process_patterns_are_checked_too() -> None:
    data = {"agent": "demo", "process_args": [r"^(x+)+$"], "rule": []}
    with pytest.raises(ManifestError, match=r"process_args: regex .* exponential"):
        parse_manifest(data, "demo.toml")


@pytest.mark.parametrize("source", SAFE)
def test_safe_repeats_pass(source: str) -> None:
    assert exponential_risk(re.compile(source, re.MULTILINE)) is None


def test_every_shipped_pattern_passes() -> None:
    rules = load_rules(None)
    assert rules.problems == ()
    patterns = [
        c.pattern
        for m in rules.manifests.values()
        for r in m.rules
        for c in (*r.all, *r.any, *r.not_)
    ] + [p for m in rules.manifests.values() for p in m.process_args]
    assert len(patterns) > 50
    assert [p.pattern for p in patterns if exponential_risk(p)] == []


def test_rules_check_names_the_pattern(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(manifest_toml("mine", "^(a+)+$"))
    result = CliRunner().invoke(main, ["rules", "check", str(path)])
    assert result.exit_code == 1
    assert "rule slow: all[1]: regex '^(a+)+$' can take exponential time" in result.output


def test_the_budget_ends_a_match_that_would_run_for_hours() -> None:
    pattern = re.compile(r"^(a+)+$")  # straight through re: no load-time check here
    with pytest.raises(OverBudget):
        RuleBudget(0.05).run(lambda: pattern.search("a" * 45 + "!"))
    # and once the work is done, nothing fires later
    RuleBudget(0.05).run(lambda: pattern.search("aaa"))
    time.sleep(0.01)


class Stuck(Exception):
    pass


@pytest.fixture
def watchdog() -> Iterator[None]:
    """Today's code spends hours in such a rule: fail after 20 s instead of hanging."""

    def stuck(signum: int, frame: FrameType | None) -> None:
        raise Stuck("the daemon was still inside a rule after 20 s")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_slow_rule_is_dropped_and_the_pane_judged_without_it(
    tmp_path: Path, watchdog: None
) -> None:
    slow = parse_manifest(
        {
            "agent": "claude",
            "rule": [
                {"id": "slow", "state": "blocked", "all": [POLYNOMIAL]},
                {"id": "ask", "state": "blocked", "all": [r"^Proceed\? \(y/n\)"]},
            ],
        },
        "mine.toml",
    )
    clock = FakeClock(start=1000.0, wall_offset=time.time() - 1000.0)
    rules = RuleSet({"claude": slow})
    daemon = Daemon(RecordingTmux(), rules, PipeFactory(tmp_path / "run"), "t", clock=clock)
    daemon.guard.budget = RuleBudget(0.05)
    daemon.pipes.prepare()
    pipe = daemon.pipes.open("%1")
    screen = PaneScreen(120, 32)
    watch = PaneWatch(_info(), PaneTracker(), pipe=pipe, mode="pipe", manifest=slow, screen=screen)
    daemon.table.panes["%1"] = watch
    try:
        screen.feed(b" " * 118 + b"!\r\nProceed? (y/n)")
        watch.dirty_since = clock.now()
        daemon.table.active.add("%1")
        for _ in range(3):
            clock.advance(1.0)
            daemon.process()
        assert [r.id for r in daemon.guard.rules.get("claude").rules] == ["ask"]
        assert watch.manifest is daemon.guard.rules.get("claude")
        assert watch.tracker.current.state == "blocked"
        assert watch.tracker.current.rule == "ask"
    finally:
        pipe.close()


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_daemon_keeps_answering_whatever_a_user_rule_does(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    d = DaemonProcess(tmux_server, tmp_path)
    rules_dir = tmp_path / "config" / "osf-tmux" / "rules"
    rules_dir.mkdir(parents=True)
    # The pattern: refused when the rules load; the polynomial one loads, and is dropped
    # the first time it runs over its budget.
    (rules_dir / "catty.toml").write_text(manifest_toml("catty", "^(a+)+$"))
    (rules_dir / "slowpoke.toml").write_text(manifest_toml("slowpoke", POLYNOMIAL))
    d.start()
    catty = Feeder(tmux_server, tmp_path, 120, 30, "catty")
    slowpoke = Feeder(tmux_server, tmp_path, 120, 30, "slowpoke")
    try:
        catty.write(b"a" * 45 + b"!\r\n")
        slowpoke.write(b" " * 118 + b"!\r\nProceed? (y/n)")
        # The relay may hand the spaces over before the "!", and a line of spaces alone matches
        # the slow rule at once: so wait for the budget's word, not for the first "blocked".
        retry_until(
            lambda: "slowpoke.toml took more than" in d.stderr(),
            timeout=20,
            what="slow rule dropped",
        )
        retry_until(lambda: slowpoke.state() == "blocked", timeout=15, what="slowpoke blocked")
        stderr = d.stderr()
        assert "catty.toml: rule slow: all[1]: regex '^(a+)+$' can take exponential" in stderr
        assert "rules slow of" in stderr
        stopped = d.cli("stop")
        assert stopped.returncode == 0, stopped.stderr
        assert d.proc is not None
        d.proc.wait(timeout=10)
    finally:
        d.stop()
        for feeder in (catty, slowpoke):
            feeder.close()
            tmux_server.kill_pane(feeder.pane)


def test_stop_is_answered_while_a_rule_runs(tmp_path: Path) -> None:
    """The same through the daemon's own signal handling, without tmux: SIGTERM during a
    classification that would never end."""
    script = f"""
import re, signal, sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from osf_tmux.daemon.rule_budget import OverBudget, RuleBudget
stopping = []
signal.signal(signal.SIGTERM, lambda s, f: stopping.append(s))
budget = RuleBudget(0.2)
pattern = re.compile(r"^(a+)+$")
print("ready", flush=True)
while not stopping:
    try:
        budget.run(lambda: pattern.search("a" * 45 + "!"))
    except OverBudget:
        pass
print("stopped", flush=True)
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert proc.stdout.read().strip() == "stopped"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
