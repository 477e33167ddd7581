"""Commands that run, stop and query the daemon of one tmux server."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import Any

import click

from osf_tmux.cli.server import pass_server, require_server
from osf_tmux.daemon import leftovers
from osf_tmux.daemon.lifecycle import (
    EXIT_NO_DAEMON,
    REVIVE_LIMIT,
    REVIVE_WINDOW,
    DaemonFiles,
    LifecycleError,
    acquire_lock,
    died,
    may_revive,
    private_dirs,
    read_status,
    release_watchdog,
    running_pid,
    setup_logging,
    spawn_watchdog,
    start,
    stop,
)
from osf_tmux.paths import UnsafeDirectoryError
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
    if pid is None and (dead := died(files)) is not None:
        # It died without stopping: what it published and attached is still in tmux.
        tmux = require_server(server)
        try:
            leftovers.clear(tmux, str(files.runtime), files.runtime)
            tmux.run("set-option", "-gu", leftovers.DOWN)
        except TmuxError as exc:
            raise click.ClickException(str(exc)) from None
        files.status.write_text(json.dumps({**dead, "running": False}, indent=1))
        click.echo(f"the daemon (pid {dead.get('pid')}) had died; cleared what it left in tmux")
        return
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
            sys.exit(EXIT_NO_DAEMON)
        return
    if pid is None or status is None:
        dead = died(files)
        why = (
            f"died without stopping (pid {dead.get('pid')}; osf-tmux doctor)"
            if dead is not None
            else "not running"
        )
        click.echo(f"osf-tmux daemon {why} for {server.describe()} (start it: osf-tmux start)")
        sys.exit(EXIT_NO_DAEMON)
    click.echo(f"daemon pid {pid}, {server.describe()}")
    rows: list[tuple[str, ...]] = [("PANE", "WHERE", "AGENT", "STATE", "SINCE", "RULE", "PIPE")]
    for p in status.get("panes", []):
        rows.append(_status_row(p))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    for name, h in (status.get("hosts") or {}).items():
        error = f": {h.get('error')}" if h.get("error") else ""
        click.echo(f"host {name}: {h.get('state')}{error}")


def _status_row(p: dict[str, Any]) -> tuple[str, ...]:
    since = p.get("since")
    when = time.strftime("%H:%M:%S", time.localtime(since)) if since else "-"
    host = p.get("host")
    return (
        str(p.get("pane")),
        f"{host}:{p.get('address')}" if host else str(p.get("address")),
        str(p.get("agent") or "-"),
        str(p.get("state") or "-"),
        when,
        str(p.get("rule") or "-"),
        "remote" if host else str(p.get("pipe")),
    )


@click.command("daemon")
@click.option("--foreground", is_flag=True, help="Log to the terminal too (for debugging).")
@click.option("--debug", is_flag=True, help="Log every decision.")
@click.option(
    "--watchdog",
    is_flag=True,
    help="Restart the daemon if it dies without stopping (`start` asks for this).",
)
@click.option("--revived", is_flag=True, hidden=True)
@pass_server
def daemon_cmd(
    server: ServerSpec, foreground: bool, debug: bool, watchdog: bool, revived: bool
) -> None:
    """Run the daemon in this process (`start` runs it in the background for you)."""
    from osf_tmux.daemon.capture_server import CaptureServer
    from osf_tmux.daemon.events import EventHub, backlog_from, fan_out
    from osf_tmux.daemon.loop import Daemon
    from osf_tmux.daemon.source import PipeFactory
    from osf_tmux.judge.ruleset import load_rules
    from osf_tmux.paths import user_rules_dir
    from osf_tmux.plugin.load import config_stamp
    from osf_tmux.plugin.notify_backends import start_notifier

    tmux = require_server(server)
    files = DaemonFiles.for_server(server)
    try:
        private_dirs(files)
    except UnsafeDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    lock = acquire_lock(files)
    if lock is None:
        click.echo(f"osf-tmux daemon already running (pid {running_pid(files)})")
        return
    setup_logging(files, sys.stderr if foreground else None, debug)
    import logging

    log = logging.getLogger("osf_tmux")
    if revived and not _revive(tmux, files):
        return
    watching = spawn_watchdog(server) if watchdog else None
    rules = load_rules(user_rules_dir())
    for problem in rules.problems:
        log.warning("rules: %s (the shipped rules stay in force)", problem)
    notifier = start_notifier(tmux, config_stamp(files.state), files.state)
    hub = EventHub(files.runtime, backlog=backlog_from(os.environ))
    try:
        hub.start()
    except OSError as exc:  # scripts lose their feed; the status line and pop-ups go on
        log.warning("no event feed (osf-tmux events/wait): %s", exc)
    daemon = Daemon(
        tmux,
        rules,
        PipeFactory(files.runtime),
        token=str(files.runtime),
        status_file=files.status,
        on_transition=fan_out(notifier.on_transition, hub.on_transition),
        on_pane_gone=hub.on_pane_gone,
        extra_status={"notify": notifier.status, "events": hub.status},
    )
    notifier.on_change = daemon.status_changed
    captures = CaptureServer(files.runtime, daemon.recorded)
    try:
        captures.start()
        daemon.status_writer.extra["capture"] = captures.status
    except OSError as exc:  # `osf-tmux capture` then says no daemon answers; the rest goes on
        log.warning("no capture socket (osf-tmux capture): %s", exc)
    daemon.attach_fleet(
        files.runtime, stamp=config_stamp(files.state), on_transition=notifier.on_remote
    )
    daemon.install_signal_handlers()
    with contextlib.suppress(TmuxError):
        tmux.run("set-option", "-gu", leftovers.DOWN)
    daemon.install_hooks()
    log.info("started for %s", server.describe())
    daemon.write_status()
    daemon.run()
    captures.close()
    hub.close()
    notifier.close()
    if watching is not None:
        release_watchdog(watching)
    log.info("stopped")


def _revive(tmux: Tmux, files: DaemonFiles) -> bool:
    """A daemon died without stopping and its watchdog started this one: go on, or, after too
    many deaths in a row, clear what it left and say so on the status line."""
    import logging

    log = logging.getLogger("osf_tmux")
    dead = read_status(files) or {}
    if may_revive(files, time.time()):
        log.warning("the daemon (pid %s) died without stopping; starting again", dead.get("pid"))
        return True
    log.error(
        "the daemon (pid %s) died again: %d restarts in %.0f s are enough; clearing what it "
        "left in tmux and staying down (osf-tmux doctor; osf-tmux start to try again)",
        dead.get("pid"),
        EXIT_NO_DAEMON,
        REVIVE_LIMIT,
        REVIVE_WINDOW,
    )
    try:
        leftovers.clear(tmux, str(files.runtime), files.runtime)
        leftovers.say_down(tmux, "daemon down (osf-tmux doctor)")
    except TmuxError as exc:
        log.warning("could not clear tmux: %s", exc)
    status = {**dead, "running": False, "gave_up": time.time()}
    files.status.write_text(json.dumps(status, indent=1))
    return False


COMMANDS = (start_cmd, stop_cmd, status_cmd, daemon_cmd)
