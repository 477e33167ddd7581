"""Which agent's rules apply to a pane: what the daemon and `send`/`answer` both ask.

In order: the person's `@osf-agent` override; the processes in the pane's foreground (their
names and arguments); tmux's `#{pane_current_command}`; the agent named by a fresh hook report,
which the agent's own hook wrote from inside the pane (so a wrapper, a renamed binary or `node
cli.js` is still recognised while it keeps reporting); and last, the person's
`@osf-generic-processes`: programs that get the `generic` rules (rules/generic.toml), which no
process name brings in by itself."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable

from osf_tmux.judge.combine import Report
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.ruleset import RuleSet, UnknownAgentError
from osf_tmux.tmux import SHELLS, PaneInfo, listed_names

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
    if info.generic_processes.strip():
        return _generic(rules, info, foreground)
    return None


GENERIC = "generic"
# A listed name is the program, or the script one of these runs (`node …/bin/goose`, `python3
# goose.py`); never a later argument (`vim goose` is vim).
_INTERPRETER = re.compile(r"^(?:node|nodejs|bun|deno|python[0-9.]*|ruby|perl|php|java)$")


def generic_names(option: str) -> frozenset[str]:
    """The program names `@osf-generic-processes` lists (space- or comma-separated), shells
    left out: a shell at its prompt is never an agent (plugin/options.py warns of them)."""
    return listed_names(option) - SHELLS


def _generic(rules: RuleSet, info: PaneInfo, foreground: list[list[str]]) -> Manifest | None:
    names = generic_names(info.generic_processes)
    argvs = [*foreground, [info.current_command]]
    for argv in argvs:
        program = [argv[0]] if argv else []
        if len(argv) > 1 and _INTERPRETER.match(os.path.basename(argv[0])):
            program.append(next((a for a in argv[1:] if not a.startswith("-")), ""))
        for arg in program:
            if arg and os.path.basename(arg) in names:
                found = rules.manifests.get(GENERIC)
                if found is None:
                    log.warning("%s: @osf-generic-processes: no generic rules", info.pane_id)
                return found
    return None
