"""Loading the tmux plugin: defaults, status placement, the jump key, the daemon.

Everything here is idempotent, because a config reload runs it again: defaults never overwrite
the user's values, formats are placed once (found again by their own text), and our key binding
carries a marker so it is recognised, replaced or removed, while anyone else's is left alone."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from osf_tmux.plugin import options as po
from osf_tmux.plugin.invoke import literal, shell_line, tmux_words
from osf_tmux.tmux import SEP, Tmux, TmuxError

STATUS_FRAGMENT = "#{E:@osf-status-format}"
WINDOW_FRAGMENT = "#{E:@osf-window-format}"
WINDOW_OPTIONS = ("window-status-format", "window-status-current-format")
FORMAT_OPTIONS = ("status-left", "status-right", *WINDOW_OPTIONS)
KEY_MARKER_PREFIX = "osf-tmux:"  # the end of our key bindings: osf-tmux:next, osf-tmux:menu
NO_KEY = ("", "none", "off")


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


# ---- status-right-length ------------------------------------------------------------------

TMUX_RIGHT_LENGTH = 40  # tmux's default status-right-length
# Set by `load` when it raised status-right-length from tmux's default: "WAS NOW", so that
# `unload` can put it back (unless it was changed since).
RAISED = "@osf_status_right_length"
_STYLE_RUN = re.compile(r"#\[[^\]]*\]")


def right_width(tmux: Tmux, status_right: str) -> int:
    """How many columns `status_right` (without our format) shows now."""
    text = tmux.run("display-message", "-p", "--", unplaced(status_right, STATUS_FRAGMENT) or " ")
    return len(_STYLE_RUN.sub("", text.rstrip("\n")))


def too_short(length: int, needed: int) -> str:
    return (
        f"status-right-length is {length}: with agents waiting, status-right needs about "
        f"{needed} columns and its end (the clock) is cut"
    )


def length_commands(length: int, shown: int) -> tuple[list[list[str]], str | None]:
    """Make room for the counts in status-right: with tmux's default length, raise it (and
    remember that); a length of the user's own that is too short is only said."""
    needed = shown + po.STATUS_WIDTH
    if length >= needed:
        return [], None
    if length == TMUX_RIGHT_LENGTH:
        # the most tmux's own status-right shows (a 21-column title) plus the counts
        raised = max(needed, TMUX_RIGHT_LENGTH + po.STATUS_WIDTH)
        return [
            ["set-option", "-g", "status-right-length", str(raised)],
            ["set-option", "-g", RAISED, f"{length} {raised}"],
        ], None
    return [], f"{too_short(length, needed)}: set -g status-right-length {needed}"


def unraise_commands(length: int, raised: str) -> list[list[str]]:
    """Put status-right-length back to tmux's default if `load` raised it and it still is."""
    if not raised:
        return []
    out = [["set-option", "-gu", RAISED]]
    if raised.split()[-1:] == [str(length)]:
        out.append(["set-option", "-gu", "status-right-length"])
    return out


def read_formats(tmux: Tmux) -> dict[str, str]:
    names = ("status-left", "status-right", *WINDOW_OPTIONS, "status-right-length", RAISED)
    out = tmux.run("display-message", "-p", SEP.join(f"#{{{n}}}" for n in names))
    return dict(zip(names, out.rstrip("\n").split(SEP), strict=True))


# ---- the keys ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """A prefix key the plugin binds: the option naming it, and what it runs."""

    option: str
    action: str  # the osf-tmux command the key runs (with --client)

    @property
    def marker(self) -> str:
        return f"{KEY_MARKER_PREFIX}{self.action}"


KEYS = (Key("@osf-key-next", "next"), Key("@osf-key-menu", "menu"))


def key_binding(key: Key, command: list[str], log: Path) -> str:
    """The run-shell command bound to `key`. `#{q:client_name}` names the client that pressed
    the key, quoted for sh; the marker (a shell comment) makes the binding recognisably ours."""
    line = shell_line(command, [key.action, "--client"], log)
    head, redirect = line.split(" >/dev/null ", 1)
    return f"{head} #{{q:client_name}} >/dev/null {redirect} ##{key.marker}"


@dataclass(frozen=True)
class Binding:
    key: str
    command: str

    @property
    def ours(self) -> bool:
        return KEY_MARKER_PREFIX in self.command

    def runs(self, key: Key) -> bool:
        return self.command.endswith(key.marker) or f'{key.marker}"' in self.command


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
    values: Mapping[str, str], bindings: list[Binding], command: list[str], log: Path
) -> tuple[list[list[str]], list[str], dict[str, str]]:
    """Commands that bind each key to what its option names (dropping our binding of it on
    any other key), warnings for keys that are someone else's (we were not asked to take
    them), and the keys bound, by action."""
    override = po.is_on(values.get("@osf-key-override", "off"))
    unbind: list[list[str]] = []
    bind: list[list[str]] = []
    warnings: list[str] = []
    bound: dict[str, str] = {}
    for key in KEYS:
        name = values.get(key.option, po.BY_NAME[key.option].default).strip()
        off = name.lower() in NO_KEY
        unbind += [
            ["unbind-key", "-T", "prefix", b.key]
            for b in bindings
            if b.runs(key) and (off or b.key != name)
        ]
        if off:
            continue
        theirs = [b for b in bindings if b.key == name and not b.ours]
        taken = next((a for a, k in bound.items() if k == name), None)
        if taken is not None:
            warnings.append(f"{key.option} is {name}, the key osf-tmux {taken} already has")
        elif theirs and not override:
            warnings.append(
                f"prefix + {name} is already bound ({theirs[0].command[:60]}); osf-tmux left "
                f"it. Choose another key with {key.option}, or set @osf-key-override on"
            )
        else:
            binding = key_binding(key, command, log)
            bind.append(["bind-key", "-T", "prefix", name, "run-shell", "-b", binding])
            bound[key.action] = name
    return unbind + bind, warnings, bound


# ---- the command-prompt alias ----------------------------------------------------------------

ALIAS = "osf-doctor"  # prefix + : osf-doctor runs `osf-tmux doctor` (output in view mode)
_ALIAS_ROW = re.compile(r'^command-alias\[(?P<index>\d+)\] "?(?P<name>[^=\s"]+)=')


def alias_index(server_options: str) -> int | None:
    """Where our alias is in the command-alias array (`show-options -s` output), if there."""
    for line in server_options.splitlines():
        m = _ALIAS_ROW.match(line)
        if m and m["name"] == ALIAS:
            return int(m["index"])
    return None


def alias_commands(server_options: str, command: list[str]) -> list[list[str]]:
    """Put our alias in place (again, at the same index on a reload)."""
    doctor = literal(shlex.join([*command, "doctor"]))  # run-shell expands formats
    value = f"{ALIAS}={tmux_words(['run-shell', '-b', doctor])}"
    index = alias_index(server_options)
    if index is None:
        return [["set-option", "-sa", "command-alias", value]]
    return [["set-option", "-s", f"command-alias[{index}]", value]]


# ---- load / unload -------------------------------------------------------------------------


@dataclass
class LoadResult:
    warnings: list[str] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # action -> key bound
    placed: list[str] = field(default_factory=list)


def load(tmux: Tmux, command: list[str], log: Path) -> LoadResult:
    """Defaults, formats and keys; the daemon is started by the caller. `command` runs this
    osf-tmux (`own_command()`); @osf-bin, when set, names another one."""
    result = LoadResult()
    tmux.run_many(po.default_commands())
    values = po.read_values(tmux)
    result.warnings += po.problems(values)
    if values.get("@osf-bin", "").strip():
        command = [values["@osf-bin"].strip()]
    formats = read_formats(tmux)
    commands = placement_commands(values, formats)
    result.placed = [c[2] for c in commands]
    if values.get("@osf-status-placement", "right").strip().lower() == "right":
        length = int(formats["status-right-length"] or TMUX_RIGHT_LENGTH)
        room, warning = length_commands(length, right_width(tmux, formats["status-right"]))
        commands += room
        result.warnings += [warning] if warning else []
    listing = tmux.run("list-keys", "-T", "prefix")
    keys, warnings, result.keys = key_commands(values, prefix_bindings(listing), command, log)
    result.warnings += warnings
    commands += alias_commands(tmux.run("show-options", "-s"), command)
    tmux.run_many(commands + keys)
    return result


def unload(tmux: Tmux) -> list[str]:
    """Take out everything `load` put in: the formats it placed, its key bindings, and each
    option it defaulted that still holds its default (a value you set stays). What was
    taken out, for the message."""
    off = {"@osf-status-placement": "off", "@osf-window-placement": "off"}
    formats = read_formats(tmux)
    commands = placement_commands(off, formats)
    gone = [f"the osf-tmux format in {c[2]}" for c in commands]
    length = int(formats["status-right-length"] or TMUX_RIGHT_LENGTH)
    back = unraise_commands(length, formats[RAISED])
    commands += back
    if len(back) > 1:
        gone.append("the status-right-length it raised")
    bindings = [b for b in prefix_bindings(tmux.run("list-keys", "-T", "prefix")) if b.ours]
    commands += [["unbind-key", "-T", "prefix", b.key] for b in bindings]
    gone += [f"prefix + {b.key}" for b in bindings]
    index = alias_index(tmux.run("show-options", "-s"))
    if index is not None:
        commands.append(["set-option", "-su", f"command-alias[{index}]"])
        gone.append(f"the {ALIAS} alias")
    values = po.read_values(tmux)
    defaulted = [o.name for o in po.OPTIONS if values.get(o.name) == o.default]
    commands += [["set-option", "-gqu", name] for name in defaulted]
    if defaulted:
        gone.append(f"{len(defaulted)} @osf-* options at their defaults")
    if commands:
        tmux.run_many(commands)
    return gone


def loaded_parts(tmux: Tmux) -> list[str]:
    """What of the plugin is in this server now: placed formats, key bindings, options set."""
    formats = read_formats(tmux)
    parts = [f"the format in {n}" for n in FORMAT_OPTIONS if _ours_in(formats[n])]
    keys = [b for b in prefix_bindings(tmux.run("list-keys", "-T", "prefix")) if b.ours]
    parts += [f"prefix + {b.key}" for b in keys]
    if alias_index(tmux.run("show-options", "-s")) is not None:
        parts.append(f"the {ALIAS} alias")
    shown = "\n" + tmux.run("show-options", "-g")
    options = [o.name for o in po.OPTIONS if f"\n{o.name} " in shown]
    if options:
        parts.append(f"{len(options)} @osf-* options")
    return parts


def _ours_in(value: str) -> bool:
    return STATUS_FRAGMENT in value or WINDOW_FRAGMENT in value


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
