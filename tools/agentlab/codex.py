"""Codex CLI: the native binary from the npm platform package, against the fake Responses API
through a custom model provider in CODEX_HOME/config.toml."""

from __future__ import annotations

from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys
from tools.agentlab.base import BASE_ENV, AgentSpec, RunDirs, Scenario, command_version, lab_home
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Ui

# Working is labelled by the status row above the composer (`• Working (0s • esc to
# interrupt)`, or a reasoning header with the same hint), as in the reference corpus
# (captures/codex-0.169.0). The window title's braille spinner is not a working cue: it also
# turns for a moment at start-up, before any prompt, and it is still up for one tick after the
# turn ended (the reference labels end-of-turn idle there). The status row is hidden while
# answer text streams, so the end of a turn is taken from the fake server (server_quiet) and
# the spinner's end.
SPIN = r"^[\u2800-\u28ff] "
WORKING = Cue(r"esc to interrupt", absent=r"Press enter to confirm", tail=8)
COMPOSER = Cue(
    r"\? for shortcuts|Ask Codex to do anything",
    absent=r"esc to interrupt|Press enter to confirm|esc to cancel",
    title_absent=SPIN,
)
# 0.171 after an approved patch: the panel closes and the composer is back, but no status row
# is drawn until the next approval (only the title spinner turns). The screen reads idle, and
# is labelled so; the note says the turn is still running.
PANEL_CLOSED_NO_STATUS = Cue(
    r"\? for shortcuts|Ask Codex to do anything",
    absent=r"esc to interrupt|Press enter to confirm|esc to cancel",
)
APPROVAL = Cue(r"Would you like to (run|make) the following|Press enter to confirm")
TRUST = Cue(r"Trust this folder\?|trust the (files|contents)|Do you trust")
# While answer text streams the status row is hidden: the screen is the one the reference labels
# idle at the end of a turn (title spinner aside), so the stretch is labelled by what it shows.
STREAMING = Cue(r"Terminals began", absent=r"esc to interrupt|Press enter to confirm")
STREAMING_NOTE = (
    "answer streaming; the turn goes on, but the status row is hidden (title"
    " spinner only): the screen reads idle"
)
DRAFT_IDLE = Cue(r"Do you want to proceed\??.*Esc to cancel", tail=6)

# Codex asks before running a command only when the model requests to leave the sandbox.
ESCALATE = {
    "sandbox_permissions": "require_escalated",
    "justification": "Do you want to remove the build directory?",
}

# Codex-specific turns come first: the shared ones would answer the same prompts otherwise.
CODEX_TURNS = (
    Turn(
        st.P_BASH,
        [
            # Pause first: the status row shows only until text streams (~0.1 s otherwise).
            [
                Pause(0.8),
                Text("I'll remove the build directory."),
                Tool("bash", {"command": "rm -rf build && sleep 2 && echo done", **ESCALATE}),
            ],
            [Pause(0.8), Text("Done: the build directory is gone.", chunk=6, delay=0.06)],
        ],
    ),
    Turn(
        st.P_EDIT,
        [
            [
                Pause(0.8),
                Text("I'll update app.py."),
                Tool(
                    "edit",
                    {
                        "path": "app.py",
                        "old": "    print('hello')",
                        "new": "    print('hello, world')",
                    },
                ),
            ],
            # The pauses keep a working state visible between two approvals.
            [
                Pause(1.0),
                Text("Now the notes file."),
                Tool(
                    "write",
                    {"path": "NOTES.md", "content": "# Notes\n\n- the greeting now says world\n"},
                ),
            ],
            [Pause(0.8), Text("Updated app.py and created NOTES.md.", chunk=6, delay=0.06)],
        ],
    ),
)


class Codex(AgentSpec):
    name = "codex"
    folder = "codex"
    turns = CODEX_TURNS
    # The status row is hidden while answer text streams: the end of a turn is taken from the
    # fake server (done_quiet) and the composer.
    ui = Ui(
        idle=COMPOSER,
        working=WORKING,
        place="composer",
        ready_note="startup finished, composer ready",
        done_quiet=True,
    )

    def _vendor(self) -> Path:
        base = lab_home() / "npm" / "node_modules" / "@openai"
        for candidate in sorted(base.glob("codex-linux-*/vendor/*/bin/codex")):
            return candidate.parent.parent
        return base / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl"

    def binary(self) -> Path:
        return self._vendor() / "bin" / "codex"

    def read_version(self) -> str:
        return command_version([str(self.binary()), "--version"], lambda words: words[-1])

    def build(self, s: Shapes) -> list[Scenario]:
        approve = Keys(("Enter",), "1. Yes, proceed")
        return [
            s.startup("launch with the project trusted; composer ready"),
            s.text("a slowly streamed text answer"),
            *s.approvals(
                what="command approval",
                approved="command approval (escalation request) approved",
                dialog=s.blocked(APPROVAL, "command approval prompt"),
                first_option="1. Yes, proceed",
                working=s.working("approved; command running"),
            ),
            *s.interrupts(Expect("idle", STREAMING, STREAMING_NOTE, settle=1.5)),
            s.edit_write(
                "apply_patch approvals (edit, then new file), both approved",
                edit=s.blocked(APPROVAL, "edit approval prompt"),
                approve=approve,
                between=Expect(
                    "idle",
                    PANEL_CLOSED_NO_STATUS,
                    "edit approved; the turn goes on, but 0.171 draws no status row (title"
                    " spinner only) until the next approval: the screen reads idle",
                ),
                write=s.blocked(APPROVAL, "new-file approval prompt"),
            ),
            *s.answers(
                "reasoning summary streamed before the answer",
                "a long answer that scrolls the transcript",
            ),
            s.draft(DRAFT_IDLE, into="into the composer", at="in the composer"),
            s.startup_dialog(
                "model_nudge",
                "'Meet <new model>' dialog",
                Cue(r"Try new model|Use existing model"),
                note="new-model dialog at start-up",
                model="gpt-5.5",
            ),
            s.startup_dialog(
                "trust_dialog",
                "trust-directory dialog",
                TRUST,
                note="trust dialog at start-up",
                seed_trust=False,
            ),
        ]

    def launch(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        codex_home = dirs.home / ".codex"
        codex_home.mkdir()
        trust = ""
        if scenario.options.get("seed_trust", True):
            trust = f'\n[projects."{dirs.proj}"]\ntrust_level = "trusted"\n'
        # read-only sandbox: edits and escalated commands both need the user's approval.
        # A catalogue model (gpt-5.5) opens a "Meet <newer model>" dialog at start-up; an
        # unknown slug does not. The dialog has a scenario of its own (model_nudge).
        model = str(scenario.options.get("model", "agentlab-model"))
        (codex_home / "config.toml").write_text(f'''model = "{model}"
model_provider = "lab"
approval_policy = "on-request"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.lab]
name = "agentlab fake server"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "AGENTLAB_API_KEY"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false
{trust}''')
        env = self.env(
            dirs,
            CODEX_HOME=str(codex_home),
            AGENTLAB_API_KEY="sk-agentlab-fake",
            PATH=f"{self._vendor() / 'codex-path'}:{BASE_ENV['PATH']}",
        )
        # --no-daemon: otherwise the TUI starts a background app-server that outlives the pane
        # and whose socket the next run collides with.
        return [str(self.binary()), "--no-daemon"], env
