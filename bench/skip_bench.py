"""How many of an agent's working frames the daemon must classify, and how many it keeps the
verdict of without classifying (`ScreenJudge`: `same_verdict` ties the frame to the one before).

Usage: .venv/bin/python bench/skip_bench.py [--tree DIR] [names...]

Each agent's working stretch (bench/agent_frames.py, the one `daemon_bench.py table` replays),
judged at every pipe-pane read as tmux read it; plus issue #15's Claude frame (600 frames).
`--tree DIR` judges with the osf_tmux of another tree (a `git archive` of an older commit), to
compare. Prints: reads, classified, skipped, and the judging's CPU per read (µs, snapshot not
included), the first time through (with what is built once per daemon: a manifest's plan, its
character classes, the row caches) and the second (those built; rows seen before are cached,
as a spinner's are in a daemon that has run a while). Uses feed_bench.py's cache of the
stretches."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tree", type=Path, help="judge with DIR/osf_tmux instead of this tree's")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/osf-feed-bench-stretches.json"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    tree = (args.tree or ROOT).resolve()
    if not (tree / "osf_tmux" / "judge" / "screen_judge.py").exists():
        raise SystemExit(f"no osf_tmux/judge in {tree}")
    sys.path.insert(0, str(tree))
    sys.path.insert(1, str(ROOT / "bench"))
    import feed_bench

    from osf_tmux.judge.ruleset import load_rules
    from osf_tmux.judge.screen_judge import ScreenJudge
    from osf_tmux.vt.pane import PaneScreen

    rules = load_rules(None)
    sources = {"claude-2.1-issue": ("claude", *feed_bench._issue_claude())}
    for agent, spec in feed_bench._stretch_specs(args.names or None, args.cache).items():
        sources[agent] = (agent, *feed_bench._stretch(spec))
    print(f"osf_tmux of {tree}")
    print("| frames | reads | classified | skipped | µs a read, judging: first pass / second |")
    print("| --- | --- | --- | --- | --- |")
    for name, (agent, prefix, reads) in sources.items():
        if args.names and name not in args.names:
            continue
        costs = []
        for _ in range(2):
            screen = PaneScreen(120, 32)
            screen.feed(prefix)
            judge = ScreenJudge(rules.manifests[agent])
            judge.verdict(screen.snapshot())
            classified, skipped, spent = judge.classified, judge.skipped, 0.0
            for chunk in reads:
                screen.feed(chunk)
                snap = screen.snapshot()
                start = time.process_time()
                judge.verdict(snap)
                spent += time.process_time() - start
            costs.append(1e6 * spent / max(len(reads), 1))
        print(
            f"| {name} | {len(reads)} | {judge.classified - classified} | "
            f"{judge.skipped - skipped} | {costs[0]:.0f} / {costs[1]:.0f} |"
        )


if __name__ == "__main__":
    main()
