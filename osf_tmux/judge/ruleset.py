"""All the manifests in force: the shipped ones, overridden per agent by the user's own.

A broken user file never takes an agent's rules away: it is reported and the shipped manifest
for that agent stays in force."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from osf_tmux.judge.manifest import (
    Manifest,
    ManifestError,
    Problem,
    load_manifest,
    manifest_files,
    shipped_rules_dir,
)


class UnknownAgentError(LookupError):
    def __init__(self, agent: str, known: Iterable[str]) -> None:
        self.agent = agent
        super().__init__(f"unknown agent {agent!r} (known: {', '.join(sorted(known))})")


@dataclass(frozen=True)
class RuleSet:
    manifests: dict[str, Manifest]
    problems: tuple[Problem, ...] = ()
    overridden: frozenset[str] = field(default_factory=frozenset)

    def get(self, agent: str) -> Manifest:
        """The manifest `agent` names: its id, or its display name or an alias in any case
        (`Claude`, `claude-code`); UnknownAgentError lists the ids known."""
        found = self.manifests.get(agent)
        if found is None:
            found = next((m for m in self.manifests.values() if m.called(agent)), None)
        if found is None:
            raise UnknownAgentError(agent, self.manifests)
        return found

    def replacing(self, old: Manifest, new: Manifest) -> RuleSet:
        """These rules with `new` in place of `old`."""
        manifests = {a: new if m is old else m for a, m in self.manifests.items()}
        return RuleSet(manifests, self.problems, self.overridden)

    def for_process(self, argv: Iterable[str]) -> Manifest | None:
        """The manifest whose process names or argument patterns fit this command line."""
        args = [a for a in argv if a]
        if not args:
            return None
        # A process that renamed itself to a name with a space (Kimi CLI's `Kimi Code`) is one
        # argument in /proc, but `ps` (macOS) gives one string that has been split at spaces.
        names = {os.path.basename(args[0]), " ".join(args)}
        for manifest in self.manifests.values():
            if names & set(manifest.processes) and not _excluded(manifest, args):
                return manifest
        for manifest in self.manifests.values():
            matched = any(p.search(a) for p in manifest.process_args for a in args)
            if matched and not _excluded(manifest, args):
                return manifest
        return None

    def disowned(self, argv: Iterable[str]) -> bool:
        """Whether an agent's manifest disowns this command line (`process_not`: a daemon the
        agent runs from its own binary). Its bare name must then not bring the agent back."""
        args = [a for a in argv if a]
        return any(_excluded(m, args) for m in self.manifests.values())


def _excluded(manifest: Manifest, args: list[str]) -> bool:
    return any(p.search(a) for p in manifest.process_not for a in args)


def load_rules(user_dir: Path | None = None, shipped_dir: Path | None = None) -> RuleSet:
    manifests: dict[str, Manifest] = {}
    problems: list[Problem] = []
    shipped = shipped_dir or shipped_rules_dir()
    for path in manifest_files(shipped):
        try:
            m = load_manifest(path, shipped)
        except ManifestError as exc:
            problems.extend(exc.problems)
            continue
        manifests[m.agent] = m
    overridden: set[str] = set()
    if user_dir is not None and user_dir.is_dir():
        for path in manifest_files(user_dir):
            try:
                m = load_manifest(path, shipped)
            except ManifestError as exc:
                problems.extend(exc.problems)
                continue
            manifests[m.agent] = m
            overridden.add(m.agent)
    return RuleSet(manifests, tuple(problems), frozenset(overridden))
