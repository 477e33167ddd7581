"""How tmux runs osf-tmux: this program's command line, quoted for sh and for tmux, and where
what it says goes (the logs). Apart from `load` so that what a key runs imports only this."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path


def literal(text: str) -> str:
    """Text that tmux shows or runs as it is: it expands formats (`#{...}`, `#(...)`) in
    menu names, key bindings and run-shell commands, so every `#` is doubled."""
    return text.replace("#", "##")


def plugin_log(state_dir: Path) -> Path:
    """The log of this server's plugin loads (and of errors of what its keys run), beside the
    daemon's files for the same server: `doctor` shows this server's last load, not another's."""
    return state_dir / "plugin.log"


def install_log(env: Mapping[str, str] | None = None) -> Path:
    """The log of the plugin's first-load install (tmux/osf.tmux computes the same path): one
    per user, since the venv it installs belongs to the plugin directory, not to a server."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    )
    return Path(base) / "osf-tmux" / "plugin.log"


def log_line(path: Path, event: str, detail: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {event}: {detail}\n")


def own_command(argv0: str | None = None) -> list[str]:
    """How a tmux run-shell runs this very osf-tmux again: its absolute path (a relative one,
    `.venv/bin/osf-tmux`, would not resolve from run-shell's directory), or this interpreter
    with `-m osf_tmux` when it was started that way."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    runnable = os.path.isfile(argv0) and os.access(argv0, os.X_OK)
    if runnable and os.path.basename(argv0) != "__main__.py":
        return [os.path.abspath(argv0)]
    return [sys.executable, "-m", "osf_tmux"]


def link_command(program: str, env: Mapping[str, str] | None = None) -> str | None:
    """The one command that puts `program` (this osf-tmux, by its absolute path) on `PATH` as
    `osf-tmux`, as the README's examples call it; None when some `osf-tmux` is on `PATH`
    already (this one, or one you installed yourself: not ours to replace). The link goes
    into the first directory of yours on `PATH` that you can write (`~/.local/bin` on most
    systems), else into `~/.local/bin`, made for it, with a reminder to put it on `PATH`."""
    env = os.environ if env is None else env
    path = env.get("PATH", "")
    if shutil.which("osf-tmux", path=path) is not None:
        return None
    home = os.path.realpath(env.get("HOME") or os.path.expanduser("~"))
    usual = [os.path.join(home, ".local", "bin"), os.path.join(home, "bin")]
    mine = [
        folder
        for folder in filter(None, path.split(os.pathsep))
        if (real := os.path.realpath(os.path.expanduser(folder))).startswith(home + os.sep)
        and os.path.isdir(real)
        and os.access(real, os.W_OK)
    ]
    # ~/.local/bin or ~/bin before a tool's own folder (~/.cargo/bin) that happens to be there
    mine.sort(key=lambda f: os.path.realpath(os.path.expanduser(f)) not in usual)
    if mine:
        return shlex.join(["ln", "-s", program, os.path.join(mine[0], "osf-tmux")])
    link = f"mkdir -p ~/.local/bin && ln -s {shlex.quote(program)} ~/.local/bin/osf-tmux"
    return f"{link}  # then put ~/.local/bin on your PATH"


def tmux_words(argv: Sequence[str]) -> str:
    """A tmux command line: the words quoted for tmux's parser, which takes sh-like quotes."""
    return " ".join(shlex.quote(a) for a in argv)


def tmux_command(argv: Sequence[str]) -> str:
    """A tmux command line for a menu item or a key, which tmux expands as a format before it
    parses it: `#` doubled."""
    return literal(tmux_words(argv))


def shell_line(command: list[str], args: list[str], log: Path) -> str:
    """A sh command line for run-shell: the program's messages go to tmux itself (or nowhere),
    its errors to this server's plugin log. `#` is doubled: run-shell expands formats."""
    words = " ".join([shlex.join(command + args), f">/dev/null 2>>{shlex.quote(str(log))}"])
    return literal(words)
