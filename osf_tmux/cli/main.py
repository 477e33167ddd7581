"""The `osf-tmux` entry point. The commands that keys run take the short way (`keys.py`), which
imports neither click nor the rest of the CLI; everything else goes to the click group
(`app.cli`)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    from osf_tmux.cli import keys

    call = keys.parse(args)
    if call is not None:
        sys.exit(keys.run(call))
    from osf_tmux.cli.app import cli

    cli.main(args, prog_name="osf-tmux")
