"""The command our hooks run (the endpoint, osf_tmux/agents/report.py, with the agent's id), and
how to know it again in any file, whichever interpreter or install path wrote it."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from osf_tmux.agents import report

# Before 0.2 the endpoint was osf_tmux/report.py.
_OURS = re.compile(r"osf_tmux[/.\\](?:agents[/.\\])?report\b")


def notify_argv(agent: str) -> list[str]:
    """The endpoint's argv. The script is run by path with `-I -S`: it needs nothing but the
    standard library, so no runpy, no site-packages scan and no .pth files to import (start-up
    is most of its cost), and the agent's project directory cannot shadow a module."""
    return [sys.executable, "-I", "-S", str(Path(report.__file__).resolve()), agent]


def report_command(agent: str) -> str:
    """The shell command an agent runs for each hook."""
    return shlex.join(notify_argv(agent))


def is_our_command(command: str) -> bool:
    return bool(_OURS.search(command))
