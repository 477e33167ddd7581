"""Qwen Code (@qwen-code/qwen-code, a Gemini CLI fork) against the fake OpenAI chat server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from osf_tmux.agents.hooks import hooks_table
from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Keys
from tools.agentlab.base import (
    AgentSpec,
    RunDirs,
    Scenario,
    cat_hook,
    npm_prefix,
    package_version,
)
from tools.agentlab.dress import Dress
from tools.agentlab.gemini import ui_dresses, ui_settings
from tools.agentlab.shapes import Shapes, Ui

# "⠏ Thinking... (3s · esc to cancel)", "(1s · ↓ 28 tokens · esc to cancel)"
SPINNER = r"esc\s+to\s+cancel\)"  # the status row wraps in narrow panes
ASKING = (
    r"Allow execution of|Apply this change\?|Do you want to proceed\?"
    r"|Waiting for user confirmation"
)
# 0.2x puts an interrupted prompt back into the input box ("> write a long essay ...") where
# 0.15 showed the placeholder: either is the idle box.
IDLE = Cue(r"Type your message or @path/to/file|(?m:^> +\S)", absent=SPINNER + "|" + ASKING, tail=8)
WORKING = Cue(SPINNER)
APPROVAL = Cue(r"(?:Allow execution of|Apply this change\?)[\s\S]*Yes, allow once")
TRUST = Cue(r"Do you trust (?:this folder|the files in this folder)")
DRAFT_IDLE = Cue(r"> +Do you want to proceed", absent=SPINNER)
# Qwen's shell tool refuses `sleep N` ("Blocked: sleep 3 followed by ..."): python sleeps.
COMMAND = 'rm -rf build && python3 -c "import time; time.sleep(2)" && echo done'


class Qwen(AgentSpec):
    name = "qwen"
    folder = "qwen"  # captures/qwen-<version>-lab
    turns = (st.bash_turn(COMMAND),)
    # The fork keeps Gemini's habits: an Enter right after typed text can be taken as part of a
    # paste, and answer text streams without the spinner line at times.
    ui = Ui(
        idle=IDLE,
        working=WORKING,
        submit_pause=0.7,
        done_settle=1.0,
        done_quiet=True,
        dialog_settle=1.2,
        stream_settle=1.0,
    )

    # Its own settings a user can turn on (ui.theme, ui.accessibility.*), as `--dress NAME`: the
    # same settings as Gemini CLI's.
    dresses: ClassVar[dict[str, Dress]] = ui_dresses("Qwen Light")
    releases = True  # QWEN_VERSIONS: npm-qwen-<VER>/

    def _prefix(self) -> Path:
        return self.release_prefix(self.pinned) if self.pinned else npm_prefix("qwen")

    def binary(self) -> Path:
        return self._prefix() / "node_modules" / ".bin" / "qwen"

    def read_version(self) -> str:
        return package_version(
            self._prefix() / "node_modules" / "@qwen-code" / "qwen-code" / "package.json"
        )

    def build(self, s: Shapes) -> list[Scenario]:
        approve = Keys(("Enter",), "1. Yes, allow once")
        return [
            s.startup("launch; input box ready"),
            s.text(),
            *s.approvals(
                what="shell confirmation",
                approved="shell confirmation approved (Yes, allow once)",
                dialog=s.blocked(APPROVAL, "Allow execution of: 'rm'? selection"),
                first_option="1. Yes, allow once",
            ),
            *s.interrupts(),
            s.edit_write(
                "edit confirmation, then new-file confirmation, both approved",
                edit=s.blocked(APPROVAL, "edit confirmation (Apply this change?)"),
                approve=approve,
                between=s.working("edit approved", Cue(SPINNER, absent=APPROVAL.pattern)),
                write=s.blocked(APPROVAL, "new-file confirmation (write_file)"),
            ),
            *s.answers(),
            s.draft(DRAFT_IDLE),
            s.startup_dialog("trust_dialog", "folder trust dialog", TRUST, seed_trust=False),
            s.hooks_bash(
                "shell confirmation approved",
                s.blocked(APPROVAL, "Allow execution of: 'rm'? selection"),
                approve,
            ),
        ]

    def launch(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        qwen = dirs.home / ".qwen"
        qwen.mkdir()
        trusted = bool(scenario.options.get("seed_trust", True))
        settings: dict[str, object] = {
            "security": {
                "auth": {"selectedType": "openai"},
                "folderTrust": {"enabled": not trusted},
            },
            "model": {"name": "fake-model"},
            # 0.2x starts in "auto" (a model call judges each tool call; no dialog for most):
            # the scenarios are about the dialogs, so tools ask as 0.15 did by default.
            "tools": {"approvalMode": "default"},
            # 0.2x extracts memories after a turn in a background agent of its own: a request
            # the lab's script has no answer for.
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "general": {"enableAutoUpdate": False, "disableAutoUpdate": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False, "hasSeenNudge": True},
            "$version": 4,
        }
        ui = ui_settings(scenario.options)
        if ui:
            settings["ui"] = ui
        if scenario.options.get("hooks"):
            settings["hooks"] = hooks_table("qwen", command=cat_hook(dirs.root / "hooks.jsonl"))
        (qwen / "settings.json").write_text(json.dumps(settings, indent=1))
        env = self.env(
            dirs,
            OPENAI_API_KEY="sk-fake",
            OPENAI_BASE_URL=f"{url}/v1",
            OPENAI_MODEL="fake-model",
        )
        return [str(self.binary())], env
