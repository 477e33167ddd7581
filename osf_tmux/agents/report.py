"""The hook endpoint: an agent's hook runs `python -I -S .../osf_tmux/agents/report.py AGENT
[PAYLOAD]`.

It reads the hook's JSON payload (stdin, or the last argument for Codex's `notify` program),
turns it into a state and records `@osf_report` = `STATE EPOCH AGENT` on the pane the agent runs
in (`$TMUX_PANE` on the server in `$TMUX`), then wakes the daemon by signalling its tmux wait
channel in the same tmux call (no process id: nothing but the daemon's waiter can be woken). The
agent waits for this process, so it stays cheap: no click, no subprocess module (posix_spawn
instead), one tmux call. It never fails the agent: it prints nothing and always exits 0, and
outside tmux it does nothing at all.

Hook event names and payload fields are the agents' API, so they live in Python, in each agent's
module (osf_tmux/agents/claude.py, ...); the screen texts and keys of each agent live in
rules/*.toml."""

from __future__ import annotations

import os
import sys
import time

# Only what the interpreter has loaded anyway, plus two C modules: `json` (via `re`, `enum`,
# `functools`), `signal` (via `enum`), `collections.abc` and `typing` would cost more at start-up
# than the tmux call does. Annotations are strings (`from __future__`), so these are for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Mapping, Sequence
    from typing import Any
else:
    import _signal as signal  # the C half of `signal`: the same functions, no enum

TMUX_TIMEOUT = 2  # seconds; a wedged tmux server must not hold the agent up for long
# Payloads seen are under 2 kB; a hook for writing a large file carries the file. Past this the
# payload is read and dropped (the agent's write must not fail), not kept: no report then.
STDIN_CAP = 1 << 20
_child = 0  # the tmux client running now, killed if the alarm goes off first
# The daemon's wake channel (osf_tmux/daemon/tmux_hooks.py CHANNEL; a test keeps them equal).
WAKE_CHANNEL = "osf-tmux-wake"


def state_for(agent: str, payload: Mapping[str, Any]) -> str | None:
    """The state a hook payload reports, or None when it says nothing we use."""
    module = _agent_module(agent)
    if module is None:
        return None
    event = payload.get("hook_event_name")
    if not isinstance(event, str):
        special = getattr(module, "payload_state", None)  # a payload without an event name
        return special(payload) if special is not None else None
    events = module.EVENTS
    if event not in events:
        return None
    state = events[event]
    if state is None:
        kind = payload.get("notification_type")
        return module.NOTIFICATIONS.get(kind) if isinstance(kind, str) else None
    return state  # type: ignore[no-any-return]


def _agent_module(agent: str) -> Any:
    """The agent's module (osf_tmux/agents/AGENT.py), or None for an agent without hooks. Only
    names in the table are imported: the argument comes from a settings file."""
    from osf_tmux.agents import HOOKED

    if agent not in HOOKED:
        return None
    name = "osf_tmux.agents." + agent.replace("-", "_")  # `grok-build`: grok_build.py
    __import__(name)
    return sys.modules[name]


def read_payload(args: Sequence[str], stdin_fd: int = 0) -> dict[str, Any] | None:
    """The payload from a JSON argument (Codex notify) or from stdin (hooks)."""
    text: str | bytes | None = None
    if args and args[-1].lstrip().startswith("{"):
        text = args[-1]
    elif not os.isatty(stdin_fd):
        # A hook's stdin is a pipe the agent closes. Never read a terminal: that would wait for
        # the person's keystrokes (and steal them).
        text = _read_capped(stdin_fd, STDIN_CAP)
    if not text:
        return None
    data = parse_json(text)
    return data if isinstance(data, dict) else None


def parse_json(text: str | bytes) -> Any:
    """A JSON document, or None. CPython's C scanner (`_json`) parses it without importing
    `json` and `re`; elsewhere, or if it is missing, the `json` module does."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text.strip()
    try:
        import _json

        context: Any = _JsonContext()
        value, end = _json.make_scanner(context)(text, 0)
    except ImportError:
        import json

        try:
            return json.loads(text)
        except ValueError:
            return None
    except Exception:  # malformed: the C scanner cannot even build its error without `json`
        return None
    return value if end == len(text) else None


class _JsonContext:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity


def _read_capped(fd: int, cap: int) -> bytes | None:
    """Everything `fd` gives until end of file, or None when that is more than `cap` bytes
    (the rest is read and thrown away as it comes, so memory stays at `cap`)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            chunks.clear()
            while os.read(fd, 65536):
                pass
            return None
        chunks.append(chunk)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def record(
    agent: str,
    state: str,
    env: Mapping[str, str],
    now: float,
    tmux: str = "tmux",
) -> bool:
    """Set `@osf_report` on `$TMUX_PANE` and signal the daemon's wake channel, in one tmux
    call. With no daemon running, tmux keeps the signal for the next one; no process is ever
    signalled. True if tmux took it."""
    socket = env.get("TMUX", "").split(",", 1)[0]
    pane = env.get("TMUX_PANE", "")
    if not socket or not pane:
        return False
    argv = [
        tmux, "-S", socket,
        "set-option", "-p", "-t", pane, "@osf_report", f"{state} {now:.3f} {agent}", ";",
        "wait-for", "-S", WAKE_CHANNEL,
    ]  # fmt: skip
    return _run(argv) is not None


def _run(argv: list[str]) -> str | None:
    """Run a program and return its stdout, without the subprocess module (its import alone
    costs more than the tmux call)."""
    read_fd, write_fd = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        actions = [
            (os.POSIX_SPAWN_DUP2, devnull, 0),
            (os.POSIX_SPAWN_DUP2, write_fd, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
        ]
        global _child
        try:
            pid = _child = os.posix_spawnp(argv[0], argv, dict(os.environ), file_actions=actions)
        except OSError:
            return None
        os.close(write_fd)
        write_fd = -1
        out = _read_all(read_fd)
        _, status = os.waitpid(pid, 0)
        _child = 0
        return out.decode("utf-8", "replace") if os.waitstatus_to_exitcode(status) == 0 else None
    finally:
        for fd in (read_fd, write_fd, devnull):
            if fd >= 0:
                os.close(fd)


def run(args: Sequence[str], env: Mapping[str, str], stdin_fd: int = 0) -> str | None:
    """Everything the endpoint does; returns the state it recorded (None: nothing)."""
    # The payload is read whatever happens next: an agent writing to a hook that never reads
    # could get EPIPE and count it as a failed hook.
    payload = read_payload(args[1:], stdin_fd)
    if not args or payload is None or not (env.get("TMUX") and env.get("TMUX_PANE")):
        return None
    agent = args[0]
    state = state_for(agent, payload)
    if state is None:
        return None
    record(agent, state, env, time.time())
    return state


def _give_up(signum: int, frame: Any) -> None:
    # A frozen tmux server leaves its client waiting forever: it goes with us, not orphaned.
    if _child > 0:
        try:  # noqa: SIM105 - contextlib would cost the endpoint an import
            os.kill(_child, signal.SIGKILL)
        except OSError:
            pass
    os._exit(0)


def main() -> None:
    try:
        # Run by path with -I: the package's own folder is not on sys.path; put the folder that
        # holds it there (first: nothing the agent's project holds can shadow it).
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
        signal.signal(signal.SIGALRM, _give_up)
        signal.setitimer(signal.ITIMER_REAL, TMUX_TIMEOUT)
        run(sys.argv[1:], os.environ)
    except BaseException:  # the agent must never see us fail
        pass
    os._exit(0)  # no interpreter teardown: nothing left to flush, and it costs milliseconds


if __name__ == "__main__":
    main()
