"""Amp (npm `@sourcegraph/amp`, which installs `@ampcode/cli` and its platform binary) against
the fake server's Amp route (amp_api.py): Amp's agent loop runs on its vendor's server, so the
fake plays that server, and the CLI runs the tools it is handed. AMP_URL points it at the fake
server, AMP_API_KEY is a dummy; the shell tool asks first through `amp.permissions` (by default
Amp lets most commands run unasked)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.actions import Cue, Expect, Keys, Sleep, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
from tools.agentlab.dialect import Dialect
from tools.agentlab.script import Pause, Text, Tool, Turn
from tools.agentlab.shapes import Shapes, Ui

# The input box is the bottom element: its bottom edge, the last row, carries the working
# directory (and git branch) on its right; while a turn runs its left end names the activity,
# "╰ ∼ Running Tools ───", "╰ ≈ Streaming 262 tok ───" (the glyph cycles; at 80 columns the
# word can show cut short while it is drawn in). A dialog sits above the box, its key hints in
# its own bottom edge ("╰── ↑/↓/j/k move · Enter select · Esc cancel ─╯"). The cues look at the
# whole screen: a dialog's edge is more than a few rows above the last.
LAST = r"[^\n]*─╯\s*\Z"
ACTIVITY = r"╰ [^\s─] [A-Z]" + LAST
DIALOG = r"Enter (?:select|submit) · Esc cancel ─╯"
IDLE = Cue(r"╰─{3}" + LAST, absent=ACTIVITY + "|" + DIALOG)
WORKING = Cue(ACTIVITY, absent=DIALOG)
APPROVAL = Cue(r"(?s)╭─ Approval Required ─.*‣ Allow Once.*Enter select · Esc cancel ─╯")
# "Reject with feedback" opens a text box for the person's reason, which goes to the model.
FEEDBACK = Cue(r"(?s)╭─ Tell Amp what to do differently ─.*Enter submit · Esc cancel ─╯")
WELCOME = Cue(r"(?s)Welcome to Amp\s*\n\s*Space to continue")
# An edit of a file Amp guards by itself (`.env`, `**/.env.*`, ...; `amp.guardedFiles.allowlist`
# lets some through): a dialog of the same make as the approval, asked under default settings.
GUARDED = Cue(r"(?s)╭─ Guarded File Modification ─.*‣ Allow Once.*Enter select · Esc cancel ─╯")
P_GUARDED = "set the port in the env file"
GUARDED_TURN = Turn(
    P_GUARDED,
    [
        [
            Text("I'll change the port in .env."),
            Tool("edit", {"path": ".env", "old": "PORT=8000", "new": "PORT=9000"}),
        ],
        [Pause(0.5), Text("The port is 9000 now.", chunk=6, delay=0.06)],
    ],
)
DRAFT_IDLE = Cue(r"│ *Do you want to proceed", absent=ACTIVITY + "|" + DIALOG)


class Amp(AgentSpec):
    name = "amp"
    folder = "amp"  # captures/amp-<version>-lab
    dialect = Dialect()
    turns = (st.bash_turn(), GUARDED_TURN)
    ui = Ui(idle=IDLE, working=WORKING, start_timeout=90, dialog_settle=1.5)

    npm_package = "@sourcegraph/amp"  # links `amp`; @ampcode/cli holds the binary
    # Everything but the fake server goes to a closed port: the CLI also fetches a status page,
    # a ripgrep binary and its latest version on its own.
    launch_env: ClassVar[dict[str, str]] = {
        "AMP_URL": "{url}",
        "AMP_API_KEY": "lab-fake-key",
        "AMP_SKIP_UPDATE_CHECK": "1",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
    }

    def build(self, s: Shapes) -> list[Scenario]:
        dialog = s.blocked(APPROVAL, "Approval Required: the command, ‣ Allow Once")
        return [
            s.startup("launch; input box ready"),
            s.text(),
            *s.approvals(
                what="Approval Required dialog",
                approved="Approval Required dialog approved (Allow Once)",
                dialog=dialog,
                first_option="Allow Once",
                reject=None,  # its No is "Reject with feedback": bash_no below
            ),
            s.sc(
                "bash_no",
                "Approval Required dialog rejected with feedback (the feedback box, answered)",
                s.start(),
                s.ask(st.P_BASH),
                dialog,
                Keys(("Down", "Enter"), "Reject with feedback"),
                s.blocked(FEEDBACK, "Tell Amp what to do differently: a text box"),
                Type("keep the build directory", "the feedback"),
                Keys(("Enter",), "submit the feedback"),
                s.done("rejected with feedback; back at the input box"),
            ),
            # One Esc only opens a key-chord hint ("Escape then │ Escape Interrupt the active
            # agent turn"); the second interrupts.
            s.sc(
                "interrupt_esc",
                "long streamed answer interrupted with Esc Esc",
                s.start(),
                s.ask(st.P_ESSAY),
                Expect(None, Cue(r"Terminals began"), "answer streaming", settle=1.5),
                Keys(("Escape",), "Esc: the key-chord hint"),
                Sleep(0.5),  # both in one write read as Alt+Esc
                Keys(("Escape",), "Esc again: interrupt"),
                s.back("interrupted; back at the input box"),
            ),
            *s.answers(),
            s.draft(DRAFT_IDLE),
            dataclasses.replace(
                s.dialog_turn(
                    "guarded_edit",
                    "an edit of .env: Guarded File Modification dialog, allowed (Allow Once)",
                    P_GUARDED,
                    s.blocked(GUARDED, "Guarded File Modification: ‣ Allow Once"),
                    Keys(("Enter",), "Allow Once"),
                    s.working("allowed; edit applied"),
                ),
                files={**st.PROJECT_FILES, ".env": "PORT=8000\n"},
            ),
            s.startup_dialog(
                "welcome", "first-run welcome pages (housekeeping)", WELCOME, first_run=True
            ),
        ]

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        session: dict[str, object] = {"agentMode": "medium", "shortcutsHintUsed": True}
        if not options.get("first_run"):
            session["neoWelcomeDismissed"] = True
            session["launchCount"] = 3
        return {
            ".local/share/amp/session.json": session,
            ".config/amp/settings.json": {
                "amp.permissions": [{"tool": "shell_command", "action": "ask"}],
                "amp.notifications.enabled": False,
            },
        }
