"""What osf-tmux knows of each agent besides its screen rules (those are in rules/*.toml).

One module per agent that has hooks (`claude`, `codex`, ...; `grok_build` for `grok-build`,
`kimi_code` for `kimi-code`): its hook events and the state each reports, where its settings
live, its launch flags. `hooks` installs and removes our hooks through those modules; `report` is
the hook endpoint an agent runs; `safe_input` types into an agent's pane safely. Adding an agent
with hooks: its module here (see `integration.AgentModule` for what it provides) and its name in
`HOOKED` below.

`report` runs inside the agent's hook with `python -I -S`: it, this `__init__` and the agent
modules' top level import nothing but the standard library (the rest is imported inside their
functions).

May import: osf_tmux.daemon, osf_tmux.judge, osf_tmux.vt and the bottom modules."""

# The table: agents with a module of their own here, in the order `--agent` lists them.
HOOKED = (
    "claude",
    "codex",
    "gemini",
    "pi",
    "cline",
    "qwen",
    "copilot",
    "opencode",
    "kilo",
    "vibe",
    "kimi",
    "kimi-code",
    "droid",
    "auggie",
    "grok-build",
)
