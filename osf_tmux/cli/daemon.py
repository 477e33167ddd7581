"""Commands that run, stop and query the daemon of one tmux server."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from osf_tmux.cli.server import pass_server, require_server
from osf_tmux.daemon.lifecycle import (
    DaemonFiles,
    LifecycleError,
    acquire_lock,
    read_status,
    running_pid,
    setup_logging,
    start,
    stop,
)
from osf_tmux.tmux import ServerSpec, Tmux, TmuxError


@click.command("start")
@pass_server
def start_cmd(server: ServerSpec) -> None:
    """Start the daemon for this tmux server (nothing happens if it already runs)."""
    require_server(server)
    files = DaemonFiles.for_server(server)
    try:
        pid, already = start(server, files)
    except LifecycleError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"osf-tmux daemon {'already running' if already else 'started'} (pid {pid})")


@click.command("stop")
@pass_server
def stop_cmd(server: ServerSpec) -> None:
    """Stop the daemon: pipes closed, its options and hooks taken out of tmux.

    With the tmux plugin loaded, its formats, keys and options stay (and say so); take them
    out too with: osf-tmux plugin unload --stop."""
    from osf_tmux.plugin.load import loaded_parts

    files = DaemonFiles.for_server(server)
    try:
        pid = stop(files)
    except LifecycleError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo("osf-tmux daemon was not running" if pid is None else f"stopped (pid {pid})")
    try:
        parts = loaded_parts(Tmux(server))
    except TmuxError:
        return  # no server: nothing of the plugin can stay
    if parts:
        click.echo(
            f"the plugin stays loaded: {', '.join(parts)} (the keys say the daemon is not "
            "running; take all of it out: osf-tmux plugin unload --stop)"
        )


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="The daemon's full status as JSON.")
@pass_server
def status_cmd(server: ServerSpec, as_json: bool) -> None:
    """Every pane: id, session:window.pane, agent, state, since when, and the deciding rule."""
    files = DaemonFiles.for_server(server)
    pid = running_pid(files)
    status = read_status(files) if pid is not None else None
    if as_json:
        click.echo(json.dumps(status or {"running": False, "panes": []}, indent=1))
        if pid is None:
            sys.exit(3)
        return
    if pid is None or status is None:
        click.echo(
            f"osf-tmux daemon not running for {server.describe()} (start it: osf-tmux start)"
        )
        sys.exit(3)
    click.echo(f"daemon pid {pid}, {server.describe()}")
    rows: list[tuple[str, ...]] = [("PANE", "WHERE", "AGENT", "STATE", "SINCE", "RULE", "PIPE")]
    for p in status.get("panes", []):
        rows.append(_status_row(p))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _status_row(p: dict[str, Any]) -> tuple[str, ...]:
    since = p.get("since")
    when = time.strftime("%H:%M:%S", time.localtime(since)) if since else "-"
    return (
        str(p.get("pane")),
        str(p.get("address")),
        str(p.get("agent") or "-"),
        str(p.get("state") or "-"),
        when,
        str(p.get("rule") or "-"),
        str(p.get("pipe")),
    )


@click.command("daemon")
@click.option("--foreground", is_flag=True, help="Log to the terminal too (for debugging).")
@click.option("--debug", is_flag=True, help="Log every decision.")
@pass_server
def daemon_cmd(server: ServerSpec, foreground: bool, debug: bool) -> None:
    """Run the daemon in this process (`start` runs it in the background for you)."""
    from osf_tmux.daemon.loop import Daemon
    from osf_tmux.daemon.source import PipeFactory
    from osf_tmux.judge.ruleset import load_rules
    from osf_tmux.paths import user_rules_dir
    from osf_tmux.plugin.load import config_stamp
    from osf_tmux.plugin.notify_backends import start_notifier

    tmux = require_server(server)
    files = DaemonFiles.for_server(server)
    lock = acquire_lock(files)
    if lock is None:
        click.echo(f"osf-tmux daemon already running (pid {running_pid(files)})")
        return
    setup_logging(files, sys.stderr if foreground else None, debug)
    rules = load_rules(user_rules_dir())
    import logging

    log = logging.getLogger("osf_tmux")
    for problem in rules.problems:
        log.warning("rules: %s (the shipped rules stay in force)", problem)
    notifier = start_notifier(tmux, config_stamp(files.state))
    daemon = Daemon(
        tmux,
        rules,
        PipeFactory(files.runtime),
        token=str(files.runtime),
        status_file=files.status,
        on_transition=notifier.on_transition,
    )
    daemon.install_signal_handlers()
    daemon.install_hooks()
    log.info("started for %s", server.describe())
    daemon.write_status(force=True)
    daemon.run()
    notifier.close()
    log.info("stopped")


COMMANDS = (start_cmd, stop_cmd, status_cmd, daemon_cmd)
