"""The budget of what the parser keeps of what panes print (budget_cache.py): whole lines and
what they did, runs of sequences as prepared, decoded text tokens and the cells of narrow text
(parsed CSI sequences stay off it: stream.py says why). Their costs are about the bytes an
entry keeps (its key, its value, a dict slot): all of these caches together hold at most two
`LIMIT`s, for every pane and terminal kind at once.

Before, each was bounded on its own in entries (2048 lines of up to 1 KiB per terminal kind,
2048 runs, 4096 CSI sequences, 16,384 narrow cells...): more than a megabyte between them,
filled over the first quarter of an hour of eight busy panes, so the daemon's memory rose that
long. A limit that a few busy panes spend in a minute or so keeps the lines and runs a live area
repaints (a handful of rows, found again every frame) as well as the bigger caches did."""

from __future__ import annotations

from osf_tmux.budget_cache import Budget

LIMIT = 1 << 18  # bytes (as the costs count them) added between two turns
ENTRY_COST = 64  # a dict slot, the key's and the value's object headers
CELL_COST = 8  # a cell in a tuple of cells: its pointer
CHAR_COST = 64  # a one-character string of its own (one beyond Latin-1)

PARSER = Budget(LIMIT)
