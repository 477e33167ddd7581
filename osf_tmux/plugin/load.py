"""Loading the tmux plugin: defaults, status placement, the jump key, the daemon.

Everything here is idempotent, because a config reload runs it again: defaults never overwrite
the user's values, formats are placed once (found again by their own text), and our key binding
carries a marker so it is recognised, replaced or removed, while anyone else's is left alone."""

from __future__ import annotations

import os
import re
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from osf_tmux.plugin import options as po
from osf_tmux.tmux import SEP, Tmux, TmuxError

STATUS_FRAGMENT = "#{E:@osf-status-format}"
WINDOW_FRAGMENT = "#{E:@osf-window-format}"
WINDOW_OPTIONS = ("window-status-format", "window-status-current-format")
KEY_MARKER = "osf-tmux:next"
NO_KEY = ("", "none", "off")


def plugin_log(env: Mapping[str, str] | None = None) -> Path:
    """The log the plugin's bootstrap and every load append to (one per user, not per server:
    it belongs to the plugin install). The same path as tmux/osf.tmux computes."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    )
    return Path(base) / "osf-tmux" / "plugin.log"


def log_line(path: Path, event: str, detail: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {event}: {detail}\n")


# ---- placement (pure) ----------------------------------------------------------------------


def placed(current: str, fragment: str, where: str) -> str:
    """`current` with `fragment` put in front (`prepend`) or at the end, unless already there."""
    if fragment in current:
        return current
    return fragment + current if where == "prepend" else current + fragment


def unplaced(current: str, fragment: str) -> str:
    """`current` without `fragment`: exactly what `placed` added, nothing else."""
    return current.replace(fragment, "")


def placement_commands(values: Mapping[str, str], current: Mapping[str, str]) -> list[list[str]]:
    """Set-option commands that bring the status formats to what the options ask for.

    `current` holds the global status-left, status-right and window formats as tmux has them.
    Nothing is written when nothing changes, so a reload leaves them as they are."""
    where = values.get("@osf-status-placement", "right").strip().lower()
    wanted = {
        "status-right": placed(current["status-right"], STATUS_FRAGMENT, "prepend")
        if where == "right"
        else unplaced(current["status-right"], STATUS_FRAGMENT),
        "status-left": placed(current["status-left"], STATUS_FRAGMENT, "append")
        if where == "left"
        else unplaced(current["status-left"], STATUS_FRAGMENT),
    }
    windows = po.is_on(values.get("@osf-window-placement", "on"))
    for name in WINDOW_OPTIONS:
        wanted[name] = (
            placed(current[name], WINDOW_FRAGMENT, "append")
            if windows
            else unplaced(current[name], WINDOW_FRAGMENT)
        )
    return [["set-option", "-g", n, v] for n, v in wanted.items() if v != current[n]]


def read_formats(tmux: Tmux) -> dict[str, str]:
    names = ("status-left", "status-right", *WINDOW_OPTIONS)
    out = tmux.run("display-message", "-p", SEP.join(f"#{{{n}}}" for n in names))
    return dict(zip(names, out.rstrip("\n").split(SEP), strict=True))


# ---- the jump key --------------------------------------------------------------------------


def next_binding(binary: str, log: Path) -> str:
    """The run-shell command bound to the key. run-shell expands formats, so a `#` of ours is
    doubled; `#{q:client_name}` names the client that pressed the key, quoted for sh."""
    return (
        f"{_literal(shlex.quote(binary))} next --client #{{q:client_name}} "
        f">>{_literal(shlex.quote(str(log)))} 2>&1 ##{KEY_MARKER}"
    )


def _literal(text: str) -> str:
    return text.replace("#", "##")


@dataclass(frozen=True)
class Binding:
    key: str
    command: str

    @property
    def ours(self) -> bool:
        return KEY_MARKER in self.command


_BIND = re.compile(r"^bind-key\s+(?:-r\s+)?-T\s+prefix\s+(?P<key>\S+)\s+(?P<command>.*)$")


def prefix_bindings(list_keys_output: str) -> list[Binding]:
    found = []
    for line in list_keys_output.splitlines():
        m = _BIND.match(line.strip())
        if m:
            found.append(Binding(_unescape_key(m.group("key")), m.group("command")))
    return found


def _unescape_key(token: str) -> str:
    # list-keys prints keys as a command would take them: `\;`, `'"'`, `"'"`, `\#`.
    try:
        parts = shlex.split(token)
    except ValueError:
        return token
    return parts[0] if parts else token


def key_commands(
    key: str, override: bool, bindings: list[Binding], binary: str, log: Path
) -> tuple[list[list[str]], str | None]:
    """Commands that bind `key` to the jump (dropping our binding on any other key), and a
    warning when the key is someone else's and we were not asked to take it."""
    out = [["unbind-key", "-T", "prefix", b.key] for b in bindings if b.ours and b.key != key]
    if key.strip().lower() in NO_KEY:
        out += [["unbind-key", "-T", "prefix", b.key] for b in bindings if b.ours and b.key == key]
        return out, None
    theirs = [b for b in bindings if b.key == key and not b.ours]
    if theirs and not override:
        return out, (
            f"prefix + {key} is already bound ({theirs[0].command[:60]}); osf-tmux left it. "
            "Choose another key with @osf-key-next, or set @osf-key-override on"
        )
    command = next_binding(binary, log)
    out.append(["bind-key", "-T", "prefix", key, "run-shell", "-b", command])
    return out, None


# ---- load / unload -------------------------------------------------------------------------


@dataclass
class LoadResult:
    warnings: list[str] = field(default_factory=list)
    key: str | None = None
    placed: list[str] = field(default_factory=list)


def load(tmux: Tmux, binary: str, log: Path) -> LoadResult:
    """Defaults, formats and key; the daemon is started by the caller."""
    result = LoadResult()
    tmux.run_many(po.default_commands())
    values = po.read_values(tmux)
    result.warnings += po.problems(values)
    if values.get("@osf-bin", "").strip():
        binary = values["@osf-bin"].strip()
    commands = placement_commands(values, read_formats(tmux))
    result.placed = [c[2] for c in commands]
    listing = tmux.run("list-keys", "-T", "prefix")
    key = values.get("@osf-key-next", "A").strip()
    keys, warning = key_commands(
        key, po.is_on(values.get("@osf-key-override", "off")), prefix_bindings(listing), binary, log
    )
    if warning:
        result.warnings.append(warning)
    elif key.lower() not in NO_KEY:
        result.key = key
    if commands + keys:
        tmux.run_many(commands + keys)
    return result


def unload(tmux: Tmux) -> None:
    """Take out what `load` placed: formats, our key binding. The user's own options stay."""
    off = {"@osf-status-placement": "off", "@osf-window-placement": "off"}
    commands = placement_commands(off, read_formats(tmux))
    bindings = prefix_bindings(tmux.run("list-keys", "-T", "prefix"))
    commands += [["unbind-key", "-T", "prefix", b.key] for b in bindings if b.ours]
    if commands:
        tmux.run_many(commands)


def tell_clients(tmux: Tmux, message: str) -> None:
    """A short message on every attached client (none attached: only the log has it)."""
    try:
        clients = tmux.run("list-clients", "-F", "#{client_name}").split()
        if clients:
            text = message.replace("#", "##")
            tmux.run_many([["display-message", "-c", c, text] for c in clients])
    except TmuxError:
        pass


def config_stamp(state_dir: Path) -> Path:
    """Touched by every plugin load: the running daemon re-reads its notification options."""
    return state_dir / "plugin.stamp"
