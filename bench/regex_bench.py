"""What a rule's regex can cost, and what bounding it costs. Prints numbers.

Usage: .venv/bin/python bench/regex_bench.py [--budget 0.25] [--cap 2.0]

1. Each pattern the load-time check refuses (judge/backtracking.py), and the polynomial one it
   lets through, on a short text built to fail: CPU until it ends or `--cap` seconds (the cap
   is a RuleBudget, so the numbers also show that the timer ends the match).
2. The most CPU one classification took over every capture (fed in 97-byte chunks, classified
   after each): how far normal work stays from the daemon's budget.
3. What arming and disarming the budget adds to one classification.

CPU time (time.process_time)."""

from __future__ import annotations

import argparse
import functools
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.daemon.rule_budget import BUDGET, OverBudget, RuleBudget  # noqa: E402
from osf_tmux.judge.backtracking import exponential_risk  # noqa: E402
from osf_tmux.judge.classify import classify  # noqa: E402
from osf_tmux.judge.corpus import find_captures  # noqa: E402
from osf_tmux.judge.ruleset import load_rules  # noqa: E402
from osf_tmux.vt.pane import PaneScreen  # noqa: E402

ATTACKS = [
    (r"^(a+)+$", "a" * 45 + "!"),
    (r"(a*)*$", "a" * 45 + "!"),
    (r"(a|a)*$", "a" * 45 + "!"),
    (r"(\w+\s?)*$", "a" * 45 + "!"),
    (r"(x+x+)+y", "x" * 45),
    (r"((a+)b?)+$", "a" * 45 + "!"),
    (r"(a?a)+$", "a" * 45 + "!"),
    (r"^(?:a{1,2})+$", "a" * 60 + "!"),
    (r"^(\s*\w+)*$", "a" * 45 + "!"),
    (r"(?:[a-z]+[0-9]*)+$", "a" * 45 + "!"),
    (r"(a|b|ab)*c", "ab" * 40),
    (r"^ * * * * * * *$", " " * 118 + "!"),  # polynomial: passes the check
]


def attacks(cap: float) -> None:
    budget = RuleBudget(cap)
    print(f"1. patterns on a failing text (CPU, capped at {cap:.1f} s)")
    for source, text in ATTACKS:
        pattern = re.compile(source, re.MULTILINE)
        start = time.process_time()
        try:
            budget.run(functools.partial(pattern.search, text))
            ended = "finished"
        except OverBudget:
            ended = "stopped by the budget"
        spent = time.process_time() - start
        check = "refused at load" if exponential_risk(pattern) else "passes the check"
        print(f"   {source:22} {len(text):4d} chars  {spent:7.3f} s  {ended:22} {check}")


def corpus_worst() -> tuple[float, str, int]:
    rules = load_rules(None)
    worst = (0.0, "", 0)
    count = 0
    for capture in find_captures(ROOT / "captures"):
        size, agent = capture.size(), capture.agent()
        if size is None or agent is None or agent not in rules.manifests:
            continue
        manifest = rules.get(agent)
        data = capture.bytes_path.read_bytes()
        screen = PaneScreen(*size)
        for offset in range(0, len(data), 97):
            screen.feed(data[offset : offset + 97])
            snap = screen.snapshot()
            start = time.process_time()
            classify(snap, manifest)
            spent = time.process_time() - start
            count += 1
            if spent > worst[0]:
                worst = (spent, capture.name, offset)
    print(f"2. {count} classifications over the corpus; the slowest took {worst[0] * 1e3:.2f} ms")
    print(f"   of CPU ({worst[1]} @{worst[2]}); the daemon's budget is {BUDGET:.2f} s")
    return worst


def overhead(rounds: int = 20000) -> None:
    rules = load_rules(None)
    manifest = rules.get("claude")
    capture = next(c for c in find_captures(ROOT / "captures") if c.agent() == "claude")
    size = capture.size() or (120, 32)
    screen = PaneScreen(*size)
    screen.feed(capture.bytes_path.read_bytes())
    snap = screen.snapshot()
    budget = RuleBudget()
    bare = guarded = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(rounds):
            classify(snap, manifest)
        bare = min(bare, (time.process_time() - start) / rounds)
        start = time.process_time()
        for _ in range(rounds):
            budget.run(functools.partial(classify, snap, manifest))
        guarded = min(guarded, (time.process_time() - start) / rounds)
    print(
        f"3. one classification of a Claude screen: {bare * 1e6:.1f} us bare, "
        f"{guarded * 1e6:.1f} us under the budget (+{(guarded - bare) * 1e6:.1f} us)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=2.0)
    args = parser.parse_args()
    attacks(args.cap)
    corpus_worst()
    overhead()


if __name__ == "__main__":
    main()
