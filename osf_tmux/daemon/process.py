"""Which program holds a pane's terminal: the foreground process group of its tty.

`tcgetpgrp()` on a pane's tty fails for anyone but tmux, so Linux reads `tpgid` from
/proc/<pane_pid>/stat (tens of microseconds). Without /proc (macOS, the BSDs) one `ps -A` lists
every process with its parent, group and terminal group; it is shared by all panes of a sweep
(kept half a second), and walked the same way as /proc."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.tmux import SHELLS

PROC = Path("/proc")
PS_TTL = 0.5  # seconds a `ps -A` listing serves every pane that asks


@functools.lru_cache(maxsize=8)
def _has_proc(proc: Path) -> bool:
    """Whether `proc` is a /proc to read: asked per pane at every sweep and every agent's
    re-identification, answered by a stat (a system's /proc does not come and go)."""
    return proc.is_dir()


def _read_small(path: str) -> bytes | None:
    """A /proc file whole, or None when it cannot be read (the process is gone). Raw os calls
    and a str path: open() and pathlib cost more than the read itself (17 against 38 µs for a
    pane's two reads), and the sweep reads them for every agent's pane."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def foreground_pgid(pane_pid: int, proc: Path = PROC) -> int | None:
    """The pane's foreground process group, or None when the pane's process is gone."""
    if pane_pid <= 0:
        return None
    if _has_proc(proc):
        return _tpgid_and_name(pane_pid, proc)[0]
    return PS.table().tpgid(pane_pid)


def _tpgid_and_name(pid: int, proc: Path) -> tuple[int | None, str]:
    """From one read of /proc/<pid>/stat: its terminal's foreground group, and its name (comm:
    an exec or a rename changes it)."""
    raw = _read_small(f"{proc}/{pid}/stat")
    if raw is None:
        return None, ""
    stat = raw.decode("utf-8", "replace")
    # comm (field 2) may contain spaces and parentheses: parse after the last ')'.
    end = stat.rfind(")")
    fields = stat[end + 2 :].split()
    try:
        tpgid = int(fields[5])
    except (IndexError, ValueError):
        return None, ""
    return (tpgid if tpgid > 0 else None), stat[stat.find("(") + 1 : end]


def foreground_signature(pane_pid: int, proc: Path = PROC) -> tuple[int | None, str]:
    """What changes when the pane's foreground changes: its group, the children of the group's
    leader (a wrapper such as `sh -c 'claude'` starts the agent as a child), and what each of
    them runs. An `exec` keeps the pid: a program that draws and then execs the agent, or a
    child read between its fork and its exec, changes nothing else (issue #29).

    A shell at its prompt leads the group itself: its name comes with the read that found the
    group, and an exec changes it, so such a pane costs two small reads, as before. Any other
    leader and every child cost one more each: their command lines (`node a.js` exec'ing `node
    cli.js` keeps the name)."""
    if pane_pid <= 0:
        return None, ""
    if _has_proc(proc):
        pgid, name = _tpgid_and_name(pane_pid, proc)
        if pgid is None:
            return None, ""
        raw = _read_small(f"{proc}/{pgid}/task/{pgid}/children")
        children = raw.decode("ascii", "replace").split() if raw is not None else []
        leader = name if pgid == pane_pid and name in SHELLS else _cmdline(pgid, proc)
        # Compared, never parsed.
        return pgid, "\n".join([leader, *(f"{c} {_cmdline(int(c), proc)}" for c in children)])
    table = PS.table()
    pgid = table.tpgid(pane_pid)
    if pgid is None:
        return None, ""
    pids = [pgid, *table.children(pgid)]
    return pgid, "\n".join(f"{pid} {table.argv(pid)!r}" for pid in pids)


def _cmdline(pid: int, proc: Path) -> str:
    raw = _read_small(f"{proc}/{pid}/cmdline")
    return raw.decode("utf-8", "replace") if raw is not None else ""


def process_argv(pid: int, proc: Path = PROC) -> list[str]:
    """The command line of `pid` (empty when it is gone or unreadable)."""
    if _has_proc(proc):
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
    return PS.table().argv(pid)


def foreground_commands(pane_pid: int, proc: Path = PROC, limit: int = 16) -> list[list[str]]:
    """argv of the foreground group's leader, then of its descendants (nearest first).

    A wrapper that runs the agent without job control (`sh -c 'claude ...'`, npx, a launcher
    script) leads the group itself; the agent is one of its children."""
    if _has_proc(proc):
        return _walk(
            foreground_pgid(pane_pid, proc),
            lambda pid: _pgrp(pid, proc),
            lambda pid: _children(pid, proc),
            lambda pid: process_argv(pid, proc),
            limit,
        )
    table = PS.table()
    return _walk(table.tpgid(pane_pid), table.pgrp, table.children, table.argv, limit)


def _walk(
    pgid: int | None,
    pgrp: Callable[[int], int | None],
    children: Callable[[int], list[int]],
    argv_of: Callable[[int], list[str]],
    limit: int,
) -> list[list[str]]:
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
        if pid != pgid and pgrp(pid) != pgid:
            continue  # a background job of the shell: not what the terminal shows
        argv = argv_of(pid)
        if argv:
            out.append(argv)
        queue.extend(children(pid))
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


# ---- without /proc: one `ps -A` -------------------------------------------------------------


@dataclass(frozen=True)
class PsEntry:
    pid: int
    ppid: int
    pgid: int
    tpgid: int
    argv: tuple[str, ...]


@dataclass
class ProcessTable:
    """Every process as `ps -A -o pid=,ppid=,pgid=,tpgid=,command=` lists it. `ps` gives a
    command line as one string, so arguments are split at spaces (an argument that holds a
    space is split too: names of programs are what identifying an agent needs)."""

    entries: dict[int, PsEntry] = field(default_factory=dict)
    _kids: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> ProcessTable:
        table = cls()
        for line in text.splitlines():
            parts = line.split(None, 4)
            if len(parts) < 4 or not all(_is_int(p) for p in parts[:4]):
                continue
            pid, ppid, pgid, tpgid = (int(p) for p in parts[:4])
            argv = tuple(parts[4].split()) if len(parts) > 4 else ()
            table.entries[pid] = PsEntry(pid, ppid, pgid, tpgid, argv)
            table._kids.setdefault(ppid, []).append(pid)
        for kids in table._kids.values():
            kids.sort()
        return table

    def tpgid(self, pid: int) -> int | None:
        entry = self.entries.get(pid)
        return entry.tpgid if entry is not None and entry.tpgid > 0 else None

    def pgrp(self, pid: int) -> int | None:
        entry = self.entries.get(pid)
        return entry.pgid if entry is not None else None

    def children(self, pid: int) -> list[int]:
        return list(self._kids.get(pid, ()))

    def argv(self, pid: int) -> list[str]:
        entry = self.entries.get(pid)
        return list(entry.argv) if entry is not None else []


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


class PsCache:
    """One `ps -A` serves every question asked within PS_TTL seconds (a sweep asks once per
    pane; `ps` takes milliseconds)."""

    def __init__(self, clock: Clock | None = None, ttl: float = PS_TTL) -> None:
        self.clock = clock or SystemClock()
        self.ttl = ttl
        self._table: ProcessTable | None = None
        self._at = float("-inf")

    def table(self) -> ProcessTable:
        now = self.clock.now()
        if self._table is None or now - self._at >= self.ttl:
            self._table = ProcessTable.parse(_ps_all())
            self._at = now
        return self._table


def _ps_all() -> str:
    if sys.platform == "win32":  # pragma: no cover - tmux does not run there
        return ""
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=,ppid=,pgid=,tpgid=,command="],
            capture_output=True,
            text=True,
            timeout=5,
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout


PS = PsCache()
