"""The drift canary (tools/agentlab/drift.py) without network or agents: the registry lookup,
the installer and the recorder are injected; the scoring runs on recorded captures."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from osf_tmux.judge.manifest import Condition, Manifest
from osf_tmux.judge.regions import Region
from osf_tmux.judge.ruleset import load_rules
from tools.agentlab import drift
from tools.agentlab.actions import Cue
from tools.agentlab.base import AgentSpec, Scenario, lab_home
from tools.agentlab.shapes import Shapes, Ui

REPO = Path(__file__).resolve().parents[2]
COPILOT = REPO / "captures" / "copilot-1.0.102-lab"


def copilot_rules() -> Manifest:
    return load_rules(None).get("copilot")


class FakeAgent(AgentSpec):
    """Installed when `<lab home>/fake/version` exists; its version is that file's text."""

    name = "copilot"
    folder = "copilot"
    ui = Ui(idle=Cue("idle"), working=Cue("working"))

    def binary(self) -> Path:
        return lab_home() / "fake" / "version"

    def read_version(self) -> str:
        return self.binary().read_text().strip()

    def build(self, shapes: Shapes) -> list[Scenario]:
        return [shapes.sc(name, name) for name in ("startup", "text", "question", "plan")]


def copy_capture(src: Path, name: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for path in src.glob(f"{name}-120x32.*"):
        if path.is_file():
            shutil.copy(path, out / path.name)


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path / "lab"))
    captures = tmp_path / "captures"
    for folder in (
        "copilot-1.0.9-lab",
        "copilot-1.0.10-lab",
        "copilot-1.0.99-lab-plan",
        "cline-9.9.9-lab",
    ):
        (captures / folder).mkdir(parents=True)
    copy_capture(COPILOT, "question", captures / "copilot-1.0.10-lab")
    copy_capture(COPILOT, "text", captures / "copilot-1.0.10-lab")
    return captures


def test_versions_order_by_number_not_text() -> None:
    assert drift.version_key("1.0.9") < drift.version_key("1.0.10") < drift.version_key("1.0.102")
    assert drift.version_key("0.96.1") < drift.version_key("0.100.0")


def test_pinned_version_is_the_newest_lab_folder_of_that_agent(lab: Path) -> None:
    # configurations (`-lab-plan`) and other agents' folders do not count
    assert drift.pinned_version("copilot", lab) == "1.0.10"
    assert drift.pinned_version("cline", lab) == "9.9.9"
    assert drift.pinned_version("kilo", lab) is None


def test_registry_answers_are_parsed() -> None:
    npm = drift.Package("npm", "@github/copilot")
    pypi = drift.Package("pypi", "mistral-vibe")
    assert drift.parse_latest(npm, "1.0.102\n") == "1.0.102"
    answer = "mistral-vibe (3.0.3)\nAvailable versions: 3.0.3, 3.0.2\n"
    assert drift.parse_latest(pypi, answer) == "3.0.3"
    with pytest.raises(LookupError):
        drift.parse_latest(npm, "", 1, "npm error code E404")
    with pytest.raises(LookupError):
        drift.parse_latest(pypi, "something else\n")


def test_every_adapter_has_a_registry_package() -> None:
    from tools.agentlab.agents import ADAPTERS

    assert set(ADAPTERS) <= set(drift.PACKAGES)


def test_latest_equal_to_pinned_scores_the_pinned_captures_without_installing(lab: Path) -> None:
    def installer(agent: str, version: str, home: Path) -> None:
        raise AssertionError("nothing to install")

    row = drift.drift_one(
        FakeAgent(),
        copilot_rules(),
        drift.Options(captures=lab),
        lookup=lambda pkg: "1.0.10",
        installer=installer,
    )
    assert (row.pinned, row.latest) == ("1.0.10", "1.0.10")
    assert row.score is not None and row.score.points > 0
    assert row.score.right == row.score.points and row.score.false_blocked == 0
    assert not row.score.unrecognised


def test_a_newer_release_is_installed_into_scratch_recorded_and_scored(lab: Path) -> None:
    calls: list[tuple[str, str, Path]] = []

    def installer(agent: str, version: str, home: Path) -> None:
        calls.append((agent, version, home))
        (home / "fake").mkdir(parents=True)
        (home / "fake" / "version").write_text(version)

    recorded: list[Sequence[str]] = []

    def recorder(agent: AgentSpec, scenarios: Sequence[str], out: Path) -> list[str]:
        # the adapter sees the scratch install while it records
        assert agent.version() == "1.0.11"
        recorded.append(scenarios)
        copy_capture(COPILOT, "question", out)
        return ["text"]

    row = drift.drift_one(
        FakeAgent(),
        copilot_rules(),
        drift.Options(captures=lab),
        lookup=lambda pkg: "1.0.11",
        installer=installer,
        recorder=recorder,
    )
    assert calls == [("copilot", "1.0.11", lab_home() / "drift" / "copilot-1.0.11")]
    # the standard scenarios the agent has, in the standard order
    assert recorded == [["startup", "text", "question"]]
    assert row.score is not None and row.score.right == row.score.points > 0
    assert "recording failed: text" in row.note
    # without --keep-captures nothing lands in the repository's folder
    assert not (lab / "copilot-1.0.11-lab").exists()


def test_keep_captures_records_into_the_versions_lab_folder(lab: Path) -> None:
    def installer(agent: str, version: str, home: Path) -> None:
        (home / "fake").mkdir(parents=True)
        (home / "fake" / "version").write_text(version)

    def recorder(agent: AgentSpec, scenarios: Sequence[str], out: Path) -> list[str]:
        copy_capture(COPILOT, "text", out)
        return []

    row = drift.drift_one(
        FakeAgent(),
        copilot_rules(),
        drift.Options(captures=lab, keep_captures=True, scenarios=["text"]),
        lookup=lambda pkg: "1.0.11",
        installer=installer,
        recorder=recorder,
    )
    assert (lab / "copilot-1.0.11-lab" / "text-120x32.bytes").exists()
    assert row.score is not None and row.score.points > 0


def test_failures_become_notes_not_crashes(lab: Path) -> None:
    def no_registry(pkg: drift.Package) -> str:
        raise LookupError("npm @github/copilot: E404")

    row = drift.drift_one(FakeAgent(), copilot_rules(), drift.Options(captures=lab), no_registry)
    assert row.latest is None and row.score is None and "E404" in row.note

    def broken(agent: str, version: str, home: Path) -> None:
        raise drift.InstallError("No matching version found for @x/cli-linux-x64@2.0.0")

    row = drift.drift_one(
        FakeAgent(), copilot_rules(), drift.Options(captures=lab), lambda p: "2.0.0", broken
    )
    assert row.latest == "2.0.0" and row.score is None
    assert row.note.startswith("not installed: No matching version")

    # --no-install and nothing there
    row = drift.drift_one(
        FakeAgent(), copilot_rules(), drift.Options(captures=lab, install=False), lambda p: "2.0.0"
    )
    assert row.score is None and "not installed" in row.note


def test_a_dialog_no_rule_knows_is_reported_with_its_screen(lab: Path) -> None:
    """Rules without the question form's rule: its screens read idle by default, wrongly, and
    the table names the first one and shows it."""
    rules = copilot_rules()
    blind = dataclasses.replace(
        rules, rules=tuple(r for r in rules.rules if r.id != "information-request")
    )
    score = drift.score_folder(lab / "copilot-1.0.10-lab", blind, ["question"])
    assert score.right < score.points and score.false_blocked == 0
    first = score.first_unrecognised()
    assert first is not None and (first.label, first.got) == ("blocked", "idle")
    assert first.capture == "copilot-1.0.10-lab/question-120x32"
    assert any("needs information" in row for row in first.screen)

    row = drift.Row("copilot", "1.0.10", "1.0.11", score, "captures in /x")
    table = drift.render([row, drift.Row("kilo", "7.7.7", "7.8.1", None, "not installed: x")])
    lines = table.splitlines()
    assert lines[0].startswith("| agent | pinned | latest | points right |")
    assert lines[2].startswith(
        f"| copilot | 1.0.10 | 1.0.11 | {score.right}/{score.points} | 0 | "
        f"{len(score.unrecognised)} | copilot-1.0.10-lab/question-120x32@{first.offset} "
        "(blocked, read idle) |"
    )
    assert lines[3] == "| kilo | 7.7.7 | 7.8.1 | - | - | - | - | not installed: x |"
    assert "needs information" in table.split("```")[1]


def test_an_idle_screen_read_by_luck_counts_as_unrecognised_where_idle_has_rules(
    lab: Path,
) -> None:
    """Copilot names idle with a rule: an idle screen that no rule recognises is right by the
    default only, and the canary says so."""
    rules = copilot_rules()
    never = (Condition(re.compile("a footer of another release"), Region("tail", 1)),)
    blind = dataclasses.replace(
        rules,
        rules=tuple(
            dataclasses.replace(r, any=never) if r.state == "idle" else r for r in rules.rules
        ),
    )
    score = drift.score_folder(lab / "copilot-1.0.10-lab", blind, ["text"])
    assert score.right == score.points
    assert score.unrecognised and {u.label for u in score.unrecognised} == {"idle"}
    # a point read wrongly is the one shown, though a right-by-luck one came first
    wrong = drift.Unrecognised("c/q-120x32", 900, "blocked", "idle", ("? pick one",))
    mixed = dataclasses.replace(score, unrecognised=[*score.unrecognised, wrong])
    assert mixed.first_unrecognised() == wrong
    assert score.first_unrecognised() == score.unrecognised[0]
    # with the idle rule in force they are recognised
    assert not drift.score_folder(lab / "copilot-1.0.10-lab", rules, ["text"]).unrecognised


def test_an_install_log_gives_its_reason(tmp_path: Path) -> None:
    """The row's note names why an install failed (a platform package missing for Linux, a
    pinned dependency the registry does not have), not npm's first generic error line."""
    log = tmp_path / "install.log"
    log.write_text(
        "installing @kilocode/cli@7.8.1 into /x\n"
        "npm error code ETARGET\n"
        "npm error notarget No matching version found for @kilocode/cli-linux-x64@7.8.1.\n"
        "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n"
    )
    assert drift.last_error(log) == (
        "npm error notarget No matching version found for @kilocode/cli-linux-x64@7.8.1."
    )
    log.write_text("Collecting x\nERROR: pip failed badly\n")
    assert drift.last_error(log) == "ERROR: pip failed badly"


def test_no_record_rescores_an_earlier_run(lab: Path) -> None:
    home = lab_home() / "drift" / "copilot-1.0.11"
    (home / "fake").mkdir(parents=True)
    (home / "fake" / "version").write_text("1.0.11")
    copy_capture(COPILOT, "question", home / "captures-120x32")

    def recorder(agent: AgentSpec, scenarios: Sequence[str], out: Path) -> list[str]:
        raise AssertionError("--no-record records nothing")

    row = drift.drift_one(
        FakeAgent(),
        copilot_rules(),
        drift.Options(captures=lab, record=False),
        lookup=lambda pkg: "1.0.11",
        recorder=recorder,
    )
    assert row.score is not None and row.score.right == row.score.points > 0


def test_install_sh_gets_the_agents_version_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """install.sh reads `<AGENT>_VERSION`, `-` as `_` (GROK_BUILD_VERSION)."""
    seen: dict[str, str] = {}

    def call(argv: list[str], env: dict[str, str], **kw: object) -> int:
        seen.update({k: v for k, v in env.items() if k.endswith("_VERSION")})
        seen["agent"] = argv[-1]
        return 0

    monkeypatch.setattr(subprocess, "call", call)
    drift.install_sh("grok-build", "0.2.120", tmp_path / "scratch")
    assert seen["GROK_BUILD_VERSION"] == "0.2.120" and seen["agent"] == "grok-build"
