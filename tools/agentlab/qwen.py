"""Qwen Code (@qwen-code/qwen-code, a Gemini CLI fork) against the fake OpenAI chat server."""

from __future__ import annotations

from typing import ClassVar

from osf_tmux.agents.hooks import hooks_table
from tools.agentlab import stories as st
from tools.agentlab.actions import Cue
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, cat_hook
from tools.agentlab.dress import Dress
from tools.agentlab.gemini_family import (
    NO_REPORTS,
    family_ui,
    security,
    ui_block,
    ui_dresses,
)
from tools.agentlab.shapes import Standard

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
DRAFT_IDLE = Cue(r"> +Do you want to proceed", absent=SPINNER)
TRUST = Cue(r"Do you trust (?:this folder|the files in this folder)")
# Qwen's shell tool refuses `sleep N` ("Blocked: sleep 3 followed by ..."): python sleeps.
COMMAND = 'rm -rf build && python3 -c "import time; time.sleep(2)" && echo done'


class Qwen(AgentSpec):
    name = "qwen"
    folder = "qwen"  # captures/qwen-<version>-lab
    turns = (st.bash_turn(COMMAND),)
    ui = family_ui(IDLE, WORKING, submit_pause=0.7)
    standard = Standard(
        dialog=APPROVAL,
        what="shell confirmation",
        first_option="1. Yes, allow once",
        approved="shell confirmation approved (Yes, allow once)",
        bash="Allow execution of: 'rm'? selection",
        edit="edit confirmation (Apply this change?)",
        write="new-file confirmation (write_file)",
        draft=DRAFT_IDLE,
        trust=TRUST,
        hooks=True,
    )

    # Its own settings a user can turn on (ui.theme, ui.accessibility.*), as `--dress NAME`: the
    # same settings as Gemini CLI's.
    dresses: ClassVar[dict[str, Dress]] = ui_dresses("Qwen Light")
    releases = True  # QWEN_VERSIONS: npm-qwen-<VER>/
    npm_package = "@qwen-code/qwen-code"

    launch_env: ClassVar[dict[str, str]] = {
        "OPENAI_API_KEY": "sk-fake",
        "OPENAI_BASE_URL": "{url}/v1",
        "OPENAI_MODEL": "fake-model",
    }

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        settings: dict[str, object] = {
            **security("openai", options),
            "model": {"name": "fake-model"},
            # 0.2x starts in "auto" (a model call judges each tool call; no dialog for most):
            # the scenarios are about the dialogs, so tools ask as 0.15 did by default.
            "tools": {"approvalMode": "default"},
            # 0.2x extracts memories after a turn in a background agent of its own: a request
            # the lab's script has no answer for.
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "general": {"enableAutoUpdate": False, "disableAutoUpdate": True},
            **NO_REPORTS,
            "ide": {"enabled": False, "hasSeenNudge": True},
            "$version": 4,
            **ui_block(options),
        }
        if options.get("hooks"):
            settings["hooks"] = hooks_table("qwen", command=cat_hook(dirs.root / "hooks.jsonl"))
        return {".qwen/settings.json": settings}
