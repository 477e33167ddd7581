"""The pieces every agent adapter provides: where it is installed, how to start it offline
against the fake server in a throwaway HOME, and its scenarios."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tools.agentlab import stories as st
from tools.agentlab.actions import Action, Expect, Keys, PickOption, flatten
from tools.agentlab.dialect import Dialect
from tools.agentlab.script import Script


def lab_home() -> Path:
    """Where install.sh puts the agents: outside the repository, never committed."""
    return Path(os.environ.get("OSF_AGENTLAB_HOME", Path.home() / ".cache" / "osf-agentlab"))


@dataclass(frozen=True)
class RunDirs:
    root: Path  # throwaway directory of one run
    home: Path  # the agent's HOME: config seeded per scenario, nothing from the real user
    proj: Path  # the agent's working directory


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    script: Script
    actions: list[Action]
    files: dict[str, str] = field(default_factory=dict)  # created in proj before launch
    options: dict[str, object] = field(default_factory=dict)  # agent-specific switches


BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "tmux-256color",
    "COLORTERM": "truecolor",
}


class AgentSpec:
    """One agent CLI. Subclasses fill in the details."""

    name = "agent"
    folder = "agent"  # captures/<folder>-<version>-lab
    # What the fake server must know beyond the protocol: forced tool shapes, and whether a
    # chat request without tools is a side request (the default) or a turn (aider).
    dialect = Dialect()

    def binary(self) -> Path:
        raise NotImplementedError

    def version(self) -> str:
        raise NotImplementedError

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        """Seed HOME and proj; return the argv and the full environment of the agent."""
        raise NotImplementedError

    def scenarios(self) -> dict[str, Scenario]:
        raise NotImplementedError

    def installed(self) -> bool:
        return self.binary().exists()

    # Shared helpers ----------------------------------------------------------------------
    @staticmethod
    def write_files(dirs: RunDirs, files: dict[str, str]) -> None:
        for rel, content in files.items():
            path = dirs.proj / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)

    @staticmethod
    def git_init(dirs: RunDirs) -> None:
        """Agents behave differently outside a git repository (aider insists on one)."""
        env = {
            **BASE_ENV,
            "HOME": str(dirs.home),
            "GIT_AUTHOR_NAME": "lab",
            "GIT_AUTHOR_EMAIL": "lab@example.invalid",
            "GIT_COMMITTER_NAME": "lab",
            "GIT_COMMITTER_EMAIL": "lab@example.invalid",
        }
        for cmd in (
            ["git", "init", "-q", "-b", "main"],
            ["git", "add", "-A"],
            ["git", "commit", "-q", "-m", "initial", "--allow-empty"],
        ):
            subprocess.run(cmd, cwd=dirs.proj, env=env, check=True, capture_output=True)


Steps = Action | list[Action]


def scenario_maker(script: Script) -> Callable[..., Scenario]:
    """`sc(name, description, *steps, **options)`: a scenario of this agent's script, played in
    the shared project."""

    def sc(name: str, desc: str, *steps: Steps, **options: object) -> Scenario:
        return Scenario(name, desc, script, flatten(steps), st.PROJECT_FILES, dict(options))

    return sc


def answer_turns(
    sc: Callable[..., Scenario],
    start: Callable[[], Steps],
    ask: Callable[[str], Steps],
    done: Callable[..., Steps],
    thinking: str,
    long_output: str,
) -> list[Scenario]:
    """The scenarios that are one plain turn for every agent (ask, the agent answers, idle):
    only how each agent starts, is asked and finishes differs, and the words for its UI."""
    return [
        sc("long_output", long_output, start(), ask(st.P_LONG), done()),
        sc("thinking", thinking, start(), ask(st.P_THINK), done()),
        sc(
            "ask_back",
            "an answer that ends with 'Would you like me to ...?' (idle, not blocked)",
            start(),
            ask(st.P_ASKBACK),
            done("turn finished; answer ends with a question"),
        ),
    ]


def approval_turns(
    sc: Callable[..., Scenario],
    start: Callable[[], Steps],
    ask: Callable[[str], Steps],
    done: Callable[..., Steps],
    *,
    what: str,
    approved: str,
    dialog: Expect,
    first_option: str,
    working: Expect,
    back: str,
) -> list[Scenario]:
    """A command's approval dialog approved with Enter (its first option), rejected with Esc,
    and rejected by choosing No: the same three scenarios for every agent whose dialog takes
    those keys; `what` the dialog is called, `back` where the agent returns."""
    return [
        sc(
            "bash_yes",
            approved,
            start(),
            ask(st.P_BASH),
            dialog,
            Keys(("Enter",), first_option),
            working,
            done(),
        ),
        sc(
            "bash_esc",
            f"{what} rejected with Esc",
            start(),
            ask(st.P_BASH),
            dialog,
            Keys(("Escape",), "reject with Esc"),
            done(f"rejected with Esc; back at the {back}"),
        ),
        sc(
            "bash_no",
            f"{what} rejected by choosing No",
            start(),
            ask(st.P_BASH),
            dialog,
            PickOption(r"No\b", "choose the No option"),
            done(f"rejected with No; back at the {back}"),
        ),
    ]
