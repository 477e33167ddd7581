"""Which program holds a pane's terminal: the foreground process group of its tty.

`tcgetpgrp()` on a pane's tty fails for anyone but tmux, so Linux reads `tpgid` from
/proc/<pane_pid>/stat (tens of microseconds), and macOS asks `ps`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROC = Path("/proc")


def foreground_pgid(pane_pid: int, proc: Path = PROC) -> int | None:
    """The pane's foreground process group, or None when the pane's process is gone."""
    if pane_pid <= 0:
        return None
    if proc.is_dir():
        try:
            stat = (proc / str(pane_pid) / "stat").read_text()
        except OSError:
            return None
        # comm (field 2) may contain spaces and parentheses: parse after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        try:
            tpgid = int(fields[5])
        except (IndexError, ValueError):
            return None
        return tpgid if tpgid > 0 else None
    return _ps_tpgid(pane_pid)


def process_argv(pid: int, proc: Path = PROC) -> list[str]:
    """The command line of `pid` (empty when it is gone or unreadable)."""
    if proc.is_dir():
        try:
            raw = (proc / str(pid) / "cmdline").read_bytes()
        except OSError:
            return []
        args = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
        if args:
            return args
        try:  # kernel threads and zombies have no cmdline; comm still names them
            return [(proc / str(pid) / "comm").read_text().strip()]
        except OSError:
            return []
    return _ps_args(pid)


def foreground_commands(pane_pid: int, proc: Path = PROC, limit: int = 16) -> list[list[str]]:
    """argv of the foreground group's leader, then of its descendants (nearest first).

    A wrapper that runs the agent without job control (`sh -c 'claude ...'`, npx, a launcher
    script) leads the group itself; the agent is one of its children."""
    pgid = foreground_pgid(pane_pid, proc)
    if pgid is None:
        return []
    out: list[list[str]] = []
    queue = [pgid]
    seen: set[int] = set()
    while queue and len(out) < limit:
        pid = queue.pop(0)
        if pid in seen:
            continue
        seen.add(pid)
        if pid != pgid and _pgrp(pid, proc) != pgid:
            continue  # a background job of the shell: not what the terminal shows
        argv = process_argv(pid, proc)
        if argv:
            out.append(argv)
        queue.extend(_children(pid, proc))
    return out


def _pgrp(pid: int, proc: Path) -> int | None:
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else None


def _children(pid: int, proc: Path) -> list[int]:
    try:
        text = (proc / str(pid) / "task" / str(pid) / "children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split() if c.isdigit()]


def _ps(pid: int, field: str) -> str:
    if sys.platform == "win32":  # pragma: no cover - tmux does not run there
        return ""
    try:
        out = subprocess.run(
            ["ps", "-o", f"{field}=", "-p", str(pid)], capture_output=True, text=True, timeout=2
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


def _ps_tpgid(pid: int) -> int | None:
    text = _ps(pid, "tpgid")
    return int(text) if text.isdigit() and int(text) > 0 else None


def _ps_args(pid: int) -> list[str]:
    text = _ps(pid, "command")
    return text.split() if text else []
