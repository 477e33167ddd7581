"""A tmux control-mode client (`tmux -C`): commands in, their output back, no process per
command. Tests and benchmarks poll tmux through it, and press keys through an outer server
whose pane runs a real attached client of the server under test (`Terminal`)."""

from __future__ import annotations

import contextlib
import functools
import queue
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Callable

from tests.support.tmux_server import TmuxServer, WaitTimeout, retry_until


class ControlError(RuntimeError):
    """A command answered with %error; the message carries the command and tmux's words."""


class ControlMode:
    """`tmux -C attach` to one session of `server`. Its notifications (`%client-session-changed`,
    and `%output` of the session's panes when `output`) are kept for `wait_for`."""

    def __init__(self, server: TmuxServer, session: str = "osf-base", output: bool = False) -> None:
        self.server = server
        self.proc = subprocess.Popen(
            [server.tmux, "-L", server.socket_name, "-C", "attach", "-t", session],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._replies: queue.Queue[tuple[bool, list[str]]] = queue.Queue()
        self._notes: queue.Queue[tuple[float, str]] = queue.Queue()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._replies.get(timeout=10)  # the reply to the attach itself
        if not output:
            self.command("refresh-client -f no-output")
        self.name = self.command("display-message -p '#{client_name}'")[0]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        block: list[str] | None = None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if block is None:
                if line.startswith("%begin "):
                    block = []
                elif line.startswith("%"):
                    self._notes.put((time.perf_counter(), line))
                continue
            if line.startswith(("%end ", "%error ")):
                self._replies.put((line.startswith("%end "), block))
                block = None
            else:
                block.append(line)

    def command(self, line: str, timeout: float = 10.0) -> list[str]:
        """Run one tmux command line (tmux's own syntax); its output lines."""
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
            ok, lines = self._replies.get(timeout=timeout)
        if not ok:
            raise ControlError(f"{line}: {' '.join(lines)}")
        return lines

    def run(self, *argv: str, timeout: float = 10.0) -> list[str]:
        return self.command(" ".join(shlex.quote(a) for a in argv), timeout)

    def forget(self) -> None:
        """Drop the notifications received so far."""
        while not self._notes.empty():
            self._notes.get_nowait()

    def wait_for(self, wanted: Callable[[str], bool], timeout: float = 10.0) -> float:
        """The moment (time.perf_counter) the first notification `wanted` takes arrived."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such notification within the timeout")
            try:
                at, line = self._notes.get(timeout=left)
            except queue.Empty:
                continue
            if wanted(line):
                return at

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


class Terminal:
    """A real client of `inner`, attached from a pane of a second private server (`outer`),
    whose screen `outer` renders: keys are pressed with send-keys into that pane and what the
    client shows (status line, menus, colours) is read back with capture-pane."""

    def __init__(
        self,
        inner: TmuxServer,
        outer: TmuxServer,
        cols: int = 120,
        rows: int = 32,
        term: str | None = None,
    ) -> None:
        self.inner = inner
        self.outer = outer
        before = set(self._clients())
        # The client must not think it is nested (TMUX unset); `term` is the terminal it takes
        # the outer pane for (default: what the outer server says, `screen`: 8 colours).
        attach = ["env", "-u", "TMUX", "-u", "TMUX_PANE", *([f"TERM={term}"] if term else []),
                  inner.tmux, "-L", inner.socket_name, "attach", "-t", "osf-base"]  # fmt: skip
        self.pane = outer.new_pane(attach, cols, rows)
        self.name = retry_until(
            lambda: next(iter(set(self._clients()) - before), None), timeout=10, what="client"
        )
        session = outer.cmd("display-message", "-p", "-t", self.pane, "#{session_name}").strip()
        # Attached to the terminal's own session for its %output (a control client that never
        # set a size sizes no window); keys are typed through it too.
        self.keys = ControlMode(outer, session, output=True)
        self._takes_keys()

    def _takes_keys(self, timeout: float = 10.0) -> None:
        """Wait until a key typed reaches the client's key bindings. A tmux 3.6 client just
        attached can lose the first keys typed into it (`C-b W` printed `W` in the pane: 7 of
        10 tries on a loaded machine; 3.3a, 3.4, 3.5a and 3.7c lost none). A key bound only
        for this sets an option; it is pressed again until the option shows, then the binding
        and the option go."""
        probe, mark = "F12", "@osf_test_terminal_keys"
        self.inner.cmd("bind-key", "-n", probe, "set-option", "-g", mark, "1")
        deadline = time.monotonic() + timeout
        try:
            while True:
                self.press(probe)
                try:
                    retry_until(lambda: self.inner.cmd("show-options", "-gqv", mark).strip() == "1",
                                timeout=0.5, what="a key to reach the client")  # fmt: skip
                    return
                except WaitTimeout:
                    if time.monotonic() > deadline:
                        raise
        finally:
            self.inner.cmd("unbind-key", "-n", probe)
            self.inner.cmd("set-option", "-gu", mark)

    def _clients(self) -> list[str]:
        out = self.inner.cmd("list-clients", "-F", "#{client_control_mode} #{client_name}")
        return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("0 ")]

    def press(self, *keys: str) -> None:
        """Keys as tmux names them (`C-b`, `A`, `Escape`), typed into the client's terminal."""
        self.keys.run("send-keys", "-t", self.pane, *keys)

    def screen(self, colours: bool = False) -> list[str]:
        """What the client's terminal shows, row by row (with SGR escapes when `colours`)."""
        flags = ["-e"] if colours else []
        return self.keys.run("capture-pane", "-p", *flags, "-t", self.pane)

    def drawn(self, text: str, timeout: float = 10.0) -> float:
        """The moment (time.perf_counter) the client's terminal was sent `text`, from the
        output notifications since the last `keys.forget()`; waits for it."""
        seen = ""
        head = f"%output {self.pane} "

        def wanted(line: str) -> bool:
            nonlocal seen
            if line.startswith(head):
                seen += _unescape(line[len(head) :])
            return text in seen

        return self.keys.wait_for(wanted, timeout)

    def pane_shown(self) -> str:
        return shown_pane(self.inner, self.name)

    def showing(self, text: str) -> list[str] | None:
        screen = self.screen()
        return screen if any(text in row for row in screen) else None

    def wait_for(self, text: str, timeout: float = 10.0) -> list[str]:
        """The client's screen, once `text` is on it."""
        return retry_until(
            functools.partial(self.showing, text), timeout=timeout, what=f"{text!r} on screen"
        )

    def close(self) -> None:
        self.keys.close()
        self.outer.kill_pane(self.pane)
        deadline = time.monotonic() + 5
        while self.name in self._clients() and time.monotonic() < deadline:
            time.sleep(0.01)


def shown_pane(server: TmuxServer, client: str) -> str:
    """The pane `client` shows. From list-clients, which takes each client's own pane:
    display-message -c would take $TMUX_PANE's when the tests run inside tmux."""
    for line in server.cmd("list-clients", "-F", "#{client_name} #{pane_id}").splitlines():
        name, _, pane = line.rpartition(" ")
        if name == client:
            return pane
    return ""


def _unescape(data: str) -> str:
    """%output escapes control characters and backslashes as \\ooo (octal)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), data)
