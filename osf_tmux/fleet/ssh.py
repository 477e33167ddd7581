"""The ssh command line that reaches a host, for the link's event stream and for any command run
there (`answer`, an attach window).

Never a prompt in the background: `BatchMode` (no password, no passphrase, no unknown host key
accepted), a short connect timeout, and keep-alives that end a connection whose other end went
silent. One TCP connection per host is shared through a control socket in a private directory:
the first ssh to a host starts a master in the background and every session (the daemon's event
stream, an `answer`, an attach window) rides on it and ends on its own. The master stays
`PERSIST` seconds after its last session: without it, the session that happened to open the
connection (a window the user closes) would wait for all the others before it could end. A dead
host ends the master and every session on it at once.

The remote command is one string for the remote shell (ssh joins its argv with spaces and hands
it to the login shell there): each word is quoted with shlex, so a target or an answer arrives
as the word it was."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from osf_tmux.fleet.hosts import Host
from osf_tmux.paths import private_dir, ssh_control_dir

SSH = "ssh"
CONNECT_TIMEOUT = 5  # seconds to reach a host before it counts as offline
ALIVE_INTERVAL = 5  # keep-alive every 5 s of silence; after ALIVE_COUNT unanswered the link ends
ALIVE_COUNT = 2
PERSIST = 60  # seconds the shared connection outlives its last session
CONFIG_ENV = "OSF_SSH_CONFIG"
# A control socket's path: the directory, "/", %C (40 hex digits), and the 17 characters ssh adds
# to the master's temporary name, within sun_path's 108 bytes (104 on some systems).
_SOCKET_MAX = 104 - 1 - 40 - 17  # tests and scripts: an ssh config file instead of ~/.ssh/config


def ssh_config(option: str = "", env: Mapping[str, str] | None = None) -> str | None:
    """The ssh config file to use: `@osf-ssh-config` when set, else $OSF_SSH_CONFIG, else None
    (ssh reads ~/.ssh/config as always)."""
    env = os.environ if env is None else env
    value = option.strip() or env.get(CONFIG_ENV, "").strip()
    return str(Path(value).expanduser()) if value else None


def control_dir(env: Mapping[str, str] | None = None) -> Path:
    """The control sockets' directory, created 0700 (refused if someone else owns it)."""
    return private_dir(ssh_control_dir(env))


def ssh_argv(
    host: Host,
    remote_argv: Sequence[str],
    *,
    tty: bool = False,
    config: str | None = None,
    controls: Path | None = None,
    ssh: str = SSH,
    share: bool = True,
) -> list[str]:
    """`ssh ... DESTINATION 'REMOTE ARGV'`. `controls` is the control sockets' directory
    (default: control_dir(), created on first use); `config` an ssh config file (-F);
    `share` False: a connection of its own (no control socket)."""
    if share and controls is None:
        controls = control_dir()
    argv = [ssh]
    if config:
        argv += ["-F", config]
    argv += [
        "-o", "BatchMode=yes",
        "-o", f"ConnectTimeout={CONNECT_TIMEOUT}",
        "-o", f"ServerAliveInterval={ALIVE_INTERVAL}",
        "-o", f"ServerAliveCountMax={ALIVE_COUNT}",
    ]  # fmt: skip
    if controls is not None and share and len(os.fsencode(controls)) <= _SOCKET_MAX:
        # %C: a hash of the connection's local host, remote host, port and user.
        argv += ["-o", "ControlMaster=auto", "-o", f"ControlPath={controls}/%C"]
        argv += ["-o", f"ControlPersist={PERSIST}"]
    else:
        # ssh refuses to connect at all when the socket's path is too long: no sharing then.
        argv += ["-o", "ControlPath=none"]
    if host.port is not None:
        argv += ["-p", str(host.port)]
    argv.append("-t" if tty else "-T")
    argv += ["--", host.destination]
    if remote_argv:
        argv.append(shlex.join(remote_argv))
    return argv
