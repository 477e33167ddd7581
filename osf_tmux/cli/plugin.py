"""Commands behind the tmux plugin: `next` and `menu` (its keys), `list`, `doctor`,
`plugin load|unload`. `next` and `menu` usually run the short way (cli/keys.py); these are the
same commands for the shapes only click parses, and for --help."""

from __future__ import annotations

import json
import shlex
import sys
import time

import click

from osf_tmux.cli.server import group_socket_options, no_server, pass_server
from osf_tmux.daemon.lifecycle import (
    EXIT_NO_DAEMON,
    DaemonFiles,
    LifecycleError,
    read_status,
    running_pid,
    start,
    stop,
)
from osf_tmux.paths import private_dir
from osf_tmux.plugin import doctor as doc
from osf_tmux.plugin import jump, overview
from osf_tmux.plugin.invoke import link_command, log_line, own_command, plugin_log
from osf_tmux.plugin.load import (
    config_stamp,
    load,
    tell_clients,
    unload,
)
from osf_tmux.plugin.remote_go import go_to_waiting
from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

client_option = click.option(
    "--client", metavar="NAME", help="The tmux client to act on (default: the current one)."
)


def _daemon_status(server: ServerSpec) -> tuple[DaemonFiles, bool, dict[str, object] | None]:
    files = DaemonFiles.for_server(server)
    running = running_pid(files) is not None
    return files, running, read_status(files) if running else None


@click.command("next")
@client_option
@pass_server
def next_cmd(server: ServerSpec, client: str | None) -> None:
    """Show the next pane that waits: blocked ones first (longest waiting first), then done.

    Pressing it again moves on to the one after, across sessions and windows (prefix + A).
    Exit status 3 when no daemon runs for this tmux server (0 with --client, as a key runs
    it: the message on that client says so)."""
    _, running, status = _daemon_status(server)
    try:
        tmux = Tmux(server)
        # Typed in a shell rather than bound to a key: the client someone used last.
        client = client or jump.recent_client(tmux)
        click.echo(jump.go_next(tmux, status, running, client, go_to_waiting))
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None
    if not running and client is None:
        sys.exit(EXIT_NO_DAEMON)


@click.command("menu")
@client_option
@pass_server
def menu_cmd(server: ServerSpec, client: str | None) -> None:
    """Open the overview of every agent on a tmux client (prefix + W): one row per agent pane,
    most urgent first, with its state, place, agent, for how long, and what a blocked one asks.

    Choosing a row shows its pane; the rows under a blocked one answer it (osf-tmux answer).
    Exit status 3 when no daemon runs for this tmux server (the menu says so; 0 with
    --client, as a key runs it)."""
    files, running, status = _daemon_status(server)
    try:
        click.echo(overview.show_menu(Tmux(server), files, status, client))
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None
    if not running and client is None:
        sys.exit(EXIT_NO_DAEMON)


@click.command("list")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="A JSON array, one object per pane: pane, target (session:window.pane), agent, state, "
    "since (seconds since the epoch), for_seconds, question, detail, options, host (null: "
    "this machine's; else the @osf-hosts name of the pane's machine).",
)
@pass_server
def list_cmd(server: ServerSpec, as_json: bool) -> None:
    """Every agent pane, most urgent first: where, agent, state, for how long, and what a
    blocked one asks (the overview menu's rows, in the terminal).

    Exit status 3 when no daemon runs for this tmux server: the list is then empty (or holds
    what a daemon that died left in tmux), and says why; --json prints it all the same."""
    _, running, status = _daemon_status(server)
    try:
        seen = overview.read(Tmux(server), status, None, with_view=False, remote=True)
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None
    now = time.time()
    if as_json:
        click.echo(json.dumps(overview.as_records(seen.panes, now), indent=1, ensure_ascii=False))
    elif not seen.panes:
        why = "" if running else f" (the daemon is not running for {server.describe()})"
        click.echo(f"no agent runs in any pane{why}")
    else:
        click.echo(overview.as_table(seen.panes, now))
    if not as_json:
        for line in overview.hosts_away(status):
            click.echo(f"osf-tmux: {line}", err=True)
    if not running:
        if seen.panes and not as_json:
            click.echo(f"osf-tmux: the daemon is not running for {server.describe()}", err=True)
        sys.exit(EXIT_NO_DAEMON)


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="The checks as JSON.")
@pass_server
def doctor_cmd(server: ServerSpec, as_json: bool) -> None:
    """Check everything osf-tmux depends on and say what to do about each problem.

    Exits 1 when something is broken, 2 when something works worse than it could (a
    warning)."""
    checks = doc.run_all(Tmux(server), DaemonFiles.for_server(server))
    click.echo(doc.as_json(checks) if as_json else doc.render(checks))
    if status := doc.exit_status(checks):
        sys.exit(status)


@click.group("plugin")
@group_socket_options
def plugin_group() -> None:
    """What the tmux plugin (tmux/osf.tmux) runs; `plugin load` also works by hand."""


@plugin_group.command("load")
@click.option("--bin", "binary", metavar="PATH", help="The osf-tmux the keys run (default: this).")
@click.option("--no-daemon", is_flag=True, help="Set up tmux only; do not start the daemon.")
@pass_server
def load_cmd(server: ServerSpec, binary: str | None, no_daemon: bool) -> None:
    """Set option defaults, place the status formats, bind the keys, start the daemon.

    Safe to run again (a config reload does): nothing is added twice."""
    tmux = Tmux(server)
    files = DaemonFiles.for_server(server)
    log = plugin_log(files.state)
    command = [binary] if binary else own_command()
    if not server.args() and not tmux.alive():
        # By hand outside tmux, before any tmux runs (the README's first command): nothing to
        # load into yet, which is no failure; say what to do.
        click.echo(
            "osf-tmux is installed; no tmux server is running here to load it into. Start "
            f"tmux and run `{shlex.join([*command, 'plugin', 'load'])}` in it, or put this "
            f"line in ~/.tmux.conf: run-shell -b '{shlex.join([*command, 'plugin', 'load'])}'"
        )
        _say_link(command)
        return
    try:
        result = load(tmux, command, log)
        daemon = "not started"
        if not no_daemon:
            pid, already = start(server, files)
            daemon = f"pid {pid}{' (already running)' if already else ''}"
        private_dir(files.state)
        config_stamp(files.state).touch()
    except NoServerError:
        log_line(log, "load", f"failed: {server.not_running()}")
        raise no_server(server) from None
    except (TmuxError, LifecycleError, OSError) as exc:
        log_line(log, "load", f"failed: {exc}")
        tell_clients(tmux, f"osf-tmux: loading failed: {exc} (osf-tmux doctor)")
        raise click.ClickException(str(exc)) from None
    keys = ", ".join(f"prefix + {k} {a}" for a, k in result.keys.items()) or "no keys"
    log_line(log, "load", f"ok for {server.describe()}: {keys}, daemon {daemon}")
    for warning in result.warnings:
        log_line(log, "load-warning", warning)
    if result.warnings:
        tell_clients(tmux, "osf-tmux: " + "; ".join(result.warnings))
    click.echo(f"osf-tmux loaded into {server.describe()}: {keys}; daemon {daemon}")
    if not binary:
        again = shlex.join([*command, "plugin", "load"])
        click.echo(f"to load it whenever tmux starts, add to ~/.tmux.conf: run-shell -b '{again}'")
        _say_link(command)


def _say_link(command: list[str]) -> None:
    """`osf-tmux` is not on PATH (a venv's): the one command that links it there."""
    link = link_command(command[0]) if len(command) == 1 else None
    if link is not None:
        click.echo(f"osf-tmux is not on your PATH; to type it as `osf-tmux`, run: {link}")


@plugin_group.command("unload")
@click.option("--stop", "stop_daemon", is_flag=True, help="Stop the daemon too.")
@pass_server
def unload_cmd(server: ServerSpec, stop_daemon: bool) -> None:
    """Take out what `plugin load` put in: the status formats, the key bindings and the
    options still at their defaults (a value you set stays). With --stop, the daemon too
    (its pipes, options and hooks): tmux is as it was."""
    try:
        gone = unload(Tmux(server))
        pid = stop(DaemonFiles.for_server(server)) if stop_daemon else None
    except NoServerError:
        raise no_server(server) from None
    except (TmuxError, LifecycleError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"taken out: {', '.join(gone)}" if gone else "nothing of the plugin was loaded")
    if pid is not None:
        click.echo(f"daemon stopped (pid {pid})")
    elif not stop_daemon and running_pid(DaemonFiles.for_server(server)) is not None:
        click.echo("the daemon still runs (osf-tmux stop, or plugin unload --stop)")


COMMANDS = (next_cmd, menu_cmd, list_cmd, doctor_cmd, plugin_group)
