"""The `osf-tmux` entry point: hands the command line to the click group (`app.cli`)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    from osf_tmux.cli.app import cli

    cli.main(args, prog_name="osf-tmux")
