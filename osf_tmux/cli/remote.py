"""Panes on other machines (`devbox:work:1.0`, a host of `@osf-hosts` before the target): `go`
takes a client there; `answer`, `send`, `wait` and `events --host` run on the host through ssh.

The host's own osf-tmux does the work, with its own checks: `answer` there judges that pane
afresh and types only while its prompt is on screen, exactly as it does for a local pane. What
it prints comes back as text (a control character shows as `^[`, it never acts on the
terminal), and its exit status is ours; ssh's own failure is exit status 255, as ssh has it."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, NoReturn

import click

from osf_tmux.cli.server import no_server, pass_server
from osf_tmux.daemon.lifecycle import DaemonFiles, read_status, running_pid
from osf_tmux.fleet.hosts import Host
from osf_tmux.plugin import jump
from osf_tmux.plugin.remote_go import Fleet, RemoteError, go_to, read_fleet
from osf_tmux.plugin.remote_view import printable
from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

EXIT_SSH = 255  # ssh's own: it could not connect, or the connection broke
ANSWER_TIMEOUT = 60.0  # an answer there judges the pane twice; a slow link must not hang a key


@dataclass(frozen=True)
class Remote:
    fleet: Fleet
    host: Host
    target: str  # the pane there: %3 or session:window.pane

    @property
    def where(self) -> str:
        return f"{self.host.name}:{self.target}"

    def argv(self, args: Sequence[str]) -> list[str]:
        """The ssh command that runs `osf-tmux ARGS` there (@osf-remote-command)."""
        return self.fleet.ssh(self.host)([*self.fleet.remote_command, *args], False)


def remote_target(server: ServerSpec, target: str) -> Remote | None:
    """The host and the pane there when `target` starts with a host of `@osf-hosts`; None for a
    local target (a pane id, `work:1.0` when `work` is not a host)."""
    if target.startswith("%") or ":" not in target:
        return None
    try:
        fleet = read_fleet(Tmux(server))
    except RemoteError as exc:
        raise click.ClickException(str(exc)) from None
    except TmuxError:
        return None  # the local command says what is wrong with the server
    host, rest = fleet.split(target)
    if host is None:
        return None
    if not rest:
        raise click.UsageError(f"{target}: name a pane on {host.name}, as {host.name}:work:1.0")
    return Remote(fleet, host, rest)


def fleet_host(server: ServerSpec, name: str) -> Remote:
    """`--host NAME` for a command that takes no pane (events)."""
    try:
        fleet = read_fleet(Tmux(server))
    except (RemoteError, TmuxError) as exc:
        raise click.ClickException(str(exc)) from None
    host = fleet.host(name)
    if host is None:
        known = ", ".join(h.name for h in fleet.hosts) or "none"
        raise click.ClickException(f"{name} is not in @osf-hosts (hosts: {known})")
    return Remote(fleet, host, "")


def run_there(argv: Sequence[str], timeout: float | None = ANSWER_TIMEOUT) -> tuple[int, str, str]:
    """Run an ssh command line to its end: (exit status, stdout, stderr)."""
    try:
        proc = subprocess.run(list(argv), stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        return EXIT_SSH, "", f"ssh did not finish within {timeout:g} s"
    except OSError as exc:
        return EXIT_SSH, "", f"could not run ssh: {exc.strerror or exc}"
    # bytes, not text mode: that would turn a `\r` into a newline instead of showing it
    return proc.returncode, _decoded(proc.stdout), _decoded(proc.stderr)


def _decoded(data: bytes) -> str:
    return data.decode(errors="replace")


Runner = Callable[[Sequence[str]], tuple[int, str, str]]


def forward(remote: Remote, args: Sequence[str], run: Runner = run_there) -> tuple[int, str, str]:
    """`osf-tmux ARGS` on the remote's host: its exit status and what it said, as text."""
    code, out, err = run(remote.argv(args))
    if code == EXIT_SSH and not out:
        err = f"osf-tmux: ssh to {remote.host.name} failed: {err.strip() or 'exit status 255'}\n"
    return code, printable(out), printable(err)


def echo_back(code: int, out: str, err: str) -> NoReturn:
    """What the host said, and its exit status as ours."""
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    if err:
        sys.stderr.write(err if err.endswith("\n") else err + "\n")
    sys.stdout.flush()
    sys.exit(code)


def tell(server: ServerSpec, client: str | None, message: str) -> None:
    """Show a message on the client that asked (the menu's answer rows name theirs)."""
    if client:
        with contextlib.suppress(TmuxError):
            Tmux(server).run("display-message", "-c", client, message.replace("#", "##"))


def answer_there(
    server: ServerSpec, remote: Remote, choice: str, client: str | None, run: Runner = run_there
) -> NoReturn:
    code, out, err = forward(remote, ["answer", remote.target, choice], run)
    said = " ".join((out if code == 0 else err or out).split())
    if code == 0:
        tell(server, client, f"osf-tmux: {remote.where} {said}")
    else:
        tell(server, client, f"osf-tmux: {remote.where}: {said or f'exit status {code}'}")
    echo_back(code, out, err)


def stream_there(remote: Remote, args: Sequence[str]) -> NoReturn:
    """Run `osf-tmux ARGS` there and print what it prints as it comes (`wait`, `events`)."""
    try:
        child = subprocess.Popen(remote.argv(args), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    except OSError as exc:
        echo_back(EXIT_SSH, "", f"osf-tmux: could not run ssh: {exc.strerror or exc}")
    errors: list[bytes] = []
    drain = threading.Thread(target=_read_all, args=(child.stderr, errors), daemon=True)
    drain.start()
    assert child.stdout is not None
    try:
        for raw in child.stdout:
            sys.stdout.write(printable(raw.decode(errors="replace")))
            sys.stdout.flush()
        code = child.wait()
    except KeyboardInterrupt:
        child.terminate()
        child.wait()
        sys.exit(130)
    except BrokenPipeError:
        child.terminate()
        child.wait()
        raise
    drain.join(timeout=5)
    err = b"".join(errors).decode(errors="replace")
    if code == EXIT_SSH:
        err = f"osf-tmux: ssh to {remote.host.name} failed: {err.strip() or 'exit status 255'}"
    echo_back(code, "", printable(err))


def _read_all(stream: IO[bytes] | None, into: list[bytes]) -> None:
    if stream is not None:
        into.append(stream.read())


@click.command("go")
@click.option(
    "--client", metavar="NAME", help="The tmux client to move (default: the one used last)."
)
@click.argument("target")
@pass_server
def go_cmd(server: ServerSpec, target: str, client: str | None) -> None:
    """Show the pane TARGET on a client: `devbox:work:1.0` (a host of @osf-hosts, then the
    pane there) opens a window attached to that host's session with the pane selected, or
    reuses the one open; a local target switches to it. What the overview's remote rows run."""
    tmux = Tmux(server)
    files = DaemonFiles.for_server(server)
    status = read_status(files) if running_pid(files) is not None else None
    try:
        client = client or jump.recent_client(tmux)
        remote = remote_target(server, target)
        if remote is None:
            jump.say(tmux, client, f"osf-tmux: {target}", jump.jump_commands(target, client))
            click.echo(f"osf-tmux: {target}")
            return
        click.echo(go_to(tmux, client, remote.fleet, remote.host, remote.target, status))
    except NoServerError:
        raise no_server(server) from None
    except TmuxError as exc:
        if client:
            tell(server, client, f"osf-tmux go: {exc}")
        raise click.ClickException(str(exc)) from None


COMMANDS = (go_cmd,)
