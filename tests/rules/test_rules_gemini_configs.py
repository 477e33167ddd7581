"""rules/gemini.toml on what users change: YOLO mode (`--yolo`, Ctrl+Y), auto-edit mode
(`--approval-mode auto_edit`, Shift+Tab), /rewind (the conversation's checkpoints) and its Confirm
Rewind dialog, and 60- and 240-column panes (loop detection: tests/rules/test_rules_gemini_loop.py).

Two kinds of cases: tmux's own snapshots of the 0.61.0 lab captures at each labelled point
(captures/gemini-cli-0.61.0-lab-configs and the 60x20 / 240x60 ones in -lab, state from the file
name), and screens built from them or from the bundle's component (RewindConfirmation) for what
no snapshot shows."""

from __future__ import annotations

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import manifest_fixture, snapshot_files, snapshots_test

SNAPSHOT_GLOBS = (
    "gemini-cli-0.61.0-lab-configs/*.snapshots/*.txt",
    "gemini-cli-0.61.0-lab/*-60x20.snapshots/*.txt",
    "gemini-cli-0.61.0-lab/*-240x60.snapshots/*.txt",
)


manifest = manifest_fixture("gemini")


SNAPSHOTS = snapshot_files(SNAPSHOT_GLOBS)


test_lab_snapshot = snapshots_test(SNAPSHOTS, parents=2)


def test_snapshots_present() -> None:
    assert len(SNAPSHOTS) >= 60


BAR = "▄" * 80
BAR_END = "▀" * 80
EDGE = "─" * 78


def box(*rows: str, width: int = 80, closed: bool = True) -> list[str]:
    inner = width - 4
    out = ["╭" + "─" * (width - 2) + "╮"]
    out += ["│ " + r.ljust(inner) + " │" for r in rows]
    if closed:
        out.append("╰" + "─" * (width - 2) + "╯")
    return out


TRANSCRIPT = [
    "✦ Updated app.py and created NOTES.md.",
    BAR,
    " > /rewind",
    BAR_END,
    "",
]
INPUT = [
    "                                                                ? for shortcuts",
    "─" * 80,
    " auto-accept edits Shift+Tab to plan",
    BAR,
    " >   Type your message or @path/to/file",
    BAR_END,
    " workspace (/directory)                  branch        sandbox           /model",
    " /tmp/agentlab/gemini/rewind/proj        main          no sandbox          Auto",
]

CASES: list[tuple[str, list[str], str, str]] = [
    # Confirm Rewind drawn down to its title only (a read inside Ink's frame; rewind-200x50).
    (
        "confirm-rewind-half-drawn",
        [
            *TRANSCRIPT,
            *box("", "Confirm Rewind", "", "No code changes to revert. (just now)", closed=False),
        ],
        "blocked",
        "◇  Ready (proj)",
    ),
    # The whole dialog with file changes (RewindConfirmation with stats).
    (
        "confirm-rewind-with-changes",
        [
            *TRANSCRIPT,
            *box(
                "",
                "Confirm Rewind",
                "",
                "┌──────────────────────────────────────┐",
                "│ File: app.py                         │",
                "│ Lines added: 1 Lines removed: 1      │",
                "└──────────────────────────────────────┘",
                "Select an action:",
                "",
                "● 1. Rewind conversation and revert code changes",
                "  2. Rewind conversation",
                "  3. Revert code changes",
                "  4. Do nothing (esc)",
                "",
            ),
        ],
        "blocked",
        "◇  Ready (proj)",
    ),
    # The message list drawn down to its hint, the list's radio row scrolled away.
    (
        "rewind-list-hint",
        [
            *TRANSCRIPT,
            *box(
                "",
                "> Rewind",
                "",
                "  add a greeting to app.py and write NOTES.md",
                "  1 file changed +1 -1",
                "",
                "(Use Enter to select a message, Esc to close, Right/Left to expand/collapse)",
                "",
            ),
        ],
        "blocked",
        "◇  Ready (proj)",
    ),
    # The dialog closed: the transcript keeps the /rewind echo and an input box is back.
    ("rewind-closed-idle", [*TRANSCRIPT, *INPUT], "idle", "◇  Ready (proj)"),
    # The words of the dialog in a draft: inside the input box.
    (
        "confirm-rewind-in-draft",
        [
            *TRANSCRIPT,
            *INPUT[:3],
            BAR,
            " > │ Confirm Rewind and then (Use Enter to select a message",
            BAR_END,
            *INPUT[6:],
        ],
        "idle",
        "◇  Ready (proj)",
    ),
    # YOLO mode idle: `*` prompt, `YOLO Ctrl+Y` above the input box (yolo_bash 02-idle).
    (
        "yolo-idle",
        [
            "✦ Done: the build directory is gone.",
            "",
            "─" * 80,
            " YOLO Ctrl+Y",
            BAR,
            " *   Type your message or @path/to/file",
            BAR_END,
            " workspace (/directory)                    branch       sandbox          /model",
            " /tmp/agentlab/gemini/yolo_bash/proj       main         no sandbox         Auto",
        ],
        "idle",
        "◇  Ready (proj)",
    ),
    # YOLO mode, a draft that quotes a confirmation: the `*` prompt row starts the input box.
    (
        "yolo-draft-quoting-confirmation",
        [
            "─" * 80,
            " YOLO Ctrl+Y",
            BAR,
            " * Allow execution of [Shell]? ● 1. Allow once (esc to cancel, 3s)",
            BAR_END,
            " workspace (/directory)                    branch       sandbox          /model",
        ],
        "idle",
        "◇  Ready (proj)",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_screen(case: tuple[str, list[str], str, str], manifest: Manifest) -> None:
    name, rows, want, title = case
    snap = Snapshot.from_text("\n".join([*rows, *[""] * max(0, 24 - len(rows))]), 80, title=title)
    verdict = classify(snap, manifest)
    assert verdict.state == want, f"{name}: got {verdict.state} by rule {verdict.rule}"
