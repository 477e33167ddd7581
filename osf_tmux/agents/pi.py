"""Pi: no hook settings, but extensions, TypeScript modules it loads from
`$PI_CODING_AGENT_DIR/extensions/` (default `~/.pi/agent/extensions/`) when it starts, and `-e
FILE` for one run. Ours (`pi_extension.ts`, written out by `render` below with this install's
interpreter and endpoint) hands Pi's agent events to the endpoint. Its screen: rules/pi.toml.

Pi has no permission event: it runs every tool without asking, and an extension that asks (an
approval gate calling `ctx.ui.select`) says so to nobody else. A dialog on screen is the
screen's to find; the rules recognise the dialogs extensions can draw."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from osf_tmux.agents.changes import HookFile

NAME = "pi"
TITLE = "Pi"
# Pi's extension events, as our extension sends them. A run (one prompt) is agent_start, then a
# turn per model answer, a tool_execution_start per tool it runs, then agent_end, which fires
# however the run ended; its stop reason comes as `notification_type`.
EVENTS: dict[str, str | None] = {
    "agent_start": "working",
    "turn_start": "working",
    "tool_execution_start": "working",
    "agent_end": None,
}
# agent_end by stop reason: interrupted with Escape, the person is there; an error ends the turn
# as much as an answer does.
NOTIFICATIONS = {"stop": "done", "length": "done", "error": "done", "aborted": "idle"}
HOOK_TIMEOUT = 10  # seconds the extension lets one report run before it kills it
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES = (
    "Pi loads extensions when it starts: restart a Pi that is running (or type /reload in it).",
)
EXTENSION_NAME = "osf-tmux.ts"
TEMPLATE = "pi_extension.ts"  # beside this module
MARKER = b"// osf-tmux: "  # the first line of the file: what tells ours from anyone else's


def agent_dir(env: Mapping[str, str]) -> str:
    """Pi's own folder (`PI_CODING_AGENT_DIR`, `~` allowed, else `~/.pi/agent`)."""
    import os

    home = env.get("HOME") or os.path.expanduser("~")
    explicit = env.get("PI_CODING_AGENT_DIR")
    if explicit:
        if explicit == "~" or explicit.startswith("~/"):
            return home + explicit[1:]
        return explicit
    return os.path.join(home, ".pi", "agent")


def render() -> bytes:
    """The extension, with the endpoint and the events of this install."""
    import json

    from osf_tmux.agents.command import notify_argv
    from osf_tmux.agents.own_files import fill

    return fill(
        TEMPLATE,
        {
            "__REPORT_ARGV__": json.dumps(notify_argv(NAME), ensure_ascii=False),
            "__EVENTS__": json.dumps(list(EVENTS)),
            "__TIMEOUT_MS__": str(HOOK_TIMEOUT * 1000),
        },
    )


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from pathlib import Path

    from osf_tmux.agents.own_files import OwnFile

    path = Path(agent_dir(env)) / "extensions" / EXTENSION_NAME
    return [OwnFile(path, render(), MARKER, "extension", "rename yours and install again")]


def private_path(env: Mapping[str, str]) -> Path:
    """Where `launch pi` keeps the extension: osf-tmux's own state folder, private."""
    from osf_tmux.agents.changes import own_state

    return own_state(env) / "pi" / EXTENSION_NAME


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    from osf_tmux.agents.own_files import write_copy

    (installed,) = hook_files(env)
    if installed.installed():
        return [binary, *args], [f"{installed.path} is installed: Pi loads it itself"]
    # `-e` loads an extension for this run; it is written where only osf-tmux keeps files.
    return [binary, "-e", str(write_copy(private_path(env), render())), *args], []
