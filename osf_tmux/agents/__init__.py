"""What osf-tmux knows of each agent besides its screen rules (those are in rules/*.toml).

One module per agent that has hooks (`claude`, `codex`, ...; `grok_build` for `grok-build`,
`kimi_code` for `kimi-code`), data only: its id (`NAME`), its hook events and the state each
reports, where its hook files live and of which kind, its launch flags (or `NO_LAUNCH`, why
there are none). One module per kind of hook file: `json_hooks` (a JSON settings file),
`toml_hooks` (TOML `[[hooks]]` tables, Codex's notify line), `own_files` (a plugin, extension
or hook script of our own); `changes` plans and writes what they change, `command` is the
command they register. `hooks` installs and removes our hooks by agent id, through
`integration`, which finds an agent's module by its id; nothing below those two imports them.
`report` is the hook endpoint an agent runs; `safe_input` types into an agent's pane safely.
Adding an agent with hooks: its module here (see `integration.AgentModule` for what it
provides) and its name in `HOOKED` below.

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
