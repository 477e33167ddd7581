"""Issue #30's first point, on Codex 0.171.0's own screens (the lab's captures, every size it
was recorded at): what makes two prompts the same for notifications. Every Codex approval asks
the same question (`Would you like to run the following command?`, or in the soak `Reason: Do
you want to run this command?`) over `Environment: local`; only the command or file under it
tells one prompt from another."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.judge.question import ask_excerpt, prompt_identity
from osf_tmux.plugin.notify import NotifyConfig
from osf_tmux.vt.snapshot import Snapshot
from tests.plugin.test_notify import Recorder, move, notifier

LAB = Path(__file__).resolve().parents[2] / "captures/codex-0.171.0-lab"
SIZES = ("60x20", "80x24", "120x32", "200x50", "240x60")


def dialog(scenario: str, size: str, label: str = "02-blocked") -> Snapshot:
    path = LAB / f"{scenario}-{size}.snapshots" / f"{label}.txt"
    return Snapshot.from_text(path.read_text(encoding="utf-8"))


# (scenario, label): each a prompt of its own; bash_yes, bash_no and bash_esc ask the very same
# command (`rm -rf build && sleep 2 && echo done`), bash_interrupt another one.
PROMPTS = [
    ("bash_yes", "02-blocked"),
    ("bash_interrupt", "02-blocked"),
    ("edit_write", "02-blocked"),
    ("edit_write", "04-blocked"),
]


@pytest.mark.parametrize(("scenario", "label"), PROMPTS[:3])
def test_a_codex_prompt_is_the_same_prompt_at_every_size(scenario: str, label: str) -> None:
    """At 60x20 the transcript over the dialog has scrolled away, at 80x24 and more it shows:
    the dialog is the same, so a prompt redrawn after a resize does not notify again. (Until
    issue #30, the identity took 160 characters over the question, transcript included.)"""
    sizes = [s for s in SIZES if (LAB / f"{scenario}-{s}.snapshots" / f"{label}.txt").exists()]
    assert len(sizes) >= 4
    identities = {prompt_identity(dialog(scenario, size, label)) for size in sizes}
    assert len(identities) == 1 and "" not in identities


def test_codex_prompts_with_one_question_differ_by_what_they_ask_about() -> None:
    """The question and the row above it are the same in every one; the command (or the
    file, or the tool) under it is not."""
    shown = {ask_excerpt(dialog(s, "120x32", label))[0] for s, label in PROMPTS[:2]}
    assert shown == {"Would you like to run the following command?"}
    at = {(s, label): prompt_identity(dialog(s, "120x32", label)) for s, label in PROMPTS}
    assert len(set(at.values())) == len(PROMPTS)
    assert prompt_identity(dialog("bash_no", "80x24")) == at[("bash_yes", "02-blocked")]


def test_codex_prompts_one_after_another_each_notify_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The soak's loop, nobody looking, answers typed with `send-keys`: a prompt, its answer
    (Codex runs the command: its status row), 4 s later the same question about another
    command, then the very same command asked again after its answer. Each notifies; the one
    redrawn by a resize while it waits does not, and the log says why."""
    clock = FakeClock()
    rec = Recorder("desktop")
    n = notifier(NotifyConfig(), rec, clock=clock)
    first, second = dialog("bash_yes", "120x32"), dialog("bash_interrupt", "120x32")
    n.on_transition(move("working", "blocked", snap=first))
    n.on_transition(move("blocked", "working", rule="status-row"))
    clock.advance(4)
    n.on_transition(move("working", "blocked", snap=second, was_rule="status-row"))
    n.on_transition(move("blocked", "working", rule="status-row"))
    clock.advance(4)
    n.on_transition(move("working", "blocked", snap=first, was_rule="status-row"))
    assert len(rec.sent) == 3
    assert "rm -rf build && sleep 8 && echo built" in rec.sent[1].body
    n.on_transition(move("blocked", "working", rule=None))  # a resize: a frame no rule knows
    clock.advance(0.5)
    with caplog.at_level(logging.INFO, logger="osf_tmux"):
        n.on_transition(move("working", "blocked", snap=dialog("bash_yes", "80x24")))
    assert len(rec.sent) == 3
    assert "not notified, the same prompt back after 0.5s" in caplog.text
