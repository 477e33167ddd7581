"""OpenCode's rules (and Kilo's, the same program family) on screens beyond the captures:
other widths (60, 80, 240 columns, the wide sidebar), dialogs the lab did not record (several
questions, the review tab, a sub-agent's reject message, a fullscreen diff), drafts typed with
the dialogs' own words, answers that end in a question, and a transcript that quotes an old
prompt above a live input box. And which processes are OpenCode and Kilo.

The layouts are those of the 1.18.33 / 7.7.7 captures (captures/opencode-1.18.33-lab), re-laid
at other sizes the way the program lays them out (rules/NOTES-opencode.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest, load_manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import foreground_agent, screens_test

RULES = Path(__file__).resolve().parents[2] / "rules"
AGENTS = ("opencode", "kilo")
SPIN = "■■■⬝⬝⬝⬝⬝"
DIR = "/home/dev/src/proj"


@pytest.fixture(scope="module", params=AGENTS)
def manifest(request: pytest.FixtureRequest) -> Manifest:
    return load_manifest(RULES / f"{request.param}.toml")


def screen(lines: list[str], cols: int, rows: int, sidebar: bool = False) -> Snapshot:
    """`lines` at the bottom of a `cols`x`rows` alternate screen, one blank row under the footer
    as the program leaves it; with `sidebar`, the session sidebar's text right of the rows."""
    if sidebar:
        side = ["Lab title", "", "Context", "90 tokens", "0% used", "", "LSP", "LSPs are disabled"]
        lines = [row.ljust(cols - 42) + (side[i] if i < len(side) else "") for i, row in
                 enumerate(lines)]  # fmt: skip
        lines[-1] = lines[-1].ljust(cols - 42) + "• OpenCode 1.18.33"
    assert all(len(line) <= cols for line in lines), "a row is wider than the pane"
    lines = [*lines[-(rows - 1) :], ""]
    text = "\n".join([""] * (rows - len(lines)) + lines)
    return dataclasses.replace(Snapshot.from_text(text, cols), alt_screen=True)


def right(left: str, tail: str, cols: int) -> str:
    """`tail` right-aligned two columns from the pane's edge, as the footer and hints are."""
    return left + " " * max(2, cols - 2 - len(left) - len(tail)) + tail


def user(text: str) -> list[str]:
    return ["  ┃", f"  ┃  {text}", "  ┃", ""]


def answer(*paras: str) -> list[str]:
    out: list[str] = []
    for p in paras:
        out += [f"     {p}", ""]
    return [*out, "     ▣  Build · Fake Model · 1.8s", ""]


def tool_output(command: str, output: list[str]) -> list[str]:
    return ["  ┃", f"  ┃  $ {command}", "  ┃", *[f"  ┃  {o}" for o in output], "  ┃", ""]


def input_box(cols: int, draft: list[str] | None = None, width: int | None = None) -> list[str]:
    width = width or cols - 2
    return [
        "  ┃",
        *[f"  ┃  {d}" for d in (draft or [""])],
        "  ┃",
        "  ┃  Build · Fake Model Fake",
        "  ╹" + "▀" * (width - 3),
    ]


def idle_footer(cols: int) -> list[str]:
    return [right(f"   {DIR}", "90  ctrl+p commands", cols)]


def working_footer(
    cols: int, spin: str = SPIN, key: str = "esc", hint: str = "interrupt"
) -> list[str]:
    left = f"   {spin}  {key} {hint}"
    tail = "tab agents  ctrl+p commands"
    if len(left) + 2 + len(tail) > cols - 2:
        tail = "ctrl+p commands"  # narrow panes: what fits
    return [right(left, tail, cols)]


def permission(
    cols: int,
    body: list[str] | None = None,
    title: str = "Permission required",
    options: str = "Allow once   Allow always   Reject",
    fullscreen: bool = True,
) -> list[str]:
    hints = ("ctrl+f fullscreen  " if fullscreen else "") + "⇆ select  enter confirm"
    rows = ["  ┃", f"  ┃  △ {title}", "  ┃    # Shell command", "  ┃"]
    rows += [f"  ┃  {b}"[: cols - 3] for b in (body or ["$ rm -rf build && sleep 2 && echo done"])]
    rows += ["  ┃", "  ┃"]
    if cols < 80:  # the choices and the hints stack
        return [*rows, f"  ┃   {options}", "  ┃", f"  ┃  {hints}"[: cols - 3], "  ┃"]
    row = f"  ┃   {options}"
    if len(row) + 2 + len(hints) > cols - 3:  # no room: the hints are cut at the box's padding
        return [*rows, (row + "  " + hints)[: cols - 3], "  ┃"]
    return [*rows, right(row, hints, cols), "  ┃"]


def question(
    q: str,
    options: list[tuple[str, str]],
    hint: str = "↑↓ select  enter submit  esc dismiss",
    custom: bool = True,
    tabs: str | None = None,
) -> list[str]:
    rows = ["  ┃"] + ([f"  ┃  {tabs}", "  ┃"] if tabs else []) + [f"  ┃  {q}", "  ┃"]
    for i, (label, desc) in enumerate(options, start=1):
        rows += [f"  ┃  {i}. {label}", f"  ┃     {desc}"]
    if custom:
        rows.append(f"  ┃  {len(options) + 1}. Type your own answer")
    return [*rows, "  ┃", f"  ┃  {hint}", "  ┃"]


TRANSCRIPT = [
    *user("run the check"),
    "     Running a command.",
    "",
    *tool_output("sleep 3; echo ok", ["ok"]),
    *answer("All done, the command printed ok."),
]
DB = [("PostgreSQL", "Robust relational DB"), ("SQLite", "File-based, zero config")]
DIFF = ["← Edit app.py", "", *[f"{n:>3} -    print('hello {n}')" for n in range(1, 13)],
        " 13 +    print('hello, world')"]  # fmt: skip
# Drafts with the dialogs' own words; typed, never sent.
DRAFT = "△ Permission required  Which database?  1. PostgreSQL  2. Type your own answer"
DRAFT2 = "Allow once   Allow always   Reject  ⇆ select  enter confirm  enter submit  esc dismiss"
DRAFT3 = f"{SPIN}  esc interrupt"


def cases() -> list[tuple[str, Snapshot, str]]:
    out: list[tuple[str, Snapshot, str]] = []
    for cols, rows in ((60, 20), (80, 24), (120, 32), (240, 60)):
        wide = cols >= 200
        size = f"{cols}x{rows}"
        w = cols - 42 if wide else cols  # the left column, beside the sidebar
        # --- blocked ---
        out += [
            (f"permission-{size}", screen([*TRANSCRIPT, *permission(w)], cols, rows, wide),
             "blocked"),
            (f"permission-diff-{size}",
             screen([*user("add a greeting"), *permission(w, DIFF, "Permission required")],
                    cols, rows, wide), "blocked"),
            (f"always-confirm-{size}",
             screen([*user("run it"), *permission(
                 cols, ["This will allow the following patterns until OpenCode is restarted",
                        "", "- rm *", "- sleep *"], "Always allow", "Confirm   Cancel",
                 fullscreen=False)], cols, rows, wide), "blocked"),
            (f"question-{size}",
             screen([*user("set up a database"), "     I need one decision from you.", "",
                     *question("Which database should the app use?", DB)], cols, rows, wide),
             "blocked"),
            (f"plan-exit-{size}",
             screen([*user("plan a --name option"), *question(
                 "Plan at .opencode/plans/x.md is complete. Would you like to switch to the "
                 "build agent?"[: w - 8], [("Yes", "Switch to build agent"),
                                               ("No", "Stay with plan agent")], custom=False)],
                    cols, rows, wide), "blocked"),
            # --- idle ---
            (f"idle-after-answer-{size}",
             screen([*TRANSCRIPT, *input_box(w), *idle_footer(w)], cols, rows, wide),
             "idle"),
            (f"draft-with-prompt-words-{size}",
             screen([*TRANSCRIPT, *input_box(w, [DRAFT[: w - 8], DRAFT2[: w - 8]]),
                     *idle_footer(w)], cols, rows, wide), "idle"),
            (f"draft-with-working-words-{size}",
             screen([*TRANSCRIPT, *input_box(w, [DRAFT3]), *idle_footer(w)], cols, rows,
                    wide), "idle"),
            (f"answer-ends-in-a-question-{size}",
             screen([*user("review app.py"), *answer(
                 "app.py is small and clear.", "Would you like me to add an option?",
                 "1. Yes", "2. No"), *input_box(w), *idle_footer(w)], cols, rows, wide),
             "idle"),
            # The person's old message quoted the prompt; the command output shows its words too.
            (f"transcript-quotes-an-old-prompt-{size}",
             screen([*permission(w)[:-1], "", *tool_output("cat prompt.txt", [
                 "Allow once   Allow always   Reject", "⇆ select  enter confirm",
                 "↑↓ select  enter submit  esc dismiss"]), *answer("Done."), *input_box(w),
                     *idle_footer(w)], cols, rows, wide), "idle"),
            # --- working ---
            (f"working-{size}",
             screen([*user("run the check"), *input_box(w), *working_footer(w)], cols,
                    rows, wide), "working"),
            (f"working-with-draft-{size}",
             screen([*user("run the check"), *input_box(w, [DRAFT[: w - 8]]),
                     *working_footer(w)], cols, rows, wide), "working"),
            (f"working-esc-again-{size}",
             screen([*TRANSCRIPT, *input_box(w), *working_footer(w, "⬝⬝⬝■■■■■", "esc",
                                                                     "again to interrupt")],
                    cols, rows, wide), "working"),
        ]  # fmt: skip
    return out


EXTRA: list[tuple[str, Snapshot, str]] = [
    # Several questions: a tab row, `⇆ tab` and `enter confirm` in the hints.
    ("questions-tabs-120x32", screen([*user("set it up"), *question(
        "Which database?", DB, "⇆ tab  ↑↓ select  enter confirm  esc dismiss",
        tabs="Database   Cache   Confirm")], 120, 32), "blocked"),
    # Their review tab: answers listed, `enter submit`.
    ("questions-review-120x32", screen([*user("set it up"), "  ┃",
        "  ┃  Database   Cache   Confirm", "  ┃", "  ┃  Review", "  ┃  Database: PostgreSQL",
        "  ┃  Cache: (not answered)", "  ┃",
        "  ┃  ⇆ tab  enter submit  esc dismiss", "  ┃"], 120, 32), "blocked"),
    # Reject on a sub-agent's prompt: what to tell it instead.
    ("reject-message-120x32", screen([*user("run the tests in a sub-agent"), "  ┃",
        "  ┃  △ Reject permission", "  ┃", "  ┃  Tell OpenCode what to do differently", "  ┃",
        right("  ┃  use pytest -x instead", "enter confirm  esc cancel", 120), "  ┃"], 120,
        32), "blocked"),
    ("reject-message-60x20", screen([*user("run tests"), "  ┃", "  ┃  △ Reject permission",
        "  ┃", "  ┃  Tell OpenCode what to do differently", "  ┃", "  ┃  use pytest -x", "  ┃",
        "  ┃  enter confirm  esc cancel", "  ┃"], 60, 20), "blocked"),
    # The diff in fullscreen (ctrl+f): the box fills the pane, choices at the bottom.
    ("permission-fullscreen-80x24", screen(permission(80, DIFF * 2), 80, 24), "blocked"),
    # Kilo 7.7.7's own question when its first snapshot of the project is slow (seen verbatim
    # in a lab run at load average 15: a question tool dialog without the free-text option).
    ("kilo-snapshot-slow-120x32", screen([*user("explain this project"),
        "     ⠹ Initializing snapshot…", "", "     ▣  Code · Fake Model", "", "  ┃",
        "  ┃  It is taking a long time to initialize the snapshot system, likely due to the size "
        "of the repository.", "  ┃",
        "  ┃  Do you want to disable Snapshots for this repository?", "  ┃",
        "  ┃  1. Continue with snapshots",
        "  ┃     Keep waiting for the snapshot to complete. Subsequent turns are fast once the "
        "initial snapshot is built.",
        "  ┃  2. Disable for this project",
        "  ┃     Turn off Kilo's snapshots for this project. You will lose undo/redo of Kilo file "
        "changes, but git still", "  ┃     tracks everything.", "  ┃",
        "  ┃  ↑↓ select  enter submit  esc dismiss", "  ┃"], 120, 32), "blocked"),
    # Kilo 7.7.7's question after plan_exit, with a stray `}` left in the margin left of the
    # border (verbatim from captures/kilo-7.7.7-lab/plan-120x32, 02-blocked).
    ("kilo-plan-followup-stray-margin-120x32", screen([*user("plan a --name option for app.py"),
        "     I'll outline a plan first.", "", "     ⚙ plan_exit [path=README.md]", "",
        "     ▣  Plan · Fake Model", "", "  ┃", "  ┃  Ready to implement?", "  ┃",
        *question("x", [("Start new session", "Implement in a fresh session with a clean context"),
                        ("Continue here", "Implement the plan in this session"),
                        ("Keep refining", "Keep planning without implementing yet")])[3:-2],
        "} ┃  ↑↓ select  enter submit  esc dismiss", "  ┃"], 120, 32), "blocked"),
    ("stray-margin-idle-120x32", screen([*TRANSCRIPT, *input_box(120)[:-1],
        "} ╹" + "▀" * 115, *idle_footer(120)], 120, 32), "idle"),
    # Kilo's smaller choice sets (no `Allow always`; `Allow` for skill shells).
    ("permission-no-always-120x32", screen([*user("x"), *permission(
        120, options="Allow once   Reject")], 120, 32), "blocked"),
    ("permission-allow-reject-80x24", screen([*user("x"), *permission(
        80, options="Allow   Reject")], 80, 24), "blocked"),
    # The home screen: the box in the middle, the directory and version at the bottom.
    ("home-120x32", screen(["", "", "█▀▀█ █▀▀█ █▀▀█ █▀▀▄", "", "", "                       ┃",
        '                       ┃  Ask anything… "Fix a TODO in the codebase"',
        "                       ┃", "                       ┃  Build · Fake Model Fake",
        "                       ╹" + "▀" * 74, " " * 71 + "tab agents  ctrl+p commands",
        *[""] * 9, right(f"  {DIR}", "1.18.33", 120)], 120, 32), "idle"),
    ("home-draft-60x20", screen(["    ┃", f"    ┃  {DRAFT[:50]}", f"    ┃  {DRAFT2[:50]}",
        "    ┃", "    ┃  Build · Fake Model Fake", "    ╹" + "▀" * 52,
        "               tab agents  ctrl+p commands", *[""] * 4,
        right(f"  {DIR}", "1.18.33", 60)], 60, 20), "idle"),
    # Spinner styles: diamonds, and `[⋯]` with animations off; a retry message.
    ("working-diamonds-120x32", screen([*user("x"), *input_box(120),
        *working_footer(120, "··⬩⬪◆⬥··")], 120, 32), "working"),
    ("working-no-animation-80x24", screen([*user("x"), *input_box(80),
        *working_footer(80, "[⋯]")], 80, 24), "working"),
    ("working-retry-120x32", screen([*user("x"), *input_box(120), right(
        f"   {SPIN} Rate limited [retrying in 4s attempt #2]", "esc interrupt", 120)], 120, 32),
        "working"),
    # --mini: inline, no borders; status row at the bottom of what it drew.
    ("mini-idle-100x30", screen(["█▀▀█  OpenCode", f"█  █  {DIR}", "▀▀▀▀", "",
        "› run it", "", "All done.", "", right(" BUILD", "ctrl+p cmd", 100)], 100, 30), "idle"),
    ("mini-working-100x30", screen(["› run it", "", "", right(f" BUILD  {SPIN} esc interrupt",
        "ctrl+p cmd", 100)], 100, 30), "working"),
    ("mini-permission-100x30", screen(["› run it", "", "Running a command.", "",
        "$ sleep 3; echo ok", "", "", "", "  △ Permission required", "", "   # Shell command",
        "", "  $ sleep 3; echo ok", "", "", "", right(
            "   Allow once   Allow always   Reject", "⇆ select  enter confirm  esc reject",
            100)], 100, 30), "blocked"),
    ("mini-draft-100x30", screen(["█▀▀█  OpenCode", "", f"› {DRAFT}", "",
        right(" BUILD", "ctrl+p cmd", 100)], 100, 30), "idle"),
    # A draft (shown without `›` while typed) whose rows start like the dialog's, on a pane too
    # narrow for the status row's right end.
    # Kilo 7.7.7 --mini right after a burst of typing: the draft, no status row under it yet.
    ("mini-draft-no-status-row-100x24", screen(["  Kilo", f"  {DIR}", "", "", "short draft "
        "Allow once   Allow always   Reject  ⇆ select  enter confirm", "△ Permission required  "
        "1. Yes  2. Type your own answer", "Allow once   Allow always   Reject  ⇆ select  enter "
        "confirm  esc reject"], 100, 24), "idle"),
    ("mini-draft-dialog-rows-40x20", screen(["█▀▀█  OpenCode", "", "△ Permission required",
        "# Shell command", "Allow once   Allow always   Reject", "⇆ select  enter confirm",
        " BUILD"], 40, 20), "idle"),
]  # fmt: skip


test_state = screens_test([*cases(), *EXTRA])


def test_a_dialog_cut_off_before_its_last_row_is_not_blocked_yet(manifest: Manifest) -> None:
    # Half drawn: the choices are there but not yet the box's padding under them; the screen is
    # not the dialog until the footer is gone and the padding row ends it.
    rows = [*TRANSCRIPT, *permission(120)[:-1], *input_box(120), *idle_footer(120)]
    assert classify(screen(rows, 120, 40), manifest).state == "idle"


def test_answer_keys_follow_the_dialog_on_screen(manifest: Manifest) -> None:
    # The permission prompt and the question: Enter takes the highlighted (first) choice, Esc
    # rejects or dismisses, a digit picks a question's option. The reject message (a second
    # stage): Enter confirms the rejection, Esc goes back to the prompt.
    for rule in ("permission-prompt", "question-dialog", "mini-permission-prompt"):
        keys = manifest.answer_for(rule)
        assert keys is not None
        assert (keys.keys("yes"), keys.keys("no"), keys.keys("2")) == (
            ("Enter",), ("Escape",), ("2",))  # fmt: skip
    second = manifest.answer_for("permission-reject-message")
    assert second is not None and (second.keys("yes"), second.keys("no")) == (
        ("Escape",), ("Enter",))  # fmt: skip


# ---- identification ----------------------------------------------------------------------------

LAB = "/root/.cache/osf-agentlab"


@pytest.mark.parametrize(
    ("commands", "agent"),
    [
        # the npm package's link to the native binary (comm `opencode`), and the binary itself
        ([[f"{LAB}/npm-opencode/node_modules/.bin/opencode"]], "opencode"),
        ([["opencode", "--continue"]], "opencode"),
        ([[f"{LAB}/npm-opencode/node_modules/opencode-linux-x64/bin/opencode"]], "opencode"),
        # a shell running it without job control leads the group; opencode is its child
        ([["bash", "-c", "cd w && opencode"], ["opencode"]], "opencode"),
        # its command's children are in the foreground group too: still opencode (the leader)
        ([["opencode"], ["/bin/bash", "-c", "sleep 20 && echo done"]], "opencode"),
        # Kilo: `node …/.bin/kilo` leads, its child is the native `.kilo`
        ([["node", f"{LAB}/npm-kilo/node_modules/.bin/kilo"],
          [f"{LAB}/npm-kilo/node_modules/@kilocode/cli/bin/.kilo"]], "kilo"),
        ([["node", f"{LAB}/npm-kilo/node_modules/.bin/kilo"]], "kilo"),  # before the child
        ([["kilo"]], "kilo"),  # the standalone binary
        ([["node", "/usr/lib/node_modules/@kilocode/cli/bin/kilocode"]], "kilo"),
        # not agents: an editor on a file or folder of that name, a plain node program
        ([["vim", "/home/dev/src/opencode"]], None),
        ([["less", "/home/dev/kilo"]], None),
        ([["node", "/home/dev/src/kilo/server.js"]], None),
    ],
)  # fmt: skip
def test_identification(commands: list[list[str]], agent: str | None) -> None:
    assert foreground_agent(commands) == agent


def test_kilo_takes_opencodes_rules_exactly() -> None:
    # Kilo's file extends OpenCode's: the same rules, in the same order (only names, processes
    # and the answer's note differ).
    def shape(m: Manifest) -> list[tuple[object, ...]]:
        return [
            (r.id, r.state, r.region, r.answer, [(c.pattern.pattern, c.region) for c in group])
            for r in m.rules
            for group in (r.all, r.any, r.not_)
        ]

    opencode, kilo = (load_manifest(RULES / f"{a}.toml") for a in AGENTS)
    assert shape(kilo) == shape(opencode)
    assert kilo.answer == opencode.answer
