"""Which tmux server a command talks to: `-L NAME` / `-S PATH`, before the command as tmux takes
them, or after it as people type them (`osf-tmux status -L work`); else the one in $TMUX."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import click

from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class SocketChoice:
    """What `-L`/`-S` said on the group (before the command); the command may add its own."""

    name: str | None = None
    path: str | None = None


def socket_options(func: F) -> F:
    """-L and -S for a command or the group; the values land in `socket_name`/`socket_path`."""
    func = click.option(
        "-S", "socket_path", metavar="PATH", help="tmux server socket path, as tmux -S."
    )(func)
    return click.option(
        "-L", "socket_name", metavar="NAME", help="tmux server socket name, as tmux -L."
    )(func)


def choose(outer: SocketChoice, name: str | None, path: str | None) -> ServerSpec:
    """The server from the group's -L/-S and the command's own; giving one twice is an error."""
    if outer.name and name and outer.name != name:
        raise click.UsageError(f"-L given twice ({outer.name!r} and {name!r})")
    if outer.path and path and outer.path != path:
        raise click.UsageError(f"-S given twice ({outer.path!r} and {path!r})")
    try:
        return ServerSpec.select(name or outer.name, path or outer.path)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def group_socket_options(func: F) -> F:
    """-L and -S on a group of commands too (`osf-tmux plugin -L work load`): what it is given
    reaches its commands as if given before the group."""

    def wrapper(ctx: click.Context, /, socket_name: str | None, socket_path: str | None) -> Any:
        outer = ctx.find_object(SocketChoice) or SocketChoice()
        choose(outer, socket_name, socket_path)  # the same checks: not twice, not both
        ctx.obj = SocketChoice(socket_name or outer.name, socket_path or outer.path)
        return ctx.invoke(func)

    functools.update_wrapper(wrapper, func)  # the docstring is the group's help
    return cast(F, socket_options(click.pass_context(wrapper)))


def pass_server(func: F) -> F:
    """Give the command its `ServerSpec` as first argument, taking -L/-S after the command too."""

    def wrapper(
        ctx: click.Context,
        /,
        *args: Any,
        socket_name: str | None,
        socket_path: str | None,
        **kw: Any,
    ) -> Any:
        outer = ctx.find_object(SocketChoice) or SocketChoice()
        return ctx.invoke(func, choose(outer, socket_name, socket_path), *args, **kw)

    functools.update_wrapper(wrapper, func)  # the docstring is the command's help
    return cast(F, socket_options(click.pass_context(wrapper)))


def no_server(server: ServerSpec) -> click.ClickException:
    return click.ClickException(server.not_running())


def require_server(server: ServerSpec) -> Tmux:
    """A Tmux for `server`, or a one-line error saying that no such server runs."""
    tmux = Tmux(server)
    try:
        tmux.run("display-message", "-p", "#{pid}")
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        raise click.ClickException(str(exc)) from None
    return tmux


class NoSuchPane(LookupError):
    """tmux names no pane by that target (the message says which)."""


def pane_id_of(server: ServerSpec, target: str | None) -> str:
    """tmux's own answer to which pane `target` names (%5, work:1.0, a window, ...; None: the
    current one). Raises NoServerError without a server, NoSuchPane without such a pane."""
    args = ["display-message", "-p", *(["-t", target] if target else []), "#{pane_id}"]
    try:
        pane = Tmux(server).run(*args).strip()
    except TmuxError as exc:
        if isinstance(exc, NoServerError):
            raise
        raise NoSuchPane(f"no such pane: {target} ({exc})") from None
    if not pane.startswith("%"):  # tmux 3.3a prints nothing, and succeeds, for a bad target
        raise NoSuchPane(f"no such pane: {target or 'the current one'}")
    return pane
