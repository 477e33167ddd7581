"""Kilo CLI (`@kilocode/cli`: a node wrapper that runs its native binary `.kilo`), an OpenCode
fork: the same program family, the same scenarios and cues (opencode.py), its own names."""

from __future__ import annotations

from tools.agentlab import stories as st
from tools.agentlab.actions import Keys
from tools.agentlab.base import Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.opencode import QUESTION, OpenCode
from tools.agentlab.shapes import Shapes

# Kilo asks whether to disable its snapshots (its undo store) when tracking the project takes
# longer than KILO_SNAPSHOT_TRACK_TIMEOUT_MS (10 s by default): on a loaded machine it did, and
# the lab's turns waited on the question. A tiny timeout brings the question up on purpose.
SLOW_SNAPSHOT_MS = "1"


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

    def build(self, s: Shapes) -> list[Scenario]:
        return [
            *super().build(s),
            s.dialog_turn(
                "snapshot_slow",
                "Kilo's own question when its first snapshot of the project is slow (Continue "
                "with snapshots / Disable for this project), answered Disable",
                st.P_TEXT,
                s.blocked(QUESTION, "snapshot question: disable Snapshots for this repository?"),
                Keys(("2",), "pick Disable for this project"),
                s.working("snapshots disabled; the turn goes on"),
                slow_snapshot=True,
            ),
        ]

    def extra_env(self) -> dict[str, str]:
        # No uploads of sessions, no indexing of the project (both reach out to Kilo's servers).
        return {"KILO_DISABLE_SESSION_INGEST": "1", "KILO_DISABLE_CODEBASE_INDEXING": "1"}

    def config_extra(self, options: Options) -> dict[str, object]:
        # What Kilo itself writes when a user answers its slow-snapshot question with `Disable
        # for this project` (`"snapshot": false`): the lab's turns then never wait on that
        # question, whatever the machine's load. `snapshot_slow` keeps snapshots on to ask it.
        if options.get("slow_snapshot"):
            return {}
        return {"snapshot": False}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        env = super().more_env(dirs, url, options)
        if options.get("slow_snapshot"):
            env[self.env_prefix + "SNAPSHOT_TRACK_TIMEOUT_MS"] = SLOW_SNAPSHOT_MS
        return env
