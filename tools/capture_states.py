"""Every capture's verdict at every pipe-pane read boundary, as one line per point.

Used to show that a change leaves the classifier's answers exactly as they were:

    python tools/capture_states.py > before.txt     # on the old commit
    python tools/capture_states.py > after.txt      # on the new one
    diff before.txt after.txt                       # nothing: no behaviour change

It runs `osf-tmux replay` (the CLI, so the same script works across refactors of the library)
on each `captures/*/*.bytes`, at every offset of its `.timing` file (or every 4 KiB without
one), and prints `capture offset state rule`."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def offsets(capture: Path) -> list[int]:
    timing = capture.with_suffix(".timing")
    size = capture.stat().st_size
    if timing.exists():
        found = {int(line.split()[0]) for line in timing.read_text().splitlines() if line.strip()}
    else:
        found = set(range(4096, size, 4096))
    return sorted(o for o in found | {size} if 0 < o <= size)


def judge(command: list[str], capture: Path) -> list[str]:
    points = offsets(capture)
    proc = subprocess.run(
        [*command, "replay", str(capture), "--at", ",".join(map(str, points)), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    name = capture.relative_to(ROOT).as_posix()
    if proc.returncode != 0:
        return [f"{name} ERROR {proc.stderr.strip()[-200:]}"]
    lines = []
    for raw in proc.stdout.splitlines():
        point = json.loads(raw)
        lines.append(f"{name} {point['offset']} {point['state']} {point['rule']}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="capture folders (default: all)")
    args = parser.parse_args()
    default_cmd = str(ROOT / ".venv" / "bin" / "osf-tmux")
    command = os.environ.get("OSF_CMD", default_cmd).split()
    folders = args.folders or sorted(p for p in (ROOT / "captures").iterdir() if p.is_dir())
    captures = sorted(c.resolve() for f in folders for c in Path(f).glob("*.bytes"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for lines in pool.map(lambda c: judge(command, c), captures):
            sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
