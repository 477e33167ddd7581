"""Where pane bytes come from: `pipe-pane -O` into one FIFO per pane, read without blocking.

The daemon keeps a writer open on each FIFO itself so that the read side never sees end-of-file
while tmux's `cat` comes and goes; whether tmux's pipe is still open is read from `#{pane_pipe}`.
When the daemon dies, `cat` fails on its next write and exits, and tmux closes the pipe when it
next writes to it. `cat` says why it ended in a file beside the FIFO: an error there means its
reader (a daemon) went away, so the next daemon knows the pipe for its own and takes it back;
none means tmux closed it (the pane closed, or someone put their own `pipe-pane` in its place)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shlex
import stat
import sys
import termios
from dataclasses import dataclass
from pathlib import Path

from osf_tmux.paths import UnsafeDirectoryError, open_private, private_dir
from osf_tmux.tmux import SEP, Tmux, quote

READ_SIZE = 1 << 16
PIPE_SIZE = 1 << 20  # Linux's default cap for unprivileged users (pipe-max-size)


def _fifo_name(pane_id: str) -> str:
    return "pane-" + re.sub(r"[^0-9A-Za-z]", "", pane_id)


@dataclass
class PanePipe:
    """The reading end of one pane's FIFO."""

    path: Path
    read_fd: int
    keep_fd: int
    writer_pid: int | None = None
    # The FIFO's modification stamp (ns) as last seen by `write_stamp`.
    stamp_ns: int = 0
    drained: bool = False  # the last `read` left the FIFO empty

    @property
    def pid_path(self) -> Path:
        return self.path.with_name(self.path.name + ".pid")

    @property
    def err_path(self) -> Path:
        """What `cat` wrote to its stderr: a write error once its reader is gone."""
        return self.path.with_name(self.path.name + ".err")

    def writer_gone(self) -> bool:
        """True once the `cat` tmux started for us has exited: tmux closed our pipe, or someone
        replaced it with their own `pipe-pane` (which `#{pane_pipe}` alone cannot tell)."""
        if self.writer_pid is None:
            text = _read_pid_file(self.pid_path)
            if text is None or not text.isdigit():
                return False  # not started yet
            self.writer_pid = int(text)
        try:
            os.kill(self.writer_pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def read(self, limit: int = 8) -> bytes:
        """Everything available now (at most `limit` reads); b'' when there is nothing.
        `drained` says whether the FIFO was left empty."""
        chunks = []
        self.drained = False
        for _ in range(limit):
            try:
                chunk = os.read(self.read_fd, READ_SIZE)
            except BlockingIOError:
                self.drained = True
                break
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EINTR):
                    break
                raise
            if not chunk:
                self.drained = True
                break
            chunks.append(chunk)
            if len(chunk) < READ_SIZE:
                self.drained = True
                break
        return b"".join(chunks)

    def write_stamp(self) -> float | None:
        """When the latest write into the FIFO happened, in wall-clock seconds, or None when
        that cannot be told.

        Linux stamps a FIFO's mtime on every write, from its coarse clock (a tick, about 4 ms,
        behind). So after a read, the stamp says how long the pane has been quiet already, and
        a frame that went quiet before the read need not be looked at again to know it is
        complete. A stamp that has not moved since the last call is no evidence: the
        filesystem may not keep it, or two writes fell within one tick."""
        try:
            stamp = os.fstat(self.read_fd).st_mtime_ns
        except OSError:
            return None
        if stamp == self.stamp_ns:
            return None
        self.stamp_ns = stamp
        return stamp / 1e9

    def written_since(self, wall: float) -> bool:
        """Whether bytes came into the FIFO at `wall` (wall-clock seconds) or later, or wait
        in it unread: the pane drew while, say, a `capture-pane` was taken. Leaves the stamp
        `write_stamp` compares with alone."""
        try:
            stamp = os.fstat(self.read_fd).st_mtime_ns / 1e9
            waiting = fcntl.ioctl(self.read_fd, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return False
        return stamp >= wall or int.from_bytes(waiting, sys.byteorder) > 0

    def close(self) -> None:
        for fd in (self.read_fd, self.keep_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        for path in (self.path, self.pid_path, self.err_path):
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass
class PipeFactory:
    """Makes FIFOs in the daemon's runtime directory and attaches them with `pipe-pane -O`."""

    directory: Path

    def prepare(self) -> None:
        """The directory private (ours, 0700), or UnsafeDirectoryError: every byte the panes
        print goes through it."""
        private_dir(self.directory)

    def open(self, pane_id: str) -> PanePipe:
        path = self.directory / _fifo_name(pane_id)
        with contextlib.suppress(FileNotFoundError):
            if not _own_fifo(path.lstat()):
                path.unlink()
        if not path.exists():
            os.mkfifo(path, 0o600)
        # Never through a symlink, and only a FIFO of ours: whoever else holds a pane's FIFO
        # reads everything the pane prints.
        read_fd = open_private(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not _own_fifo(os.fstat(read_fd)):
                raise UnsafeDirectoryError(f"{path} is not a FIFO of ours; not reading it")
            keep_fd = open_private(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            os.close(read_fd)
            raise
        _widen(read_fd)
        pipe = PanePipe(path, read_fd, keep_fd, stamp_ns=os.fstat(read_fd).st_mtime_ns)
        for stale in (pipe.pid_path, pipe.err_path):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        return pipe

    def earlier_pipe(self, pane_id: str) -> str:
        """What became of the `cat` an earlier daemon attached to this pane (the pane's
        `@osf_pipe` says ours): `alive`; `orphaned`, it ended on a write error because that
        daemon was gone (the pipe is ours, and dead); `replaced`, it ended at end-of-file, so
        tmux closed it for someone's `pipe-pane` (keep theirs); `unknown`, no trace is left."""
        old = PanePipe(self.directory / _fifo_name(pane_id), -1, -1)
        try:
            if old.err_path.stat().st_size > 0:
                return "orphaned"
        except OSError:
            pass
        if _read_pid_file(old.pid_path) is None:
            return "unknown"
        return "replaced" if old.writer_gone() else "alive"

    def remove_leftovers(self, keep: set[Path]) -> int:
        """FIFOs and their files that no open pipe uses (an earlier daemon's, for panes gone
        since); returns how many were removed."""
        removed = 0
        try:
            entries = list(self.directory.iterdir())
        except OSError:
            return 0
        for entry in entries:
            base = entry.name.split(".", 1)[0]
            if not base.startswith("pane-") or entry.with_name(base) in keep:
                continue
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
        return removed

    def attach_command(
        self, pipe: PanePipe, pane_id: str, token: str, take_over: bool = False
    ) -> list[list[str]]:
        """tmux commands that point the pane's output at the FIFO and mark the pipe as ours.

        `-O` without `-o`: `-o` would toggle, closing a pipe instead of opening one. Unless
        `take_over` (the pipe there is an earlier daemon's), the pipe is opened only if the
        pane has none when tmux runs the command: between our listing and this call, someone
        (tmux-logging started by a hook of a new window, say) may have opened theirs, and
        `pipe-pane` would replace it."""
        # `exec` keeps the shell's pid for cat, so the pid file names the process that reads.
        # SIGPIPE ignored: a write to a FIFO nobody reads fails with an error that cat reports
        # (into the .err file) instead of killing it without a word.
        shell = (
            f"trap '' PIPE; echo $$ > {shlex.quote(str(pipe.pid_path))}; "
            f"exec cat > {shlex.quote(str(pipe.path))} 2> {shlex.quote(str(pipe.err_path))}"
        )
        attach = [
            ["pipe-pane", "-O", "-t", pane_id, shell],
            ["set-option", "-p", "-t", pane_id, "@osf_pipe", token],
        ]
        if take_over:
            return attach
        then = " ; ".join(" ".join(quote(a) for a in command) for command in attach)
        return [["if-shell", "-F", "-t", pane_id, "#{?pane_pipe,0,1}", then]]


def _own_fifo(st: os.stat_result) -> bool:
    return stat.S_ISFIFO(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def _read_pid_file(path: Path) -> str | None:
    """The text of a pid file `cat`'s shell wrote, read through no symlink and only from a
    regular file of ours (a FIFO put in its place would block the daemon); None otherwise."""
    try:
        fd = open_private(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return None
        return os.read(fd, 64).decode(errors="replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def _widen(fd: int) -> None:
    """A larger FIFO buffer (Linux): a burst or a flood needs fewer wake-ups to drain, and
    `cat` stalls less often, so tmux buffers less on our behalf."""
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setpipe is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setpipe, PIPE_SIZE)


def detach_commands(pane_id: str) -> list[list[str]]:
    return [
        ["pipe-pane", "-t", pane_id],
        ["set-option", "-p", "-u", "-t", pane_id, "@osf_pipe"],
    ]


@dataclass(frozen=True)
class PaneCapture:
    """What `capture-pane` and a few formats say a pane shows."""

    pane_id: str
    cols: int
    rows_count: int
    cursor: tuple[int, int]
    cursor_visible: bool
    alt_screen: bool
    title: str
    lines: tuple[str, ...]
    main_lines: tuple[str, ...] | None = None  # the main screen behind the alternate one


def tabs_as_spaces(line: str, stops: frozenset[int], cols: int) -> str:
    """A `capture-pane -p` row with each tab as the blank cells it covers. tmux 3.6 and later
    keep a tab written over blank cells as one cell and print it as one `\t`; the screen has
    spaces there (up to the next tab stop, or the last column, as the cursor moved)."""
    if "\t" not in line:
        return line
    # Here, not at the top: the key commands import this module, and the widths' import (the
    # C library's wcwidth, typing) would cost each key press about 60 ms.
    from osf_tmux.vt.width import char_width

    out: list[str] = []
    x = 0
    for ch in line:
        if ch != "\t":
            out.append(ch)
            x += max(char_width(ch), 0)
            continue
        stop = min((s for s in stops if s > x), default=cols - 1)
        stop = min(stop, cols - 1)
        out.append(" " * max(stop - x, 0))
        x = max(stop, x)
    return "".join(out)


_CAPTURE_HEAD = "OSFCAP" + SEP
_MAIN_HEAD = "OSFMAIN" + SEP
_HEAD_FIELDS = (
    "#{pane_id}",
    "#{pane_width}",
    "#{pane_height}",
    "#{cursor_x}",
    "#{cursor_y}",
    "#{cursor_flag}",
    "#{alternate_on}",
    "#{pane_title}",
)


def capture_panes(
    tmux: Tmux, pane_ids: list[str], escapes: bool, alt: frozenset[str] = frozenset()
) -> dict[str, PaneCapture]:
    """Capture many panes in as few tmux calls as fit (one process start instead of one per
    pane). For panes in `alt` (in the alternate screen) the main screen behind it is captured
    too. A pane that could not be captured (it closed meanwhile) is missing from the answer;
    the others are there. Raises TmuxError only when no call went through."""
    if not pane_ids:
        return {}
    head = _CAPTURE_HEAD + SEP.join(_HEAD_FIELDS)
    esc = ["-e"] if escapes else []
    groups: list[list[list[str]]] = []
    for pane_id in pane_ids:
        group = [
            ["display-message", "-p", "-t", pane_id, head],
            ["capture-pane", "-p", *esc, "-t", pane_id],
        ]
        if pane_id in alt:
            # -q: a pane that left the alternate screen since the listing gives no lines
            # instead of failing the call.
            group.append(["display-message", "-p", "-t", pane_id, _MAIN_HEAD])
            group.append(["capture-pane", "-p", "-q", "-a", *esc, "-t", pane_id])
        groups.append(group)
    result = tmux.run_batched(groups)
    if result.errors and not result.output:
        raise result.errors[0]
    return parse_captures(result.output)


def parse_captures(output: str) -> dict[str, PaneCapture]:
    out: dict[str, PaneCapture] = {}
    head: list[str] | None = None
    lines: list[str] = []
    main: list[str] | None = None

    def flush() -> None:
        if head is None:
            return
        pane_id, w, h, cx, cy, cflag, alt, title = head
        rows = int(h) if h.isdigit() else len(lines)
        out[pane_id] = PaneCapture(
            pane_id,
            int(w or 0),
            rows,
            (int(cx or 0), int(cy or 0)),
            cflag == "1",
            alt == "1",
            title,
            _fit(lines, rows),
            None if main is None or alt != "1" else _fit(main, rows),
        )

    for line in output.split("\n"):
        if line.startswith(_CAPTURE_HEAD):
            flush()
            fields = line[len(_CAPTURE_HEAD) :].split(SEP)
            head = fields if len(fields) == len(_HEAD_FIELDS) else None
            lines, main = [], None
        elif line.startswith(_MAIN_HEAD) and head is not None:
            main = []
        elif main is not None:
            main.append(line)
        elif head is not None:
            lines.append(line)
    flush()
    return out


def _fit(lines: list[str], rows: int) -> tuple[str, ...]:
    return tuple((lines + [""] * rows)[:rows])
