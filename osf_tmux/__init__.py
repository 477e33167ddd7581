"""osf-tmux: which of my AI coding agents in tmux needs me right now?

The package follows the pipeline, each folder importing only from the ones before it:

    clock, paths, tmux      the bottom: time, where files live, talking to tmux
    vt/                     screen: bytes -> an emulated pane -> Snapshot
    judge/                  classify + combine: Snapshot + rules + reports -> state
    daemon/                 source -> ... -> publish, for one tmux server
    agents/                 per-agent hooks, the hook endpoint, safe input
    plugin/                 the tmux plugin: options, jump, notifications, doctor
    cli/                    the `osf-tmux` command

tests/test_layering.py checks that no package imports one above it."""

__version__ = "0.1.0"
