"""The source and publish steps, and the daemon that runs the pipeline for one tmux server.

`source` (pipe-pane FIFOs and capture-pane), `process` (a pane's foreground process group),
`identify` (which agent's rules a pane gets), `loop` (the Daemon: read, judge, combine,
publish), `publish` (tmux user options, written only on change), `tmux_hooks` (tmux hooks that
wake the daemon), `lifecycle` (start, stop, lock, status file), `events` (the event feed's
server: every state change to local readers) and `feed` (its wire format and reader's side).

May import: osf_tmux.fleet, osf_tmux.judge, osf_tmux.vt and the bottom modules (tmux, clock,
paths)."""
