"""The classify and combine steps: from a Snapshot to a pane's state. Pure: no tmux, no I/O but
reading rule files, time only from an injected clock.

`manifest` (one agent's rules as validated data, `rules/*.toml`), `ruleset` (every agent's,
shipped and the user's), `regions` (where on the screen a condition looks), `classify` (first
matching rule wins; `fast_search` and `line_local` make it cheap), `screen_judge` (one pane's
frames one after another), `combine` (the pane tracker: screen verdicts, hook reports and the
foreground process into a state over time), `question` (what a blocked screen asks, in one
line), `replay` and `corpus` (recorded captures, offline).

May import: osf_tmux.vt, osf_tmux.clock, osf_tmux.paths."""
