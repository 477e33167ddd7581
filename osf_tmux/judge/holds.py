"""Holds: rules that keep a pane `working` while part of its screen keeps changing.

Some agents show nothing that says they are busy while they draw an answer: Claude Code 2.1.116
with a custom status line draws no spinner row while answer text streams, and with its window
title turned off (`CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1`) the answer growing above the input
box is all there is. A manifest rule with `while_changing = SECONDS` describes where that growth
happens (its region) and when it counts (its conditions); the pane tracker keeps a pane that
already reads `working` working while such a rule matches and its region's text changed within
SECONDS. A hold never starts `working` (a resize, a redraw or a banner at the prompt is no
turn), and once the text has stood still that long the usual return to idle follows. Pure: time
comes in with every call."""

from __future__ import annotations

from osf_tmux.judge.classify import rule_matches
from osf_tmux.judge.manifest import Rule
from osf_tmux.vt.snapshot import Snapshot


def can_hold(current: str | None, screen: str) -> bool:
    """Whether a hold can change what a pane reads: it keeps a `working` pane working while its
    screen reads idle or done, and does nothing in any other case (the tracker, combine.py, and
    the daemon, which matches holds only where one can apply)."""
    return current == "working" and screen in ("idle", "done")


class Holds:
    """When each hold's region last changed, and which hold (if any) applies at a moment."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules
        self._text: dict[str, str] = {}
        self._changed: dict[str, float] = {}
        self._last: Snapshot | None = None

    def observe(self, snap: Snapshot, now: float) -> None:
        """Take the screen as it is at `now`. The first screen seen is where the pane stood
        when it was first looked at, not a change."""
        last = self._last
        if (
            last is not None
            and snap.rows is last.rows
            and snap.title == last.title
            and snap.cursor == last.cursor
        ):
            self._last = snap
            return
        self._last = snap
        for rule in self.rules:
            text = rule.region.text(snap)
            old = self._text.get(rule.id)
            self._text[rule.id] = text
            if old is not None and old != text:
                self._changed[rule.id] = now

    def holding(self, now: float, matching: frozenset[str] | None = None) -> Rule | None:
        """The first hold whose region changed within its window and whose conditions match
        the last screen seen. `matching`: the ids of the holds whose conditions match it, as
        the caller found them (the daemon, under its CPU budget for rules); None: matched
        here."""
        snap = self._last
        if snap is None:
            return None
        for rule in self.rules:
            window = rule.while_changing or 0.0
            if now - self._changed.get(rule.id, float("-inf")) < window and (
                rule_matches(rule, snap) if matching is None else rule.id in matching
            ):
                return rule
        return None

    def ends(self, rule_id: str | None) -> float | None:
        """When the hold `rule_id` lapses if nothing more changes (monotonic)."""
        for rule in self.rules:
            if rule.id == rule_id and rule_id in self._changed:
                return self._changed[rule_id] + (rule.while_changing or 0.0)
        return None
