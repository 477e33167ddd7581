"""The environment an agent gets in the lab's pane, and the dresses of the terminals people have.

Every agent osf-tmux watches runs in a tmux pane, and a tmux pane gives its program `TMUX`,
`TMUX_PANE`, `TERM_PROGRAM=tmux`, `TERM_PROGRAM_VERSION` and the server's `default-terminal` as
`TERM`. Agents read these (Qwen Code draws its spinner in dots when `TMUX` is set), so the lab
hands them over, with the values of the lab's own server. A `Dress` changes that environment the
way a user's terminal or settings would: another `TERM` (set as the lab server's
`default-terminal`, as a user's tmux.conf does), `NO_COLOR`, a C locale, or an option the
adapter reads (its light theme, its screen-reader mode). Building the environment is pure:
`pane_env` takes what tmux reported (`PaneFacts`) and the dress."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "COMMON_DRESSES",
    "LIGHT_WINDOW",
    "PANE",
    "PANE_TERMINAL",
    "TMUX_VARS",
    "Dress",
    "PaneFacts",
    "by_name",
    "combine",
    "pane_env",
    "switch",
]

# tmux 3.3a's own default is `screen`; most users' configs set tmux-256color, so the lab's plain
# pane does too (the `screen` dress records the other).
PANE_TERMINAL = "tmux-256color"


@dataclass(frozen=True)
class Dress:
    """What a terminal or a user's settings change. `env`: variables set (a value) or removed
    (None) after the pane's own; `terminal`: the lab server's default-terminal (the pane's
    TERM); `options`: merged into every scenario's options, for the adapter's `launch` (a
    theme, an accessibility setting); `in_tmux`: False gives the agent no tmux variables, as an
    agent started outside tmux and moved in, or run under ssh in a pane; `tmux_options`: global
    options of the lab server, set before the pane exists, as a user's tmux.conf sets them
    (`window-style`: tmux 3.3a answers a program's OSC 10/11 colour queries with its colours)."""

    name: str
    description: str
    env: Mapping[str, str | None] = field(default_factory=dict)
    terminal: str = PANE_TERMINAL
    options: Mapping[str, object] = field(default_factory=dict)
    in_tmux: bool = True
    tmux_options: Mapping[str, str] = field(default_factory=dict)


def by_name(*dresses: Dress) -> dict[str, Dress]:
    """A table of dresses, by their names."""
    return {d.name: d for d in dresses}


def switch(name: str, flag: str, what: str) -> Dress:
    """A dress that is a switch on the agent's command line (scenario option `dress_args`,
    which `AgentSpec.launch` appends)."""
    return Dress(name, f"{flag}: {what}", options={"dress_args": [flag]})


# A light terminal as tmux 3.3a shows it to a pane's program: tmux answers OSC 10/11 (the
# default foreground and background colours) only from `window-style`, never from the terminal
# outside, so agents that pick their palette from the reported background (Copilot CLI) see a
# light one only when tmux.conf sets it.
LIGHT_WINDOW = {"window-style": "fg=#000000,bg=#ffffff"}

# The lab's plain pane: no dress.
PANE = Dress("pane", "a tmux pane (default-terminal tmux-256color, COLORTERM from the terminal)")

# Dresses every agent can wear: the terminal's, not the agent's settings.
COMMON_DRESSES: dict[str, Dress] = by_name(
    Dress(
        "256",
        "TERM=xterm-256color (default-terminal), no COLORTERM",
        env={"COLORTERM": None},
        terminal="xterm-256color",
    ),
    Dress(
        "screen",
        "TERM=screen (tmux 3.3a's own default-terminal), no COLORTERM",
        env={"COLORTERM": None},
        terminal="screen",
    ),
    Dress("ascii", "LANG=C, LC_ALL=C", env={"LANG": "C", "LC_ALL": "C"}),
    Dress("nocolor", "NO_COLOR=1", env={"NO_COLOR": "1"}),
    Dress(
        "notmux",
        "no tmux variables (started outside tmux and moved in, or under ssh in a pane): "
        "the lab's environment before issue 28",
        in_tmux=False,
    ),
)


@dataclass(frozen=True)
class PaneFacts:
    """What the lab's tmux server says about the pane the agent will run in."""

    socket_path: str
    server_pid: int
    session_id: str  # as `#{session_id}` prints it: "$0"
    pane_id: str  # "%0"
    version: str  # "3.3a"
    terminal: str  # the server's default-terminal

    def tmux_var(self) -> str:
        """`TMUX` as tmux sets it for a pane's process: socket path, server pid, session
        number."""
        return f"{self.socket_path},{self.server_pid},{self.session_id.lstrip('$')}"


# The variables a tmux pane adds to its program's environment.
TMUX_VARS = ("TMUX", "TMUX_PANE", "TERM_PROGRAM", "TERM_PROGRAM_VERSION")


def pane_env(agent_env: Mapping[str, str], facts: PaneFacts, dress: Dress) -> dict[str, str]:
    """The agent's whole environment in the pane: what its adapter set (HOME, API endpoint,
    the base locale), the pane's tmux variables and TERM, then the dress."""
    env = dict(agent_env)
    if dress.in_tmux:
        env["TERM"] = facts.terminal
        env["TMUX"] = facts.tmux_var()
        env["TMUX_PANE"] = facts.pane_id
        env["TERM_PROGRAM"] = "tmux"
        env["TERM_PROGRAM_VERSION"] = facts.version
    else:
        for key in TMUX_VARS:
            env.pop(key, None)
    for key, value in dress.env.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def combine(dresses: Iterable[Dress]) -> Dress:
    """Several dresses worn at once (`--dress 256+nocolor`): later ones win where they
    disagree; one that leaves tmux out leaves it out."""
    worn = list(dresses)
    if not worn:
        return PANE
    if len(worn) == 1:
        return worn[0]
    env: dict[str, str | None] = {}
    options: dict[str, object] = {}
    tmux_options: dict[str, str] = {}
    terminal = PANE_TERMINAL
    for d in worn:
        env.update(d.env)
        options.update(d.options)
        tmux_options.update(d.tmux_options)
        if d.terminal != PANE_TERMINAL:
            terminal = d.terminal
    return Dress(
        "+".join(d.name for d in worn),
        "; ".join(d.description for d in worn),
        env=env,
        terminal=terminal,
        options=options,
        in_tmux=all(d.in_tmux for d in worn),
        tmux_options=tmux_options,
    )
