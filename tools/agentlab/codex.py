"""Codex CLI: the native binary from the npm platform package, against the fake Responses API
through a custom model provider in CODEX_HOME/config.toml."""

from __future__ import annotations

import dataclasses
import os
import platform
import subprocess
from pathlib import Path
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Type
from tools.agentlab.base import (
    BASE_ENV,
    AgentSpec,
    Files,
    Options,
    RunDirs,
    Scenario,
    command_version,
    lab_home,
)
from tools.agentlab.dress import Dress, by_name
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Standard, Ui

# Working is labelled by the status row above the composer (`• Working (0s • esc to
# interrupt)`, or a reasoning header with the same hint), as in the reference corpus
# (captures/codex-0.169.0). The window title's braille spinner is not a working cue: it also
# turns for a moment at start-up, before any prompt, and it is still up for one tick after the
# turn ended (the reference labels end-of-turn idle there). The status row is hidden while
# answer text streams, so the end of a turn is taken from the fake server (server_quiet) and
# the spinner's end.
SPIN = r"^[\u2800-\u28ff] "
# A narrow pane cuts the row short (`• Working (0s • esc…`): its start is the cue then.
WORKING = Cue(r"esc to interrupt|^• Working \(\d+s\b", absent=r"Press enter to confirm", tail=8)
COMPOSER = Cue(
    r"\? for shortcuts|Ask Codex to do anything",
    absent=r"esc to interrupt|Press enter to confirm|esc to cancel",
    title_absent=SPIN,
)
# Older releases (0.1xx) show a rotating example as the placeholder (`› Write tests for
# @filename`) and, in an inline viewport, no `? for shortcuts` under it: the composer row is
# the cue there, among the last rows (a user prompt in the transcript also starts with `›`).
COMPOSER_ROW = Cue(
    r"^› ",
    absent=r"esc to interrupt|Press enter to confirm|esc to cancel",
    tail=3,
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
# The draft wraps in narrow panes: its two ends may sit on different rows.
DRAFT_IDLE = Cue(r"Do you want to proceed[\s\S]*Esc to cancel", tail=6)
# A draft that quotes the status row and the MCP form's hint: typed, never sent.
DRAFT_STATUS = (
    "• Working (3s • esc to interrupt) Allow the lab MCP server to run tool? enter to submit"
)
DRAFT_STATUS_IDLE = Cue(r"Working \(3s • esc to interrupt\)", tail=6)
# MCP tool approval (0.171): `Allow the lab MCP server to run tool "lab_note"?`, a numbered
# list, `enter to submit | esc to cancel`.
MCP_APPROVAL = Cue(r"MCP server to run\s+tool|enter to submit \| e")
INTERRUPTED = Cue(
    r"Conversation interrupted",
    absent=r"esc to interrupt|Press enter to confirm|esc to cancel",
)
# The interrupt marker with the composer under it, whatever stands above the marker: some
# releases leave the status row there (the turn is over all the same, the human may type).
INTERRUPTED_ANY = Cue(r"Conversation interrupted", absent=r"Press enter to confirm|esc to cancel")
P_PONDER = "ponder the module layout"
P_MCP = "save a note with the lab tool"
P_SLOW = "run the slow build"
MCP_CALL = {"tool": "lab_note", "args": {"text": "terminals began as teletypes"}}

# Codex asks before running a command only when the model requests to leave the sandbox.
ESCALATE = {
    "sandbox_permissions": "require_escalated",
    "justification": "Do you want to remove the build directory?",
}

# Codex-specific turns come first: the shared ones would answer the same prompts otherwise.
CODEX_TURNS = (
    # A model that says nothing for a long while: the status row stays up until the interrupt.
    Turn(P_PONDER, [[Pause(30.0), Text("The layout is fine.")]]),
    Turn(
        P_MCP,
        [
            [Pause(0.8), Text("I'll save the note."), Tool("mcp", MCP_CALL)],
            [Pause(0.8), Text("Saved the note with the lab tool.", chunk=6, delay=0.06)],
        ],
    ),
    Turn(
        P_SLOW,
        [
            [
                Pause(0.8),
                Text("I'll run the slow build."),
                Tool("bash", {"command": "rm -rf build && sleep 8 && echo built", **ESCALATE}),
            ],
            [Pause(0.8), Text("The build finished.", chunk=6, delay=0.06)],
        ],
    ),
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
                Tool("edit", st.GREETING),
            ],
            # The pauses keep a working state visible between two approvals.
            [
                Pause(1.0),
                Text("Now the notes file."),
                Tool("write", st.NOTES),
            ],
            [Pause(0.8), Text("Updated app.py and created NOTES.md.", chunk=6, delay=0.06)],
        ],
    ),
)


CONFIG = """model = "{model}"
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
{trust}"""


STANDARD = Standard(
    dialog=APPROVAL,
    what="command approval",
    first_option="1. Yes, proceed",
    bash="command approval prompt",
    approved="command approval (escalation request) approved",
    startup="launch with the project trusted; composer ready",
    text="a slowly streamed text answer",
    streaming=Expect("idle", STREAMING, STREAMING_NOTE, settle=1.5),
    edit_write="apply_patch approvals (edit, then new file), both approved",
    edit="edit approval prompt",
    write="new-file approval prompt",
    between=Expect(
        "idle",
        PANEL_CLOSED_NO_STATUS,
        "edit approved; the turn goes on, but 0.171 draws no status row (title spinner only)"
        " until the next approval: the screen reads idle",
    ),
    thinking="reasoning summary streamed before the answer",
    long_output="a long answer that scrolls the transcript",
    draft=DRAFT_IDLE,
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
    # Its own `[tui]` settings a user can set (`record --dress`): Codex takes its light or dark
    # palette from the terminal's background, and `tui.theme` picks the syntax-highlighting
    # theme (a light one here); `tui.animations = false` stops the shimmer, the spinners and
    # the welcome animation (its reduced-motion setting).
    dresses: ClassVar[dict[str, Dress]] = by_name(
        Dress(
            "light",
            'tui.theme "solarized-light" (syntax theme)',
            options={"tui_theme": "solarized-light"},
        ),
        Dress(
            "noanim",
            "tui.animations = false: no shimmer, spinners or welcome animation",
            options={"tui_animations": False},
        ),
    )

    # A release other than the default install (`record --agent-version`, or the
    # OSF_LAB_CODEX_VERSION variable): install.sh's CODEX_VERSIONS puts it in npm-codex-<VER>.
    releases = True
    pinned: str | None = os.environ.get("OSF_LAB_CODEX_VERSION") or None

    def use_version(self, version: str) -> None:
        super().use_version(version)
        self.ui = dataclasses.replace(self.ui, idle=COMPOSER_ROW)
        self.__dict__.pop("_daemon_args", None)

    def _vendor(self) -> Path:
        prefix = self.release_prefix(self.pinned) if self.pinned else lab_home() / "npm"
        base = prefix / "node_modules" / "@openai"
        # 0.17x: vendor/<triple>/bin/codex next to codex-path/ in the platform package;
        # 0.100 .. 0.16x: vendor/<triple>/codex/codex next to path/ (rg) there; before ~0.100
        # every platform's binary ships in the main package, under the same vendor/<triple>/.
        triple = f"{platform.machine()}-unknown-linux-musl"
        for pattern in (
            "codex-linux-*/vendor/*/bin/codex",
            "codex-linux-*/vendor/*/codex/codex",
            f"codex/vendor/{triple}/codex/codex",
        ):
            for candidate in sorted(base.glob(pattern)):
                return candidate.parent.parent
        return base / "codex-linux-x64" / "vendor" / triple

    def binary(self) -> Path:
        vendor = self._vendor()
        older = vendor / "codex" / "codex"
        return older if older.exists() else vendor / "bin" / "codex"

    def _tools_path(self) -> Path:
        """The folder of helper commands (rg) the launcher puts on PATH."""
        vendor = self._vendor()
        newer = vendor / "codex-path"
        return newer if newer.is_dir() else vendor / "path"

    def _daemon_flag(self) -> list[str]:
        """`--no-daemon` where the release has it (0.17x); older ones start no app-server."""
        cached = self.__dict__.get("_daemon_args")
        if cached is None:
            out = subprocess.run(
                [str(self.binary()), "--help"],
                capture_output=True,
                text=True,
                timeout=60,
                env={**BASE_ENV, "HOME": "/tmp"},
            )
            cached = self.__dict__["_daemon_args"] = (
                ["--no-daemon"] if "--no-daemon" in out.stdout else []
            )
        return list(cached)

    def read_version(self) -> str:
        return command_version([str(self.binary()), "--version"], lambda words: words[-1])

    def build(self, s: Shapes) -> list[Scenario]:
        approve = Keys(("Enter",), "1. Yes, proceed")
        return [
            *s.standard(STANDARD),
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
            *self.modes(s, approve),
        ]

    def modes(self, s: Shapes, approve: Keys) -> list[Scenario]:
        """What users change: MCP servers, the sandbox and approval modes, a command
        interrupted while it runs, a draft quoting the status row."""
        mcp_dialog = s.blocked(MCP_APPROVAL, "MCP tool approval form (lab_note)")
        return [
            s.dialog_turn(
                "mcp_yes",
                "MCP tool call (lab server's lab_note) approved",
                P_MCP,
                mcp_dialog,
                approve,
                [],
                mcp=True,
            ),
            s.sc(
                "mcp_esc",
                "MCP tool approval form cancelled with Esc",
                s.start(),
                s.ask(P_MCP),
                mcp_dialog,
                Keys(("Escape",), "cancel with Esc"),
                s.done("MCP call cancelled; back at the composer"),
                mcp=True,
            ),
            s.sc(
                "bash_interrupt",
                "approved command interrupted with Esc while it runs",
                s.start(),
                s.ask(P_SLOW),
                s.blocked(APPROVAL, "command approval prompt"),
                approve,
                s.working("approved; slow command running"),
                Keys(("Escape",), "interrupt the running command with Esc"),
                Expect(
                    "idle",
                    INTERRUPTED,
                    "interrupted (■ Conversation interrupted); back at the composer",
                    settle=1.5,
                ),
            ),
            *self.stale_status(s),
            s.plain(
                "full_auto_edit",
                "--sandbox workspace-write (what --full-auto was): edit and new file, no dialog",
                st.P_EDIT,
                args=["--sandbox", "workspace-write", "--ask-for-approval", "on-request"],
            ),
            s.plain(
                "bypass_bash",
                "--dangerously-bypass-approvals-and-sandbox: the command runs unasked",
                st.P_BASH,
                args=["--dangerously-bypass-approvals-and-sandbox"],
            ),
            s.plain(
                "never_bash",
                "--ask-for-approval never: the escalation is refused without a dialog",
                st.P_BASH,
                args=["--ask-for-approval", "never"],
            ),
            s.sc(
                "draft_status",
                "a draft quoting the status row and the MCP hint, never sent (idle)",
                s.start(),
                Type(DRAFT_STATUS, "draft quoting the status row, not sent"),
                Expect("idle", DRAFT_STATUS_IDLE, "draft in the composer; still idle", settle=2.0),
            ),
        ]

    def stale_status(self, s: Shapes) -> list[Scenario]:
        """The model is silent for a while (status row up, no answer text yet), and the turn is
        interrupted with Esc (think_esc) or Ctrl-C (think_ctrlc); think_done lets a thinking
        turn end by itself. Releases that leave the status row above `■ Conversation
        interrupted` show it here."""
        out = []
        for name, key, said in (("think_esc", "Escape", "Esc"), ("think_ctrlc", "C-c", "Ctrl-C")):
            out.append(
                s.sc(
                    name,
                    f"a silent model (status row up for seconds) interrupted with {said}",
                    s.start(),
                    s.ask(P_PONDER),
                    Expect("working", WORKING, "status row up, nothing streamed yet", settle=3.0),
                    Keys((key,), f"interrupt with {said}"),
                    Expect(
                        "idle",
                        INTERRUPTED_ANY,
                        "interrupted (■ Conversation interrupted); back at the composer",
                        settle=2.0,
                    ),
                )
            )
        out.append(
            s.sc(
                "think_done",
                "reasoning summary, then the answer: the turn ends by itself",
                s.start(),
                s.ask(st.P_THINK),
                s.done(),
            )
        )
        return out

    launch_env: ClassVar[dict[str, str]] = {"AGENTLAB_API_KEY": "sk-agentlab-fake"}

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        trust = ""
        if options.get("seed_trust", True):
            trust = f'\n[projects."{dirs.proj}"]\ntrust_level = "trusted"\n'
        # read-only sandbox: edits and escalated commands both need the user's approval.
        # A catalogue model (gpt-5.5) opens a "Meet <newer model>" dialog at start-up; an
        # unknown slug does not. The dialog has a scenario of its own (model_nudge).
        model = str(options.get("model", "agentlab-model"))
        config = CONFIG.format(model=model, url=url, trust=trust)
        tui = []
        if options.get("tui_theme"):
            tui.append(f'theme = "{options["tui_theme"]}"')
        if options.get("tui_animations") is False:
            tui.append("animations = false")
        if tui:
            config += "\n[tui]\n" + "\n".join(tui) + "\n"
        if options.get("mcp"):
            server = Path(__file__).with_name("mcp_server.py")
            log = dirs.root / "mcp.jsonl"
            config += f'\n[mcp_servers.lab]\ncommand = "python3"\nargs = ["{server}", "{log}"]\n'
        return {".codex/config.toml": config}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        return {
            "CODEX_HOME": str(dirs.home / ".codex"),
            "PATH": f"{self._tools_path()}:{BASE_ENV['PATH']}",
        }

    def more_args(self, dirs: RunDirs, options: Options) -> list[str]:
        # --no-daemon: otherwise the TUI starts a background app-server that outlives the pane
        # and whose socket the next run collides with.
        return self._daemon_flag()
