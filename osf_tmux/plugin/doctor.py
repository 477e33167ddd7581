"""`osf-tmux doctor`: everything that can keep states from showing, each with what to do.

Checks are plain functions returning `Check`s so that tests can run them one by one. `fail`
makes the command exit 1, `warn` (works, but worse) 2; `info` is a fact."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osf_tmux.agents import hooks as agent_settings
from osf_tmux.agents.integration import agent_module
from osf_tmux.daemon import leftovers, tmux_hooks
from osf_tmux.daemon.lifecycle import DaemonFiles, read_status, running_pid
from osf_tmux.fleet.hosts import parse_hosts
from osf_tmux.paths import OWN_LEVELS, dir_problem
from osf_tmux.plugin import options as po
from osf_tmux.plugin.invoke import install_log, link_command, own_command, plugin_log
from osf_tmux.plugin.load import (
    STATUS_FRAGMENT,
    TMUX_RIGHT_LENGTH,
    WINDOW_FRAGMENT,
    prefix_bindings,
    read_formats,
    right_width,
    too_short,
)
from osf_tmux.tmux import NoServerError, Tmux, TmuxError

MIN_TMUX = (3, 2)
LEVELS = ("ok", "info", "warn", "fail")


@dataclass(frozen=True)
class Check:
    name: str
    level: str  # ok | info | warn | fail
    message: str
    fix: str = ""


def tmux_version(tmux: Tmux) -> list[Check]:
    try:
        version = tmux.run("display-message", "-p", "#{version}").strip()
    except NoServerError:
        found = tmux_binary_version()
        where = tmux.server.describe()
        return [Check("tmux", "fail", f"no tmux server running for {where} ({found})",
                      "start tmux, or name the server: osf-tmux -L NAME doctor")]  # fmt: skip
    except TmuxError as exc:
        found = tmux_binary_version()
        return [Check("tmux", "fail", f"no tmux server answers ({found}): {exc}", "start tmux")]
    m = re.match(r"(\d+)\.(\d+)", version)
    if m and (int(m.group(1)), int(m.group(2))) < MIN_TMUX:
        return [Check("tmux", "fail", f"tmux {version} is too old", "osf-tmux needs tmux >= 3.2")]
    return [Check("tmux", "ok", f"tmux {version}, {tmux.server.describe()}")]


def daemon(
    files: DaemonFiles, status: Mapping[str, Any] | None, now: float, down: str = ""
) -> list[Check]:
    """`down`: what the watchdog left in `@osf_daemon_down` when it gave up restarting."""
    pid = running_pid(files)
    if pid is None:
        if status and status.get("running"):
            ago = now - float(status.get("updated", 0) or 0)
            return [
                Check(
                    "daemon",
                    "fail",
                    f"died without stopping (pid {status.get('pid')}, last heard of "
                    f"{ago:.0f} s ago): the states and hooks it left may be stale",
                    f"start it again: osf-tmux start (or clear what it left: osf-tmux stop); "
                    f"why it died may be in {files.log}",
                )
            ]
        if down or (status and status.get("gave_up")):
            return [
                Check(
                    "daemon",
                    "fail",
                    "died again and again, so the watchdog stopped restarting it "
                    "(it cleared what the daemon left in tmux)",
                    f"see {files.log}; then: osf-tmux start",
                )
            ]
        return [
            Check(
                "daemon",
                "fail",
                "not running for this tmux server",
                f"start it: osf-tmux start (its log: {files.log})",
            )
        ]
    age = now - float((status or {}).get("updated", 0) or 0)
    panes = (status or {}).get("panes", [])
    agents = sum(1 for p in panes if p.get("agent"))
    checks = [Check("daemon", "ok", f"pid {pid}, {len(panes)} panes, {agents} with an agent")]
    if status is None or age > 120:
        checks.append(
            Check(
                "daemon",
                "warn",
                "its status file is old or missing: the daemon may be stuck",
                f"look at {files.log}; restart: osf-tmux stop && osf-tmux start",
            )
        )
    return checks


def private_dirs(files: DaemonFiles, uid: int | None = None) -> list[Check]:
    """The runtime directory (FIFOs: every byte the panes print) and the state directory (log
    and status: prompt excerpts) must be the user's own, 0700."""
    checks = []
    for what, leaf in (("runtime dir", files.runtime), ("state dir", files.state)):
        chain = [leaf.parent, leaf][-OWN_LEVELS:]
        problems = [p for d in chain if (p := dir_problem(d, uid)) is not None]
        if problems:
            checks.append(
                Check(
                    what,
                    "fail",
                    f"{problems[0]}: unsafe, another user could read pane output through it; "
                    "the daemon refuses to start",
                    f"remove it (rm -r {chain[0]}), or set "
                    f"{'XDG_RUNTIME_DIR' if leaf == files.runtime else 'XDG_STATE_HOME'} "
                    "to a directory only you can reach",
                )
            )
            continue
        loose = [d for d in chain if d.is_dir() and d.stat().st_mode & 0o077]
        if loose:
            checks.append(
                Check(
                    what,
                    "warn",
                    f"{loose[0]} is yours but open to others "
                    f"(mode {loose[0].stat().st_mode & 0o777:o})",
                    "the daemon makes it 0700 when it starts; or now: chmod 700 " + str(loose[0]),
                )
            )
        elif leaf.is_dir():
            checks.append(Check(what, "ok", f"{leaf}: yours, private"))
        else:
            checks.append(Check(what, "ok", f"{leaf}: not made yet (the daemon makes it 0700)"))
    return checks


def pipes(status: Mapping[str, Any] | None) -> list[Check]:
    panes = (status or {}).get("panes", [])
    foreign = [p for p in panes if p.get("pipe") == "foreign"]
    ours = sum(1 for p in panes if p.get("pipe") == "pipe")
    checks = [Check("pipes", "ok", f"{ours} panes stream to the daemon through pipe-pane")]
    for p in foreign:
        checks.append(
            Check(
                "pipes",
                "warn",
                f"{p.get('address')} ({p.get('pane')}) keeps someone else's pipe-pane "
                "(tmux-logging?): an agent there is watched by capturing its screen (10 times a "
                "second while it works or waits), which costs more CPU than its own pipe",
                "stop that pane's logging (pipe-pane without a command) to let osf-tmux stream it",
            )
        )
    return checks


def hooks(tmux: Tmux, files: DaemonFiles, running: bool) -> list[Check]:
    try:
        listing = tmux_hooks.listing(tmux)
    except TmuxError as exc:
        return [Check("tmux hooks", "warn", f"cannot list hooks: {exc}")]
    found = tmux_hooks.ours(listing)
    twice = sorted(name for name, n in tmux_hooks.counts(listing).items() if n > 1)
    if found and not running:
        return [
            Check(
                "tmux hooks",
                "warn",
                f"{len(found)} hooks of a daemon that is gone are still set (harmless: they "
                "signal a tmux wait channel, no process)",
                "they go when the daemon starts (osf-tmux start) or with osf-tmux stop",
            )
        ]
    if twice:
        return [
            Check(
                "tmux hooks",
                "warn",
                f"{len(found)} hooks of ours are set, some more than once ({', '.join(twice)}): "
                "an earlier daemon's were left behind (harmless: each wakes the daemon once more)",
                "osf-tmux stop && osf-tmux start removes them all and sets one of each",
            )
        ]
    if found:
        return [Check("tmux hooks", "ok", f"{len(found)} hooks wake the daemon on pane changes")]
    if not running:
        return [Check("tmux hooks", "info", "none (the daemon installs them when it starts)")]
    return [
        Check(
            "tmux hooks",
            "warn",
            "the daemon runs without its hooks: new panes and focus are noticed only every "
            "few seconds",
            "restart it: osf-tmux stop && osf-tmux start",
        )
    ]


def agent_hooks(env: Mapping[str, str]) -> list[Check]:
    found: list[str] = []
    for agent in agent_settings.AGENTS:
        try:
            paths = agent_settings.installed_files(agent, env)
        except agent_settings.HooksError:
            continue
        title = agent_module(agent).TITLE
        found += [f"{title} ({path})" for path in paths]
    if found:
        return [Check("agent hooks", "ok", "reporting their state: " + ", ".join(found))]
    return [
        Check(
            "agent hooks",
            "info",
            "no osf-tmux hooks in any agent's settings: states come from the screens alone",
            f"osf-tmux hooks install --agent NAME ({', '.join(agent_settings.AGENTS)}; "
            "your own hooks stay)",
        )
    ]


BUS_FIX = (
    "from a terminal of your desktop session run "
    'tmux set-environment -g DBUS_SESSION_BUS_ADDRESS "$DBUS_SESSION_BUS_ADDRESS" (the daemon '
    "takes it at the next notification, no restart); to have every attach bring it, add "
    "set -ga update-environment DBUS_SESSION_BUS_ADDRESS to tmux.conf"
)


def _ways(config: Any) -> list[str]:
    return [
        w
        for w, on in (
            ("tmux messages", config.message),
            ("the bell", config.bell),
            ("OSC 9/777 to the terminal", config.osc),
        )
        if on
    ]


def _when(at: Any, now: float) -> str:
    if not isinstance(at, int | float):
        return "never"
    clock = time.strftime("%H:%M:%S", time.localtime(at))
    return f"{clock} ({max(0, round(now - at))}s ago)"


SERVICE_FIX = (
    "start your notification daemon (dunst, mako, or your desktop's own; `systemctl --user "
    "status dunst` tells whether it runs) and run doctor again: the daemon uses it at the "
    "next notification, no restart"
)
HUNG_FIX = (
    "the notification daemon is stopped or stuck: continue it (kill -CONT) or restart it "
    "(`systemctl --user restart dunst`); until it answers notifications go to the terminal, "
    "and pop-ups come back as soon as it does"
)
FIXES = {"no-bus": BUS_FIX, "bus-gone": BUS_FIX, "no-service": SERVICE_FIX, "hung": HUNG_FIX}


@dataclass(frozen=True)
class Probe:
    answers: bool
    failure: str  # notify_desktop.FAILURES, '' when it answers
    reason: str
    server: str = ""


def probe_desktop(bus: str, env: Mapping[str, str]) -> Probe:
    """Ask the notification service on `bus` now ('' for the bus this shell would find)."""
    from osf_tmux.plugin.notify_desktop import BUS_VAR, DesktopBackend

    own = {k: v for k, v in env.items() if k != BUS_VAR}
    desktop = DesktopBackend(lambda pane: None, env={**own, BUS_VAR: bus} if bus else own)
    try:
        answers = desktop.probe()
        return Probe(answers, desktop.failure, desktop.reason, desktop.server)
    finally:
        desktop.close()


def _global_bus(tmux: Tmux) -> str:
    from osf_tmux.plugin.notify_desktop import tmux_bus

    try:
        return tmux_bus(tmux)[1]
    except TmuxError:
        return ""


def notifications(
    tmux: Tmux,
    status: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    now: float | None = None,
    probe: Callable[[str, Mapping[str, str]], Probe] = probe_desktop,
) -> list[Check]:
    """The desktop as the daemon finds it, asked now on the daemon's own bus (from its
    status.json: it may have another bus than this shell, or none), not how the last
    notification went. Without a daemon, a probe from here, said so."""
    from osf_tmux.plugin.notify import read_config

    env = os.environ if env is None else env
    now = time.time() if now is None else now
    config = read_config(tmux)
    notify = (status or {}).get("notify") if (status or {}).get("running") else None
    if not isinstance(notify, Mapping):
        return _probe_here(config, env, probe)
    states = ", ".join(sorted(config.states)) or "nothing (all notify options off)"
    backends = notify.get("backends") or {}
    desktop = backends.get("desktop") or {}
    bus, bus_from = desktop.get("bus") or "", desktop.get("bus_from") or "nowhere"
    if not bus and (named := _global_bus(tmux)):
        # Set since the daemon last looked: it takes it at the next notification.
        bus, bus_from = named, "tmux's global environment"
    mine = env.get("DBUS_SESSION_BUS_ADDRESS", "")
    checks = []
    ways = _ways(config)
    last = f"last delivered {_when(desktop.get('last_ok'), now)}"
    if not config.desktop:
        level = "info" if ways else "warn"
        checks.append(
            Check(
                "notifications",
                level,
                f"desktop notifications are off; the daemon uses {', '.join(ways) or 'nothing'}",
                "set -g @osf-notify-message on",
            )
        )
        return checks + _command_check(config, notify, now)
    found = probe(bus, env) if bus else Probe(False, "no-bus", "no session bus address")
    if found.answers:
        server = f"{found.server} " if found.server else ""
        checks.append(
            Check(
                "notifications",
                "ok",
                f"the daemon notifies on {states} through the desktop: the notification "
                f"service {server}answers now on bus {bus} (from {bus_from}); {last}",
            )
        )
        return checks + _command_check(config, notify, now)
    lines = [
        f"the daemon notifies on {states} through {', '.join(ways) or 'nothing'}, not the "
        f"desktop: {found.reason}",
        f"its session bus: {bus or 'none'} (from {bus_from})",
    ]
    if desktop.get("last_ok"):
        lines.append(f"the desktop last worked {_when(desktop.get('last_ok'), now)}")
    if desktop.get("last_error_at"):
        lines.append(
            f"last failure {_when(desktop.get('last_error_at'), now)}: {desktop.get('last_error')}"
        )
    if mine and mine != bus:
        lines.append(f"this shell's bus is {mine}: the daemon does not use it")
    # A service on the bus that died or hangs, a desktop that worked, or a bus in this shell
    # say a desktop is there to reach; a headless host (no bus, or an address left over from
    # a session that ended) is a fact, as long as some other way is on.
    there = found.failure in ("no-service", "hung") or desktop.get("last_ok") or mine
    level = "warn" if (there or not ways) else "info"
    fix = FIXES.get(found.failure, BUS_FIX)
    checks.append(Check("notifications", level, "\n".join(lines), fix))
    return checks + _command_check(config, notify, now)


def _command_check(config: Any, notify: Mapping[str, Any], now: float) -> list[Check]:
    if not config.command:
        return []
    info = notify.get("command") or {}
    last, failure = info.get("last"), info.get("last_failure")
    head = f"@osf-notify-command {config.command!r}"
    if not last:
        return [Check("notify command", "info", f"{head}: not run yet")]
    if failure and failure.get("at") == last.get("at"):
        tail = f"; stderr: {failure.get('stderr')}" if failure.get("stderr") else ""
        return [
            Check(
                "notify command",
                "warn",
                f"{head} failed {_when(failure.get('at'), now)} for {failure.get('address')}: "
                f"{failure.get('error')}{tail} ({info.get('failures')} of {info.get('runs')} "
                "runs failed)",
                "run it by hand with the OSF_* variables set; see the daemon's log",
            )
        ]
    return [
        Check(
            "notify command",
            "ok",
            f"{head} ran {info.get('runs')} times, last {_when(last.get('at'), now)} "
            f"({info.get('failures')} failed)",
        )
    ]


def _probe_here(
    config: Any, env: Mapping[str, str], probe: Callable[[str, Mapping[str, str]], Probe]
) -> list[Check]:
    states = ", ".join(sorted(config.states)) or "nothing (all notify options off)"
    here = "checked from this shell, since no daemon runs to say what it uses"
    found = probe(env.get("DBUS_SESSION_BUS_ADDRESS", ""), env) if config.desktop else None
    if found is not None and found.answers:
        return [Check("notifications", "ok", f"desktop notifications on {states} ({here})")]
    ways = _ways(config)
    why = found.reason if found is not None else "desktop notifications are off"
    if not ways:
        return [
            Check(
                "notifications",
                "warn",
                f"{why}, and every fallback is off: nothing will tell you",
                "set -g @osf-notify-message on",
            )
        ]
    fix = FIXES.get(found.failure, BUS_FIX) if found is not None else BUS_FIX
    return [
        Check(
            "notifications",
            "info",
            f"{why}; on {states} osf-tmux uses {', '.join(ways)} ({here})",
            "desktop pop-ups need a session bus and a notification daemon: " + fix,
        )
    ]


def rules() -> list[Check]:
    from osf_tmux.judge.ruleset import load_rules
    from osf_tmux.paths import user_rules_dir

    ruleset = load_rules(user_rules_dir())
    if not ruleset.problems:
        agents = ", ".join(sorted(ruleset.manifests))
        return [Check("rules", "ok", f"rules for {agents}")]
    return [
        Check(
            "rules",
            "fail",
            f"{p} (the shipped rules for that agent stay in force)",
            "fix the file; check it with: osf-tmux rules check FILE",
        )
        for p in ruleset.problems
    ]


def plugin(tmux: Tmux) -> list[Check]:
    try:
        values = po.read_values(tmux)
        formats = tmux.run(
            "display-message", "-p", "#{status-left}#{status-right}#{window-status-format}"
        )
        keys = prefix_bindings(tmux.run("list-keys", "-T", "prefix"))
    except TmuxError as exc:
        return [Check("plugin", "warn", f"cannot read tmux options: {exc}")]
    if not values.get("@osf-key-next") and not values.get("@osf-status-placement"):
        return [
            Check(
                "plugin",
                "info",
                "not loaded in this server (options unset)",
                "set -g @plugin 'osf-tmux/osf-tmux' with TPM, or see the README's manual install",
            )
        ]
    checks = [
        Check("plugin", "warn", problem, "fix the option in your tmux.conf and reload it")
        for problem in po.problems(values)
    ]
    ours = [b.key for b in keys if b.ours]
    if ours:
        checks.append(Check("plugin", "ok", f"prefix + {', '.join(ours)} jumps to waiting agents"))
    elif values.get("@osf-key-next", "").strip().lower() not in ("", "none", "off"):
        checks.append(
            Check(
                "plugin",
                "warn",
                f"prefix + {values['@osf-key-next']} is bound to something else",
                "set -g @osf-key-next OTHER_KEY, or set -g @osf-key-override on",
            )
        )
    placed = STATUS_FRAGMENT in formats or "@osf_status" in formats
    if not placed:
        checks.append(
            Check(
                "plugin",
                "warn",
                "the status line shows no osf-tmux format (a theme loaded later rewrote it?)",
                "load osf-tmux after your theme, or put #{E:@osf-status-format} in status-right",
            )
        )
    elif WINDOW_FRAGMENT not in formats and po.is_on(values.get("@osf-window-placement", "on")):
        checks.append(Check("plugin", "info", "windows are not marked (window format rewritten)"))
    checks += _right_length(tmux)
    return checks


def _right_length(tmux: Tmux) -> list[Check]:
    """Room in status-right for the counts, when they are placed there."""
    try:
        formats = read_formats(tmux)
        if STATUS_FRAGMENT not in formats["status-right"]:
            return []
        length = int(formats["status-right-length"] or TMUX_RIGHT_LENGTH)
        needed = right_width(tmux, formats["status-right"]) + po.STATUS_WIDTH
    except (TmuxError, ValueError):
        return []
    if length >= needed:
        return []
    return [Check("plugin", "warn", too_short(length, needed),
                  f"set -g status-right-length {needed}")]  # fmt: skip


_EVENT = re.compile(r"^(?P<when>\S+ \S+) (?P<event>\w[\w-]*): (?P<detail>.*)$")
_INSTALLING = re.compile(r"bootstrap: installing osf-tmux into (?P<venv>\S+)")


def _events(path: Path) -> tuple[list[str], list[re.Match[str]]] | None:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return None
    return lines, [m for line in lines if (m := _EVENT.match(line))]


def plugin_log_check(files: DaemonFiles, env: Mapping[str, str]) -> list[Check]:
    """This server's last plugin load (its own log, beside the daemon's files), and the
    plugin's first-load install when that failed after this server's last good load."""
    path = plugin_log(files.state)
    found = _events(path)
    loads = [m for m in (found[1] if found else []) if m["event"] == "load"]
    last = loads[-1] if loads else None
    checks: list[Check] = []
    if last is None:
        checks.append(Check("plugin log", "info", f"no plugin load for this server yet ({path})"))
    elif last["detail"].startswith("failed"):
        checks.append(Check("plugin log", "fail", f"the last plugin load failed: {last['detail']}",
                            f"see {path}; then reload your tmux.conf"))  # fmt: skip
    else:
        checks.append(Check("plugin log", "ok", f"{last.group(0)} ({path})"))
    ok_since = last["when"] if last is not None and last["detail"].startswith("ok") else ""
    failure = _install_failure(install_log(env), ok_since)
    return checks + ([failure] if failure else [])


def _install_failure(install: Path, loaded_ok_at: str) -> Check | None:
    """The plugin's first-load install, if its last attempt failed and no load of this server
    went well after it (an osf-tmux installed by hand since then makes it old news)."""
    found = _events(install)
    if found is None:
        return None
    lines, events = found
    boots = [m for m in events if m["event"] == "bootstrap"]
    if not boots or not boots[-1]["detail"].startswith("failed"):
        return None
    if loaded_ok_at > boots[-1]["when"]:
        return None
    venv = next((m["venv"] for x in lines if (m := _INSTALLING.search(x))), "")
    plugin_dir = str(Path(venv).parent) if venv else "the plugin directory"
    tail = "\n".join(lines[-8:])
    return Check(
        "plugin install",
        "fail",
        f"the plugin could not install osf-tmux:\n{tail}",
        f"see {install}; install it yourself: pipx install {plugin_dir} (or python3 -m pip "
        f"install --user {plugin_dir}), then reload your tmux.conf",
    )


def run_all(tmux: Tmux, files: DaemonFiles, env: Mapping[str, str] | None = None) -> list[Check]:
    env = os.environ if env is None else env
    checks = tmux_version(tmux)
    if checks[0].level == "fail":
        return (
            checks
            + rules()
            + agent_hooks(env)
            + plugin_log_check(files, env)
            + command_on_path(env)
        )
    status = read_status(files)
    running = running_pid(files) is not None
    checks += private_dirs(files)
    try:
        down = tmux.run("show-options", "-gqv", leftovers.DOWN).strip()
    except TmuxError:
        down = ""
    checks += daemon(files, status, time.time(), down)
    if running:
        checks += pipes(status)
    checks += hooks(tmux, files, running)
    checks += plugin(tmux)
    checks += plugin_log_check(files, env)
    checks += agent_hooks(env)
    checks += notifications(tmux, status if running else None, env)
    checks += hosts(tmux, status if running else None, time.time())
    checks += rules()
    checks += command_on_path(env)
    return checks


def hosts(tmux: Tmux, status: Mapping[str, Any] | None, now: float) -> list[Check]:
    """Each host of `@osf-hosts` as the daemon's link to it stands (none: no check)."""
    try:
        option = tmux.run("display-message", "-p", "#{@osf-hosts}").strip()
    except TmuxError:
        return []
    configured, problems = parse_hosts(option)
    checks = [
        Check("hosts", "warn", p, "fix @osf-hosts in your tmux.conf and reload it")
        for p in problems
    ]
    if not configured:
        return checks
    known = (status or {}).get("hosts")
    known = known if isinstance(known, dict) else {}
    panes = (status or {}).get("panes", [])
    for host in configured:
        h = known.get(host.name)
        if not isinstance(h, dict):
            why = "the daemon is not running" if status is None else "not read by the daemon yet"
            checks.append(Check("hosts", "info", f"{host.name}: {why}"))
            continue
        state, error, version = h.get("state"), h.get("error"), h.get("version")
        port = f" -p {host.port}" if host.port else ""
        since = _when(h.get("since"), now)
        if state == "online":
            count = sum(1 for p in panes if isinstance(p, dict) and p.get("host") == host.name)
            online = f"{host.name}: online (osf-tmux {version}), {count} agent panes"
            checks.append(Check("hosts", "ok", online))
        elif state == "connecting":
            checks.append(
                Check("hosts", "info", f"{host.name}: connecting ({error or 'first try'})")
            )
        elif state == "incompatible":
            checks.append(
                Check(
                    "hosts",
                    "warn",
                    f"{host.name}: incompatible since {since}: {error}",
                    f"install the same osf-tmux on {host.name}; `@osf-remote-command` is "
                    f"{h.get('remote_command')!r}",
                )
            )
        else:
            checks.append(
                Check(
                    "hosts",
                    "warn",
                    f"{host.name}: offline since {since}: {error} (retried by itself)",
                    f"`ssh -o BatchMode=yes{port} {host.destination} true` must work with no "
                    "prompt: "
                    "a key the ssh agent holds (or one without a passphrase), the host key "
                    "already in known_hosts",
                )
            )
    return checks


def command_on_path(env: Mapping[str, str], program: str | None = None) -> list[Check]:
    """Whether `osf-tmux` can be typed bare, as the README's examples do (pip into a venv and
    TPM's install put it elsewhere)."""
    if program is None:
        own = own_command()
        if len(own) != 1:
            return []  # run as `python -m osf_tmux`: no program of ours to link
        program = own[0]
    link = link_command(program, env)
    if link is None:
        return [Check("command", "ok", "osf-tmux is on your PATH")]
    return [
        Check(
            "command",
            "info",
            f"osf-tmux is not on your PATH (this one is {program}); the README types it bare",
            link,
        )
    ]


def exit_status(checks: list[Check]) -> int:
    """1 when something is broken, 2 when something works worse than it could, else 0."""
    levels = {c.level for c in checks}
    return 1 if "fail" in levels else 2 if "warn" in levels else 0


def render(checks: list[Check]) -> str:
    out = []
    for c in checks:
        mark = {"ok": " ok ", "info": "info", "warn": "WARN", "fail": "FAIL"}[c.level]
        first, *rest = c.message.splitlines() or [""]
        out.append(f"[{mark}] {c.name}: {first}")
        out += [f"         {line}" for line in rest]
        if c.fix and c.level != "ok":
            out.append(f"         -> {c.fix}")
    return "\n".join(out)


def as_json(checks: list[Check]) -> str:
    return json.dumps([c.__dict__ for c in checks], indent=1)


def tmux_binary_version() -> str:
    try:
        return subprocess.run(
            ["tmux", "-V"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "tmux not found"
