"""What the parser keeps of what panes print stays on one budget (vt/kept.py), however long the
output and however many panes: the daemon's memory must stop growing after its first minutes
(issue #30)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.vt import kept, printing, stream
from osf_tmux.vt.pane import PaneScreen

ROOT = Path(__file__).resolve().parents[2]


def streamed_lines(count: int, seed: int) -> Iterator[bytes]:
    """An agent streaming: every line new (its text, its colour, its row), each drawn twice as a
    repainted live area is, so that the parser keeps it."""
    for k in range(count):
        r, g, b = k % 16, (k * 7) % 16, seed  # a few colours: their sequences recur
        text = f"{'─' * 20} {k:06d} {seed} " + "word " * 60 + "•" * 10
        line = f"\x1b[{k % 30 + 1};1H\x1b[38;2;{r};{g};{b}m{text}\x1b[39m\r\n".encode()
        yield line + line


def test_every_cache_of_the_parser_draws_on_its_budget() -> None:
    turns = kept.PARSER.turns
    panes = [PaneScreen(400, 40) for _ in range(4)]
    for n, chunk in enumerate(streamed_lines(3000, seed=3)):
        panes[n % 4].feed(chunk)
    assert kept.PARSER.turns > turns + 4  # many budgets went through
    caches = kept.PARSER.caches()
    # lines, runs, texts (one each for this terminal kind) and narrow cells
    assert {id(c) for c in caches} >= {
        id(printing._NARROW_CELLS),
        id(panes[0]._parser._lines),
        id(panes[0]._parser._runs),
        id(panes[0]._parser._texts),
    }
    held = sum(c.held() for c in caches)
    biggest = 2 * (stream._LINE_BYTES + kept.ENTRY_COST) + 16 * 64
    assert 0 < held <= 2 * kept.LIMIT + biggest, f"{held} bytes held"


def test_a_line_still_drawn_stays_kept_across_turns() -> None:
    pane = PaneScreen(400, 40)
    footer = b"\x1b[40;1H\x1b[2K\xe2\x94\x80\xe2\x94\x80 footer \xe2\x94\x80\xe2\x94\x80\r\n"
    lines = pane._parser._lines
    turns = kept.PARSER.turns
    for n, chunk in enumerate(streamed_lines(1500, seed=4)):
        pane.feed(chunk + footer)
        # Kept from its second drawing on, whatever turns came. (Seen once, it is only noted;
        # other tests in this process leave the budget anywhere, even about to turn during
        # the first feed: asserting there failed 1 run in ~7.)
        assert n == 0 or lines.get(footer) not in (None, stream._ONCE)
    assert kept.PARSER.turns > turns + 2


# Run in a process of its own: what other tests left in the caches (shared by the process's
# parsers) is not this test's. No osf_tmux import but PaneScreen's, so that it measures any
# version of the parser.
_RETAINED = """
import gc, sys, tracemalloc
sys.path.insert(0, {tests!r})
from vt.test_parser_budget import streamed_lines
from osf_tmux.vt.pane import PaneScreen

pane = PaneScreen(400, 40)
for chunk in streamed_lines(50, seed=9):  # what is built once is not what grows
    pane.feed(chunk)
gc.collect()
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
for chunk in streamed_lines({count}, seed=1):
    pane.feed(chunk)
gc.collect()
print(tracemalloc.get_traced_memory()[0] - base)
"""


def retained_after(count: int) -> int:
    code = textwrap.dedent(_RETAINED.format(tests=str(ROOT / "tests"), count=count))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return int(out.stdout.split()[-1])


@pytest.mark.slow
def test_what_the_parser_keeps_levels_off_within_its_budget() -> None:
    """Memory as tracemalloc counts it, after 3000 new lines: within two budgets (measured
    0.37 MB); bounded in entries one by one, the caches held 1.64 MB of them (with a new
    colour every line, and so a new CSI sequence: 2.6 MB, and 4.2 MB after 8000 lines)."""
    held = retained_after(3000)
    assert held <= 4 * kept.LIMIT, f"{held / 1e6:.2f} MB kept"
