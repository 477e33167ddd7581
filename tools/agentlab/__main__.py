"""python -m tools.agentlab {install,list,record,index,selftest,drift}: drive the real agent CLIs
offline and record captures into captures/<agent>-<version>-lab/."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from tools.agentlab import drift, selftest
from tools.agentlab.agents import ADAPTERS, AGENTS, NOT_WRITTEN
from tools.agentlab.base import AgentSpec, Scenario, lab_home
from tools.agentlab.dress import COMMON_DRESSES, PANE, Dress
from tools.agentlab.driver import DriverError, Recorder
from tools.agentlab.refine import relabel

REPO = Path(__file__).resolve().parents[2]
SIZES = "80x24,120x32,200x50"
DRESS_SIZE = "120x32"  # one lab size per dress


def _sizes(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        cols, _, rows = part.strip().lower().partition("x")
        if not (cols.isdigit() and rows.isdigit()):
            raise SystemExit(f"bad size {part!r}: want COLSxROWS, like 120x32")
        out.append((int(cols), int(rows)))
    return out


def cmd_install(args: argparse.Namespace) -> int:
    script = Path(__file__).with_name("install.sh")
    return subprocess.call(["bash", str(script), *args.agents])


def cmd_list(args: argparse.Namespace) -> int:
    print(f"agents home: {lab_home()}")
    print("dresses (record --dress NAME[,NAME][+NAME]):")
    for dress in COMMON_DRESSES.values():
        print(f"  {dress.name:12s} {dress.description}")
    for name, agent in AGENTS.items():
        where = agent.binary()
        version = agent.version() if agent.installed() else "not installed"
        print(f"{name:8s} {version:16s} {where}")
        print("         scenarios: " + " ".join(agent.scenarios()))
        # aider and codex have a `configs` method of scenarios, not named configs
        if isinstance(agent.configs, dict) and agent.configs:
            print("         configs: " + " ".join(agent.configs))
        if agent.dresses:
            own = ", ".join(f"{d.name} ({d.description})" for d in agent.dresses.values())
            print("         dresses of its own: " + own)
    for name in NOT_WRITTEN:
        module = ADAPTERS[name].partition(":")[0]
        print(f"{name:8s} {'no adapter yet':16s} tools/agentlab/{module}.py")
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    failures: list[str] = []
    for name in args.agent.split(","):
        agent = AGENTS.get(name)
        if agent is None and name in NOT_WRITTEN:
            raise SystemExit(f"{name} has no adapter yet ({ADAPTERS[name]} in tools/agentlab)")
        if agent is None:
            raise SystemExit(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
        if args.agent_version:
            agent.use_version(args.agent_version)
        if not agent.installed():
            raise SystemExit(
                f"{name} is not installed under {lab_home()}: run "
                f"`python -m tools.agentlab install {name}`"
            )
        dresses = [agent.dress(d) for d in args.dress.split(",")] if args.dress else [PANE]
        if args.out and len(dresses) > 1:
            raise SystemExit("--out takes one dress at a time")
        for dress in dresses:
            folder = f"{agent.folder}-{agent.version()}-lab"
            if args.config:
                folder += f"-{args.config}"
            if dress is not PANE:
                folder += f"-{dress.name}"
            # A configuration's and a dress's options ride in every scenario's; the run
            # directory is kept apart from the plain runs' (Recorder.run_name).
            table = agent.configured_scenarios(args.config, dress)
            wanted = list(table) if args.scenario == "all" else args.scenario.split(",")
            unknown = [w for w in wanted if w not in table]
            if unknown:
                raise SystemExit(f"unknown scenario(s) {unknown}; {name} has: {' '.join(table)}")
            out = Path(args.out) if args.out else REPO / "captures" / folder
            if dress.in_tmux and _recorded_outside_tmux(out):
                raise SystemExit(
                    f"{out} holds captures recorded without the pane's environment (before "
                    "issue 28): keep them; record into another folder (--out DIR), or the old "
                    "way with --dress notmux --out DIR"
                )
            sizes = _sizes(args.size or (DRESS_SIZE if dress is not PANE else SIZES))
            failures += _record(agent, table, wanted, sizes, out, args, dress)
    if failures:
        print("FAILED: " + " ".join(failures), file=sys.stderr)
        return 1
    return 0


def _recorded_outside_tmux(folder: Path) -> bool:
    """Whether a folder's captures were recorded before the lab gave agents a pane's
    environment (their labels name no environment)."""
    for labels in folder.glob("*.labels.json"):
        return "environment" not in json.loads(labels.read_text())
    return False


def _record(
    agent: AgentSpec,
    table: dict[str, Scenario],
    wanted: list[str],
    sizes: list[tuple[int, int]],
    out: Path,
    args: argparse.Namespace,
    dress: Dress,
) -> list[str]:
    failures: list[str] = []
    name = agent.name
    for cols, rows in sizes:
        for scen in wanted:
            label = f"{name}/{scen}-{cols}x{rows}"
            print(f"recording {label} -> {out}", file=sys.stderr, flush=True)
            for attempt in range(1, args.retries + 2):
                start = time.time()
                try:
                    path = Recorder(
                        agent,
                        table[scen],
                        cols,
                        rows,
                        out,
                        keep_run_dir=args.keep,
                        verbose=args.verbose,
                        dress=dress,
                    ).run()
                except DriverError as e:
                    print(f"  attempt {attempt} failed: {e}", file=sys.stderr, flush=True)
                    continue
                size = path.with_name(path.name.replace(".labels.json", ".bytes")).stat()
                print(
                    f"  ok in {time.time() - start:.1f}s, {size.st_size} bytes",
                    file=sys.stderr,
                    flush=True,
                )
                break
            else:
                failures.append(label)
    return failures


def cmd_index(args: argparse.Namespace) -> int:
    """One line per capture: name, bytes, the labelled states in order."""
    for folder in args.folders or sorted((REPO / "captures").glob("*-lab")):
        folder = Path(folder)
        labels = sorted(folder.glob("*.labels.json"))
        total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        print(f"{folder.name}: {len(labels)} captures, {total / 1e6:.1f} MB with snapshots")
        for lab in labels:
            data = json.loads(lab.read_text())
            states = " ".join(s["state"] for s in data["segments"] if s["offset"] or s["t"])
            name = lab.name.removesuffix(".labels.json")
            print(f"  {name:34s} {data['total_bytes']:8d} B  {states}")
    return 0


def cmd_relabel(args: argparse.Namespace) -> int:
    """Recompute label offsets of recorded captures (no agents run)."""
    for folder in args.folders or sorted((REPO / "captures").glob("*-lab")):
        for lab in sorted(Path(folder).glob("*.labels.json")):
            if relabel(lab):
                print(f"moved: {lab}")
    return 0


def cmd_drift(args: argparse.Namespace) -> int:
    """The canary: each agent's registry latest recorded and scored next to its pinned one."""
    names = list(AGENTS) if args.agent == "all" else args.agent.split(",")
    unknown = [n for n in names if n not in AGENTS]
    if unknown:
        raise SystemExit(f"unknown agent(s) {unknown}; known: {', '.join(AGENTS)}")
    opts = drift.Options(
        install=not (args.no_install or args.no_record),
        record=not args.no_record,
        keep_captures=args.keep_captures,
        scenarios=args.scenario.split(",") if args.scenario else None,
    )
    rows = drift.run(AGENTS, names, opts)
    print(drift.rows_json(rows) if args.json else drift.render(rows))
    broken = [r for r in rows if r.score is None or r.score.right < r.score.points]
    return 1 if broken else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.agentlab", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install", help="install the agent CLIs under $OSF_AGENTLAB_HOME")
    p.add_argument(
        "agents", nargs="*", help="names as in install.sh, or all (default: the first four)"
    )
    p.set_defaults(func=cmd_install)
    p = sub.add_parser("selftest", help="check the fake server's protocols (no agents)")
    p.set_defaults(func=lambda _args: selftest.run())
    p = sub.add_parser("index", help="list recorded captures: size and labelled states")
    p.add_argument("folders", nargs="*", help="capture folders (default captures/*-lab)")
    p.set_defaults(func=cmd_index)
    p = sub.add_parser("relabel", help="recompute label offsets of recorded captures")
    p.add_argument("folders", nargs="*", help="capture folders (default captures/*-lab)")
    p.set_defaults(func=cmd_relabel)
    p = sub.add_parser("list", help="installed agents, versions and scenarios")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("record", help="record scenarios into captures/<agent>-<version>-lab/")
    p.add_argument("--agent", default="claude", help="comma-separated agent names")
    p.add_argument(
        "--size",
        help=f"comma-separated COLSxROWS (default {SIZES}; with --dress, {DRESS_SIZE})",
    )
    p.add_argument("--scenario", default="all", help="comma-separated names, or all")
    p.add_argument("--out", help="output folder (default captures/<agent>-<version>-lab)")
    p.add_argument(
        "--agent-version",
        help="an installed release other than the default (claude: npm-claude-<VER>/)",
    )
    p.add_argument("--config", help="a named configuration of the agent (see `list`)")
    p.add_argument(
        "--dress",
        help="comma-separated dresses, each into captures/<agent>-<version>-lab-<dress>/; "
        "`a+b` wears two at once (see `list`)",
    )
    p.add_argument("--retries", type=int, default=1, help="re-runs of a failed recording")
    p.add_argument("--keep", action="store_true", help="keep the throwaway run directory")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="narrate; also keep the fake server's request log next to the capture",
    )
    p.set_defaults(func=cmd_record)
    p = sub.add_parser(
        "drift",
        help="install each agent's latest release beside the pinned one, record and score it",
    )
    p.add_argument("--agent", default="all", help="comma-separated agent names, or all")
    p.add_argument(
        "--no-install",
        action="store_true",
        help="use what an earlier run installed under $OSF_AGENTLAB_HOME/drift/",
    )
    p.add_argument(
        "--no-record",
        action="store_true",
        help="score what an earlier run recorded (after a rule change); implies --no-install",
    )
    p.add_argument(
        "--keep-captures",
        action="store_true",
        help="record into captures/<agent>-<latest>-lab/ (to commit) instead of the scratch prefix",
    )
    p.add_argument(
        "--scenario", help=f"comma-separated scenarios (default: {','.join(drift.STANDARD)})"
    )
    p.add_argument("--json", action="store_true", help="one JSON list instead of the table")
    p.set_defaults(func=cmd_drift)
    args = ap.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
