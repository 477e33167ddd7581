"""Commands behind the tmux plugin: `next` (the jump key), `doctor`, `plugin load|unload`."""

from __future__ import annotations

import contextlib
import sys

import click

from osf_tmux.daemon.lifecycle import (
    DaemonFiles,
    LifecycleError,
    read_status,
    running_pid,
    start,
    stop,
)
from osf_tmux.paths import private_dir
from osf_tmux.plugin import doctor as doc
from osf_tmux.plugin import jump
from osf_tmux.plugin.load import (
    config_stamp,
    load,
    log_line,
    plugin_log,
    tell_clients,
    unload,
)
from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

pass_server = click.make_pass_decorator(ServerSpec, ensure=True)


@click.command("next")
@click.option(
    "--client", metavar="NAME", help="The tmux client to move (default: the one used last)."
)
@pass_server
def next_cmd(server: ServerSpec, client: str | None) -> None:
    """Show the next pane that waits: blocked ones first (longest waiting first), then done.

    Pressing it again moves on to the one after, across sessions and windows."""
    tmux = Tmux(server)
    files = DaemonFiles.for_server(server)
    running = running_pid(files) is not None
    status = read_status(files) if running else None
    try:
        # Typed in a shell rather than bound to a key: the client someone used last.
        client = client or jump.recent_client(tmux)
        panes, current = jump.waiting_panes(tmux, client, jump.since_times(status))
        target = jump.pick(panes, current)
        if target is None:
            note = "" if running else " (the daemon is not running: osf-tmux doctor)"
            _say(tmux, client, f"osf-tmux: no agent is waiting{note}")
            return
        tmux.run_many(jump.jump_commands(target.pane_id, client))
        rank = [w.pane_id for w in jump.order(panes)].index(target.pane_id) + 1
        _say(tmux, client, f"osf-tmux: {target.address} {target.state} ({rank} of {len(panes)})")
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None


def _say(tmux: Tmux, client: str | None, message: str) -> None:
    click.echo(message)
    command = ["display-message", *(["-c", client] if client else []), message.replace("#", "##")]
    with contextlib.suppress(TmuxError):  # outside any client the echo above is all there is
        tmux.run(*command)


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="The checks as JSON.")
@pass_server
def doctor_cmd(server: ServerSpec, as_json: bool) -> None:
    """Check everything osf-tmux depends on and say what to do about each problem.

    Exits 1 when something is broken."""
    checks = doc.run_all(Tmux(server), DaemonFiles.for_server(server))
    click.echo(doc.as_json(checks) if as_json else doc.render(checks))
    if any(c.level == "fail" for c in checks):
        sys.exit(1)


@click.group("plugin")
def plugin_group() -> None:
    """What the tmux plugin (tmux/osf.tmux) runs; rarely needed by hand."""


@plugin_group.command("load")
@click.option("--bin", "binary", metavar="PATH", help="This program's path, for the key binding.")
@click.option("--no-daemon", is_flag=True, help="Set up tmux only; do not start the daemon.")
@pass_server
def load_cmd(server: ServerSpec, binary: str | None, no_daemon: bool) -> None:
    """Set option defaults, place the status formats, bind the key, start the daemon.

    Safe to run again (a config reload does): nothing is added twice."""
    tmux = Tmux(server)
    log = plugin_log()
    files = DaemonFiles.for_server(server)
    try:
        result = load(tmux, binary or sys.argv[0], log)
        daemon = "not started"
        if not no_daemon:
            pid, already = start(server, files)
            daemon = f"pid {pid}{' (already running)' if already else ''}"
        private_dir(files.state)
        config_stamp(files.state).touch()
    except NoServerError as exc:
        log_line(log, "load", f"failed: {exc}")
        raise click.ClickException(str(exc)) from None
    except (TmuxError, LifecycleError, OSError) as exc:
        log_line(log, "load", f"failed: {exc}")
        tell_clients(tmux, f"osf-tmux: loading failed: {exc} (osf-tmux doctor)")
        raise click.ClickException(str(exc)) from None
    key = f"prefix + {result.key}" if result.key else "no key"
    log_line(log, "load", f"ok for {server.describe()}: {key}, daemon {daemon}")
    for warning in result.warnings:
        log_line(log, "load-warning", warning)
    if result.warnings:
        tell_clients(tmux, "osf-tmux: " + "; ".join(result.warnings))


@plugin_group.command("unload")
@click.option("--stop", "stop_daemon", is_flag=True, help="Stop the daemon too.")
@pass_server
def unload_cmd(server: ServerSpec, stop_daemon: bool) -> None:
    """Take the status formats and the key binding out again (your own options stay)."""
    try:
        unload(Tmux(server))
        if stop_daemon:
            stop(DaemonFiles.for_server(server))
    except (TmuxError, LifecycleError) as exc:
        raise click.ClickException(str(exc)) from None


COMMANDS = (next_cmd, doctor_cmd, plugin_group)
