"""tmux's own answer for every conformance case, kept so the emulator can be checked without
tmux. Regenerate it from a real tmux (only when tmux or the cases change):

    python -m tests.support.screen_oracle --regen

Each entry is what `capture-pane -p` and the pane's formats showed: the rows' digest (full rows
for the small synthetic cases, where a failure should show the difference), the cursor, the
cursor flag, the alternate-screen flag and the title (null: tmux's default, the host name)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.support.conformance_cases import CAPTURE_POINTS, CASES, point_data, point_id, size_of

ORACLE = Path(__file__).resolve().with_name("tmux_oracle.json")


def rows_digest(rows: tuple[str, ...] | list[str]) -> str:
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()[:20]


def entry(
    rows: tuple[str, ...],
    cursor: tuple[int, int],
    cursor_visible: bool,
    alt_screen: bool,
    title: str | None,
    keep_rows: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "digest": rows_digest(rows),
        "cursor": list(cursor),
        "cursor_visible": cursor_visible,
        "alt_screen": alt_screen,
        "title": title or None,
    }
    if keep_rows:
        out["rows"] = list(rows)
    return out


def load() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(ORACLE.read_text(encoding="utf-8"))
    return data


def regenerate(keep: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """tmux's answer for every case and capture point; with `keep`, the answers it already
    holds are kept and tmux is asked only for the others (a new capture: seconds, not the
    many minutes of asking for every point again)."""
    from tests.support.tmux_server import TmuxServer

    server = TmuxServer()
    server.start()
    result: dict[str, dict[str, Any]] = {}
    try:
        default = server.default_title()
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            jobs: list[tuple[str, bytes, int, int, tuple[tuple[int, int], ...], bool]] = [
                (c.name, c.data, c.cols, c.rows, c.resizes, True) for c in CASES
            ]
            for path, offset in CAPTURE_POINTS:
                cols, rows = size_of(path)
                jobs.append(
                    (point_id(path, offset), point_data(path, offset), cols, rows, (), False)
                )
            if keep is not None:
                result = {job[0]: keep[job[0]] for job in jobs if job[0] in keep}
                jobs = [job for job in jobs if job[0] not in keep]
            for i, (name, data, cols, rows, resizes, with_rows) in enumerate(jobs):
                state = server.replay(data, cols, rows, work, resizes)
                title = None if state.title == default else state.title
                result[name] = entry(
                    state.rows,
                    state.cursor,
                    state.cursor_visible,
                    state.alt_screen,
                    title,
                    with_rows,
                )
                print(f"{i + 1}/{len(jobs)} {name}", file=sys.stderr)
    finally:
        server.kill()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--regen", action="store_true", help="ask a real tmux and rewrite")
    parser.add_argument(
        "--missing",
        action="store_true",
        help="with --regen: ask only for cases and points not recorded yet (new captures), "
        "and drop the answers of points that are gone",
    )
    args = parser.parse_args()
    if not args.regen:
        parser.print_help()
        return 2
    data = regenerate(load() if args.missing else None)
    ORACLE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(data)} entries to {ORACLE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
