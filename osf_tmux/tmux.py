"""Talking to one tmux server: which server, running commands, one `list-panes` per sweep.

Commands go through the tmux binary (a few ms each); callers join several commands into one
call where they can, because the process start dominates the cost. One call carries at most
16 KB of arguments (tmux's message size), so long lists go in as many calls as they need."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# A separator that never occurs in pane titles or names in practice and survives tmux's output.
SEP = "\u241e"


class TmuxError(RuntimeError):
    """A tmux command failed; the message carries the command and tmux's own words."""


class NoServerError(TmuxError):
    """The tmux server is not running (or its socket is gone)."""


# The last one: the server went away while the call ran (killed, or crashed).
_NO_SERVER = re.compile(
    r"no server running|error connecting to|No such file or directory|server exited"
)

# tmux 3.4 (only: 3.3a and 3.5 do not) prints a `\` before each `$` that starts a name (`$NAME`,
# `$_x`, `${`) in whatever a command prints: an @osf-notify-command of `echo "$OSF_PANE"` read
# back as `echo "\$OSF_PANE"` ran with no variable in it. It only ever adds that one backslash
# (a `\$X` of one's own prints as `\\$X`), so taking one off before each such `$` undoes it.
_ESCAPED_DOLLAR = re.compile(r"\\\$(?=[A-Za-z_{])")
DOLLAR_ESCAPING_TMUX = ("3.4",)
# What these print is the pane's or the buffer's text as it is, on 3.4 too: left alone.
RAW_OUTPUT = frozenset(("capture-pane", "capturep", "show-buffer", "showb", "save-buffer", "saveb"))


def unescape_dollars(output: str) -> str:
    r"""What tmux 3.4 printed, as the text was: one `\` fewer before each `$NAME`."""
    return _ESCAPED_DOLLAR.sub("$", output)


# tmux sends a command to its server as one message of at most 16384 bytes (MAX_IMSGSIZE), the
# arguments packed with a NUL each; past that the client says `command too long` and runs
# nothing. A call is kept well below it.
CALL_BYTES = 12_000

Command = Sequence[str]


@dataclass
class BatchResult:
    """What a batched run gave: the calls' output joined, and the errors of the calls that
    failed (tmux stops a call at its first failing command; the other calls still ran)."""

    output: str = ""
    errors: list[TmuxError] = field(default_factory=list)


def command_bytes(command: Command) -> int:
    return sum(len(a.encode()) + 2 for a in command) + 2  # each argument, its NUL, a `;`


def batches(groups: Iterable[Sequence[Command]], limit: int = CALL_BYTES) -> list[list[Command]]:
    """Groups of commands packed into calls of at most `limit` bytes; a group is never split
    (a pane's `pipe-pane` and the option that marks it go together). A group larger than the
    limit gets a call of its own."""
    calls: list[list[Command]] = []
    current: list[Command] = []
    size = 0
    for group in groups:
        group_size = sum(command_bytes(c) for c in group)
        if current and size + group_size > limit:
            calls.append(current)
            current, size = [], 0
        current.extend(group)
        size += group_size
    if current:
        calls.append(current)
    return calls


@dataclass(frozen=True)
class ServerSpec:
    """Which tmux server, selected like tmux does: `-L NAME`, `-S PATH`, else the one in $TMUX."""

    socket_name: str | None = None
    socket_path: str | None = None

    @classmethod
    def select(
        cls, name: str | None, path: str | None, env: Mapping[str, str] | None = None
    ) -> ServerSpec:
        if name and path:
            raise ValueError("give -L NAME or -S PATH, not both")
        if name or path:
            return cls(name, path)
        env = os.environ if env is None else env
        inside = env.get("TMUX", "")
        if inside:
            return cls(None, inside.split(",", 1)[0])
        return cls()

    def args(self) -> list[str]:
        if self.socket_path:
            return ["-S", self.socket_path]
        if self.socket_name:
            return ["-L", self.socket_name]
        return []

    def socket(self, env: Mapping[str, str] | None = None) -> Path:
        """The socket's path, as tmux would compute it."""
        if self.socket_path:
            return Path(self.socket_path)
        env = os.environ if env is None else env
        tmpdir = env.get("TMUX_TMPDIR") or "/tmp"
        return Path(tmpdir) / f"tmux-{os.getuid()}" / (self.socket_name or "default")

    def key(self) -> str:
        """A file-name-safe identity for per-server state (lock, log, pipes)."""
        sock = str(self.socket().absolute())
        digest = hashlib.sha1(sock.encode()).hexdigest()[:8]
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(sock).name)[:40]
        return f"{base}-{digest}"

    def describe(self) -> str:
        return shlex.join(["tmux", *self.args()]) if self.args() else "tmux (default server)"

    def not_running(self) -> str:
        """What to say when this server does not answer."""
        outside = "" if self.args() else " (outside tmux: start tmux, or give -L NAME / -S PATH)"
        return f"no tmux server running for {self.describe()}{outside}"


class Tmux:
    """Runs tmux commands against one server."""

    def __init__(self, server: ServerSpec, binary: str = "tmux", timeout: float = 10.0) -> None:
        self.server = server
        self.binary = binary
        self.timeout = timeout
        self.calls = 0
        self._escapes_dollars: bool | None = None  # asked of the server once, when it matters

    def argv(self) -> list[str]:
        """The tmux program and the server's flags, for a command line of one's own."""
        return [self.binary, *self.server.args()]

    def run(self, *args: str) -> str:
        """Run one tmux command; its stdout, or TmuxError with the command and tmux's message."""
        return self.run_many([list(args)])

    def run_batched(self, groups: Iterable[Sequence[Command]]) -> BatchResult:
        """Commands in as few tmux processes as their size allows (see `batches`). Every call
        runs even when an earlier one failed; only a server that is gone stops them all."""
        result = BatchResult()
        outputs = []
        for call in batches(groups):
            try:
                outputs.append(self.run_many(call))
            except NoServerError:
                raise
            except TmuxError as exc:
                result.errors.append(exc)
        result.output = "".join(outputs)
        return result

    def run_each(self, commands: Sequence[Command]) -> BatchResult:
        """Commands that must not depend on one another: batched, and a call that failed is
        run again one command per process, so a single failure skips nothing but itself."""
        result = BatchResult()
        outputs = []
        for call in batches([c] for c in commands):
            try:
                outputs.append(self.run_many(call))
                continue
            except NoServerError:
                raise
            except TmuxError as exc:
                if len(call) == 1:
                    result.errors.append(exc)
                    continue
            for command in call:
                try:
                    outputs.append(self.run_many([command]))
                except NoServerError:
                    raise
                except TmuxError as exc:
                    result.errors.append(exc)
        result.output = "".join(outputs)
        return result

    def command_line(self, commands: Sequence[Command]) -> list[str]:
        """The argv of one tmux process running `commands` (joined with `;`). tmux's client
        takes an argument that ends in `;` as the end of a command, so every such argument is
        escaped: text from a pane never decides where tmux splits a command line."""
        argv = self.argv()
        for i, command in enumerate(commands):
            if i:
                argv.append(";")
            argv.extend(escape_semicolon(a) for a in command)
        return argv

    def run_many(self, commands: Sequence[Command]) -> str:
        """Several commands in one tmux process (joined with `;`). They must fit into one call
        (`run_batched` splits long lists)."""
        argv = self.command_line(commands)
        self.calls += 1
        try:
            proc = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=self.timeout,
                errors="replace",
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise TmuxError(f"{self.binary} is not installed or not on PATH") from None
        except subprocess.TimeoutExpired:
            raise TmuxError(f"{shlex.join(argv)} did not answer in {self.timeout:.0f}s") from None
        if proc.returncode != 0:
            message = proc.stderr.strip() or f"exit status {proc.returncode}"
            error = NoServerError if _NO_SERVER.search(message) else TmuxError
            raise error(f"{shlex.join(argv)}: {message}")
        if any(command and command[0] in RAW_OUTPUT for command in commands):
            return proc.stdout
        return self._as_printed(proc.stdout)

    def _as_printed(self, output: str) -> str:
        r"""`output` as tmux meant it: on tmux 3.4, without the `\` it put before `$NAME`s.
        The server's version is asked only when the output holds one (rarely)."""
        if not _ESCAPED_DOLLAR.search(output):
            return output
        if self._escapes_dollars is None:
            version = self.run("display-message", "-p", "#{version}").strip()
            self._escapes_dollars = version in DOLLAR_ESCAPING_TMUX
        return unescape_dollars(output) if self._escapes_dollars else output

    def alive(self) -> bool:
        try:
            self.run("display-message", "-p", "#{pid}")
        except NoServerError:
            return False
        return True


def quote(arg: str) -> str:
    """`arg` as one word of a tmux command string (what `if-shell` and hooks take): in double
    quotes, where tmux's parser would otherwise expand `$NAME` and take `\\` and `"`."""
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def escape_semicolon(arg: str) -> str:
    """One argument as tmux's client must get it to keep it whole: it ends a command at an
    argument ending in `;` (dropping that `;`) and turns a final `\\;` into `;`. So the last
    `;` gets a `\\` before it: `a;` arrives as `a;`, `a\\;` as `a\\;`."""
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


PANE_FIELDS = (
    "pane_id",
    "pane_pid",
    "pane_tty",
    "pane_width",
    "pane_height",
    "pane_pipe",
    "pane_dead",
    "pane_active",
    "window_active",
    "window_id",
    "session_id",
    "session_name",
    "window_index",
    "pane_index",
    "session_attached",
    "pane_current_command",
    "@osf-agent",
    "@osf-generic-processes",
    "@osf_report",
    "@osf_pipe",
    "alternate_on",
)


# Shells: never given the generic rules by name (`@osf-generic-processes`), so that an ordinary
# shell prompt never gets a state.
SHELLS = frozenset(
    ("sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "pwsh", "xonsh",
     "elvish", "login", "-bash", "-zsh", "-sh", "-fish")
)  # fmt: skip


def listed_names(option: str) -> frozenset[str]:
    """The program names an option such as `@osf-generic-processes` lists: separated by spaces
    or commas."""
    return frozenset(option.replace(",", " ").split())


@dataclass(frozen=True)
class PaneInfo:
    """One pane as a single `list-panes -a` reports it."""

    pane_id: str
    pid: int
    tty: str
    width: int
    height: int
    piped: bool
    dead: bool
    active: bool
    window_active: bool
    window_id: str
    session_id: str
    session_name: str
    window_index: str
    pane_index: str
    session_attached: int
    current_command: str
    agent_override: str
    report: str
    our_pipe: str
    alt_screen: bool
    # `@osf-generic-processes` as it applies to the pane (its own, its window's, ... global):
    # program names whose panes get the `generic` rules.
    generic_processes: str = ""

    @property
    def address(self) -> str:
        return f"{self.session_name}:{self.window_index}.{self.pane_index}"

    @property
    def seen(self) -> bool:
        """On the screen of an attached client: the active pane of its session's window."""
        return self.active and self.window_active and self.session_attached > 0


def list_panes_format() -> str:
    return SEP.join(f"#{{{f}}}" for f in PANE_FIELDS)


def parse_panes(output: str) -> list[PaneInfo]:
    return [p for line in output.splitlines() if (p := parse_pane_line(line)) is not None]


def parse_pane_line(line: str) -> PaneInfo | None:
    """One line of `list-panes -F list_panes_format()`; None if it is not one."""
    parts = line.split(SEP)
    if len(parts) != len(PANE_FIELDS):
        return None
    f = dict(zip(PANE_FIELDS, parts, strict=True))
    return PaneInfo(
        pane_id=f["pane_id"],
        pid=_int(f["pane_pid"]),
        tty=f["pane_tty"],
        width=_int(f["pane_width"]),
        height=_int(f["pane_height"]),
        piped=f["pane_pipe"] == "1",
        dead=f["pane_dead"] == "1",
        active=f["pane_active"] == "1",
        window_active=f["window_active"] == "1",
        window_id=f["window_id"],
        session_id=f["session_id"],
        session_name=f["session_name"],
        window_index=f["window_index"],
        pane_index=f["pane_index"],
        session_attached=_int(f["session_attached"]),
        current_command=f["pane_current_command"],
        agent_override=f["@osf-agent"],
        report=f["@osf_report"],
        our_pipe=f["@osf_pipe"],
        alt_screen=f["alternate_on"] == "1",
        generic_processes=f["@osf-generic-processes"],
    )


def list_panes(tmux: Tmux) -> list[PaneInfo]:
    return parse_panes(tmux.run("list-panes", "-a", "-F", list_panes_format()))


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0
