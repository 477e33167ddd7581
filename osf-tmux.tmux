#!/usr/bin/env bash
# TPM runs every *.tmux file at the plugin's root (and discards its output); the plugin lives
# in tmux/osf.tmux. Manual install: run-shell /path/to/osf-tmux/osf-tmux.tmux
exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tmux/osf.tmux" "$@"
