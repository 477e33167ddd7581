"""Every option of the tmux plugin, its default and what it means: the one place they live.

`tmux/osf.tmux` hands over to `osf-tmux plugin load`, which sets each default with
`set-option -ogq` (a value the user set first wins), then reads them all back in one call.
The README's configuration table is checked against this list by a test."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from osf_tmux.tmux import SEP, SHELLS, Tmux, listed_names


@dataclass(frozen=True)
class Option:
    name: str
    default: str
    doc: str
    kind: str = "text"  # text | onoff | seconds | choice
    choices: tuple[str, ...] = ()


# The formats read only options: nothing forks per status redraw. Commas inside a `#{?...}`
# branch would split it, so styles use spaces (`fg=red bold`); a style option's own commas are
# safe, since it is expanded after the branch is chosen. Each count is a badge with colours of
# its own (text and background), so it reads on tmux's green bar and on any theme's alike.
STATUS_FORMAT = (
    # set only while no daemon runs after one died (the watchdog gave up restarting it)
    "#{?@osf_daemon_down,#[#{@osf-style-blocked}] osf-tmux: #{@osf_daemon_down} #[default] ,}"
    "#{?#{e|>:#{@osf_blocked_count},0},"
    "#[#{@osf-style-blocked}] #{@osf-icon-blocked} #{@osf_blocked_count} blocked #[default] ,}"
    "#{?#{e|>:#{@osf_done_count},0},"
    "#[#{@osf-style-done}] #{@osf-icon-done} #{@osf_done_count} done #[default] ,}"
)
WINDOW_FORMAT = (
    "#{?#{==:#{@osf_window_state},blocked},"
    "#[#{@osf-style-blocked}]#{@osf-icon-blocked}#[default],"
    "#{?#{==:#{@osf_window_state},done},#[#{@osf-style-done}]#{@osf-icon-done}#[default],}}"
)
# The widest the status format gets (two-digit counts): what status-right-length must allow
# beyond what status-right shows without it.
STATUS_WIDTH = len(" ● 99 blocked   ✔ 99 done  ")

OPTIONS: tuple[Option, ...] = (
    Option(
        "@osf-key-next", "A", "prefix key that jumps to the next waiting agent (`none`: no key)"
    ),
    Option(
        "@osf-key-menu",
        "W",
        "prefix key that opens the overview of every agent, to jump or answer (`none`: no key)",
    ),
    Option(
        "@osf-key-override",
        "off",
        "take the key even when something else is bound to it",
        "onoff",
    ),
    Option(
        "@osf-status-placement",
        "right",
        "`right`: put `#{E:@osf-status-format}` in front of status-right; `left`: after "
        "status-left; `off`: place it yourself",
        "choice",
        ("right", "left", "off"),
    ),
    Option(
        "@osf-window-placement",
        "on",
        "append `#{E:@osf-window-format}` to window-status-format and "
        "window-status-current-format (`off`: place it yourself)",
        "onoff",
    ),
    Option(
        "@osf-status-format", STATUS_FORMAT, "what the status line shows (counts of waiting agents)"
    ),
    Option("@osf-window-format", WINDOW_FORMAT, "the mark of a window holding a waiting agent"),
    Option("@osf-icon-blocked", "●", "icon of blocked agents"),
    Option("@osf-icon-done", "✔", "icon of agents that finished a turn you have not seen"),
    Option(
        "@osf-style-blocked",
        "fg=brightwhite bg=red bold",
        "tmux style of the blocked badge and window mark (text and background: it reads on "
        "tmux's green bar and on dark and light themes)",
    ),
    Option(
        "@osf-style-done",
        "fg=brightwhite bg=brightblue bold",
        "tmux style of the done badge and window mark (its own background: it stands out from "
        "tmux's green bar and from dark and light themes)",
    ),
    Option("@osf-notify-blocked", "on", "notify when an agent starts waiting for you", "onoff"),
    Option(
        "@osf-notify-done",
        "off",
        "notify when an agent finishes a turn (off: every turn would pop up)",
        "onoff",
    ),
    Option(
        "@osf-notify-cooldown",
        "30",
        "seconds before the same pane notifies again for the same state",
        "seconds",
    ),
    Option(
        "@osf-notify-desktop",
        "on",
        "desktop notifications when a notification service answers",
        "onoff",
    ),
    Option(
        "@osf-notify-message",
        "on",
        "without a desktop: `display-message` on attached clients",
        "onoff",
    ),
    Option(
        "@osf-notify-bell", "on", "without a desktop: ring the bell in the waiting pane", "onoff"
    ),
    Option(
        "@osf-notify-osc",
        "on",
        "without a desktop: OSC 9 and OSC 777 to each client's terminal (works over ssh)",
        "onoff",
    ),
    Option(
        "@osf-notify-command",
        "",
        "a command of yours run on each notification (`sh -c`); the event is in `OSF_*` "
        "variables and as JSON on stdin, never in the command's text",
    ),
    Option(
        "@osf-notify-command-timeout",
        "10",
        "seconds before the notify command is killed",
        "seconds",
    ),
    Option(
        "@osf-generic-processes",
        "",
        "program names (space-separated, e.g. `cursor-agent goose`) whose panes get the "
        "`generic` rules: blocked at a `[y/N]`, a menu, a password prompt; working while they "
        "print; a global, session, window or pane option",
    ),
    Option("@osf-bin", "", "the osf-tmux program (empty: found or installed by the plugin)"),
    Option(
        "@osf-hosts",
        "",
        "other machines whose agents count here (ssh config names, `user@host`, `host:port`; "
        "separated by spaces or commas): see Several machines",
    ),
    Option(
        "@osf-remote-command",
        "osf-tmux",
        "how to run osf-tmux on those machines (may carry `-L SOCKET` or `-S PATH`; split like "
        "a shell would, never run through one)",
    ),
    Option(
        "@osf-ssh-config",
        "",
        "an ssh config file for the connections to those machines (empty: "
        "`$OSF_SSH_CONFIG`, else ssh's own ~/.ssh/config)",
    ),
)

BY_NAME: Mapping[str, Option] = {o.name: o for o in OPTIONS}
ON = ("on", "yes", "true", "1")
OFF = ("off", "no", "false", "0", "")


def is_on(value: str) -> bool:
    return value.strip().lower() in ON


def default_commands() -> list[list[str]]:
    """`set -ogq` per option: sets only what the user has not set (idempotent on reload)."""
    return [["set-option", "-ogq", o.name, o.default] for o in OPTIONS]


def read_values(tmux: Tmux, names: tuple[str, ...] | None = None) -> dict[str, str]:
    """The current global values of `names` (default: all), in one `display-message -p`.

    `#{@name}` gives the raw text (a format stays unexpanded), unset options give ''."""
    names = names or tuple(o.name for o in OPTIONS)
    out = tmux.run("display-message", "-p", SEP.join(f"#{{{n}}}" for n in names))
    parts = out.rstrip("\n").split(SEP)
    if len(parts) != len(names):
        return {n: BY_NAME[n].default if n in BY_NAME else "" for n in names}
    return dict(zip(names, parts, strict=True))


def problems(values: Mapping[str, str]) -> list[str]:
    """Everything wrong with the values, all at once (a user fixes them in one pass)."""
    found = []
    for name, value in values.items():
        opt = BY_NAME.get(name)
        if opt is None:
            continue
        v = value.strip().lower()
        if opt.kind == "onoff" and v not in ON + OFF:
            found.append(f"{name} is {value!r}: use on or off")
        elif opt.kind == "choice" and v not in opt.choices:
            found.append(f"{name} is {value!r}: use one of {', '.join(opt.choices)}")
        elif opt.kind == "seconds" and not _non_negative(v):
            found.append(f"{name} is {value!r}: use a number of seconds")
        elif name == "@osf-generic-processes":
            shells = sorted(listed_names(value) & SHELLS)
            if shells:
                found.append(
                    f"{name} lists {', '.join(shells)}: a shell is never given the generic "
                    "rules (name the program you run in it)"
                )
    return found


def seconds(value: str, default: float) -> float:
    return float(value) if _non_negative(value.strip()) else default


def _non_negative(text: str) -> bool:
    try:
        return float(text) >= 0
    except ValueError:
        return False
