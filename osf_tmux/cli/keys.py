"""The commands tmux keys run (`next`, `menu`), the short way: no click, no daemon, no
emulator. Every key press starts a new osf-tmux process, so what it imports is most of what it
costs (the whole CLI takes about 200 ms to import; the key has 100 ms from press to answer).

`main.py` hands a command line over only when it has exactly a shape these understand:
`[-L NAME | -S PATH] next|menu [--client NAME]`, -L/-S before or after the command. Anything
else (--help, a typo, an option given twice) goes through click, which owns help and errors;
both ways call the same functions (`plugin.jump.go_next`, `plugin.overview.show_menu`)."""

from __future__ import annotations

import contextlib
import sys

KEY_COMMANDS = ("next", "menu")


class KeyCall:
    __slots__ = ("client", "command", "socket_name", "socket_path")

    def __init__(self, command: str, name: str | None, path: str | None, client: str | None):
        self.command = command
        self.socket_name = name
        self.socket_path = path
        self.client = client


def parse(args: list[str]) -> KeyCall | None:
    """The call, when `args` has a shape this module takes; else None (click decides)."""
    command: str | None = None
    given: dict[str, str] = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-L", "-S", "--client"):
            if i + 1 >= len(args) or word in given or (word == "--client" and command is None):
                return None
            value = args[i + 1]
            if not value or value.startswith("-"):
                return None
            given[word] = value
            i += 2
        elif word in KEY_COMMANDS and command is None:
            command = word
            i += 1
        else:
            return None
    if command is None or ("-L" in given and "-S" in given):
        return None
    return KeyCall(command, given.get("-L"), given.get("-S"), given.get("--client"))


def run(call: KeyCall) -> int:
    """Do what the key asks; what it did goes to stdout, errors to stderr (exit status 1) and,
    when a client pressed the key, to that client too (it would never see a log). Without a
    daemon, exit status 3 unless a client pressed the key (see lifecycle.EXIT_NO_DAEMON)."""
    from osf_tmux.daemon.lifecycle import EXIT_NO_DAEMON, DaemonFiles, read_status, running_pid
    from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

    server = ServerSpec.select(call.socket_name, call.socket_path)
    tmux = Tmux(server)
    files = DaemonFiles.for_server(server)
    running = running_pid(files) is not None
    status = read_status(files) if running else None
    try:
        if call.command == "next":
            from osf_tmux.plugin.jump import Waiting, go_next

            def go_remote(tmux: Tmux, client: str | None, target: Waiting, said: str) -> str:
                from osf_tmux.plugin.remote_go import go_to_waiting  # only for another machine

                return go_to_waiting(tmux, client, target, said)

            message = go_next(tmux, status, running, call.client, go_remote)
        else:
            from osf_tmux.plugin.overview import show_menu

            message = show_menu(tmux, files, status, call.client)
    except NoServerError:
        return _failed(server.not_running())
    except TmuxError as exc:
        if call.client:
            from osf_tmux.plugin.jump import say

            with contextlib.suppress(TmuxError):
                say(tmux, call.client, f"osf-tmux {call.command}: {exc}", [])
        return _failed(str(exc))
    print(message)
    # typed in a shell: no daemon is an exit status; a key's message on its client says it
    return EXIT_NO_DAEMON if not running and call.client is None else 0


def _failed(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return 1
