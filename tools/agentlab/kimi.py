"""Kimi CLI (`kimi-cli` on PyPI, a prompt_toolkit TUI whose process renames itself `Kimi Code`)
against the fake OpenAI chat completions server (`openai_legacy` provider)."""

from __future__ import annotations

from typing import ClassVar

from osf_tmux.agents.kimi import toml_entries
from osf_tmux.agents.toml_hooks import render
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, cat_hook
from tools.agentlab.dress import Dress
from tools.agentlab.shapes import Standard, Ui

SPINNER = r"[🌑🌒🌓🌔🌕🌖🌗🌘]|^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] "
BOX = r"▲/▼ select +1/2/3/4 choose +↵ confirm"
# Any panel (approval, question) is up: the tool's spinner row keeps turning above it.
PANEL = r"^╭─ (?:approval|question) ─"
IDLE = Cue(r"[─╌]{2} input\b", absent=SPINNER + "|" + BOX)
PLAN_IDLE = Cue(r"╌╌ input · plan ╌", absent=SPINNER + "|" + BOX)
WORKING = Cue(SPINNER, absent=BOX + "|" + PANEL)
# A panel is drawn once its bottom edge is followed by the footer's rule: a pipe read can end
# in the middle of the frame that draws it.
PANEL_END = r"\n╰─{8,}╯ *\n─{8,}"
APPROVAL = Cue(r"╭─ approval ─[\s\S]*\[1\] Approve once[\s\S]*" + BOX + r"[^\n]*" + PANEL_END)
DRAFT_IDLE = Cue(r"Do you want to proceed", absent=SPINNER)
QUESTION = Cue(
    r"Which database should the app use\?[\s\S]*PostgreSQL[\s\S]*SQLite[\s\S]*" + PANEL_END
)

CONFIG = """\
default_model = "fake"
default_yolo = false
telemetry = false

[providers.fake]
type = "openai_legacy"
base_url = "{url}/v1"
api_key = "sk-fake"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 128000
"""


class Kimi(AgentSpec):
    name = "kimi"
    folder = "kimi"  # captures/kimi-<version>-lab
    ui = Ui(idle=IDLE, working=WORKING)
    # Its own settings as `--dress NAME`: the light theme (config.toml `theme`, "dark" or
    # "light"; dark by default).
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", 'theme = "light"', options={"theme": "light"}),
    }
    pypi_dist = "kimi_cli"
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {"plan": ("--plan",)}

    standard = Standard(
        dialog=APPROVAL,
        what="approval box",
        first_option="[1] Approve once",
        bash="approval: Shell is requesting approval to run command",
        reject=Keys(("3",), "press 3 ([3] Reject)"),
        # Kimi keeps an answer's text back until its block is done ("Composing... 2s · 40
        # tokens" meanwhile): the essay is interrupted once tokens flow.
        streaming=Expect(None, Cue(r"Composing\.\.\. [1-9]\d*s · \d+ tokens"), "answer streaming"),
        edit_write="edit approval, then new-file approval, both approved",
        edit="approval for the edit of app.py",
        write="approval for the new NOTES.md",
        between=WORKING,
        question=QUESTION,
        question_desc="AskUserQuestion: a question with options, first option chosen",
        draft=DRAFT_IDLE,
        # Plan mode (`--plan`): the input header turns dashed, `╌╌ input · plan ╌╌`.
        plan_idle=PLAN_IDLE,
        hooks=True,
    )

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config = CONFIG.format(url=url)
        if theme := options.get("theme"):
            # a top-level key goes before the file's first table
            config = f'theme = "{theme}"\n' + config
        if options.get("hooks"):
            config += render(toml_entries(cat_hook(dirs.root / "hooks.jsonl")))
        return {".kimi/config.toml": config}
