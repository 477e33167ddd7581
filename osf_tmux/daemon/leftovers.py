"""What a daemon that died without stopping leaves in tmux, and clearing it when no daemon is
going to take over: its published states (they would stay on the status line for good), its
pipes (their `cat`s are dead; tmux closes them only when it next writes) and its hooks.

A daemon that starts takes all of this over by itself: it writes every state afresh, takes back
the pipes and replaces the hooks. This is for when none will: the watchdog gave up."""

from __future__ import annotations

from pathlib import Path

from osf_tmux.daemon import tmux_hooks
from osf_tmux.daemon.publish import summary
from osf_tmux.daemon.source import PipeFactory
from osf_tmux.tmux import SEP, Tmux

DOWN = "@osf_daemon_down"  # set while no daemon runs after one died; the status line shows it
_WINDOW_HEAD = "OSFWIN" + SEP
_PANES = SEP.join(["#{pane_id}", "#{@osf_pipe}", "#{@osf_state}"])
_WINDOWS = _WINDOW_HEAD + "#{window_id}" + SEP + "#{@osf_window_state}"


def clear(tmux: Tmux, token: str, runtime: Path | None = None) -> int:
    """Unset every state, close every pipe of ours, remove our hooks and (given the runtime
    directory) the FIFOs; returns how many commands it took. The user's own pipes and options
    stay."""
    out = tmux.run_many(
        [
            ["list-panes", "-a", "-F", SEP.join(["#{pane_id}", "#{@osf_pipe}", "#{@osf_state}"])],
            [
                "list-windows",
                "-a",
                "-F",
                _WINDOW_HEAD + "#{window_id}" + SEP + "#{@osf_window_state}",
            ],
        ]
    )
    commands: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith(_WINDOW_HEAD):
            window_id, _, mark = line[len(_WINDOW_HEAD) :].partition(SEP)
            if mark:
                commands.append(["set-option", "-w", "-u", "-t", window_id, "@osf_window_state"])
            continue
        fields = line.split(SEP)
        if len(fields) != 3:
            continue
        pane_id, pipe, state = fields
        if pipe == token:
            commands.append(["pipe-pane", "-t", pane_id])
            commands.append(["set-option", "-p", "-u", "-t", pane_id, "@osf_pipe"])
        if state:
            commands.append(["set-option", "-p", "-u", "-t", pane_id, "@osf_state"])
    for name in [*summary({}), "@osf_daemon_pid"]:
        commands.append(["set-option", "-g", "-u", name])
    tmux.run_each(commands)
    tmux_hooks.remove(tmux)
    tmux_hooks.release(tmux)  # its last waiter ends
    if runtime is not None:
        PipeFactory(runtime).remove_leftovers(set())
    return len(commands)


def say_down(tmux: Tmux, why: str) -> None:
    tmux.run("set-option", "-g", DOWN, why)
