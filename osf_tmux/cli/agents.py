"""Commands that deal with the agents themselves: their hooks, launching one with our hooks,
and typing into their panes safely."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys

import click

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import safe_input
from osf_tmux.agents.hooks import HooksError
from osf_tmux.cli.remote import answer_there, echo_back, forward, remote_target
from osf_tmux.cli.server import no_server, pass_server
from osf_tmux.judge.ruleset import UnknownAgentError, load_rules
from osf_tmux.paths import user_rules_dir
from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError


def _hooked_agent(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An agent with hooks, by any name its rules give it (`Claude`, `claude-code`)."""
    if value is None:
        return None
    try:
        agent = load_rules(user_rules_dir()).get(value).agent
    except UnknownAgentError:
        agent = value
    if agent not in agent_hooks.AGENTS:
        raise click.BadParameter(
            f"{value!r}: osf-tmux has hooks for {', '.join(agent_hooks.AGENTS)}", ctx, param
        )
    return agent


agent_option = click.option(
    "--agent",
    "agent",
    required=True,
    metavar="|".join(agent_hooks.AGENTS),
    callback=_hooked_agent,
    help="Which agent's settings (any case; claude-code, ... too).",
)


@click.group("hooks")
def hooks_group() -> None:
    """Agent hooks that report each turn's state to osf-tmux as it happens.

    The hooks run `osf_tmux/agents/report.py`, which records the state on the agent's pane and wakes
    the daemon; the screen still has the last word. Your own hooks and settings stay as they are;
    the file as it was is kept beside it (*.osf-tmux.bak)."""


def _apply(plan: agent_hooks.Plan, dry_run: bool, verb: str) -> None:
    if not plan.changes:
        click.echo(f"nothing to {verb}: already so")
    for change in plan.changes:
        action = "remove" if change.after is None else "write"
        click.echo(f"{'would ' if dry_run else ''}{action} {change.path}")
        backup = agent_hooks.backup_path(change.path)
        if change.keeps_backup() and not backup.exists():
            click.echo(f"  {'would keep' if dry_run else 'kept'} the original as {backup}")
    if not dry_run:
        try:
            agent_hooks.apply(plan)
        except OSError as exc:
            raise click.ClickException(f"could not write: {exc}") from None
    for note in plan.notes:
        click.echo(f"note: {note}")


@hooks_group.command("install")
@agent_option
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
def install_cmd(agent: str, dry_run: bool) -> None:
    """Merge osf-tmux's hooks into AGENT's settings (installing twice changes nothing)."""
    try:
        plan = agent_hooks.plan_install(agent)
    except HooksError as exc:
        raise click.ClickException(str(exc)) from None
    _apply(plan, dry_run, "install")


@hooks_group.command("uninstall")
@agent_option
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
def uninstall_cmd(agent: str, dry_run: bool) -> None:
    """Take osf-tmux's hooks out of AGENT's settings again (byte for byte, when nothing else
    changed there since the install)."""
    try:
        plan = agent_hooks.plan_uninstall(agent)
    except HooksError as exc:
        raise click.ClickException(str(exc)) from None
    _apply(plan, dry_run, "uninstall")


@click.command(
    "launch", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.argument("agent", metavar="|".join(agent_hooks.AGENTS), callback=_hooked_agent)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def launch_cmd(agent: str, args: tuple[str, ...]) -> None:
    """Start AGENT (found on PATH) with osf-tmux's hooks for this run only, touching no file.

    Claude Code gets them through --settings; Codex gets osf-tmux as its notify program (-c),
    unless your config.toml names one of its own; Pi loads osf-tmux's extension (-e, a copy
    kept in osf-tmux's own state folder); Copilot CLI a plugin of osf-tmux's (--plugin-dir,
    kept there too); OpenCode and Kilo get osf-tmux's plugin through $OPENCODE_CONFIG_CONTENT /
    $KILO_CONFIG_CONTENT. ARGS go to the agent unchanged."""
    binary = shutil.which(agent)
    if binary is None:
        raise click.ClickException(f"{agent} is not installed or not on PATH")
    try:
        argv, notes = agent_hooks.launch_argv(agent, binary, list(args), os.environ)
    except HooksError as exc:
        raise click.ClickException(str(exc)) from None
    for note in notes:
        click.echo(f"osf-tmux: {note}", err=True)
    sys.stdout.flush()
    # argv[0] is the program to run: the agent itself, or `env` with the variables through which
    # an agent that reads extra settings from its environment gets ours (OpenCode, Kilo).
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        raise click.ClickException(f"could not start {argv[0]}: {exc.strerror or exc}") from None


@click.command("send")
@click.argument("pane")
@click.argument("text", nargs=-1, required=True)
@pass_server
def send_cmd(server: ServerSpec, pane: str, text: tuple[str, ...]) -> None:
    """Type TEXT into the agent in PANE and submit it; refused while the agent waits for an
    answer (then nothing is typed).

    PANE is a pane id (%N) or session:window.pane exactly as `tmux list-panes -a` shows it;
    anything else is refused. The pane is judged afresh first (its screen now, and the agent's
    latest hook report), and once more right before the text goes in.

    TEXT is typed as text: it may hold newlines and tabs, but any other control character
    (Escape, Ctrl-C, carriage return, Delete, C1 controls) is refused and nothing is typed,
    since it would act as a key or end the paste early.

    On another machine (`devbox:work:1.0`, a host of @osf-hosts): sent there through ssh, with
    the same checks, by the osf-tmux there; its message and exit status come back."""
    if (remote := remote_target(server, pane)) is not None:
        echo_back(*forward(remote, ["send", remote.target, "--", *text]))
    rules = load_rules(user_rules_dir())
    try:
        looked = safe_input.send(Tmux(server), rules, pane, " ".join(text))
    except safe_input.InputRefused as exc:
        raise click.ClickException(str(exc)) from None
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None
    state = looked.state or "idle"
    click.echo(f"sent to {looked.info.pane_id} ({looked.info.address}, was {state})")


@click.command("answer")
@click.argument("pane")
@click.argument("choice")
@click.option(
    "--client", metavar="NAME", help="Tell this tmux client how it went (what the menu does)."
)
@pass_server
def answer_cmd(server: ServerSpec, pane: str, choice: str, client: str | None) -> None:
    """Answer the prompt the agent in PANE waits on: CHOICE is yes, no, or the number of an
    option in its menu. Refused unless the screen shows a prompt right now.

    PANE is a pane id (%N) or session:window.pane exactly as `tmux list-panes -a` shows it;
    anything else is refused. Right before the keys go, the pane is looked at once more: the
    same process must show the same prompt.

    The keys per agent come from the [answer] table of its rules (rules/*.toml).

    On another machine (`devbox:work:1.0`, a host of @osf-hosts): answered there through ssh
    by the osf-tmux there, with the same checks on that pane; its message and exit status
    come back (255: ssh could not get there)."""
    if (remote := remote_target(server, pane)) is not None:
        answer_there(server, remote, choice, client)
    rules = load_rules(user_rules_dir())
    tmux = Tmux(server)
    try:
        keys = safe_input.answer(tmux, rules, pane, choice)
    except safe_input.InputRefused as exc:
        _tell(tmux, client, f"osf-tmux: nothing typed: {exc}")
        raise click.ClickException(str(exc)) from None
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        _tell(tmux, client, f"osf-tmux: {exc}")
        raise click.ClickException(str(exc)) from None
    said = f"answered {choice} ({' '.join(keys)})"
    _tell(tmux, client, f"osf-tmux: {pane} {said}")
    click.echo(said)


def _tell(tmux: Tmux, client: str | None, message: str) -> None:
    if client:
        with contextlib.suppress(TmuxError):
            tmux.run("display-message", "-c", client, message.replace("#", "##"))


COMMANDS = (hooks_group, launch_cmd, send_cmd, answer_cmd)
