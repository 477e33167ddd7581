"""Going to a pane on another machine: a local window that runs `ssh -t HOST tmux attach`.

One window per host and remote session. It is found again by the window options set on it
(`@osf-remote-host`, `@osf-remote-session`), never by its name, which a user or a program may
change. When it is open, the remote tmux is told through ssh which pane to show
(`select-window` and `select-pane` there) and the client switches to it; otherwise a new window
runs ssh with the attach and the same selection. An ssh that fails keeps its window, which
shows why (`remain-on-exit failed` on that window); such a window is started again in place.

Nothing here goes through a shell on this side: tmux starts ssh from an argv (new-window with
more than one word execs it), and ssh's remote command is quoted word by word (fleet.ssh). The
remote session's name and pane id came from the other machine: they are only ever words of
those argvs and values of options, and `#` is doubled where tmux would expand a format (the
window's name)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from osf_tmux.plugin.invoke import literal
from osf_tmux.plugin.jump import client_line, shown_by
from osf_tmux.plugin.remote_view import printable
from osf_tmux.tmux import SEP, Tmux

HOST_OPTION = "@osf-remote-host"
SESSION_OPTION = "@osf-remote-session"
PANE_OPTION = "@osf-remote-pane"  # the remote pane it was last sent to: where `next` goes on from
SELECT_TIMEOUT = 10.0  # seconds for the ssh that selects the pane in a window already open
_WINDOW_HEAD = "OSFWINDOW" + SEP

# (remote argv, tty) -> the ssh argv that runs it on the host (fleet.ssh.ssh_argv, bound to one
# host and this user's ssh config)
SshCommand = Callable[[Sequence[str], bool], list[str]]
# argv, timeout -> (exit status, what it said on stderr)
Runner = Callable[[Sequence[str], float], tuple[int, str]]


@dataclass(frozen=True)
class RemotePlace:
    host: str  # as in @osf-hosts
    session: str  # the remote session's name
    pane: str  # the remote pane: its id (%3), or a target in that session
    where: str = ""  # how it is shown: devbox:work:1.0

    def shown(self) -> str:
        return self.where or f"{self.host}:{self.pane}"


def remote_tmux(remote_command: Sequence[str]) -> list[str]:
    """The remote tmux, with the server `@osf-remote-command` names for osf-tmux there (its
    `-L NAME` or `-S PATH`, as osf-tmux and tmux take them): `tmux -L work`."""
    words = list(remote_command)
    for i, word in enumerate(words[1:], start=1):
        if word in ("-L", "-S") and i + 1 < len(words):
            return ["tmux", word, words[i + 1]]
        if len(word) > 2 and word[:2] in ("-L", "-S"):
            return ["tmux", word[:2], word[2:]]
    return ["tmux"]


def select_argv(tmux: Sequence[str], pane: str) -> list[str]:
    """Show `pane` in its session: its window, and it in the window (a pane id as the window's
    target names the window that holds it)."""
    return [*tmux, "select-window", "-t", pane, ";", "select-pane", "-t", pane]


# ssh run by a shell that leaves the pane's terminal open a second after ssh ended: tmux 3.3a
# can take the terminal's end before the exit status, read a failed ssh as one that ended
# well, and close the window that `remain-on-exit failed` was to keep (4 runs of 12 at load
# 20; tmux 3.4 and later wait for the status). The window of an attach that ends well closes
# a second later.
KEEP_STATUS = ("sh", "-c", '"$@"; e=$?; sleep 1 & exit "$e"', "osf-tmux-ssh")


def attach_argv(tmux: Sequence[str], place: RemotePlace) -> list[str]:
    """Attach to the session (`=`: that name exactly, not the first that starts with it) and
    show the pane."""
    return [*tmux, "attach-session", "-t", f"={place.session}", ";",
            *select_argv((), place.pane)]  # fmt: skip


def run_quietly(argv: Sequence[str], timeout: float) -> tuple[int, str]:
    try:
        proc = subprocess.run(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout, text=True,
                              errors="replace")  # fmt: skip
    except subprocess.TimeoutExpired:
        return 124, f"no answer within {timeout:g} s"
    except OSError as exc:
        return 127, str(exc.strerror or exc)
    return proc.returncode, proc.stderr


@dataclass(frozen=True)
class Window:
    window_id: str
    dead: bool


def find_window(
    tmux: Tmux, client: str | None, place: RemotePlace
) -> tuple[Window | None, str | None]:
    """The local window attached to the place's host and session, if one is open, and the
    session the client shows (where a new window goes), in one tmux call."""
    fields = ("#{window_id}", f"#{{{HOST_OPTION}}}", f"#{{{SESSION_OPTION}}}", "#{pane_dead}")
    out = tmux.run_many(
        [
            ["list-windows", "-a", "-F", _WINDOW_HEAD + SEP.join(fields)],
            shown_by(client, ("#{session_id}",)),
        ]
    )
    found: Window | None = None
    session = None
    for line in out.splitlines():
        if (seen := client_line(line, client)) is not None and len(seen) == 2:
            session = seen[1] or None
        elif line.startswith(_WINDOW_HEAD):
            parts = line[len(_WINDOW_HEAD) :].split(SEP)
            if len(parts) != len(fields):
                continue
            window_id, host, remote_session, dead = parts
            if (host, remote_session) == (place.host, place.session):
                candidate = Window(window_id, dead == "1")
                if found is None or (found.dead and not candidate.dead):
                    found = candidate  # a live one before one whose ssh has ended
    return found, session


def go_remote(
    tmux: Tmux,
    client: str | None,
    place: RemotePlace,
    ssh: SshCommand,
    remote_command: Sequence[str],
    run: Runner = run_quietly,
    said: str = "",
) -> str:
    """Switch `client` (default: the current one) to a local window attached to the place's
    host and session, with its pane shown; the message it was shown (`said`, else where it
    went). Three tmux calls and, for a window already open, one ssh. The text of a failed
    ssh is the remote's: it reaches the client as text (`#` doubled, controls out)."""
    remote = remote_tmux(remote_command)
    window, session = find_window(tmux, client, place)
    message = said or f"osf-tmux: {place.shown()}"
    attach = [*KEEP_STATUS, *ssh(attach_argv(remote, place), True)]
    marks: list[list[str]] = []
    if window is None:
        # After the session's last window, so that `{end}` names it in the same call: its
        # options are set before ssh can have ended (tmux reaps a child between calls, not
        # within one). An ssh that fails keeps its window, showing why (remain-on-exit failed).
        end = f"{session}:{{end}}" if session else "{end}"
        name = literal(f"{place.host}:{place.session}")  # -n is expanded as a format
        new = ["new-window", "-d", "-a", "-P", "-F", "#{window_id}", "-t", end, "-n", name]
        created = tmux.run_many(
            [
                [*new, *attach],
                ["set-option", "-w", "-t", end, "remain-on-exit", "failed"],
                ["set-option", "-w", "-t", end, HOST_OPTION, place.host],
                ["set-option", "-w", "-t", end, SESSION_OPTION, place.session],
            ]
        )
        window = Window(created.strip(), False)
    elif window.dead:
        marks = [["respawn-pane", "-k", "-t", window.window_id, *attach]]
    else:
        code, err = run(ssh(select_argv(remote, place.pane), False), SELECT_TIMEOUT)
        if code != 0:
            why = " ".join(printable(err).split())[-200:] or f"exit status {code}"
            message = f"{message} (could not select it there: {why})"
    marks.append(["set-option", "-w", "-t", window.window_id, PANE_OPTION, place.pane])
    to = ["-c", client] if client else []
    shown = ["display-message", *to, message.replace("#", "##")]
    tmux.run_many([*marks, ["switch-client", *to, "-t", window.window_id], shown])
    return message
