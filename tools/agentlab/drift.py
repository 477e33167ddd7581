"""`python -m tools.agentlab drift`: the canary for new agent versions.

For each agent the lab knows: ask its registry for the latest version, install that into a
scratch prefix of its own (`$OSF_AGENTLAB_HOME/drift/<agent>-<version>/`, laid out as
install.sh lays out the lab home, so the adapter finds the binary there; the pinned install is
never touched), record the standard scenarios at one size, and score them with the rules in
force. One table says, per agent: the version the captures were made with (pinned), the
registry's latest, the labelled points judged right, and the screens that no rule recognised.

A screen no rule recognises is a labelled point decided by the manifest's default although the
manifest names that state with rules of its own (or although the label is another state): a
new footer that still reads `idle` by luck is caught here before it reads wrong.

The registry lookup, the installer and the recorder are parameters, so the table and the version
logic are tested without network or agents (tests/tools/test_agentlab_drift.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from osf_tmux.judge.corpus import Capture
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.replay import replay
from osf_tmux.judge.ruleset import load_rules
from tools.agentlab.base import AgentSpec, lab_home

REPO = Path(__file__).resolve().parents[2]
SIZE = (120, 32)
# The scenarios every adapter has under these names (shapes.py): the screens a version bump
# most often changes. Agents lacking one simply skip it.
STANDARD = ("startup", "text", "bash_yes", "bash_no", "edit_write", "question")
DEFAULT_STATE = "idle"


@dataclass(frozen=True)
class Package:
    """Where an agent's releases come from: `npm` or `pypi`, the package's name, and for PyPI
    the Python the lab installs it with (the index answers for that interpreter)."""

    registry: str
    name: str
    python: str = "3.13"


# The package whose version names the lab's capture folder (Droid: its platform package, whose
# binary is what runs). install.sh holds the same names; it installs, this only asks.
PACKAGES: dict[str, Package] = {
    "claude": Package("npm", "@anthropic-ai/claude-code"),
    "codex": Package("npm", "@openai/codex"),
    "gemini": Package("npm", "@google/gemini-cli"),
    "aider": Package("pypi", "aider-chat", python="3.12"),
    "pi": Package("npm", "@mariozechner/pi-coding-agent"),
    "opencode": Package("npm", "opencode-ai"),
    "kilo": Package("npm", "@kilocode/cli"),
    "copilot": Package("npm", "@github/copilot"),
    "cline": Package("npm", "cline"),
    "qwen": Package("npm", "@qwen-code/qwen-code"),
    "droid": Package("npm", "@factory/cli-linux-x64"),
    "grok": Package("npm", "@vibe-kit/grok-cli"),
    "vibe": Package("pypi", "mistral-vibe"),
    "kimi": Package("pypi", "kimi-cli"),
    "auggie": Package("npm", "@augmentcode/auggie"),
    # issue #27's newer programs (their adapters land from other branches)
    "grok-build": Package("pypi", "grok-cli-bin"),
    "kimi-code": Package("npm", "@moonshot-ai/kimi-code"),
    "amp": Package("npm", "@sourcegraph/amp"),
}

Lookup = Callable[[Package], str]
# installer(agent, version, scratch home) -> None, raising InstallError with the reason
Installer = Callable[[str, str, Path], None]
# recorder(agent, scenario names, out folder) -> names that failed
RecordFn = Callable[[AgentSpec, Sequence[str], Path], list[str]]


class InstallError(RuntimeError):
    pass


# -- versions ------------------------------------------------------------------------------------


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Orders `1.0.9` < `1.0.10` < `1.0.10b1`... well enough for release numbers: each dotted
    part by its leading number, then by whatever follows it."""
    out = []
    for part in version.split("."):
        m = re.match(r"(\d*)(.*)", part)
        assert m is not None
        out.append((int(m.group(1) or 0), m.group(2)))
    return tuple(out)


def pinned_version(folder: str, captures: Path) -> str | None:
    """The newest version the lab recorded this agent at: `captures/<folder>-<version>-lab/`
    (configurations, `-lab-<config>`, and the shared corpus's folders do not count)."""
    pattern = re.compile(rf"^{re.escape(folder)}-(\d[\w.+-]*?)-lab$")
    found = [m.group(1) for p in captures.iterdir() if p.is_dir() and (m := pattern.match(p.name))]
    return max(found, key=version_key) if found else None


def registry_latest(pkg: Package) -> str:
    """The registry's latest release, asked with its ordinary client."""
    if pkg.registry == "npm":
        argv = ["npm", "view", pkg.name, "version"]
    elif pkg.registry == "pypi":
        argv = [sys.executable, "-m", "pip", "index", "versions", pkg.name]
        argv += [
            "--python-version",
            pkg.python,
            "--only-binary=:all:",
            "--disable-pip-version-check",
        ]
    else:
        raise ValueError(f"unknown registry {pkg.registry!r}")
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd="/tmp")
    return parse_latest(pkg, out.stdout, out.returncode, out.stderr)


def parse_latest(pkg: Package, stdout: str, returncode: int = 0, stderr: str = "") -> str:
    """`npm view NAME version` prints the version; `pip index versions NAME` prints
    `NAME (VERSION)` first."""
    text = stdout.strip()
    if returncode != 0 or not text:
        raise LookupError(f"{pkg.registry} {pkg.name}: {stderr.strip()[-200:] or 'no answer'}")
    if pkg.registry == "pypi":
        m = re.search(rf"^{re.escape(pkg.name)} \(([^)]+)\)", text, re.MULTILINE | re.IGNORECASE)
        if not m:
            raise LookupError(f"pypi {pkg.name}: unexpected answer {text.splitlines()[0]!r}")
        return m.group(1)
    return text.splitlines()[-1].strip()


# -- installing and recording into the scratch prefix ----------------------------------------------


def scratch_home(agent: str, version: str) -> Path:
    return lab_home() / "drift" / f"{agent}-{version}"


def install_sh(agent: str, version: str, home: Path) -> None:
    """install.sh with the lab home moved to the scratch prefix and the agent pinned to
    `version` (`<AGENT>_VERSION`; Droid's wrapper and platform package alike)."""
    pin = agent.upper().replace("-", "_") + "_VERSION"  # GROK_BUILD_VERSION
    env = {**os.environ, "OSF_AGENTLAB_HOME": str(home), pin: version}
    if agent == "droid":
        env["DROID_PLATFORM_VERSION"] = version
    home.mkdir(parents=True, exist_ok=True)
    log = home / "install.log"
    with log.open("w") as out:
        rc = subprocess.call(
            ["bash", str(Path(__file__).with_name("install.sh")), agent],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if rc != 0:
        raise InstallError(f"install.sh failed (exit {rc}): {last_error(log)} (log: {log})")


def last_error(log: Path) -> str:
    """The line of an install log that says why: a missing version or package first (npm's
    `notarget`, pip's `No matching distribution`), else the first error line."""
    lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    for pattern in (r"no matching|could not find|not found", r"error|failed"):
        found = [ln for ln in lines if re.search(pattern, ln, re.I)]
        if found:
            return found[0][:200]
    return (lines or ["no output"])[-1][:200]


@contextmanager
def lab_home_at(home: Path) -> Iterator[None]:
    """Adapters find their binary under lab_home(): point it at the scratch prefix while the
    agent is recorded there."""
    old = os.environ.get("OSF_AGENTLAB_HOME")
    os.environ["OSF_AGENTLAB_HOME"] = str(home)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("OSF_AGENTLAB_HOME", None)
        else:
            os.environ["OSF_AGENTLAB_HOME"] = old


def record_scenarios(agent: AgentSpec, scenarios: Sequence[str], out: Path) -> list[str]:
    """Record each scenario at SIZE into `out` (one retry each); the names that failed."""
    from tools.agentlab.driver import DriverError, Recorder

    table = agent.scenarios()
    failed = []
    for name in scenarios:
        for _attempt in range(2):
            try:
                Recorder(agent, table[name], *SIZE, out, verbose=False).run()
                print(f"  recorded {agent.name}/{name}", file=sys.stderr, flush=True)
                break
            except DriverError as e:
                print(f"  {agent.name}/{name}: {e}", file=sys.stderr, flush=True)
        else:
            failed.append(name)
    return failed


# -- scoring -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unrecognised:
    capture: str
    offset: int
    label: str
    got: str
    screen: tuple[str, ...]  # the screen's last non-blank rows


@dataclass
class Score:
    right: int = 0
    points: int = 0
    false_blocked: int = 0
    unrecognised: list[Unrecognised] = field(default_factory=list)

    def first_unrecognised(self) -> Unrecognised | None:
        """The one to show: the first read wrongly, else the first right by the default only."""
        wrong = [u for u in self.unrecognised if u.label != u.got]
        return (wrong or self.unrecognised or [None])[0]


def ruled_states(manifest: Manifest) -> set[str]:
    return {rule.state for rule in manifest.rules}


def score_folder(folder: Path, manifest: Manifest, scenarios: Sequence[str] | None = None) -> Score:
    """Every labelled point of the captures at SIZE in `folder` (only `scenarios` if given),
    judged with `manifest`."""
    score = Score()
    named = ruled_states(manifest)
    suffix = f"-{SIZE[0]}x{SIZE[1]}.labels.json"
    for lab in sorted(folder.glob(f"*{suffix}")):
        if scenarios is not None and lab.name[: -len(suffix)] not in scenarios:
            continue
        capture = Capture(lab.with_name(lab.name.replace(".labels.json", ".bytes")), lab)
        if not capture.bytes_path.exists():
            continue
        points = capture.points()
        if not points:
            continue
        data = capture.bytes_path.read_bytes()
        judged = replay(data, *SIZE, manifest, [p.offset for p in points])
        for point, result in zip(points, judged, strict=True):
            got = result.verdict
            score.points += 1
            score.right += got.state == point.state
            score.false_blocked += got.state == "blocked" and point.state != "blocked"
            if got.rule is None and (point.state in named or point.state != got.state):
                rows = [r.rstrip() for r in result.snapshot.rows if r.strip()]
                score.unrecognised.append(
                    Unrecognised(
                        capture.name, point.offset, point.state, got.state, tuple(rows[-8:])
                    )
                )
    return score


# -- the table -----------------------------------------------------------------------------------


@dataclass
class Row:
    agent: str
    pinned: str | None
    latest: str | None
    score: Score | None = None
    note: str = ""

    def cells(self) -> list[str]:
        s = self.score
        first = s.first_unrecognised() if s else None
        return [
            self.agent,
            self.pinned or "-",
            self.latest or "-",
            f"{s.right}/{s.points}" if s else "-",
            str(s.false_blocked) if s else "-",
            str(len(s.unrecognised)) if s else "-",
            f"{first.capture}@{first.offset} ({first.label}, read {first.got})" if first else "-",
            self.note,
        ]


HEADER = [
    "agent",
    "pinned",
    "latest",
    "points right",
    "false blocked",
    "unrecognised",
    "first unrecognised screen",
    "note",
]


def render(rows: Sequence[Row]) -> str:
    """A Markdown table, then the first unrecognised screen of each agent that has one."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row.cells()) + " |")
    for row in rows:
        first = row.score.first_unrecognised() if row.score else None
        if first is not None:
            where = f"{row.agent} {row.latest}: {first.capture}@{first.offset}"
            said = f"labelled {first.label}, no rule recognised it (read {first.got})"
            lines += ["", f"{where}, {said}:", "```", *first.screen, "```"]
    return "\n".join(lines)


# -- one agent -----------------------------------------------------------------------------------


@dataclass
class Options:
    install: bool = True
    # False: score what an earlier run recorded (after a rule change), record nothing
    record: bool = True
    keep_captures: bool = False
    scenarios: Sequence[str] | None = None
    captures: Path = REPO / "captures"


def drift_one(
    agent: AgentSpec,
    manifest: Manifest,
    opts: Options,
    lookup: Lookup = registry_latest,
    installer: Installer = install_sh,
    recorder: RecordFn = record_scenarios,
) -> Row:
    """Resolve, install, record and score one agent; any failure becomes the row's note."""
    pinned = pinned_version(agent.folder, opts.captures)
    row = Row(agent.name, pinned, None)
    pkg = PACKAGES.get(agent.name)
    if pkg is None:
        row.note = "no registry package known (PACKAGES in tools/agentlab/drift.py)"
        return row
    try:
        row.latest = lookup(pkg)
    except (LookupError, OSError, subprocess.SubprocessError) as e:
        row.note = f"registry lookup failed: {e}"
        return row
    wanted = [s for s in (opts.scenarios or STANDARD) if s in agent.scenarios()]
    if row.latest == pinned:
        # Nothing new to install: the pinned captures are what the latest draws.
        folder = opts.captures / f"{agent.folder}-{pinned}-lab"
        row.score = score_folder(folder, manifest, wanted)
        row.note = "latest is the pinned version: its captures scored"
        return row
    home = scratch_home(agent.name, row.latest)
    if opts.install and opts.record:
        try:
            installer(agent.name, row.latest, home)
        except InstallError as e:
            row.note = f"not installed: {e}"
            return row
    with lab_home_at(home):
        agent.__dict__.pop("_version", None)  # the version is cached per install
        try:
            if not agent.installed():
                row.note = f"not installed in {home} (run without --no-install)"
                return row
            got = agent.version()
            if got != row.latest:
                row.note = f"the scratch install says {got}, not {row.latest}"
                return row
            if opts.keep_captures:
                out = opts.captures / f"{agent.folder}-{row.latest}-lab"
            else:
                out = home / f"captures-{SIZE[0]}x{SIZE[1]}"
            failed = recorder(agent, wanted, out) if opts.record else []
        finally:
            agent.__dict__.pop("_version", None)
    row.score = score_folder(out, manifest, wanted)
    notes = [f"captures in {out}"]
    if failed:
        notes.append("recording failed: " + " ".join(failed))
    row.note = "; ".join(notes)
    return row


def run(
    agents: dict[str, AgentSpec],
    names: Sequence[str],
    opts: Options,
    lookup: Lookup = registry_latest,
    installer: Installer = install_sh,
    recorder: RecordFn = record_scenarios,
    manifests: Callable[[str], Manifest] | None = None,
) -> list[Row]:
    rules = load_rules(None)
    get = manifests or rules.get
    rows = []
    for name in names:
        print(f"drift: {name}", file=sys.stderr, flush=True)
        rows.append(drift_one(agents[name], get(name), opts, lookup, installer, recorder))
    return rows


def rows_json(rows: Sequence[Row]) -> str:
    return json.dumps(
        [
            {
                "agent": r.agent,
                "pinned": r.pinned,
                "latest": r.latest,
                "right": r.score.right if r.score else None,
                "points": r.score.points if r.score else None,
                "false_blocked": r.score.false_blocked if r.score else None,
                "unrecognised": len(r.score.unrecognised) if r.score else None,
                "note": r.note,
            }
            for r in rows
        ],
        indent=1,
    )
