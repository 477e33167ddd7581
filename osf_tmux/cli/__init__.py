"""The `osf-tmux` command: `main` is the entry point; `keys` runs what tmux keys run (`next`,
`menu`) without click; `app` is the click group, a thin layer over the library with one module
per group of commands (`daemon`, `plugin`, `agents`, `rules`) and `server` for -L/-S. Library
errors become click errors here.

May import: everything else in osf_tmux; nothing imports it."""
