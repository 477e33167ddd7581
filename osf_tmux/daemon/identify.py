"""Which agent's rules apply to a pane: what the daemon and `send`/`answer` both ask.

In order: the person's `@osf-agent` override; the processes in the pane's foreground (their
names and arguments); tmux's `#{pane_current_command}`; and last, the agent named by a fresh
hook report, which the agent's own hook wrote from inside the pane (so a wrapper, a renamed
binary or `node cli.js` is still recognised while it keeps reporting)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from osf_tmux.judge.combine import Report
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet, UnknownAgentError
from osf_tmux.tmux import PaneInfo

log = logging.getLogger("osf_tmux.daemon.identify")


def manifest_for(
    rules: RuleSet,
    info: PaneInfo,
    commands: Callable[[int], list[list[str]]],
    wall: float,
    report_ttl: float,
) -> Manifest | None:
    if info.agent_override:
        try:
            return rules.get(info.agent_override)
        except UnknownAgentError:
            log.warning("%s: @osf-agent %r is not a known agent", info.pane_id, info.agent_override)
    if info.dead:
        return None
    foreground = commands(info.pid)
    for argv in foreground:
        found = rules.for_process(argv)
        if found is not None:
            return found
    # tmux's command name is a bare name: for a process a manifest disowns (Cline's hub
    # daemon runs the agent's own binary) it would bring that agent back.
    if info.current_command and not any(rules.disowned(argv) for argv in foreground):
        found = rules.for_process([info.current_command])
        if found is not None:
            return found
    report = Report.parse(info.report)
    if report is not None and report.agent and 0 <= wall - report.at <= report_ttl:
        return rules.manifests.get(report.agent)
    return None
