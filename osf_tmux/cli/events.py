"""`osf-tmux wait` and `osf-tmux events`: the daemon's event feed for scripts and status bars.

Both read the running daemon's feed (osf_tmux/daemon/feed.py); neither polls tmux: `wait` asks
tmux once which pane was meant, then sleeps until the daemon reports a change."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import NoReturn

import click

from osf_tmux.cli.remote import fleet_host, remote_target, stream_there
from osf_tmux.cli.server import NoSuchPane, pane_id_of, pass_server
from osf_tmux.daemon.feed import (
    STATES,
    Event,
    FeedClosed,
    FeedError,
    Subscription,
    Wait,
    socket_path,
)
from osf_tmux.daemon.lifecycle import EXIT_NO_DAEMON, DaemonFiles
from osf_tmux.tmux import NoServerError, ServerSpec

EXIT_GONE = 4  # the pane does not exist, or closed while we waited
EXIT_TIMEOUT = 124  # as timeout(1)
SNAPSHOT_WAIT = 10.0  # the daemon sends the panes as they are at once; a loaded machine is slow


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"osf-tmux: {message}", err=True)
    _exit_now(code)


def _exit_now(code: int) -> NoReturn:
    """End the process at once, its output flushed. The interpreter's own teardown took
    35-180 ms on a loaded 2-core machine: time a script waiting on `wait` would lose."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        real = sys.stdout.fileno() >= 0
    except BrokenPipeError:
        _stdout_closed()
    except (OSError, ValueError):  # not a real file (click's test runner): exit normally
        real = False
    if real:
        os._exit(code)
    sys.exit(code)


def _subscribe(server: ServerSpec) -> Subscription:
    files = DaemonFiles.for_server(server)
    try:
        return Subscription.connect(socket_path(files.runtime))
    except FeedError as exc:
        _fail(f"{exc} for {server.describe()}", EXIT_NO_DAEMON)


def _pane_id(server: ServerSpec, target: str) -> str:
    try:
        return pane_id_of(server, target)
    except NoServerError:
        _fail(f"no tmux server running for {server.describe()}", EXIT_NO_DAEMON)
    except NoSuchPane as exc:
        _fail(str(exc), EXIT_GONE)


def _say(event: Event, as_json: bool) -> None:
    sys.stdout.write((event.to_json() if as_json else event.line()) + "\n")
    sys.stdout.flush()


def _stdout_closed() -> None:
    # The reader of our output left (`| head -1`): end quietly, without a flush error at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


@click.command("wait")
@click.argument("pane", required=False)
@click.option(
    "--until",
    "states",
    required=True,
    multiple=True,
    type=click.Choice(STATES, case_sensitive=False),
    help="The state to wait for, in any case (repeat it for any of several).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    metavar="S",
    help="Give up after S seconds: say it timed out, exit 124.",
)
@click.option("--any", "any_pane", is_flag=True, help="Any pane: the first to get there.")
@click.option(
    "--next",
    "fresh",
    is_flag=True,
    help="Only a change into the state counts, not being in it already.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the deciding event as JSON.")
@pass_server
def wait_cmd(
    server: ServerSpec,
    pane: str | None,
    states: tuple[str, ...],
    timeout: float | None,
    any_pane: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """Wait until PANE (%5, work:1.0, any tmux target) is in a state; print which pane.

    Wakes on the daemon's own report of the change, so it returns within a few milliseconds
    of the daemon's decision, and costs nothing while it waits. A pane already in the state
    counts at once (unless --next).

    Exit status: 0 the pane is in the state (its id, session:window.pane, agent and state are
    printed); 124 on --timeout; 4 no such pane, or it closed; 3 the daemon is not running or
    stopped.

    A pane on another machine (`devbox:work:1.0`, a host of @osf-hosts) is waited for there,
    through ssh: what the osf-tmux there prints and its exit status (255: ssh failed)."""
    if any_pane == (pane is not None):
        raise click.UsageError("give a PANE or --any (not both)")
    if pane is not None and (remote := remote_target(server, pane)) is not None:
        args = ["wait", remote.target, *(w for s in states for w in ("--until", s))]
        args += [*(["--timeout", repr(timeout)] if timeout is not None else []),
                 *(["--next"] if fresh else []), *(["--json"] if as_json else [])]  # fmt: skip
        stream_there(remote, args)
    deadline = None if timeout is None else time.monotonic() + timeout
    with _subscribe(server) as feed:
        # Subscribed first, asked tmux second: a pane closing in between is either missing
        # here or reported on the feed, never lost.
        wanted = None if pane is None else _pane_id(server, pane)
        wait = Wait(wanted, frozenset(states), fresh)
        synced = False
        while True:
            if synced:
                left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            else:  # the panes as they are count even with --timeout 0
                left = SNAPSHOT_WAIT
            try:
                event = feed.read(left)
            except FeedError as exc:
                _fail(str(exc), EXIT_NO_DAEMON)
            if event is None and not synced:
                _fail(f"the osf-tmux daemon did not answer within {left:g} s", EXIT_NO_DAEMON)
            if event is None:
                what = " or ".join(states)
                why = f"no pane got to {what}" if wanted is None else (
                    f"{wanted} ({pane}) did not get to {what}")  # fmt: skip
                _fail(f"timed out after {timeout:g} s: {why}", EXIT_TIMEOUT)
            synced = synced or event.kind == "synced"
            outcome = wait.feed(event)
            if outcome is None:
                continue
            if outcome.how == "stopped":
                _fail("the osf-tmux daemon stopped", EXIT_NO_DAEMON)
            if outcome.how == "gone":
                _fail(f"pane {event.pane} ({event.target}) closed", EXIT_GONE)
            try:
                if as_json:
                    _say(event, True)
                else:
                    fields = (event.pane, event.target, event.agent or "-", event.after or "-")
                    sys.stdout.write("\t".join(fields) + "\n")
            except BrokenPipeError:
                _stdout_closed()
            _exit_now(0)


@click.command("events")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@click.option(
    "--current",
    is_flag=True,
    help="First one line per pane with an agent, as it is now (kind `state`).",
)
@click.option(
    "--host", metavar="NAME", help="The events of a host of @osf-hosts, from its own daemon."
)
@click.option(
    "--hello",
    is_flag=True,
    help="For another osf-tmux's link to this machine: first a `hello` line (version, "
    "protocol), then every message of the feed as JSON, `synced` and `bye` included.",
)
@pass_server
def events_cmd(
    server: ServerSpec, as_json: bool, current: bool, host: str | None, hello: bool
) -> None:
    """Print each change of a pane's state as the daemon decides it, until it stops.

    One line per change: time, pane, session:window.pane, agent, before, after, rule, question
    (tab-separated; `-` for nothing; `gone` after a pane with an agent closed). With --json,
    one object a line with those keys plus `kind` (`transition`, `gone`, or `state` for
    --current). The feed for status bars (waybar, sketchybar, i3blocks) and scripts; a reader
    that stops reading is dropped by the daemon once it is 64 KiB behind.

    Exit status: 3 when the daemon is not running, stops, or drops this reader (with
    --host: the daemon there; 255 when ssh fails)."""
    if host is not None:
        flags = [*(["--json"] if as_json else []), *(["--current"] if current else [])]
        stream_there(fleet_host(server, host), ["events", *flags])
    if hello:
        as_json = current = True
    try:
        with _subscribe(server) as feed:
            if hello:  # only once the daemon answers: before, there is nothing to stream
                _say_hello()
            while True:
                try:
                    event = feed.read()
                except FeedClosed as exc:
                    _fail(str(exc), EXIT_NO_DAEMON)
                except FeedError as exc:
                    _fail(str(exc), EXIT_NO_DAEMON)
                if event is None:
                    continue
                shown = (
                    hello
                    or event.kind == "transition"
                    or (event.kind == "state" and current)
                    or (event.kind == "gone" and event.before is not None)
                )
                if shown:
                    _say(event, as_json)
    except BrokenPipeError:
        _stdout_closed()
    except KeyboardInterrupt:
        sys.exit(130)


def _say_hello() -> None:
    from osf_tmux import __version__
    from osf_tmux.fleet.remote import PROTOCOL

    line = json.dumps({"kind": "hello", "version": __version__, "protocol": PROTOCOL})
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


COMMANDS = (wait_cmd, events_cmd)
