"""The `osf-tmux` command: a thin click layer over the library (`main` is the entry point; one
module per group of commands). Library errors become click errors here.

May import: everything else in osf_tmux; nothing imports it."""
