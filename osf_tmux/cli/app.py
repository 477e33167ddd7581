"""The `osf-tmux` command group: a thin click layer over the library.

Library errors become one-line `click.ClickException`s at this edge, never tracebacks. The
entry point (`main.py`) sends the commands that keys run around this group when it can."""

from __future__ import annotations

import click

from osf_tmux import __version__
from osf_tmux.cli.agents import COMMANDS as AGENT_COMMANDS
from osf_tmux.cli.capture import COMMANDS as CAPTURE_COMMANDS
from osf_tmux.cli.capture import RULES_COMMANDS as CAPTURE_RULES_COMMANDS
from osf_tmux.cli.daemon import COMMANDS as DAEMON_COMMANDS
from osf_tmux.cli.events import COMMANDS as EVENT_COMMANDS
from osf_tmux.cli.plugin import COMMANDS as PLUGIN_COMMANDS
from osf_tmux.cli.remote import COMMANDS as REMOTE_COMMANDS
from osf_tmux.cli.rules import COMMANDS as RULES_COMMANDS
from osf_tmux.cli.rules import rules_group
from osf_tmux.cli.server import SocketChoice, socket_options


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="osf-tmux")
@socket_options
@click.pass_context
def cli(ctx: click.Context, socket_name: str | None, socket_path: str | None) -> None:
    """Which of my AI coding agents in tmux needs me right now?

    osf-tmux rebuilds each pane's screen from the bytes its program wrote and classifies it
    with per-agent rules (rules/*.toml) as blocked, working, done or idle. The tmux server is
    chosen like tmux does: -L NAME, -S PATH (before or after the command), else the one this
    shell runs in ($TMUX)."""
    ctx.obj = SocketChoice(socket_name, socket_path)


for command in (
    *RULES_COMMANDS,
    *DAEMON_COMMANDS,
    *PLUGIN_COMMANDS,
    *AGENT_COMMANDS,
    *EVENT_COMMANDS,
    *CAPTURE_COMMANDS,
    *REMOTE_COMMANDS,
):
    cli.add_command(command)
for command in CAPTURE_RULES_COMMANDS:
    rules_group.add_command(command)
