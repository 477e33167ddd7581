"""A private `sshd` for tests: its own host key, user key, port on 127.0.0.1 and config files.

Tests reach it as `ssh -F CONFIG NAME ...` (`client_config` names the host `NAME`, with
`BatchMode`, the host key pinned in a known_hosts file of the test's own, and `StrictHostKeyChecking
yes`): nothing of the user's ~/.ssh is read or written. The server runs as the current user, so
a remote side is this machine again (a second tmux server, a second daemon), reached through ssh
for real. `stop` kills the listener and every process it forked (by pid: the connections' own
sshd processes and what runs under them), so a test can take the host away and `start` it again
on the same port and key."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tmux_server import WaitTimeout, retry_until

SSHD = "/usr/sbin/sshd"
SSH_MISSING = "sshd is not installed (these tests run a private sshd; .ci/run installs it)"


def sshd_available() -> bool:
    return (
        os.access(SSHD, os.X_OK)
        and shutil.which("ssh") is not None
        and bool(shutil.which("ssh-keygen"))
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SshServer:
    """One sshd on 127.0.0.1:`port` that lets the current user in with the key it made."""

    def __init__(self, workdir: Path, name: str = "devbox") -> None:
        self.dir = workdir
        self.name = name
        self.port = free_port()
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.host_key = workdir / "ssh_host_ed25519_key"
        self.user_key = workdir / "id_ed25519"
        self.authorized_keys = workdir / "authorized_keys"
        self.known_hosts = workdir / "known_hosts"
        self.server_config = workdir / "sshd_config"
        self.client_config = workdir / "ssh_config"
        self.log = workdir / "sshd.log"
        self.proc: subprocess.Popen[bytes] | None = None
        # Control sockets need a short path (a pytest tmp_path is too long for one): this one
        # is made 0700 by mkdtemp and removed by `cleanup`.
        self.controls = Path(tempfile.mkdtemp(prefix="osf-ssh-"))
        workdir.mkdir(parents=True, exist_ok=True)
        os.chmod(workdir, 0o700)
        self._make_keys()
        self._write_configs()

    # ---- files -----------------------------------------------------------------------------

    def _make_keys(self) -> None:
        for key, comment in ((self.host_key, "osf-test-host"), (self.user_key, "osf-test-user")):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(key)],
                check=True,
                capture_output=True,
                timeout=30,
            )
        self.authorized_keys.write_text(self.user_key.with_suffix(".pub").read_text())
        host_pub = self.host_key.with_name(self.host_key.name + ".pub").read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host_pub[0]} {host_pub[1]}\n")
        for path in (self.authorized_keys, self.known_hosts):
            os.chmod(path, 0o600)

    def _write_configs(self) -> None:
        self.server_config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.authorized_keys}",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "StrictModes no",  # the keys live in a tmp dir, not under ~/.ssh
                    "PermitRootLogin prohibit-password",  # CI runs as root: key only
                    f"AllowUsers {self.user}",
                    "PidFile none",
                    "MaxStartups 200",
                    "MaxSessions 200",
                    "LogLevel INFO",
                    "",
                ]
            )
        )
        self.client_config.write_text(self.host_block(self.name))
        os.chmod(self.client_config, 0o600)

    def host_block(self, name: str) -> str:
        """An ssh_config `Host` block that reaches this server as `name` (a test may add more
        names for the same server to `client_config`)."""
        return "\n".join(
            [
                f"Host {name}",
                "    HostName 127.0.0.1",
                f"    Port {self.port}",
                f"    User {self.user}",
                f"    IdentityFile {self.user_key}",
                "    IdentitiesOnly yes",
                f"    UserKnownHostsFile {self.known_hosts}",
                "    GlobalKnownHostsFile /dev/null",
                "    StrictHostKeyChecking yes",
                "    BatchMode yes",
                "    LogLevel ERROR",
                "",
            ]
        )

    # ---- the server ------------------------------------------------------------------------

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        if os.getuid() == 0:
            # sshd refuses to start without its privilege separation directory; a package
            # install in a container does not always make it.
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self.server_config), "-p", str(self.port)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        try:
            retry_until(self._listening, timeout=10, what=f"sshd on port {self.port}")
        except WaitTimeout:
            self.stop()
            raise RuntimeError(f"sshd did not start: {self.log.read_text()[-2000:]}") from None

    def _listening(self) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"sshd exited: {self.log.read_text()[-2000:]}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        """Kill the listener and everything it forked (the connections' sshd processes and
        their sessions): as when the host goes away."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        pids = [*_descendants(proc.pid), proc.pid]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.controls, ignore_errors=True)

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ssh_argv(self, *remote: str) -> list[str]:
        """`ssh -F CONFIG NAME REMOTE...` (ssh joins REMOTE into one string for the remote
        shell: quote what needs it)."""
        return ["ssh", "-F", str(self.client_config), self.name, *remote]

    def run(self, *remote: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.ssh_argv(*remote), capture_output=True, text=True, timeout=timeout
        )


def _descendants(root: int) -> list[int]:
    """The pids below `root`, deepest first (from /proc: no process group covers them, since
    sshd puts each connection in a session of its own)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out: list[int] = []
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out[::-1]


@contextlib.contextmanager
def running_sshd(workdir: Path, name: str = "devbox") -> Iterator[SshServer]:
    """A started SshServer, stopped afterwards; skips the test when sshd is missing."""
    if not sshd_available():
        pytest.skip(SSH_MISSING)
    server = SshServer(workdir, name)
    try:
        server.start()
    except BaseException:
        server.cleanup()
        raise
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[SshServer]:
    with running_sshd(tmp_path / "sshd") as server:
        yield server
