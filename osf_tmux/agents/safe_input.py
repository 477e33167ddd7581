"""Typing into an agent's pane, never into a prompt that waits for the person.

Right before any keys go in, the pane is judged afresh: a `capture-pane` of what it shows now,
seeded into a screen and classified with the pane's rules, combined with the agent's latest
hook report exactly as the daemon would (a `PermissionRequest` hook can arrive a moment before
its dialog is drawn). The published `@osf_state` is not trusted: it may be a sweep old.

- `send`: a message for the agent's input box, refused while the pane is blocked.
- `answer`: keys that answer the prompt (from the manifest's `[answer]` table), only while the
  screen shows one: keys meant for a dialog would otherwise land in the input box.

The pane is named exactly: a pane id (`%N`) or a `session:window.pane` that `list-panes` shows.
tmux itself resolves a target loosely (`sess:2.7` that does not exist means some other pane of
`sess`), which once approved another pane's prompt. Keys go to the judged pane's id only, and
right before they go the pane is looked at once more: the same process, and the same prompt
(the lines its rule matched) or still no prompt."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from osf_tmux.clock import Clock, SystemClock
from osf_tmux.daemon.identify import manifest_for
from osf_tmux.daemon.process import foreground_commands
from osf_tmux.daemon.seeding import screen_from_capture
from osf_tmux.daemon.source import capture_panes
from osf_tmux.judge.classify import Verdict, classify, matched_lines
from osf_tmux.judge.combine import Observation, PaneTracker, Report, Timing
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.tmux import NoServerError, PaneInfo, Tmux, TmuxError, list_panes


class InputRefused(Exception):
    """Nothing was typed; the message says why and what to do instead."""


@dataclass(frozen=True)
class PaneLook:
    """A pane as judged just now."""

    info: PaneInfo
    manifest: Manifest | None
    screen: Verdict | None  # what the screen alone says
    state: str | None  # screen and hook report combined, as the daemon would publish it
    prompt: tuple[str, ...] = ()  # the lines the screen's rule matched (its prompt, if blocked)


_PANE_ID = re.compile(r"^%[0-9]+$")
_ADDRESS = re.compile(r"^[^:]+:[0-9]+\.[0-9]+$")


def resolve(tmux: Tmux, target: str) -> PaneInfo:
    """The pane `target` names exactly: a pane id (`%N`) or a `session:window.pane` that
    `list-panes -a` shows. Anything else (a window, a session, a name tmux would stretch to
    fit some other pane) is refused."""
    if not (_PANE_ID.match(target) or _ADDRESS.match(target)):
        raise InputRefused(
            f"{target!r} does not name one pane: give its id (%N) or session:window.pane, "
            "as `tmux list-panes -a -F '#{pane_id} #{session_name}:#{window_index}.#{pane_index}'`"
            " shows them"
        )
    try:
        panes = list_panes(tmux)
    except NoServerError:
        raise  # not a missing pane: the caller says which server is not running
    except TmuxError as exc:
        raise InputRefused(f"cannot list the panes ({exc})") from None
    field = "pane_id" if target.startswith("%") else "address"
    found = [p for p in panes if getattr(p, field) == target]
    if len(found) != 1:
        raise InputRefused(f"no pane {target!r}: nothing was typed")
    return found[0]


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
    info = resolve(tmux, target)
    manifest = manifest_for(rules, info, identify, wall, timing.report_ttl)
    verdict = None
    prompt: tuple[str, ...] = ()
    if manifest is not None:
        try:
            cap = capture_panes(tmux, [info.pane_id], escapes=True).get(info.pane_id)
        except TmuxError as exc:
            raise InputRefused(f"pane {info.pane_id} cannot be read ({exc})") from None
        if cap is not None:
            snap = screen_from_capture(cap).snapshot()
            verdict = classify(snap, manifest)
            prompt = matched_lines(snap, manifest, verdict.rule)
    obs = Observation(manifest is not None, verdict, True, Report.parse(info.report))
    state = PaneTracker(timing).update(obs, clock.now(), wall).state
    return PaneLook(info, manifest, verdict, state, prompt)


def _look_again(tmux: Tmux, rules: RuleSet, before: PaneLook) -> PaneLook:
    """The judged pane once more, right before keys go: by its id only, and it must still run
    the same process and the same agent."""
    try:
        now = look(tmux, rules, before.info.pane_id)
    except InputRefused as exc:
        raise InputRefused(
            f"pane {_where(before)} is gone or unreadable a moment after osf-tmux judged it "
            f"({exc}); nothing was typed"
        ) from None
    agent = now.manifest.agent if now.manifest else None
    if now.info.pid != before.info.pid or agent != (before.manifest and before.manifest.agent):
        raise InputRefused(
            f"pane {_where(before)} runs another program than a moment ago; nothing was typed"
        )
    return now


def _where(pane: PaneLook) -> str:
    return f"{pane.info.pane_id} ({pane.info.address})"


def _require_agent(pane: PaneLook) -> Manifest:
    if pane.manifest is None:
        raise InputRefused(
            f"pane {_where(pane)} runs no agent osf-tmux knows ({pane.info.current_command}); "
            "if it is one, name it with: tmux set -p -t PANE @osf-agent AGENT"
        )
    return pane.manifest


# Control characters act as keys, not text: ESC starts sequences (ESC [ 201 ~ would end the
# bracketed paste, and whatever follows it would arrive as keystrokes: Shift+Tab, Ctrl-C,
# Enter), Ctrl-C interrupts, CR submits. Newline and tab are text in a paste.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ALLOWED_CONTROLS = "newlines and tabs"


def check_text(text: str) -> None:
    """Refuse a message that holds a control character other than newline and tab: typed
    through a paste, it would act as a key (or end the paste early)."""
    if not text.strip():
        raise InputRefused("nothing to send: the message is empty")
    bad = _CONTROL.search(text)
    if bad is not None:
        raise InputRefused(
            f"the message holds a control character ({_name(bad.group())} at position "
            f"{bad.start()}): only {ALLOWED_CONTROLS} may be in it, anything else would act as "
            "a key. Nothing was typed."
        )


def _name(char: str) -> str:
    names = {"\x1b": "Escape", "\r": "carriage return", "\x7f": "Delete", "\x03": "Ctrl-C"}
    code = ord(char)
    return names.get(char, f"Ctrl-{chr(code + 64)}" if code < 32 else f"U+{code:04X}")


def _refuse_blocked(pane: PaneLook, manifest: Manifest) -> None:
    if pane.state == "blocked":
        why = pane.screen.rule if pane.screen and pane.screen.state == "blocked" else "its hook"
        raise InputRefused(
            f"{manifest.name} in pane {_where(pane)} is waiting for an answer ({why}); "
            f"nothing was typed. Answer it first: osf-tmux answer {pane.info.pane_id} yes|no|N"
        )


def send(tmux: Tmux, rules: RuleSet, target: str, text: str) -> PaneLook:
    """Type `text` into the agent's input and submit it, unless the pane waits for an answer."""
    check_text(text)
    pane = look(tmux, rules, target)
    manifest = _require_agent(pane)
    _refuse_blocked(pane, manifest)
    _refuse_blocked(_look_again(tmux, rules, pane), manifest)
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
    # The keys of the prompt on screen: the rule that recognised it may have its own.
    table = manifest.answer_for(pane.screen.rule if pane.screen else None)
    if table is None:
        raise InputRefused(f"the rules for {manifest.name} say no keys to answer its prompts")
    keys = table.keys(choice.strip().lower())
    if keys is None:
        choices = "yes, no or an option number 1-9" if table.option else "yes or no"
        raise InputRefused(f"{choice!r} is no answer {manifest.name} takes: give {choices}")
    if pane.screen is None or pane.screen.state != "blocked":
        shown = pane.state or "no agent state"
        raise InputRefused(
            f"{manifest.name} in pane {_where(pane)} is not waiting for an answer (it is "
            f"{shown}); nothing was typed. To give it a message: osf-tmux send PANE TEXT"
        )
    again = _look_again(tmux, rules, pane)
    if again.screen != pane.screen or again.prompt != pane.prompt:
        raise InputRefused(
            f"the prompt in pane {_where(pane)} changed while osf-tmux looked at it; nothing "
            "was typed. Look at it and answer again"
        )
    tmux.run("send-keys", "-t", pane.info.pane_id, *keys)
    return keys
