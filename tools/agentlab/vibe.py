"""Mistral Vibe (`mistral-vibe` on PyPI: `vibe` starts the Rust TUI `vibe-rs`, which runs the
Python `vibe-app-server` as its child) against the fake OpenAI chat completions server."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from osf_tmux.agents.toml_hooks import render
from osf_tmux.agents.vibe import toml_entries
from tools.agentlab.actions import Cue, PickOption
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario, cat_hook
from tools.agentlab.dress import Dress
from tools.agentlab.shapes import Shapes, Standard, Ui

# The row above the input box while a turn runs: "⠇  Generating… (1s Esc/Ctrl+C to interrupt)";
# before the app server is up: "⣠ Initializing… (Ctrl+C to cancel last queued message)".
# 3.0.3 shows a notice in the bottom right for seconds after start-up (`▌ the context window of
# fake-model is unknown; …`, the fake model is in no catalogue); its last row is the spinner
# row, and in a pane narrower than about 110 columns it covers the hint (under 80, the activity
# too): then the spinner, what is left of the activity and the notice's `▌` edge make the row.
SPINNER = r"Esc/Ctrl\+C to interrupt\)|^ ?[⠀-⣿]{1,2} +[^\n]*▌[ \t]*$"
STARTING = r"Initializing…|Ctrl\+C to cancel last queued"
BOX = r"↑↓/jk navigate +Enter select +Esc reject"
# Ready: the footer shows the context use once the app server (the agent) answers; the input
# box is drawn (and takes text) long before.
IDLE = Cue(r"tokens \(\d+%\)\s*$", absent=SPINNER + "|" + STARTING + "|" + BOX + "|└─{8,}┘", tail=6)
# A box (permission, question) is up: the tool's spinner row keeps turning above it.
WORKING = Cue(SPINNER, absent=r"└─{8,}┘")
# A box is drawn once its bottom edge is there: a pipe read can end in the middle of its frame.
BOX_END = r"[^\n]*\n└─{8,}┘"
APPROVAL = Cue(r"Permission for the [\s\S]*1\. Allow once[\s\S]*" + BOX + BOX_END)
DRAFT_IDLE = Cue(r"> Do you want to proceed", absent=SPINNER)
QUESTION = Cue(
    r"Which database should the app use\?[\s\S]*1\. PostgreSQL[\s\S]*↑↓/jk navigate" + BOX_END
)
TRUST = Cue(r"(?:Trust this folder\?|Trust folder or repository\?)[\s\S]*╰─{8,}╯[\s\S]*▁{8,}")

CONFIG = """\
active_model = "fake"
enable_update_checks = false
enable_auto_update = false
enable_telemetry = false
enable_notifications = false
disable_welcome_banner_animation = true
experimental_enable_model_catalog = false

[[providers]]
name = "fake"
api_base = "{url}/v1"
api_key_env_var = "FAKE_API_KEY"
api_style = "openai"
backend = "generic"

[[models]]
name = "fake-model"
provider = "fake"
alias = "fake"
"""


class Vibe(AgentSpec):
    name = "vibe"
    folder = "vibe"  # captures/vibe-<version>-lab
    ui = Ui(idle=IDLE, working=WORKING)
    # Its own settings as `--dress NAME`: the light theme (config.toml `theme`; the default
    # `auto` asks the terminal for its background and falls back to ansi-dark).
    dresses: ClassVar[dict[str, Dress]] = {
        "light": Dress("light", 'theme = "ansi-light"', options={"theme": "ansi-light"}),
    }
    pypi_dist = "mistral_vibe"
    launch_env: ClassVar[dict[str, str]] = {"FAKE_API_KEY": "sk-fake"}
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {"agent": ("--agent", "{}")}

    standard = Standard(
        dialog=APPROVAL,
        what="permission box",
        first_option="1. Allow once",
        bash="Permission for the bash tool: 1. Allow once ... 4. Deny",
        reject=PickOption(r"Deny\b", "choose 4. Deny"),
        # The default agent (accept-edits) writes files without asking: `ask` asks.
        edit_write="edit permission, then new-file permission, both approved (agent `ask`)",
        edit="Permission for the edit tool",
        write="Permission for the write_file tool",
        between=WORKING,
        edit_options=(("agent", "ask"),),
        question=QUESTION,
        question_desc="ask_user_question: a question with options, first option chosen",
        draft=DRAFT_IDLE,
        hooks=True,
    )

    def own_scenarios(self, s: Shapes) -> list[Scenario]:
        trust = s.startup_dialog(
            "trust_dialog", "folder trust dialog (an AGENTS.md in the project)", TRUST
        )
        return [
            dataclasses.replace(
                trust, files={**trust.files, "AGENTS.md": "# Agents\n\nKeep answers short.\n"}
            )
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        config = CONFIG.format(url=url)
        if theme := options.get("theme"):
            # a top-level key goes before the file's first table
            config = f'theme = "{theme}"\n' + config
        files: Files = {".vibe/config.toml": config}
        if options.get("hooks"):
            entries = toml_entries(cat_hook(dirs.root / "hooks.jsonl"))
            files[".vibe/hooks.toml"] = render(entries).lstrip("\n")
        return files
