"""A private tmux server for tests: its own `-L` socket, no config, reaped afterwards.

Never touches the user's default server. Tests wait with `retry_until`, not with bare sleeps."""

from __future__ import annotations

import functools
import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

TMUX = shutil.which("tmux")
WRITER = Path(__file__).with_name("pane_writer.py")


@functools.cache
def tmux_version_text() -> str:
    """`tmux -V` of the tmux the tests use ("tmux 3.3a"), or "" without one."""
    if TMUX is None:
        return ""
    proc = subprocess.run([TMUX, "-V"], capture_output=True, text=True, timeout=10)
    return proc.stdout.strip()


def tmux_version() -> tuple[int, int]:
    """(major, minor) of the tmux the tests use: (3, 3) for 3.3a; (0, 0) when unknown. For tests
    whose expectation differs between tmux releases (say why at the use)."""
    m = re.search(r"(\d+)\.(\d+)", tmux_version_text())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


class TmuxError(RuntimeError):
    """A tmux command failed; the message carries the command and its stderr."""


class WaitTimeout(AssertionError):
    pass


def retry_until(
    probe: Callable[[], T | None], timeout: float = 10.0, interval: float = 0.01, what: str = ""
) -> T:
    """Poll `probe` until it returns something other than None/False, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise WaitTimeout(f"timed out after {timeout:.1f}s waiting for {what or probe}")
        time.sleep(interval)


@dataclass(frozen=True)
class PaneState:
    """What tmux shows in a pane: the visible rows as `capture-pane -p` prints them."""

    cols: int
    rows: tuple[str, ...]
    cursor: tuple[int, int]
    cursor_visible: bool
    alt_screen: bool
    title: str


class TmuxServer:
    """One tmux server on a unique socket, started with `-f /dev/null`."""

    def __init__(self, socket_name: str | None = None) -> None:
        if TMUX is None:
            raise RuntimeError("tmux is not installed")
        self.tmux: str = TMUX
        self.socket_name = socket_name or f"osf-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.pid: int | None = None
        self._sessions = itertools.count(1)  # next() is atomic: panes are made from threads too

    def cmd(self, *args: str, check: bool = True) -> str:
        argv = [self.tmux, "-L", self.socket_name, "-f", "/dev/null", *args]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=outside_env())
        if check and proc.returncode != 0:
            raise TmuxError(f"{shlex.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def start(self) -> None:
        """Start the server with a placeholder session that keeps it alive between cases."""
        # The placeholder runs a plain sleep: the user's shell and its rc files stay out of it.
        self.cmd("new-session", "-d", "-s", "osf-base", "sleep 2147483647")
        self.pid = int(self.cmd("display-message", "-p", "#{pid}").strip())
        self.cmd("set-option", "-g", "status", "off")

    def kill(self) -> None:
        """kill-server, then make sure the process we started is really gone."""
        self.cmd("kill-server", check=False)
        pid = self.pid
        if pid is not None:
            try:
                retry_until(lambda: not _alive(pid), timeout=5, what="tmux server exit")
            except WaitTimeout:
                os.kill(pid, signal.SIGKILL)
        self.pid = None

    def new_pane(self, command: list[str], cols: int, rows: int) -> str:
        """A pane of exactly cols x rows running `command`; returns its pane id.

        Each pane gets its own detached session: `new-session -x -y` sizes the window before the
        command starts (a new window would start at the session size and be resized later, which
        races with a program that writes at once; `window-size manual` with no client crashes
        tmux 3.3a on new-window)."""
        session = f"case{next(self._sessions)}"
        pane = self.cmd(
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-s",
            session,
            "-x",
            str(cols),
            "-y",
            str(rows),
            shlex.join(command),
        ).strip()
        size = self.cmd("display-message", "-p", "-t", pane, "#{pane_width}x#{pane_height}")
        if size.strip() != f"{cols}x{rows}":
            raise TmuxError(f"pane {pane} is {size.strip()}, wanted {cols}x{rows}")
        return pane

    def kill_pane(self, pane: str) -> None:
        self.cmd("kill-pane", "-t", pane, check=False)

    def state(self, pane: str) -> PaneState:
        fmt = "#{pane_width} #{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{pane_title}"
        info = self.cmd("display-message", "-p", "-t", pane, fmt).rstrip("\n")
        width, cx, cy, cflag, alt, title = info.split(" ", 5)
        text = self.cmd("capture-pane", "-p", "-t", pane)
        rows = tuple(text.split("\n")[:-1])
        return PaneState(
            cols=int(width),
            rows=rows,
            cursor=(int(cx), int(cy)),
            cursor_visible=cflag == "1",
            alt_screen=alt == "1",
            title=title,
        )

    def replay(
        self,
        data: bytes,
        cols: int,
        rows: int,
        workdir: Path,
        resizes: tuple[tuple[int, int], ...] = (),
    ) -> PaneState:
        """Write `data` verbatim into a fresh pane of cols x rows and return what tmux shows
        (after resizing the window to each of `resizes` in turn).

        The writer puts its tty in raw mode (no \\n -> \\r\\n), writes the bytes, then an OSC 7
        with a unique token: tmux handles pane output in order, so once #{pane_path} shows the
        token, every byte before it has been drawn."""
        token = uuid.uuid4().hex
        path = workdir / f"{token}.bytes"
        path.write_bytes(data)
        pane = self.new_pane([sys.executable, str(WRITER), str(path), token], cols, rows)
        try:
            retry_until(
                lambda: token in self.cmd("display-message", "-p", "-t", pane, "#{pane_path}"),
                timeout=20,
                what=f"pane {pane} to draw {len(data)} bytes",
            )
            for width, height in resizes:
                self.cmd("resize-window", "-t", pane, "-x", str(width), "-y", str(height))
                want = f"{width}x{height}"
                retry_until(
                    functools.partial(self._has_size, pane, want),
                    timeout=10,
                    what=f"pane {pane} to become {want}",
                )
            return self.state(pane)
        finally:
            self.kill_pane(pane)

    def _has_size(self, pane: str, size: str) -> bool:
        fmt = "#{pane_width}x#{pane_height}"
        return self.cmd("display-message", "-p", "-t", pane, fmt).strip() == size

    def default_title(self) -> str:
        """The title a pane has before its program sets one (the host name)."""
        return self.cmd("display-message", "-p", "-t", "osf-base:", "#{pane_title}").rstrip("\n")


def environ_now() -> dict[str, str]:
    """`os.environ` as a dict, also from a thread. pytest's main thread sets and deletes
    PYTEST_CURRENT_TEST at every phase of every test; a thread that copies the environment
    meanwhile (test_daemon_live's side-by-side replays start their panes and daemons in
    threads) lists the key, then finds it gone: KeyError (the whole suite, 2026-12-06 18:07).
    The copy is read again until no key went away under it."""
    while True:
        try:
            return dict(os.environ)
        except KeyError:
            continue


def outside_env() -> dict[str, str]:
    """Our environment as if we ran outside tmux. From inside a pane, $TMUX and $TMUX_PANE
    name the outer server's pane: tmux takes $TMUX_PANE for "the current pane" of a command
    that names none, and a server started with it keeps it for every run-shell job."""
    return {k: v for k, v in environ_now().items() if k not in ("TMUX", "TMUX_PANE")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); it is gone for our purposes once it is not running.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
