"""Typing into an agent's pane, never into a prompt that waits for the person.

Right before any keys go in, the pane is judged afresh: a `capture-pane` of what it shows now,
seeded into a screen and classified with the pane's rules, combined with the agent's latest
hook report exactly as the daemon would (a `PermissionRequest` hook can arrive a moment before
its dialog is drawn). The published `@osf_state` is not trusted: it may be a sweep old.

- `send`: a message for the agent's input box, refused while the pane is blocked.
- `answer`: keys that answer the prompt (from the manifest's `[answer]` table), only while the
  screen shows one: keys meant for a dialog would otherwise land in the input box."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.loop import screen_from_capture
from osf_tmux.daemon.process import foreground_commands
from osf_tmux.daemon.source import capture_panes
from osf_tmux.judge.classify import Verdict, classify
from osf_tmux.judge.combine import Observation, PaneTracker, Report, Timing
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.tmux import (
    NoServerError,
    PaneInfo,
    Tmux,
    TmuxError,
    list_panes_format,
    parse_panes,
)


class InputRefused(Exception):
    """Nothing was typed; the message says why and what to do instead."""


@dataclass(frozen=True)
class PaneLook:
    """A pane as judged just now."""

    info: PaneInfo
    manifest: Manifest | None
    screen: Verdict | None  # what the screen alone says
    state: str | None  # screen and hook report combined, as the daemon would publish it


def look(
    tmux: Tmux,
    rules: RuleSet,
    target: str,
    *,
    identify: Callable[[int], list[list[str]]] = foreground_commands,
    timing: Timing | None = None,
    clock: Clock | None = None,
) -> PaneLook:
    timing = timing or Timing()
    clock = clock or SystemClock()
    wall = clock.wall()
    try:
        infos = parse_panes(tmux.run("display-message", "-p", "-t", target, list_panes_format()))
    except NoServerError:
        raise  # not a missing pane: the caller says which server is not running
    except TmuxError as exc:
        raise InputRefused(f"no pane {target!r} ({exc})") from None
    if not infos or not infos[0].pane_id:  # tmux 3.3a prints empty fields for a missing pane
        raise InputRefused(f"no pane {target!r}")
    info = infos[0]
    manifest = manifest_for(rules, info, identify, wall, timing.report_ttl)
    verdict = None
    if manifest is not None:
        cap = capture_panes(tmux, [info.pane_id], escapes=True).get(info.pane_id)
        if cap is not None:
            verdict = classify(screen_from_capture(cap).snapshot(), manifest)
    obs = Observation(manifest is not None, verdict, True, Report.parse(info.report))
    state = PaneTracker(timing).update(obs, clock.now(), wall).state
    return PaneLook(info, manifest, verdict, state)


def _where(pane: PaneLook) -> str:
    return f"{pane.info.pane_id} ({pane.info.address})"


def _require_agent(pane: PaneLook) -> Manifest:
    if pane.manifest is None:
        raise InputRefused(
            f"pane {_where(pane)} runs no agent osf-tmux knows ({pane.info.current_command}); "
            "if it is one, name it with: tmux set -p -t PANE @osf-agent AGENT"
        )
    return pane.manifest


def send(tmux: Tmux, rules: RuleSet, target: str, text: str) -> PaneLook:
    """Type `text` into the agent's input and submit it, unless the pane waits for an answer."""
    if not text.strip():
        raise InputRefused("nothing to send: the message is empty")
    pane = look(tmux, rules, target)
    manifest = _require_agent(pane)
    if pane.state == "blocked":
        why = pane.screen.rule if pane.screen and pane.screen.state == "blocked" else "its hook"
        raise InputRefused(
            f"{manifest.name} in pane {_where(pane)} is waiting for an answer ({why}); "
            f"nothing was typed. Answer it first: osf-tmux answer {pane.info.pane_id} yes|no|N"
        )
    buffer = f"osf-send-{os.getpid()}"
    pane_id = pane.info.pane_id
    # A paste, bracketed when the agent asked for that (all of these do), so a multi-line
    # message stays one message; -d drops our buffer afterwards.
    tmux.run_many(
        [
            ["set-buffer", "-b", buffer, "--", text],
            ["paste-buffer", "-p", "-d", "-b", buffer, "-t", pane_id],
        ]
    )
    # Enter as its own keystroke, in a later tmux call: in the same write as the paste, some
    # agents take it for part of the pasted text instead of "submit".
    tmux.run("send-keys", "-t", pane_id, "Enter")
    return pane


def answer(tmux: Tmux, rules: RuleSet, target: str, choice: str) -> tuple[str, ...]:
    """Answer the prompt on screen with `choice` (yes, no, or an option number); returns the
    keys sent."""
    pane = look(tmux, rules, target)
    manifest = _require_agent(pane)
    if manifest.answer is None:
        raise InputRefused(f"the rules for {manifest.name} say no keys to answer its prompts")
    keys = manifest.answer.keys(choice.strip().lower())
    if keys is None:
        choices = "yes, no or an option number 1-9" if manifest.answer.option else "yes or no"
        raise InputRefused(f"{choice!r} is no answer {manifest.name} takes: give {choices}")
    if pane.screen is None or pane.screen.state != "blocked":
        shown = pane.state or "no agent state"
        raise InputRefused(
            f"{manifest.name} in pane {_where(pane)} is not waiting for an answer (it is "
            f"{shown}); nothing was typed. To give it a message: osf-tmux send PANE TEXT"
        )
    tmux.run("send-keys", "-t", pane.info.pane_id, *keys)
    return keys
