"""The `osf-tmux` command: a thin click layer over the library.

Library errors become one-line `click.ClickException`s at this edge, never tracebacks."""

from __future__ import annotations

import click

from osf_tmux import __version__
from osf_tmux.cli.agents import COMMANDS as AGENT_COMMANDS
from osf_tmux.cli.daemon import daemon_cmd, start_cmd, status_cmd, stop_cmd
from osf_tmux.cli.events import COMMANDS as EVENT_COMMANDS
from osf_tmux.cli.plugin import COMMANDS as PLUGIN_COMMANDS
from osf_tmux.cli.rules import explain_cmd, replay_cmd, rules_group
from osf_tmux.tmux import ServerSpec


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="osf-tmux")
@click.option("-L", "socket_name", metavar="NAME", help="tmux server socket name, as tmux -L.")
@click.option("-S", "socket_path", metavar="PATH", help="tmux server socket path, as tmux -S.")
@click.pass_context
def main(ctx: click.Context, socket_name: str | None, socket_path: str | None) -> None:
    """Which of my AI coding agents in tmux needs me right now?

    osf-tmux rebuilds each pane's screen from the bytes its program wrote and classifies it
    with per-agent rules (rules/*.toml) as blocked, working, done or idle. The tmux server is
    chosen like tmux does: -L NAME, -S PATH, else the one this shell runs in ($TMUX)."""
    try:
        ctx.obj = ServerSpec.select(socket_name, socket_path)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


for command in (replay_cmd, explain_cmd, rules_group, start_cmd, stop_cmd, status_cmd, daemon_cmd):
    main.add_command(command)
for command in (*PLUGIN_COMMANDS, *AGENT_COMMANDS, *EVENT_COMMANDS):  # cli/plugin, agents, events
    main.add_command(command)
