"""Other machines: `hosts` (the hosts `@osf-hosts` names, `@osf-remote-command`, and which host
a target such as `devbox:work:1.0` names), `ssh` (the ssh command line that reaches a host, with
no prompt and one shared connection) and the link that brings a remote daemon's states into the
local one. Below the daemon, which runs the links.

May import: osf_tmux.judge, osf_tmux.vt and the bottom modules (tmux, clock, paths)."""
