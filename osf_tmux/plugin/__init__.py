"""The tmux plugin's side: its options and status formats (`options`, `load`), the jump to the
next waiting pane (`jump`), notifications (`notify`, `notify_backends`) and `doctor`.

May import: osf_tmux.agents, osf_tmux.daemon, osf_tmux.judge, osf_tmux.vt and the bottom
modules."""
