"""The hosts of `@osf-hosts` and the command that runs osf-tmux on them (`@osf-remote-command`).

A host is kept as the user wrote it (`devbox`, `me@gpu.example.com`, `box:2222`): that is the
name everything shows (`devbox:work:1.0`, the JSON field `host`). Each entry is checked before
it can reach ssh: an entry ssh would read as an option (`-oProxyCommand=...`), or that carries
spaces, quotes or shell characters, is reported and left out. Nothing here goes through a local
shell: the remote command is split with shlex into an argv."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_REMOTE_COMMAND = "osf-tmux"
MAX_NAME = 255

# A user name and a host name as ssh config names and DNS names are written; an IPv6 address
# goes in brackets when it carries a port (`[::1]:2222`).
_USER = r"[A-Za-z0-9._][A-Za-z0-9._-]*"
_NAME = r"[A-Za-z0-9_][A-Za-z0-9._-]*"
_HOST_RE = re.compile(
    rf"^(?:(?P<user>{_USER})@)?"
    rf"(?:(?P<name>{_NAME})|\[(?P<v6>[0-9A-Fa-f:.]+)\])"
    r"(?::(?P<port>[0-9]{1,5}))?$"
)


class HostError(ValueError):
    """An entry of `@osf-hosts` or `@osf-remote-command` that cannot be used; says why."""


@dataclass(frozen=True)
class Host:
    name: str  # as the user wrote it: what `list` and status.json show
    destination: str  # what ssh gets as its destination: `user@host`, a config name
    port: int | None = None  # from `host:port`: ssh's -p

    def __str__(self) -> str:
        return self.name


def parse_host(text: str) -> Host:
    """One entry: `name`, `user@host`, `host:port`, `user@[v6]:port`. Raises HostError."""
    if not text:
        raise HostError("an empty host name")
    if len(text) > MAX_NAME:
        raise HostError(f"{text[:40]!r}...: longer than {MAX_NAME} characters")
    m = _HOST_RE.match(text)
    if m is None:
        raise HostError(
            f"{text!r} is not a host: write an ssh config name, user@host or host:port "
            "(letters, digits, '.', '_' and '-'; no spaces, quotes or leading '-')"
        )
    host = m.group("name") or m.group("v6")
    port = None
    if m.group("port") is not None:
        port = int(m.group("port"))
        if not 0 < port < 65536:
            raise HostError(f"{text!r}: port {port} is not between 1 and 65535")
    elif m.group("v6") is not None:
        raise HostError(f"{text!r}: write an IPv6 address in brackets only with a port")
    user = m.group("user")
    return Host(name=text, destination=f"{user}@{host}" if user else host, port=port)


def parse_hosts(option: str) -> tuple[list[Host], list[str]]:
    """The hosts of `@osf-hosts` (separated by spaces or commas), in order and once each, and
    what is wrong with the entries left out (each problem once, in words for `doctor`)."""
    hosts: list[Host] = []
    problems: list[str] = []
    seen: set[str] = set()
    for entry in option.replace(",", " ").split():
        try:
            host = parse_host(entry)
        except HostError as exc:
            problems.append(f"@osf-hosts: {exc}")
            continue
        if host.name in seen:
            problems.append(f"@osf-hosts: {host.name!r} is listed twice")
            continue
        seen.add(host.name)
        hosts.append(host)
    return hosts, problems


def remote_command(option: str) -> list[str]:
    """`@osf-remote-command` as an argv (default `osf-tmux`): the program and its options, such
    as `-L SOCKET` or `-S PATH` for a named tmux server there. Raises HostError."""
    try:
        argv = shlex.split(option)
    except ValueError as exc:
        raise HostError(f"@osf-remote-command {option!r}: {exc}") from None
    if not argv:
        return [DEFAULT_REMOTE_COMMAND]
    if argv[0].startswith("-"):
        raise HostError(
            f"@osf-remote-command {option!r} starts with an option: name the program first "
            "(osf-tmux -L SOCKET)"
        )
    return argv


def split_target(text: str, hosts: Iterable[Host]) -> tuple[Host | None, str]:
    """`devbox:work:1.0` -> (devbox, `work:1.0`) when `devbox` is a configured host; otherwise
    (None, text), a local target. The longest name wins (`box` and `box:2222` may both be
    hosts); a host name alone (`devbox:`) leaves an empty remote target."""
    best: Host | None = None
    for host in hosts:
        if text.startswith(host.name + ":") and (best is None or len(host.name) > len(best.name)):
            best = host
    if best is None:
        return None, text
    return best, text[len(best.name) + 1 :]
