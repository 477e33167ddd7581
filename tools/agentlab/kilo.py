"""Kilo CLI (`@kilocode/cli`: a node wrapper that runs its native binary `.kilo`), an OpenCode
fork: the same program family, the same scenarios and cues (opencode.py), its own names."""

from __future__ import annotations

from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.opencode import OpenCode


class Kilo(OpenCode):
    name = "kilo"
    folder = "kilo"
    npm_package = "@kilocode/cli"
    npm_command = "kilo"
    config_dir = "kilo"
    config_file = "kilo.json"
    env_prefix = "KILO_"
    plan_agent = "plan"
    reject_message = True  # Esc and Reject open `Reject permission / Tell Kilo what to do …`
    # Kilo's plan_exit reads the plan from a file (`path`, else the session's plan file, which the
    # fake model never writes); once it completes, Kilo asks `Ready to implement?` itself.
    plan_pick = ("2", "pick Continue here (implement in this session)")
    dialect = Dialect(tools={"plan": ToolShape("plan_exit", lambda a: {"path": "README.md"})})

    def extra_env(self) -> dict[str, str]:
        # No uploads of sessions, no indexing of the project (both reach out to Kilo's servers).
        return {"KILO_DISABLE_SESSION_INGEST": "1", "KILO_DISABLE_CODEBASE_INDEXING": "1"}
