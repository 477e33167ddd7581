"""rules/codex.toml on what users change: MCP tool-approval forms, narrow panes (status row and
approval hint cut or wrapped), a status row quoted in a draft, an interrupted command, the
approval modes (--sandbox workspace-write, --dangerously-bypass-approvals-and-
sandbox, --ask-for-approval never).

The layouts are those of the 0.171.0 lab captures (captures/codex-0.171.0-lab*/, snapshots named
in each case), redrawn at other sizes or with other words; cases marked "variant" are built from
them to try what no capture shows (another server, another width, a longer header)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture

SPIN = "⠹ clean the build directory | proj"
FOOTER = [
    "",
    "  agentlab-model default · /tmp/proj · save a note with the lab tool",
    "  ← for agents · ? for shortcuts",
]
HEADER = ["", "  >_ OpenAI Codex (v0.171.0)", "     /tmp/proj", "", ""]


@dataclass(frozen=True)
class Case:
    name: str
    rows: tuple[str, ...]
    cols: int
    want: str
    title: str = ""


def case(
    name: str,
    top: list[str],
    bottom: list[str],
    want: str,
    *,
    size: tuple[int, int] = (80, 24),
    title: str = "",
) -> Case:
    cols, height = size
    gap = height - len(top) - len(bottom)
    assert gap >= 0, f"{name}: layout taller than the screen"
    rows = tuple([*top, *([""] * gap), *bottom])
    assert all(len(r) <= cols for r in rows), f"{name}: a row is wider than {cols}"
    return Case(name, rows, cols, want, title)


MCP_FORM = [
    "  Field 1/1",
    '  Allow the lab MCP server to run tool "lab_note"?',
    "",
    "  text: terminals began as teletypes",
    "",
    "  › 1. Allow                   Run the tool and continue",
    "    2. Allow for this session  Run the tool and remember this choice for this session",
    "    3. Always allow            Run the tool and remember this choice for future calls",
    "    4. Cancel                  Cancel this tool call",
    "  enter to submit | esc to cancel",
]

CASES = [
    # --- MCP elicitation form (blocked) ------------------------------------------------------
    # mcp_yes-120x32 02-blocked: the form in place of the composer.
    case(
        "mcp-form-120x32",
        [*HEADER, "› save a note with the lab tool", "", "", "• I'll save the note.", ""],
        ["• Calling lab.lab_note", "    + Show details", "", "", *MCP_FORM],
        "blocked",
        size=(120, 32),
        title="[ ! ] Action Required | save a note with the lab tool | proj",
    ),
    # variant: another server and tool, the selection moved to option 3, title back to spinner.
    case(
        "mcp-form-other-server-option-3",
        [*HEADER, "› open the ticket"],
        [
            "  Field 1/1",
            '  Allow the github MCP server to run tool "create_issue"?',
            "",
            "  title: crash on start",
            "",
            "    1. Allow                   Run the tool and continue",
            "    2. Allow for this session  Run the tool and remember this choice",
            "  › 3. Always allow            Run the tool and remember this choice",
            "    4. Cancel                  Cancel this tool call",
            "  enter to submit | esc to cancel",
        ],
        "blocked",
        title=SPIN,
    ),
    # mcp_yes-36x16 (narrow lab capture): the form is taller than the pane; the list loses rows
    # and the hint row is cut and prefixed with the selection.
    case(
        "mcp-form-36x16-cut",
        [
            "  Field 1/1",
            "  Allow the lab MCP server to run",
            '  tool "lab_note"?',
            "",
            "  text: terminals began as",
            "  teletypes",
            "",
            "  › 1. Allow            Run the",
            "                        tool and",
            "                        continue",
            "    2. Allow for this   Run the",
            "       session          tool and",
            "                        remember",
        ],
        ["  option 1/4 | enter to submit | e"],
        "blocked",
        size=(36, 16),
    ),
    # variant: a form whose only field is a text input (no numbered list, the Field header).
    case(
        "mcp-form-text-field",
        [*HEADER, "› file the report"],
        [
            "  Field 1/2",
            "  Which project should the report go to?",
            "",
            "  › Type your answer",
            "",
            "  enter to submit | esc to cancel",
        ],
        "blocked",
    ),
    # The form's words in a draft (draft_status): the composer and its footer end the screen.
    case(
        "mcp-hint-in-draft",
        [*HEADER],
        [
            "› Allow the lab MCP server to run tool? 1. Allow enter to submit | esc to cancel",
            *FOOTER,
        ],
        "idle",
        size=(100, 24),
    ),
    # The form's words quoted by an answer above an idle composer.
    case(
        "mcp-form-quoted-in-answer",
        [*HEADER, "› what does the MCP form look like?", ""],
        [
            "• It says: Allow the lab MCP server to run tool? then › 1. Allow and",
            "  enter to submit | esc to cancel",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER,
        ],
        "idle",
    ),
    # After the form was answered (mcp_yes 03-idle): the call is in the transcript.
    case(
        "mcp-answered-idle",
        [*HEADER, "› save a note with the lab tool", "", "• I'll save the note.", ""],
        [
            '• Called lab.lab_note({"text":"terminals began as teletypes"})',
            "  └ noted: terminals began as teletypes",
            "",
            "• Saved the note with the lab tool.",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER,
        ],
        "idle",
    ),
    # --- status row: narrow, quoted, stale ---------------------------------------------------
    # text-30x16 (lab trial) / bash_yes-36x16: the row cut with an ellipsis.
    case(
        "status-row-cut-30-cols",
        ["", "  >_ OpenAI Codex (v0.171.0)", "     /tmp/agentlab/…/text/proj", "", ""],
        [
            "› explain this project",
            "",
            "",
            "• Working (0s • esc to interr…",
            "",
            "",
            "› Ask Codex to do anything",
            "",
            "  agentlab-model default · /",
            "  tmp/agentlab/codex/text/proj",
            "  ← for agents       ⚠ 2 · f2",
        ],
        "working",
        size=(30, 16),
    ),
    # variant: cut right after `esc` (the example), no title spinner.
    case(
        "status-row-cut-after-esc",
        ["", "  >_ OpenAI Codex", ""],
        ["• Working (0s • esc…", "", "", "› Ask Codex to do…", "", "  ? for shortcuts"],
        "working",
        size=(20, 12),
    ),
    # variant: a reasoning header long enough to be cut at 60 columns.
    case(
        "status-row-cut-reasoning-header",
        [*HEADER, "› think hard about the structure of app.py"],
        [
            "• Weighing how app.py splits formatting from printing (1m 03…",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER[:1],
            "  ← for agents · ? for shortcuts",
        ],
        "working",
        size=(62, 20),
    ),
    # draft_status-80x24: the status row's words typed into the composer, never sent.
    case(
        "status-row-quoted-in-draft",
        [*HEADER],
        [
            "› • Working (3s • esc to interrupt) Allow the lab MCP server to run tool? enter",
            "  to submit",
            *FOOTER,
        ],
        "idle",
    ),
    # variant: the quote on a continuation row of a draft.
    case(
        "status-row-quoted-on-draft-second-row",
        [*HEADER],
        [
            "› the row said",
            "  • Working (3s • esc to interrupt)",
            *FOOTER,
        ],
        "idle",
    ),
    # variant: a cut row quoted in a draft.
    case(
        "status-row-cut-quoted-in-draft",
        [*HEADER],
        ["› it showed • Working (0s • esc…", *FOOTER],
        "idle",
    ),
    # bash_interrupt 04-idle: after the interrupt the row is gone, the notice stays.
    case(
        "interrupted-idle",
        [*HEADER, "› run the slow build", "", "• I'll run the slow build.", ""],
        [
            "• Exited (status 1) rm -rf build && sleep 8 && echo built",
            "  └ (no output)",
            "",
            "■ Conversation interrupted - use /feedback if something went wrong",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER,
        ],
        "idle",
    ),
    # variant: a new turn after an interrupted one: the notice is in the transcript, above the
    # live row.
    case(
        "status-row-live-after-earlier-interrupt",
        [*HEADER, "› run the slow build", ""],
        [
            "■ Conversation interrupted - use /feedback if something went wrong",
            "",
            "› run it again",
            "",
            "• Working (2s • esc to interrupt)",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER,
        ],
        "working",
    ),
    # bash_interrupt 03-working: the command runs, its row and the status row.
    case(
        "command-running-60x20",
        ["", "› run the slow build", "", "• I'll run the slow build.", ""],
        [
            "✔ You approved codex to run rm -rf build && sleep 8 && echo",
            "  built this time",
            "",
            "• Running rm -rf build && sleep 8 && echo built",
            "",
            "• Working (1s • esc to interrupt)",
            "",
            "",
            "› Ask Codex to do anything",
            "",
            "  agentlab-model default · /tmp/agentlab/codex/",
            "  bash_interrupt/proj · run the slow build",
            "  ← for agents · ? for shortcuts  ⚠ 2 warnings · f2 to view",
        ],
        "working",
        size=(60, 20),
    ),
    # --- approval overlay hint wrapped (bash_yes-36x16) -------------------------------------
    case(
        "approval-hint-wrapped-36x16",
        [
            "",
            "  Would you like to run the",
            "  following command?",
            "",
            "  Environment: local",
            "",
            "  $ rm -rf build && sleep 2 &&",
            "  echo done",
            "",
            "",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for",
            "     commands that start with `rm",
            "↓",
        ],
        ["  Press enter to confirm or esc to", "  cancel"],
        "blocked",
        size=(36, 16),
        title="[ ! ] Action Required | clean the build directory | proj",
    ),
    # variant: wrapped one word earlier.
    case(
        "approval-hint-wrapped-before-esc",
        ["", "  Would you like to run the following command?", "", "  $ make"],
        [
            "› 1. Yes, proceed (y)",
            "  3. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or",
            "  esc to cancel",
        ],
        "blocked",
        size=(54, 16),
    ),
    # A draft whose last rows look like the wrapped hint: the footer still ends the screen.
    case(
        "approval-hint-wrapped-in-draft",
        [*HEADER],
        ["› 1. Yes Press enter to confirm or esc to", "  cancel", *FOOTER],
        "idle",
    ),
    # --- approval modes ----------------------------------------------------------------------
    # bypass_bash 01-working: `permissions: YOLO mode` under the header, the row as usual.
    case(
        "yolo-mode-working",
        [
            "",
            "  >_ OpenAI Codex (v0.171.0)",
            "     /tmp/agentlab/codex/bypass_bash/proj",
            "  permissions: YOLO mode",
            "",
            "",
            "› clean the build directory",
        ],
        [
            "• Working (0s • esc to interrupt)",
            "",
            "",
            "› Ask Codex to do anything",
            "",
            "  agentlab-model default · /tmp/agentlab/codex/bypass_bash/proj · clean the",
            "  build directory",
            "  ← for agents · ? for shortcuts                       ⚠ 1 warning · f2 to view",
        ],
        "working",
    ),
    # never_bash zz-final / full_auto_edit zz-final: the turn ran without a dialog.
    case(
        "approval-never-idle",
        [*HEADER, "› clean the build directory", "", "• I'll remove the build directory.", ""],
        [
            "• Done: the build directory is gone.",
            "",
            "  Worked for 2s • 18:25",
            "",
            "",
            "› Ask Codex to do anything",
            *FOOTER,
        ],
        "idle",
    ),
]


manifest = manifest_fixture("codex")


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_screen(c: Case, manifest: Manifest) -> None:
    snap = Snapshot.from_text("\n".join(c.rows), c.cols, title=c.title)
    verdict = classify(snap, manifest)
    assert verdict.state == c.want, f"{c.name}: got {verdict.state} by rule {verdict.rule}"


def test_mcp_form_answer_keys(manifest: Manifest) -> None:
    """The form takes Enter on its selected option and Esc, not the approval panel's `y`."""
    answer = manifest.answer_for("mcp-form")
    assert answer is not None
    assert (answer.yes, answer.no) == (("Enter",), ("Escape",))
    assert manifest.answer_for("approval-overlay") == manifest.answer
