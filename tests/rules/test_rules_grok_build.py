"""Grok Build (xAI's Grok CLI) rules on screens beyond the lab captures
(captures/grok-build-0.2.111-lab*), and telling it apart from the community Grok CLI.

The layouts are those of the 0.2.111 captures: the input box two columns in between rounded
corners with the model's name in its bottom edge, one footer row of key hints under it; a
permission panel or a question replacing both, its rows behind a `┃` gutter, a key row last.
Re-laid at other widths, in the other wordings the issue quotes (`Always allow` first,
`←/→:scope`, `Ctrl+o:yolo`, `Ctrl+Enter:interject`), and filled with what a user or the model
could put there."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from tests.rules.harness import from_bottom as screen
from tests.rules.harness import manifest_fixture
from tests.rules.harness import state_rule as state

IDLE_FOOTER = "  Shift+Tab:mode  │  Ctrl+x:shortcuts"
BUSY_FOOTER = "  Shift+Tab:mode  │  Esc:cancel  │  Ctrl+x:shortcuts"
COMMAND_KEYS = "  1/3:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel"
TRANSCRIPT = [
    "   main /tmp/proj",
    "",
    "     ❯ clean the build directory",
    "",
    "     I'll remove the build directory.",
    "",
    "  ┃  ◆ Run Remove the build directory",
]


manifest = manifest_fixture("grok-build")


def input_area(cols: int, text: str = "", footer: str = IDLE_FOOTER) -> list[str]:
    inner = cols - 8
    name = " Fake Model "
    return [
        "  ╭" + "─" * (cols - 6) + "╮",
        "  │ " + ("❯ " + text)[:inner].ljust(inner) + " │",
        "  ╰" + "─" * (cols - 8 - len(name)) + name + "─╯",
        "",
        footer,
    ]


def spinner(cols: int, phrase: str = "Remove the build directory… 3.6s") -> str:
    right = "4.0s ⇣90 [↓][stop]"
    return "    ⠋ " + phrase + " " * max(1, cols - 8 - len(phrase) - len(right)) + right


def panel(body: list[str], options: list[str], keys: str) -> list[str]:
    return [
        "  ┃",
        *("  ┃  " + b for b in body),
        "  ┃",
        *(f"  ┃  {i} ({'●' if i == 1 else '○'}) {o}" for i, o in enumerate(options, 1)),
        "  ┃",
        "",
        keys,
    ]


COMMAND = ["Yes, and don't ask again for anything (always-approve mode)", "Yes, proceed"]
COMMAND += ["No, reject (type to add feedback)"]


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (100, 30), (160, 40), (240, 60)])
def test_command_panel_at_any_width(cols: int, rows: int, manifest: Manifest) -> None:
    body = ["Remove the build directory", "rm -rf build && sleep 2 && echo done"]
    snap = screen(
        [*TRANSCRIPT, "", spinner(cols), "", *panel(body, COMMAND, COMMAND_KEYS)], cols, rows
    )
    assert state(snap, manifest) == "blocked:permission_yes2"
    assert manifest.answer is not None and manifest.answer.yes == ("2",)


def test_panel_as_the_issue_quotes_it(manifest: Manifest) -> None:
    # Another release's wording: the per-command row first, `Yes, proceed` preselected, the
    # scope and yolo keys in the key row.
    options = ["Always allow: npm test", "Yes, proceed", "No, reject (type to add feedback)"]
    rows = panel(
        ["Run the tests", "npm test", "Use ← → to choose permission whitelist scope"],
        options,
        "  1/3:select  │  ←/→:scope  │  Ctrl+o:yolo  │  Ctrl+c:cancel",
    )
    snap = screen([*TRANSCRIPT, "", *rows], 100, 30)
    assert state(snap, manifest) == "blocked:permission_yes2"


@pytest.mark.parametrize(
    ("options", "body"),
    [
        # An edit: 2 would allow every edit of the session.
        (
            [COMMAND[0], "Yes, allow all edits during this session", "Yes", COMMAND[2]],
            ["Allow Edit to /tmp/proj/app.py?"],
        ),
        # `[ui] remember_tool_approvals = true`: the per-command rows.
        (
            [COMMAND[0], "Always allow: rm -rf", "Yes, proceed", COMMAND[2], "Never allow: rm -rf"],
            ["Remove the build directory", "Use ← → to choose permission scope"],
        ),
    ],
)
def test_panels_whose_yes_is_3(options: list[str], body: list[str], manifest: Manifest) -> None:
    keys = f"  1/{len(options)}:select  │  Ctrl+o:always-approve  │  Ctrl+c:cancel"
    snap = screen([*TRANSCRIPT, "", *panel(body, options, keys)], 120, 32)
    assert state(snap, manifest) == "blocked:permission_yes3"
    rule = next(r for r in manifest.rules if r.id == "permission_yes3")
    assert rule.answer is not None and rule.answer.yes == ("3",) and rule.answer.no == ("C-c",)
    assert rule.answer.keys("4") == ("4",)


def test_wrapped_first_option_in_a_narrow_pane(manifest: Manifest) -> None:
    rows = [
        "  ┃",
        "  ┃  rm -rf build",
        "  ┃",
        "  ┃  1 (●) Yes, and don't ask again for anything",
        "  ┃  (always-approve mode)",
        "  ┃  2 (○) Yes, proceed",
        "  ┃  3 (○) No, reject (type to add feedback)",
        "  ┃",
        "",
        COMMAND_KEYS,
    ]
    snap = screen([*TRANSCRIPT, *rows], 60, 20)
    assert state(snap, manifest) == "blocked:permission_yes2"


def test_panel_of_another_layout(manifest: Manifest) -> None:
    options = ["Yes, and don't ask again for anything", "Yes, allow example.com", "No, reject"]
    rows = panel(["Fetch https://example.com"], options, COMMAND_KEYS)
    snap = screen([*TRANSCRIPT, *rows], 120, 32)
    assert state(snap, manifest) == "blocked:permission"


def test_question(manifest: Manifest) -> None:
    rows = [
        "    ◆ Waiting on answers for Which database should the app use?      0.4s ⇣90 [stop]",
        "",
        "  ┃",
        "  ┃  Which database should the app use?",
        "  ┃",
        "  ┃  1 (○) PostgreSQL  Robust relational DB",
        "  ┃  2 (○) SQLite      File-based, zero config",
        "  ┃  z (○) Type your answer here",
        "  ┃",
        "  ┃  ↑/↓ navigate · y copy                                 Enter:submit",
        "  ┃",
        "",
        "  Esc:unselect  │  Tab:scrollback  │  Shift+x:dismiss",
    ]
    snap = screen([*TRANSCRIPT, *rows], 100, 30)
    assert state(snap, manifest) == "blocked:question"


@pytest.mark.parametrize("cols", [80, 120, 200])
def test_working_footer(cols: int, manifest: Manifest) -> None:
    snap = screen(
        [*TRANSCRIPT, "", spinner(cols), "", *input_area(cols, footer=BUSY_FOOTER)], cols, 30
    )
    assert state(snap, manifest) == "working:working"


def test_working_footer_as_the_issue_quotes_it(manifest: Manifest) -> None:
    rows = ["    ⠋ Waiting… 1.8s", "", "  Ctrl+c:cancel  │  Ctrl+Enter:interject"]
    snap = screen([*TRANSCRIPT, *rows], 100, 30)
    assert state(snap, manifest) == "working:working"


@pytest.mark.parametrize("cols", [80, 120, 200])
def test_idle_input_box(cols: int, manifest: Manifest) -> None:
    done = ["", "     Done: the build directory is gone.", "", "     Worked for 16s"]
    snap = screen([*TRANSCRIPT, *done, "", *input_area(cols)], cols, 30)
    assert state(snap, manifest) == "idle:None"


def test_transcript_quoting_a_panel_above_an_idle_box(manifest: Manifest) -> None:
    # The model's answer shows what the panel looks like (its rows, the key row, even the busy
    # footer's words); the live area under it is the idle input box.
    quoted = [
        "     The panel reads:",
        *panel(["rm -rf build"], COMMAND, COMMAND_KEYS),
        "     and the footer says Shift+Tab:mode │ Esc:cancel while it works.",
    ]
    snap = screen([*TRANSCRIPT, *quoted, "", *input_area(120)], 120, 40)
    assert state(snap, manifest) == "idle:None"


def test_draft_with_panel_words(manifest: Manifest) -> None:
    draft = "2 (○) Yes, proceed 1/3:select │ Ctrl+c:cancel │ Esc:cancel"
    snap = screen(
        [*TRANSCRIPT, "", *input_area(120, draft, "  Enter:send  │  Shift+Tab:mode")], 120, 32
    )
    assert state(snap, manifest) == "idle:None"


@pytest.mark.parametrize(
    "argv",
    [
        ["grok"],
        ["grok", "--cwd", "/tmp/proj"],
        ["/home/u/.grok/bin/grok", "fix the bug"],
        [
            "/root/.cache/osf-agentlab/grok-build-venv/lib/python3.13/site-packages/grok_cli_bin/bin/grok"
        ],
        ["/usr/lib/node_modules/@xai-official/grok-linux-x64/bin/grok"],
        ["node", "/usr/lib/node_modules/@xai-official/grok/bin/grok"],
    ],
)
def test_grok_build_identified_from_its_processes(argv: list[str], rules: RuleSet) -> None:
    found = rules.for_process(argv)
    assert found is not None and found.agent == "grok-build"


@pytest.mark.parametrize(
    "argv",
    [
        ["node", "/root/.cache/osf-agentlab/npm-grok/node_modules/.bin/grok"],
        ["node", "/usr/local/bin/grok"],
        ["node", "/usr/lib/node_modules/@vibe-kit/grok-cli/dist/index.js"],
    ],
)
def test_community_grok_cli_stays_grok(argv: list[str], rules: RuleSet) -> None:
    found = rules.for_process(argv)
    assert found is not None and found.agent == "grok"


@pytest.mark.parametrize(
    "argv",
    [
        ["grok"],
        ["/x/site-packages/grok_cli_bin/bin/grok"],
        ["node", "/n/lib/node_modules/@xai-official/grok/bin/grok"],
    ],
)
def test_grok_manifest_alone_no_longer_claims_grok_build(argv: list[str], rules: RuleSet) -> None:
    # Whatever order the manifests are tried in: grok.toml by itself takes neither a process
    # named grok nor Grok Build's install paths.
    grok = rules.get("grok")
    assert RuleSet({"grok": grok}).for_process(argv) is None


def plan_box(cols: int, edge: str, footer: str) -> list[str]:
    inner = cols - 6
    return [
        "  ╭─ plan.md " + "─" * (cols - 17) + "╮",
        "  │" + "1 ## Plan: --name option".ljust(inner) + "│",
        "  │" + "2 1. Parse arguments with argparse".ljust(inner) + "│",
        "  │" + "─" * inner + "│",
        "  │" + "a approve  |  s request changes  |  c comment  |  q quit plan".center(inner) + "│",
        "  ╰" + "─" * inner + "╯",
        "",
        "  ╭" + "─" * inner + "╮",
        "  │ ❯ Build anything".ljust(cols - 3) + "│",
        "  ╰" + "─" * (cols - 8 - len(edge)) + edge + "─╯",
        "",
        footer,
    ]


@pytest.mark.parametrize("cols", [80, 140])
def test_plan_approval(cols: int, manifest: Manifest) -> None:
    footer = "  c:comment  │  a:approve  │  q:quit plan  │  v:select  │  Tab:prompt"
    snap = screen(plan_box(cols, " Fake Model · plan approval ", footer), cols, 30)
    assert state(snap, manifest) == "blocked:plan_approval"
    rule = next(r for r in manifest.rules if r.id == "plan_approval")
    assert rule.answer is not None and rule.answer.yes == ("a",)


def test_plan_mode_idle_and_a_plan_quoted_above_it(manifest: Manifest) -> None:
    # Plan mode on, nothing asked: the box's edge says "plan", the footer is the idle one.
    snap = screen(plan_box(120, " Fake Model · plan ", IDLE_FOOTER), 120, 30)
    assert state(snap, manifest) == "idle:None"


# ---- --minimal: the transcript in the terminal's scrollback, a few rows pinned at the bottom --

MIN_STATUS = "Fake Model · 90 / 128K (0%) · ctrl+o transcript"
MIN_TRANSCRIPT = [
    "❯ clean the build directory",
    "",
    "I'll remove the build directory.",
    "◆ Run Remove the build directory",
    "$ rm -rf build && sleep 2 && echo done",
]


def min_spinner(cols: int, phrase: str = "Remove the build directory… 3.6s") -> str:
    right = "4.0s ⇣90"
    return "⠋ " + phrase + " " * max(1, cols - 2 - len(phrase) - len(right)) + right


def min_panel(body: list[str], options: list[str], cols: int) -> list[str]:
    """A panel as --minimal draws it: the status row of the call, the gutter rows, no key row."""
    return [
        "◆ " + body[0] + "… 0.6s",
        "┃",
        *("┃  " + b for b in body),
        "┃",
        *(f"┃  {i} ({'●' if i == 1 else '○'}) {o}"[:cols] for i, o in enumerate(options, 1)),
        "┃",
    ]


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (120, 32), (200, 50)])
def test_minimal_command_panel(cols: int, rows: int, manifest: Manifest) -> None:
    body = ["Remove the build directory", "rm -rf build && sleep 2 && echo done"]
    snap = screen([*MIN_TRANSCRIPT, *min_panel(body, COMMAND, cols)], cols, rows)
    assert state(snap, manifest) == "blocked:permission_yes2"


def test_minimal_edit_panel(manifest: Manifest) -> None:
    options = [COMMAND[0], "Yes, allow all edits during this session", "Yes", COMMAND[2]]
    snap = screen([*MIN_TRANSCRIPT, *min_panel(["Allow Edit to app.py?"], options, 120)], 120, 32)
    assert state(snap, manifest) == "blocked:permission_yes3"


def minimal_question(cut: int = 0) -> list[str]:
    rows = [
        "◆ Waiting on answers for Which database should the app use?        0.4s ⇣90",
        "┃",
        "┃  Which database should the app use?",
        "┃",
        "┃",
        "┃  1 (○) PostgreSQL  Robust relational DB",
        "┃  2 (○) SQLite      File-based, zero config",
        "┃  z (○) Type your answer here",
        "┃",
        "┃  ↑/↓ navigate · y copy                                     Enter:submit",
        "┃",
    ]
    return rows[: len(rows) - cut]


@pytest.mark.parametrize("cut", [0, 3])
def test_minimal_question(cut: int, manifest: Manifest) -> None:
    # 0.2.111 draws nothing under the `z` row (cut=3); a gutter key row under it, as full
    # screen has, would be taken too (cut=0).
    snap = screen(
        ["❯ set up a database", "", "I need one decision from you.", *minimal_question(cut)], 80, 24
    )
    assert state(snap, manifest) == "blocked:question_minimal"
    rule = next(r for r in manifest.rules if r.id == "question_minimal")
    assert rule.answer is not None and rule.answer.yes == ("1",)


@pytest.mark.parametrize("cols", [80, 120])
def test_minimal_plan_approval(cols: int, manifest: Manifest) -> None:
    rows = [
        "◆ Plan Exit",
        "No plan written yet.",
        "",
        "⠙ Run Plan: Exit 0.0s",
        "No plan written yet",
        "a approve · s revise · q keep planning",
    ]
    snap = screen(["❯ plan a --name option for app.py", "", *rows], cols, 24)
    assert state(snap, manifest) == "blocked:plan_approval_minimal"
    rule = next(r for r in manifest.rules if r.id == "plan_approval_minimal")
    assert rule.answer is not None and (rule.answer.yes, rule.answer.no) == (("a",), ("q",))


@pytest.mark.parametrize("cols", [80, 120, 200])
def test_minimal_working(cols: int, manifest: Manifest) -> None:
    for phrase in ("Waiting for response… 0.7s", "Responding… 1.5s", "Remove the build… 10s"):
        live = [min_spinner(cols, phrase), "❯", MIN_STATUS]
        snap = screen([*MIN_TRANSCRIPT, *live], cols, 24)
        assert state(snap, manifest) == "working:working_minimal"


def test_minimal_working_with_a_draft_typed(manifest: Manifest) -> None:
    draft = ["❯ and then run the tests, and tell me which of them", "  fail and why"]
    snap = screen([*MIN_TRANSCRIPT, min_spinner(80), *draft, MIN_STATUS], 80, 24)
    assert state(snap, manifest) == "working:working_minimal"


@pytest.mark.parametrize(
    "above",
    [
        # idle: the mode's hint over the ❯ row, after a turn, a draft of panel words, an answer
        # whose last rows are Braille art (the row over the ❯ row is still the hint)
        ["Worked for 12s", "minimal · /help"],
        ["Turn cancelled by user in 3.0s.", "minimal · /help"],
        ["⠋⠙⠹ a spinner is drawn with Braille cells like ⠸", "Worked for 2s", "minimal · /help"],
    ],
)
def test_minimal_idle(above: list[str], manifest: Manifest) -> None:
    snap = screen([*MIN_TRANSCRIPT, *above, "❯", MIN_STATUS], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_minimal_draft_with_panel_words(manifest: Manifest) -> None:
    draft = "❯ ┃  2 (○) Yes, proceed a approve · s revise · q keep planning"
    snap = screen([*MIN_TRANSCRIPT, "minimal · /help", draft, MIN_STATUS], 120, 32)
    assert state(snap, manifest) == "idle:None"


def test_minimal_answered_panel_in_the_transcript(manifest: Manifest) -> None:
    # What a turn printed into the scrollback (a question answered) over the idle pinned rows.
    done = ["  1. Which database should the app use?", "     → PostgreSQL", "Worked for 1.6s"]
    snap = screen([*MIN_TRANSCRIPT, *done, "minimal · /help", "❯", MIN_STATUS], 80, 24)
    assert state(snap, manifest) == "idle:None"
