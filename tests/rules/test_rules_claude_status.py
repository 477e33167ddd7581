"""Claude Code with a custom status line: the working signals that are left when the footer
hint is gone (rules/claude.toml, block "claude-status"), on screens beyond the captures.

Layouts are those of the lab captures (captures/claude-*-lab-statusline*): 2.1.25 - 2.1.221
draw the status line's rows under the input box's bottom rule instead of `esc to interrupt`;
the spinner row sits right above the box's top rule; the window title's first cell spins while
a turn runs. Each case is laid out at 60, 80, 120 and 240 columns: `{RULE}` is a full-width
rule, rows under the content are blank as on a real pane."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest, load_manifest
from osf_tmux.judge.replay import replay
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture, sketch

RULES = Path(__file__).resolve().parents[2] / "rules" / "claude.toml"
WIDTHS = (60, 80, 120, 240)
IDLE_TITLE = "✳ Claude Code"


manifest = manifest_fixture("claude")


def screen(text: str, cols: int, rows: int = 24, title: str = IDLE_TITLE) -> Snapshot:
    return sketch(text, cols, rows, title)


TRANSCRIPT = """
❯ explain this project

● This project is a tiny Python demo. app.py defines main(), which
  prints a greeting.
"""
STATUS_ONE = "  [Opus 5] proj | $0.00 | main"
STATUS_TWO = "  proj (Opus 5)\n  $0.12 spent · branch main"
MODE = "  ⏸ manual mode on · ← for agents"


def box(draft: str = "", status: str = STATUS_ONE, mode: str = MODE) -> str:
    return f"{{RULE}}\n❯ {draft}\n{{RULE}}\n{status}\n{mode}"


def case(above_box: str, **box_args: str) -> str:
    return TRANSCRIPT + "\n" + above_box + "\n" + box(**box_args)


WORKING = {
    # the spinner row with its counters (2.1.221), and without them (first second of a turn)
    "spinner-counters": case("✽ Metamorphosing… (1s · ↓ 35 tokens)"),
    "spinner-bare": case("✢ Incubating…"),
    "spinner-thinking": case("✻ Cogitating… (12s · ↓ 1.2k tokens · thinking)"),
    "spinner-effort": case("* Pondering… (3m 1s · ↑ 40 tokens · thinking with high effort)"),
    # the todo list and tips hang under the spinner, indented
    "spinner-todos": case(
        "✶ Reticulating… (8s · ↓ 300 tokens)\n  ⎿  ☒ Read app.py\n     ☐ Add a greeting"
    ),
    "spinner-two-row-status": case("· Brewing…", status=STATUS_TWO),
    # a draft typed while the turn runs does not hide the spinner
    "spinner-with-draft": case("✻ Sprouting… (4s)", draft="and then add tests"),
}

IDLE = {
    "after-turn": case("✻ Brewed for 2s"),
    "fresh": TRANSCRIPT + "\n" + box(),
    "two-row-status": case("✻ Cooked for 3m 1s", status=STATUS_TWO),
    # a spinner row the finished-turn line has made stale
    "stale-spinner": case("✽ Metamorphosing… (2s · ↓ 52 tokens)\n✻ Brewed for 2s"),
    # an answer that quotes a spinner row: answer rows are indented under `●`
    "answer-quotes-spinner": TRANSCRIPT
    + "  The spinner reads\n  ✻ Cooking… (12s · ↓ 1.2k tokens)\n  while it works.\n\n"
    + box(),
    # a draft with spinner text: it follows the box's `❯`
    "draft-spinner-text": case("✻ Brewed for 2s", draft="✻ Cooking… (12s · ↓ 1.2k tokens)"),
    # the turn is over while a background shell runs (Claude resumes by itself when it exits)
    "background-shell": case(
        "✻ Sautéed for 4s · done 7:01 PM · 1 shell still running",
        mode="  ⏸ manual mode on · 1 shell · ↓ to manage",
    ),
    # the waiting line once the agents reported: history
    "agents-reported": case(
        "✻ Waiting for 2 background agents to finish\n\n"
        '● Agent "Survey app.py" finished · 12s\n\n● Both agents are done.\n\n'
        "✻ Churned for 19s · done 7:00 PM"
    ),
    # a status line script that prints a spinner-like row of its own (under the box)
    "status-says-working": case(
        "✻ Brewed for 2s", status="✻ Deploying… (build 12)", mode="  ⏸ manual mode on"
    ),
}


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("name", sorted(WORKING))
def test_spinner_row_reads_working(manifest: Manifest, name: str, cols: int) -> None:
    verdict = classify(screen(WORKING[name], cols), manifest)
    assert (verdict.state, verdict.rule) == ("working", "working-spinner-row")


# Reduced motion (`prefersReducedMotion`): the spinner row's glyph is a still `●`, the
# transcript's own marker (captures/claude-2.1.221-lab-statusline1-notitle-reducedmotion).
STILL_WORKING = {
    "still-counters": case("● Blanching… (8s · ↓ 234 tokens)"),
    "still-bare": case("● Propagating…"),
    "still-thinking": case("● Cogitating… (12s · ↓ 1.2k tokens · thinking)"),
    "still-todos": case("● Reticulating… (8s · ↓ 300 tokens)\n  ⎿  ☒ Read app.py"),
    "still-tmux-notice": case(
        "● Puzzling… (4s · ↓ 40 tokens)\n"
        "                   tmux focus-events off · add 'set -g focus-events on'"
    ),
}

STILL_IDLE = {
    # the transcript's `●` rows: an answer, a collapsed tool row, a one-word answer with more
    "answer-row": TRANSCRIPT + "\n" + box(),
    "tool-row": case("● Running 1 shell command…"),
    "answer-ellipsis": case("● Hmm… let me look at app.py first."),
    "mcp-row": case("● Calling lab…"),
    # a still spinner row made stale by the finished-turn line
    "stale-still": case("● Blanching… (17s · ↓ 474 tokens)\n✻ Churned for 17s"),
    # a draft with the row's words follows the box's `❯`
    "draft-still": case("✻ Brewed for 2s", draft="● Blanching… (8s)"),
}


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("name", sorted(STILL_WORKING))
def test_still_spinner_row_reads_working(manifest: Manifest, name: str, cols: int) -> None:
    verdict = classify(screen(STILL_WORKING[name], cols), manifest)
    assert (verdict.state, verdict.rule) == ("working", "working-spinner-row-still")


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("name", sorted(STILL_IDLE))
def test_transcript_dot_rows_are_not_a_still_spinner(
    manifest: Manifest, name: str, cols: int
) -> None:
    assert classify(screen(STILL_IDLE[name], cols), manifest).state == "idle"


@pytest.mark.parametrize("cols", WIDTHS)
@pytest.mark.parametrize("name", sorted(IDLE))
def test_no_live_spinner_reads_idle(manifest: Manifest, name: str, cols: int) -> None:
    assert classify(screen(IDLE[name], cols), manifest).state == "idle"


@pytest.mark.parametrize("cols", WIDTHS)
def test_waiting_for_background_agents_reads_working(manifest: Manifest, cols: int) -> None:
    """The line in the finished-turn line's place while subagents run in the background (the
    title spins as well; here it is at rest, as with CLAUDE_CODE_DISABLE_TERMINAL_TITLE)."""
    text = case(
        "✻ Waiting for 2 background agents to finish",
        mode="  ⏸ manual mode on · ? for shortcuts · ↓ to manage\n  ● main\n"
        "  ◯ general-purpose  Survey app.py      5s · ↑ 5",
    )
    verdict = classify(screen(text, cols), manifest)
    assert (verdict.state, verdict.rule) == ("working", "working-waiting-for-agents")


@pytest.mark.parametrize(
    "title", ["⠂ Claude Code", "⠐ Claude Code", "◐ Claude Code", "◑ Fix the build"]
)
@pytest.mark.parametrize("cols", WIDTHS)
def test_spinning_title_reads_working_while_text_streams(
    manifest: Manifest, title: str, cols: int
) -> None:
    """2.1.116 on: no spinner row while answer text streams; the title still spins."""
    streaming = TRANSCRIPT + "\n" + box()
    verdict = classify(screen(streaming, cols, title=title), manifest)
    assert (verdict.state, verdict.rule) == ("working", "working-title-spinner")


@pytest.mark.parametrize(
    "title", ["✳ Claude Code", "✳ Fix the build", "", "Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA"]
)
def test_resting_title_is_not_working(manifest: Manifest, title: str) -> None:
    """The resting title, no title yet, and the kitty graphics query tmux takes for a title."""
    assert classify(screen(TRANSCRIPT + "\n" + box(), 80, title=title), manifest).state == "idle"


def test_dialog_beats_spinning_title(manifest: Manifest) -> None:
    """A permission dialog while the title spins is blocked, not working."""
    dialog = (
        TRANSCRIPT
        + "{RULE}\n Bash command\n\n   rm -rf build\n\n Do you want to proceed?\n"
        + " ❯ 1. Yes\n   2. No\n\n Esc to cancel · Tab to amend"
    )
    assert classify(screen(dialog, 80, title="⠐ Claude Code"), manifest).state == "blocked"


@pytest.mark.parametrize("cols", WIDTHS)
def test_draft_in_transcript_prompt_is_not_a_spinner(manifest: Manifest, cols: int) -> None:
    """An old prompt that starts like a spinner row sits after `❯` in the transcript."""
    text = "❯ ✻ Cooking… (12s) is what I see\n\n● That is the spinner.\n\n" + box()
    assert classify(screen(text, cols), manifest).state == "idle"


FINISHED = re.compile(r"^[·✢*✶✻✽✳] \S+ for \d+[hms]", re.MULTILINE)


def _turn_over(snap: Snapshot) -> bool:
    return snap.title.startswith("✳") and FINISHED.search("\n".join(snap.rows)) is not None


# --- the recorded turns: working from the first spinner to the end of the answer -------------

CAPTURES = Path(__file__).resolve().parents[2] / "captures"
PLAIN_TURNS = ("text", "thinking", "long_output")


def _turns() -> list[Path]:
    return sorted(
        lab
        for folder in CAPTURES.glob("claude-*-lab-*statusline*")
        # with the title off, 2.1.116's streamed answer is working only through a hold, which
        # single screens do not show: tests/judge/test_holds.py
        # plays those turns through the tracker
        if "-notitle" not in folder.name
        for lab in folder.glob("*.labels.json")
        if lab.name.split("-")[0] in PLAIN_TURNS
    )


TURNS = _turns()


def test_status_line_turns_were_recorded() -> None:
    assert len(TURNS) >= 6, "the status line captures went missing"


@pytest.mark.slow
@pytest.mark.parametrize("lab", TURNS, ids=[f"{p.parent.name}/{p.name[:-12]}" for p in TURNS])
def test_whole_turn_reads_working(lab: Path) -> None:
    """Every pipe-pane read boundary from the first working label to the turn's end reads
    working: also while the answer streams with no spinner row
    and no footer hint (the labelled points alone would not show that stretch)."""
    labels = json.loads(lab.read_text())
    segs = labels["segments"]
    working = next(s for s in segs if s["state"] == "working" and s["offset"])
    done = next(s for s in segs if s["state"] == "idle" and s["offset"] > working["offset"])
    base = str(lab)[: -len(".labels.json")]
    bounds = [int(line.split()[0]) for line in Path(base + ".timing").read_text().splitlines()]
    inside = [b for b in bounds if working["offset"] <= b < done["offset"]]
    assert inside, "no read boundary inside the turn"
    data = Path(base + ".bytes").read_bytes()
    manifest = load_manifest(RULES)
    got = replay(data, labels["cols"], labels["rows"], manifest, inside)
    # The idle label also waited for the fake server to close its stream: the frames just
    # before it can already show the turn over, by both of Claude Code's own marks at once
    # (the title at rest and the finished-turn line, `✻ Brewed for 2s`). The lab's idle cue
    # cannot end the turn: in 2.1.116 it holds while the answer streams.
    turn = list(itertools.takewhile(lambda p: not _turn_over(p.snapshot), got))
    assert turn, "the turn shows as over at its first boundary"
    wrong = [
        f"@{p.offset} {p.verdict.state} ({p.verdict.rule})"
        for p in turn
        if p.verdict.state != "working"
    ]
    assert not wrong, f"{len(wrong)}/{len(turn)} boundaries not working: " + ", ".join(wrong[:8])
