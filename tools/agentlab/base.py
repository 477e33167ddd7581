"""The pieces every agent adapter provides: where it is installed, how to start it offline
against the fake server in a throwaway HOME, its screen's cues, and which scenario shapes it
plays. See README.md, "Adding an agent"."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from tools.agentlab import stories as st
from tools.agentlab.dialect import Dialect
from tools.agentlab.dress import COMMON_DRESSES, PANE, Dress, combine
from tools.agentlab.script import Script, Turn
from tools.agentlab.shapes import Scenario, Shapes, Standard, Ui

__all__ = [
    "BASE_ENV",
    "AgentSpec",
    "Executable",
    "Files",
    "Options",
    "RunDirs",
    "Scenario",
    "lab_home",
    "write_files",
]


def lab_home() -> Path:
    """Where install.sh puts the agents: outside the repository, never committed."""
    return Path(os.environ.get("OSF_AGENTLAB_HOME", Path.home() / ".cache" / "osf-agentlab"))


def npm_prefix(agent: str) -> Path:
    """install.sh gives each npm agent but the first three a prefix of its own."""
    return lab_home() / f"npm-{agent}"


def npm_bin(agent: str, command: str) -> Path:
    """The command npm linked for a package, as a user's install runs it."""
    return npm_prefix(agent) / "node_modules" / ".bin" / command


def venv_bin(agent: str, command: str) -> Path:
    """A PyPI agent's command in the venv install.sh made for it (`<agent>-venv`)."""
    return lab_home() / f"{agent}-venv" / "bin" / command


def package_version(package_json: Path) -> str:
    """The `version` of an installed npm package (what its --version says may differ: Grok)."""
    try:
        return str(json.loads(package_json.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "unknown"


def command_version(
    argv: list[str], pick: Callable[[list[str]], str] = lambda words: words[0]
) -> str:
    """The version an agent prints, run in a throwaway HOME: `pick` chooses it from the words
    of its standard output."""
    out = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, env={**BASE_ENV, "HOME": "/tmp"}
    )
    words = out.stdout.split()
    return pick(words) if words else "unknown"


def cat_hook(log: Path) -> str:
    """A hook command that appends its payload (standard input) and a newline to `log`."""
    quoted = shlex.quote(str(log))
    return f"cat >> {quoted}; echo >> {quoted}"


def timed_hook(log: Path) -> str:
    """A hook command that appends its JSON payload to `log` with the time it came (the
    capture's hooks.jsonl adds its offset in the bytes from the .timing file)."""
    code = (
        "import json, sys, time; p = json.load(sys.stdin); "
        f"open({str(log)!r}, 'a').write(json.dumps("
        "{'event': p.get('hook_event_name'), 't': round(time.time(), 3), 'payload': p})"
        " + chr(10))"
    )
    return shlex.join(["python3", "-c", code])


Options = Mapping[str, object]  # a scenario's options
Files = dict[str, object]  # a path under HOME (or an absolute one) -> a JSON value or text


class Executable(str):
    """A file's text that is a program the agent runs (a status line script)."""


def write_files(where: Path, files: Files) -> None:
    """Each file under `where` (an absolute path as it is), its folders made: a string as it
    is (an `Executable` made executable), anything else as JSON."""
    for rel, content in files.items():
        path = where / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=1))
        if isinstance(content, Executable):
            path.chmod(0o755)


@dataclass(frozen=True)
class RunDirs:
    root: Path  # throwaway directory of one run
    home: Path  # the agent's HOME: config seeded per scenario, nothing from the real user
    proj: Path  # the agent's working directory


BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "tmux-256color",
    "COLORTERM": "truecolor",
}


class AgentSpec:
    """One agent CLI. A subclass names its install (`binary`, `read_version`), how it starts
    offline (`launch`: config in HOME, argv, environment), its screen (`ui`), the fake server's
    `dialect` when the defaults do not fit, turns of its own (`turns`), and the scenarios it
    plays (`build`, mostly shared shapes)."""

    name = "agent"
    folder = "agent"  # captures/<folder>-<version>-lab
    # What the fake server must know beyond the protocol: forced tool shapes, and whether a
    # chat request without tools is a side request (the default) or a turn (aider).
    dialect = Dialect()
    ui: Ui
    # The standard scenarios' dialog and words (shapes.Standard): an adapter that sets it needs
    # no `build`, only the scenarios of its own (`own_scenarios`).
    standard: ClassVar[Standard | None] = None
    # Turns of this agent's own, searched before the shared stories (a shorter answer, another
    # command): the first turn whose key the prompt contains answers it.
    turns: ClassVar[tuple[Turn, ...]] = ()
    # Named configurations a user dresses the agent in (`record --config NAME`): a description
    # and the options merged into every scenario's (the adapter's `launch` reads them). The
    # captures go to captures/<folder>-<version>-lab-<NAME>/.
    configs: ClassVar[dict[str, tuple[str, dict[str, object]]]] = {}
    # Dresses of the agent's own (`record --dress NAME`), beside the terminal's in
    # dress.COMMON_DRESSES: its light theme (`light`), its accessibility or plain modes. Their
    # options ride in every scenario's options, where `launch` applies them.
    dresses: ClassVar[dict[str, Dress]] = {}

    # Where install.sh put the agent. An npm agent: its package, in the prefix install.sh gives
    # it (`npm_dir`, default `npm-<name>/`; a release's `npm-<name>-<VER>/`), started as the
    # command npm links for it (`npm_command`, default its name) or as a file inside the
    # package (`npm_entry`: a native binary, a node bundle). A PyPI agent: its distribution
    # (`pypi_dist`, as its dist-info folder spells it) in `<name>-venv/`, started as a command
    # of the venv (`pypi_command`, default its name) or a file in site-packages (`pypi_entry`).
    # With these `binary` and `read_version` need no code; other installs override both.
    npm_package: ClassVar[str | None] = None
    npm_command: ClassVar[str | None] = None
    npm_entry: ClassVar[str | None] = None
    npm_dir: ClassVar[str | None] = None
    pypi_dist: ClassVar[str | None] = None
    pypi_command: ClassVar[str | None] = None
    pypi_entry: ClassVar[str | None] = None

    def npm_home(self) -> Path:
        """The npm prefix of the release that runs: the pinned one, else the default install."""
        if self.pinned:
            return self.release_prefix(self.pinned)
        return lab_home() / self.npm_dir if self.npm_dir else npm_prefix(self.name)

    def package_dir(self) -> Path:
        """The installed npm package."""
        if self.npm_package is None:
            raise NotImplementedError(f"{self.name}: no `npm_package`")
        return self.npm_home() / "node_modules" / self.npm_package

    def venv(self) -> Path:
        return lab_home() / f"{self.name}-venv"

    def site_packages(self) -> Path:
        """The venv's site-packages (the newest Python's, should there be several)."""
        found = sorted(self.venv().glob("lib/python3.*/site-packages"))
        return found[-1] if found else self.venv() / "lib" / "site-packages"

    def binary(self) -> Path:
        if self.npm_package is not None:
            if self.npm_entry:
                return self.package_dir() / self.npm_entry
            return self.npm_home() / "node_modules" / ".bin" / (self.npm_command or self.name)
        if self.pypi_dist is not None:
            if self.pypi_entry:
                return self.site_packages() / self.pypi_entry
            return self.venv() / "bin" / (self.pypi_command or self.name)
        raise NotImplementedError(f"{self.name}: no `npm_package` and no `binary`")

    def read_version(self) -> str:
        """The installed package's own version (what `--version` prints may differ: Grok)."""
        if self.npm_package is not None:
            return package_version(self.package_dir() / "package.json")
        if self.pypi_dist is not None:
            found = sorted(self.venv().glob(f"lib/*/site-packages/{self.pypi_dist}-*.dist-info"))
            return found[-1].name.removesuffix(".dist-info").split("-")[1] if found else "unknown"
        raise NotImplementedError(f"{self.name}: no `npm_package` and no `read_version`")

    # How it starts, as data: the environment beyond BASE_ENV and HOME, the arguments after the
    # binary (in both `{url}` stands for the fake server's address), and the arguments that scenario
    # options add (`option_args`: option -> arguments, `{}` the option's value). The files it
    # reads at start come from `settings`, what depends on more than the URL from `more_env`
    # and `more_args`; the options `args` (a scenario's) and `dress_args` (a dress's) are
    # appended last.
    launch_env: ClassVar[dict[str, str]] = {}
    launch_args: ClassVar[tuple[str, ...]] = ()
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {}

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        """The files the agent reads at start, by path under HOME (an absolute path is taken as
        it is): a mapping is written as JSON, a string as it is. Its config points at `url`;
        its dialogs are pre-answered unless the options say otherwise."""
        return {}

    def more_env(self, dirs: RunDirs, url: str, options: Options) -> dict[str, str]:
        """Environment that depends on the run directories or the options."""
        return {}

    def more_args(self, dirs: RunDirs, options: Options) -> list[str]:
        """Arguments that depend on the run directories or the options (after `option_args`)."""
        return []

    def command(self) -> list[str]:
        """What starts the agent, before its arguments (a node bundle: node, then the file)."""
        return [str(self.binary())]

    def launch(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        """Seed the agent's config in dirs.home (`settings`); return its argv and its whole
        environment (`launch_env`, `more_env`)."""
        options = scenario.options
        write_files(dirs.home, self.settings(dirs, url, options))
        argv = [*self.command(), *(a.replace("{url}", url) for a in self.launch_args)]
        for option, args in self.option_args.items():
            value = options.get(option)
            if value:
                argv += [a.replace("{}", str(value)) for a in args]
        argv += self.more_args(dirs, options)
        for extra in ("args", "dress_args"):
            argv += [str(a) for a in options.get(extra, [])]  # type: ignore[attr-defined]
        env = {k: v.replace("{url}", url) for k, v in self.launch_env.items()}
        return argv, self.env(dirs, **env, **self.more_env(dirs, url, options))

    def build(self, shapes: Shapes) -> list[Scenario]:
        """The scenarios, in the order `record --scenario all` plays them: the standard ones,
        then the adapter's own. An adapter whose scenarios go in another order overrides it."""
        if self.standard is None:
            raise NotImplementedError(f"{self.name}: no `standard` and no `build`")
        return [*shapes.standard(self.standard), *self.own_scenarios(shapes)]

    def own_scenarios(self, shapes: Shapes) -> list[Scenario]:
        """The scenarios only this agent plays, after the standard ones."""
        return []

    # Whether install.sh puts other releases beside the default install (`<NAME>_VERSIONS="VER"
    # install.sh NAME` into npm-<name>-<VER>/), and the one `use_version` chose.
    releases: ClassVar[bool] = False
    pinned: str | None = None

    def use_version(self, version: str) -> None:
        """Run another installed release than the default one (`record --agent-version`)."""
        if not self.releases:
            raise SystemExit(f"{self.name}: the lab installs one version only")
        prefix = self.release_prefix(version)
        if not prefix.is_dir():
            raise SystemExit(
                f"{self.name} {version} is not installed in {prefix}: run "
                f"`{self.name.upper()}_VERSIONS={version} tools/agentlab/install.sh {self.name}`"
            )
        self.pinned = version
        self.__dict__.pop("_version", None)

    def use_config(self, options: dict[str, object]) -> None:
        """A configuration was chosen (`record --config`): an adapter whose cues depend on it
        (a status line replacing the footer) picks them here, before `build` runs."""

    def version_pinned(self) -> bool:
        """Whether `use_version` chose a release other than the default install."""
        return self.pinned is not None

    def release_prefix(self, version: str) -> Path:
        """Where install.sh puts a release other than the default one."""
        return lab_home() / f"npm-{self.name}-{version}"

    # Provided ---------------------------------------------------------------------------------
    def version(self) -> str:
        """Asked once per process: the install does not change while the lab runs."""
        cached = self.__dict__.get("_version")
        if cached is None:
            cached = self.__dict__["_version"] = self.read_version()
        return str(cached)

    def installed(self) -> bool:
        return self.binary().exists()

    def script(self) -> Script:
        return Script([*self.turns, *st.ALL_TURNS])

    def scenarios(self) -> dict[str, Scenario]:
        return {s.name: s for s in self.build(Shapes(self.script(), self.ui))}

    def all_dresses(self) -> dict[str, Dress]:
        """The dresses this agent can be recorded in: the terminal's and its own."""
        return {**COMMON_DRESSES, **self.dresses}

    def dress(self, names: str) -> Dress:
        """One dress, or several worn at once joined with `+` (`256+nocolor`)."""
        table = self.all_dresses()
        parts = [n for n in names.split("+") if n]
        unknown = [n for n in parts if n not in table]
        if unknown or not parts:
            known = " ".join(table)
            raise SystemExit(f"unknown dress {names!r}; {self.name} has: {known}")
        return combine(table[n] for n in parts)

    def configured_scenarios(self, config: str | None, dress: Dress = PANE) -> dict[str, Scenario]:
        """The scenarios played in a named configuration (`configs`; None: the defaults) and a
        dress: their options, the configuration's name and description, ride in every
        scenario's options, where `launch` applies them and the recorder writes them into the
        labels."""
        if config is None and not dress.options:
            self.use_config({})
            return self.scenarios()
        if config is not None and config not in self.configs:
            known = " ".join(self.configs) or "none"
            raise SystemExit(f"unknown config {config!r}; {self.name} has: {known}")
        extra: dict[str, object] = dict(dress.options)
        if config is not None:
            what, options = self.configs[config]
            extra = {**options, **extra, "config": config, "config_description": what}
        self.use_config(extra)
        try:
            table = self.scenarios()
        finally:
            self.use_config({})
        return {k: dataclasses.replace(v, options={**v.options, **extra}) for k, v in table.items()}

    def prepare(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        """The project (its files, a git repository: agents behave differently outside one),
        then the agent's own seeding."""
        self.write_files(dirs, scenario.files)
        self.git_init(dirs)
        return self.launch(dirs, url, scenario)

    @staticmethod
    def env(dirs: RunDirs, **extra: str) -> dict[str, str]:
        """The agent's whole environment: the base, its throwaway HOME, and `extra`."""
        return {**BASE_ENV, "HOME": str(dirs.home), **extra}

    @staticmethod
    def write_files(dirs: RunDirs, files: dict[str, str]) -> None:
        write_files(dirs.proj, files)

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
