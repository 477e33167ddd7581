"""Codex CLI: hooks in `$CODEX_HOME/hooks.json` (default `~/.codex`; Codex runs them only once
the person has trusted them), plus `notify` in its `config.toml` for the turn ends of versions
without hooks; `-c notify=...` adds ours for one run. Its screen: rules/codex.toml."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from osf_tmux.agents.changes import HookFile

NAME = "codex"
TITLE = "Codex CLI"
EVENTS: dict[str, str | None] = {
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PermissionRequest": "blocked",
    "Stop": "done",
}
NOTIFICATIONS: dict[str, str] = {}
HOOK_TIMEOUT = 10  # seconds
HOOK_EXTRA: dict[str, object] = {}
INSTALL_NOTES = ("Codex runs new hooks only after you trust them: run /hooks in Codex once.",)

NOTIFY_DONE = "agent-turn-complete"
# Codex also runs a side thread that writes the session's title, and `notify` reports its turn
# as agent-turn-complete while the real turn is still working. Thread and turn ids are UUIDv7
# (the first 48 bits are the creation time in ms): the side thread is created for that one turn
# (the two ids were 17-31 ms apart in the 0.169.0 captures), while a session's thread exists
# long before its turns (seconds: the person types). A turn that starts this soon after its
# thread is taken for the side thread. Dropping a real "done" costs little (the screen still
# sees the turn end); taking the title's "done" would mark a working pane done.
SIDE_THREAD_MS = 500


def payload_state(payload: Mapping[str, Any]) -> str | None:
    """The state of a payload that names no hook event: the `notify` program's."""
    if payload.get("type") != NOTIFY_DONE:
        return None
    thread = _uuid7_ms(payload.get("thread-id"))
    turn = _uuid7_ms(payload.get("turn-id"))
    if thread is not None and turn is not None and 0 <= turn - thread < SIDE_THREAD_MS:
        return None
    return "done"


def _uuid7_ms(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    digits = value.replace("-", "")
    if len(digits) != 32 or digits[12] != "7":
        return None
    try:
        return int(digits[:12], 16)
    except ValueError:
        return None


def hook_files(env: Mapping[str, str]) -> list[HookFile]:
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.json_hooks import JsonHooks
    from osf_tmux.agents.toml_hooks import NotifyLine

    base = agent_folder(env, "CODEX_HOME", ".codex")
    return [JsonHooks(base / "hooks.json"), NotifyLine(base / "config.toml")]


def launch(binary: str, args: list[str], env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    # `-c` overrides config for this run. Hooks need trusting (a file), so only notify here;
    # a person's own notify program is left in charge (Codex runs one).
    from osf_tmux.agents.changes import agent_folder
    from osf_tmux.agents.toml_hooks import notify_toml, own_notify

    path = agent_folder(env, "CODEX_HOME", ".codex") / "config.toml"
    if own_notify(path):
        return [binary, *args], [
            f"{path} names its own notify program: turn ends are left to it "
            "(osf-tmux still reads the screen)"
        ]
    return [binary, "-c", notify_toml(NAME, spaced=False), *args], []
