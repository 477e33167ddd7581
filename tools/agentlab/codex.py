"""Codex CLI: the native binary from the npm platform package, against the fake Responses API
through a custom model provider in CODEX_HOME/config.toml."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Cue, Expect, Keys, Type
from tools.agentlab.base import (
    BASE_ENV,
    AgentSpec,
    RunDirs,
    Scenario,
    answer_turns,
    approval_turns,
    lab_home,
    scenario_maker,
)
from tools.agentlab.script import Pause, Script, Text, Tool, Turn

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

CODEX_TURNS = [
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
]


def _start() -> list[Action]:
    return [Expect("idle", COMPOSER, "startup finished, composer ready", timeout=60, settle=0.8)]


def _ask(prompt: str) -> list[Action]:
    return [
        Type(prompt),
        Keys(("Enter",), "submit prompt"),
        Expect("working", WORKING, "prompt submitted, agent working"),
    ]


def _done(note: str = "turn finished, back at the composer") -> Expect:
    return Expect("idle", COMPOSER, note, settle=1.2, server_quiet=True)


def _scenarios() -> list[Scenario]:
    # Codex-specific turns first: the shared ones would answer the same prompts otherwise.
    script = Script(CODEX_TURNS + st.ALL_TURNS)

    sc = scenario_maker(script)

    return [
        sc("startup", "launch with the project trusted; composer ready", _start()),
        sc("text", "a slowly streamed text answer", _start(), _ask(st.P_TEXT), _done()),
        *approval_turns(
            sc,
            _start,
            _ask,
            _done,
            what="command approval",
            approved="command approval (escalation request) approved",
            dialog=Expect("blocked", APPROVAL, "command approval prompt", settle=1.5),
            first_option="1. Yes, proceed",
            working=Expect("working", WORKING, "approved; command running"),
            back="composer",
        ),
        sc(
            "interrupt_esc",
            "long streamed answer interrupted with Esc",
            _start(),
            _ask(st.P_ESSAY),
            Expect("idle", STREAMING, STREAMING_NOTE, settle=1.5),
            Keys(("Escape",), "interrupt with Esc"),
            Expect("idle", COMPOSER, "interrupted; back at the composer", settle=1.2),
        ),
        sc(
            "interrupt_ctrlc",
            "long streamed answer interrupted with Ctrl-C",
            _start(),
            _ask(st.P_ESSAY),
            Expect("idle", STREAMING, STREAMING_NOTE, settle=1.5),
            Keys(("C-c",), "interrupt with Ctrl-C"),
            Expect("idle", COMPOSER, "interrupted; back at the composer", settle=1.2),
        ),
        sc(
            "edit_write",
            "apply_patch approvals (edit, then new file), both approved",
            _start(),
            _ask(st.P_EDIT),
            Expect("blocked", APPROVAL, "edit approval prompt", settle=1.5),
            Keys(("Enter",), "1. Yes, proceed"),
            Expect(
                "idle",
                PANEL_CLOSED_NO_STATUS,
                "edit approved; the turn goes on, but 0.171 draws no status row (title spinner"
                " only) until the next approval: the screen reads idle",
            ),
            Expect("blocked", APPROVAL, "new-file approval prompt", settle=1.5),
            Keys(("Enter",), "1. Yes, proceed"),
            _done(),
        ),
        *answer_turns(
            sc,
            _start,
            _ask,
            _done,
            "reasoning summary streamed before the answer",
            "a long answer that scrolls the transcript",
        ),
        sc(
            "draft",
            "prompt phrases typed into the composer, never sent (idle)",
            _start(),
            Type(st.DRAFT, "draft with prompt phrases, not sent"),
            Expect("idle", DRAFT_IDLE, "draft in the composer; still idle", settle=2.0),
        ),
        sc(
            "model_nudge",
            "start-up: 'Meet <new model>' dialog left unanswered",
            Expect(
                "blocked",
                Cue(r"Try new model|Use existing model"),
                "new-model dialog at start-up",
                timeout=60,
                settle=2.5,
            ),
            model="gpt-5.5",
        ),
        sc(
            "trust_dialog",
            "start-up: trust-directory dialog left unanswered",
            Expect("blocked", TRUST, "trust dialog at start-up", timeout=60, settle=2.5),
            seed_trust=False,
        ),
    ]


class Codex(AgentSpec):
    name = "codex"
    folder = "codex"

    def _vendor(self) -> Path:
        base = lab_home() / "npm" / "node_modules" / "@openai"
        for candidate in sorted(base.glob("codex-linux-*/vendor/*/bin/codex")):
            return candidate.parent.parent
        return base / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl"

    def binary(self) -> Path:
        return self._vendor() / "bin" / "codex"

    @functools.cache  # noqa: B019 - one spec object per process; the version never changes
    def version(self) -> str:
        out = subprocess.run(
            [str(self.binary()), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**BASE_ENV, "HOME": "/tmp"},
        )
        words = out.stdout.split()
        return words[-1] if words else "unknown"

    def scenarios(self) -> dict[str, Scenario]:
        return {s.name: s for s in _scenarios()}

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        self.write_files(dirs, scenario.files)
        self.git_init(dirs)
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
        env = {
            **BASE_ENV,
            "HOME": str(dirs.home),
            "CODEX_HOME": str(codex_home),
            "AGENTLAB_API_KEY": "sk-agentlab-fake",
            "PATH": f"{self._vendor() / 'codex-path'}:{BASE_ENV['PATH']}",
        }
        # --no-daemon: otherwise the TUI starts a background app-server that outlives the pane
        # and whose socket the next run collides with.
        return [str(self.binary()), "--no-daemon"], env
