"""The daemon's view of other machines: one HostLink per host of `@osf-hosts`, run by the loop.

The options are read when the daemon starts and again whenever the plugin loads (it touches
the config stamp; checked with one stat at each sweep). What the links learn goes three ways:
the remote panes' states into the global counts of the status line (publish.py), their rows
into status.json (`panes` with `host`, and `hosts`), and their transitions to the notifier."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from osf_tmux.clock import Clock
from osf_tmux.fleet.hosts import Host, HostError, parse_hosts, remote_command
from osf_tmux.fleet.link import HostLink, Spawn, Watch, spawn
from osf_tmux.fleet.remote import RemotePane, RemoteTransition
from osf_tmux.fleet.ssh import control_dir, ssh_argv, ssh_config
from osf_tmux.paths import UnsafeDirectoryError
from osf_tmux.tmux import SEP, NoServerError, Tmux, TmuxError

log = logging.getLogger("osf_tmux.daemon.fleet")

OPTIONS = ("@osf-hosts", "@osf-remote-command", "@osf-ssh-config")


def read_options(tmux: Tmux) -> dict[str, str]:
    """The fleet's options, global values, in one call ('' where unset)."""
    out = tmux.run("display-message", "-p", SEP.join(f"#{{{n}}}" for n in OPTIONS))
    parts = out.rstrip("\n").split(SEP)
    if len(parts) != len(OPTIONS):
        return dict.fromkeys(OPTIONS, "")
    return dict(zip(OPTIONS, parts, strict=True))


def link_argv(
    host: Host, command: list[str], config: str | None, controls: Path | None
) -> list[str]:
    """The ssh command that streams `host`'s feed (`controls` None: no shared connection)."""
    remote = [*command, "events", "--hello"]
    return ssh_argv(host, remote, config=config, controls=controls, share=controls is not None)


class Fleet:
    def __init__(
        self,
        tmux: Tmux,
        runtime: Path,
        *,
        clock: Clock,
        watch: Watch,
        on_change: Callable[[], None],
        on_transition: Callable[[RemoteTransition], None] | None = None,
        stamp: Path | None = None,
        env: Mapping[str, str] | None = None,
        spawn: Spawn = spawn,
    ) -> None:
        self.tmux = tmux
        self.runtime = runtime
        self.clock = clock
        self.watcher = watch
        self.on_change = on_change
        self.on_transition = on_transition
        self.stamp = stamp
        self.env = env
        self.spawn = spawn
        self.links: dict[str, HostLink] = {}
        self.problems: list[str] = []
        self._config: tuple[str, ...] | None = None
        self._stamp_seen: int | None = None

    # ---- configuration ---------------------------------------------------------------------

    def configure(self, values: Mapping[str, str] | None = None) -> None:
        """Read the options (or take `values`) and start, keep or stop links to match."""
        if values is None:
            try:
                values = read_options(self.tmux)
            except NoServerError:
                raise  # the daemon's loop ends on it
            except TmuxError as exc:
                log.warning("cannot read the fleet's options: %s", exc)
                return
        key = tuple(values.get(n, "") for n in OPTIONS)
        if key == self._config:
            return
        self._config = key
        hosts, problems = parse_hosts(values.get("@osf-hosts", ""))
        command_text = values.get("@osf-remote-command", "").strip() or "osf-tmux"
        try:
            command = remote_command(command_text)
        except HostError as exc:
            problems.append(str(exc))
            hosts = []
            command = []
        for problem in problems:
            if problem not in self.problems:
                log.warning("%s", problem)
        self.problems = problems
        config = ssh_config(values.get("@osf-ssh-config", ""), self.env)
        controls: Path | None = None
        if hosts:
            try:
                controls = control_dir(self.env)
            except (OSError, UnsafeDirectoryError) as exc:
                log.warning("ssh connections not shared (%s)", exc)
        wanted: dict[str, list[str]] = {
            h.name: link_argv(h, command, config, controls) for h in hosts
        }
        for name in [n for n in self.links if wanted.get(n) != self.links[n].argv]:
            self.links.pop(name).close()
        for host in hosts:
            if host.name in self.links:
                continue
            self.links[host.name] = HostLink(
                host.name,
                wanted[host.name],
                clock=self.clock,
                watch=self.watcher,
                errors=self.runtime / f"host-{_file_name(host.name)}.err",
                remote_command=command_text,
                on_change=self.on_change,
                on_transition=self.on_transition,
                spawn=self.spawn,
            )
        if hosts:
            log.info("hosts: %s", ", ".join(h.name for h in hosts))
        self.on_change()

    def reload_if_changed(self) -> None:
        """After a plugin load (the stamp's time changed): read the options again."""
        if self.stamp is None:
            return
        try:
            mtime: int | None = self.stamp.stat().st_mtime_ns
        except OSError:
            mtime = None
        if mtime != self._stamp_seen:
            self._stamp_seen = mtime
            self.configure()

    # ---- the loop --------------------------------------------------------------------------

    def deadline(self) -> float:
        return min((link.deadline() for link in self.links.values()), default=float("inf"))

    def tick(self) -> None:
        now = self.clock.now()
        for link in list(self.links.values()):
            if link.deadline() <= now:
                link.tick()

    def close(self) -> None:
        for link in self.links.values():
            link.close()
        self.links.clear()

    # ---- what the others read --------------------------------------------------------------

    def panes(self) -> list[RemotePane]:
        return [p for link in self.links.values() for p in link.panes.values()]

    def states(self) -> list[str]:
        """Every remote pane's state: they count in the status line."""
        return [p.state for p in self.panes()]

    def status_panes(self) -> list[dict[str, Any]]:
        """status.json's rows for remote panes: the keys of the local rows, plus `host` and
        `question`; what only a local pane has (its pipe, its re-seeds) is null."""
        return [
            {
                "pane": p.pane,
                "target": p.target,
                "address": p.target,
                "agent": p.agent,
                "state": p.state,
                "since": p.since,
                "rule": p.rule,
                "source": "remote",
                "starting": None,
                "pipe": None,
                "reseeds": None,
                "mismatches": None,
                "dropped_bytes": None,
                "parked": None,
                "host": p.host,
                "question": p.question or None,
            }
            for p in sorted(self.panes(), key=lambda p: (p.host, _pane_number(p.pane)))
        ]

    def status(self) -> dict[str, Any]:
        """status.json's `hosts`: each host's state, since when, why, its osf-tmux version."""
        return {name: link.status() for name, link in self.links.items()}


def _file_name(name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40]
    return f"{safe}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def _pane_number(pane_id: str) -> int:
    digits = pane_id.lstrip("%")
    return int(digits) if digits.isdigit() else 0
