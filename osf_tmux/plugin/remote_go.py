"""The hosts as this tmux server's options name them, and going to a pane on one of them.

`@osf-hosts`, `@osf-remote-command` and `@osf-ssh-config` are read in one tmux call; the ssh
command line for a host comes from fleet.ssh (BatchMode, timeouts, the shared control socket),
the window that shows the remote pane from remote_window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from osf_tmux.fleet.hosts import DEFAULT_REMOTE_COMMAND, Host, HostError, parse_hosts, split_target
from osf_tmux.fleet.hosts import remote_command as parse_remote_command
from osf_tmux.fleet.ssh import ssh_argv, ssh_config
from osf_tmux.plugin.jump import Waiting
from osf_tmux.plugin.remote_view import ONLINE, find, host_states
from osf_tmux.plugin.remote_window import RemotePlace, Runner, SshCommand, go_remote, run_quietly
from osf_tmux.tmux import SEP, NoServerError, Tmux, TmuxError

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OPTIONS = ("@osf-hosts", "@osf-remote-command", "@osf-ssh-config")


class RemoteError(TmuxError):
    """A remote target that cannot be reached from here; says why. A TmuxError: what runs a
    key reports it on the client as it reports tmux's own errors."""


@dataclass(frozen=True)
class Fleet:
    hosts: tuple[Host, ...] = ()
    remote_command: tuple[str, ...] = (DEFAULT_REMOTE_COMMAND,)
    config: str | None = None  # an ssh config file (-F), if one is set

    def ssh(self, host: Host) -> SshCommand:
        def command(remote_argv: Sequence[str], tty: bool) -> list[str]:
            return ssh_argv(host, remote_argv, tty=tty, config=self.config)

        return command

    def split(self, target: str) -> tuple[Host | None, str]:
        """`devbox:work:1.0` -> (devbox, `work:1.0`); a local target -> (None, target)."""
        return split_target(target, self.hosts)

    def host(self, name: str) -> Host | None:
        return next((h for h in self.hosts if h.name == name), None)


def read_fleet(tmux: Tmux) -> Fleet:
    """The hosts this server's options name (none when it has no such option, or runs no
    server: the target is then a local one). A bad `@osf-remote-command` is an error here:
    nothing is run on a host with a command we could not read."""
    try:
        out = tmux.run("display-message", "-p", SEP.join(f"#{{{o}}}" for o in OPTIONS))
    except NoServerError:
        return Fleet()
    hosts_text, command_text, config_text = [*out.rstrip("\n").split(SEP), "", ""][:3]
    hosts, _ = parse_hosts(hosts_text)  # entries left out are doctor's to report
    if not hosts:
        return Fleet()
    try:
        command = parse_remote_command(command_text)
    except HostError as exc:
        raise RemoteError(str(exc)) from None
    return Fleet(tuple(hosts), tuple(command), ssh_config(config_text))


def place_of(status: Mapping[str, Any] | None, host: Host, target: str) -> RemotePlace:
    """Where `target` (a pane id or session:window.pane there) is on `host`: its session, from
    what the host's daemon reported. A target that names its session (`work:1.0`) goes there
    even when no agent is known in it; a host the daemon finds offline is said to be so."""
    known = next((h for h in host_states(status) if h.name == host.name), None)
    if known is not None and known.state != ONLINE:
        why = f": {known.error}" if known.error else ""
        raise RemoteError(f"{host.name} is {known.state}{why}")
    pane = find(status, host.name, target)
    if pane is not None:
        return RemotePlace(host.name, pane.session, pane.pane_id, pane.where)
    session = target.split(":", 1)[0]
    if target.startswith("%") or ":" not in target or not session:
        raise RemoteError(
            f"{host.name}:{target} is no agent pane the daemon knows of there (is "
            f"{host.name} online? osf-tmux list); give its session:window.pane"
        )
    return RemotePlace(host.name, session, target, f"{host.name}:{target}")


def go_to(
    tmux: Tmux,
    client: str | None,
    fleet: Fleet,
    host: Host,
    target: str,
    status: Mapping[str, Any] | None,
    run: Runner = run_quietly,
) -> str:
    """Take `client` to `target` on `host` (`osf-tmux go devbox:work:1.0`, a menu row)."""
    place = place_of(status, host, target)
    return go_remote(tmux, client, place, fleet.ssh(host), fleet.remote_command, run)


def go_to_waiting(tmux: Tmux, client: str | None, target: Waiting, message: str) -> str:
    """What `next` does with a waiting pane on another machine."""
    fleet = read_fleet(tmux)
    host = fleet.host(target.host or "")
    if host is None:
        raise RemoteError(f"{target.host} is no longer in @osf-hosts")
    session = target.address.split(":", 1)[0]
    place = RemotePlace(host.name, session, target.pane_id, target.where)
    return go_remote(tmux, client, place, fleet.ssh(host), fleet.remote_command, said=message)
