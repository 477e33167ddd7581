"""What a new lab adapter has to say (tools/agentlab/base.py, shapes.py): its screen cues, the
words of its approval dialog (`standard`), its npm package and its launch. The standard
scenarios, the binary and the version follow from those; no agent runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.agentlab.actions import Cue, Expect, Keys, Type
from tools.agentlab.base import AgentSpec, RunDirs, Scenario
from tools.agentlab.gemini import Gemini
from tools.agentlab.qwen import Qwen
from tools.agentlab.shapes import Shapes, Standard, Ui

ASK = Cue(r"Run this command\?")
WORKING = Cue(r"esc to stop")


class Tiny(AgentSpec):
    """The whole of a small adapter: cues, dialog words, install, launch."""

    name = "tiny"
    folder = "tiny"
    ui = Ui(idle=Cue(r"^> ", absent=r"esc to stop|Run this", tail=3), working=WORKING)
    standard = Standard(
        dialog=ASK,
        what="command approval",
        first_option="1. Run",
        bash="Run this command? with its options",
        draft=Cue(r"> Do you want"),
    )
    npm_package = "@tiny/cli"

    def launch(
        self, dirs: RunDirs, url: str, scenario: Scenario
    ) -> tuple[list[str], dict[str, str]]:
        return [str(self.binary())], self.env(dirs, TINY_BASE_URL=url)


STANDARD = [
    "startup",
    "text",
    "bash_yes",
    "bash_esc",
    "bash_no",
    "interrupt_esc",
    "interrupt_ctrlc",
    "edit_write",
    "long_output",
    "thinking",
    "ask_back",
]


def test_a_minimal_adapter_plays_the_standard_scenarios() -> None:
    table = Tiny().scenarios()
    assert list(table) == [*STANDARD, "draft"]
    yes = table["bash_yes"].actions
    # the prompt, the dialog labelled blocked with the adapter's note, Enter on the first option
    assert any(isinstance(a, Type) for a in yes)
    blocked = [a for a in yes if isinstance(a, Expect) and a.state == "blocked"]
    assert [(b.cue, b.note) for b in blocked] == [(ASK, "Run this command? with its options")]
    assert Keys(("Enter",), "1. Run") in yes
    assert table["bash_yes"].description == "command approval approved (1. Run)"
    # between the edit's dialog and the new file's: working, and the dialog gone
    between = [a for a in table["edit_write"].actions if isinstance(a, Expect)][3]
    assert between.state == "working"
    assert between.cue == Cue(WORKING.pattern, absent=ASK.pattern)


def test_trust_hooks_and_own_scenarios_come_after_the_standard_ones() -> None:
    class Fuller(Tiny):
        standard = Standard(
            dialog=ASK, what="approval", first_option="Yes", bash="the dialog",
            trust=Cue(r"Trust this folder\?"), hooks=True, reject=None,
        )  # fmt: skip

        def own_scenarios(self, s: Shapes) -> list[Scenario]:
            return [s.plain("yolo", "a flag lets the command through", "clean the build")]

    table = Fuller().scenarios()
    assert list(table) == [
        *(n for n in STANDARD if n != "bash_no"),
        "trust_dialog",
        "hooks_bash",
        "yolo",
    ]
    assert table["trust_dialog"].options == {"seed_trust": False}
    assert table["hooks_bash"].options == {"hooks": True}


def test_an_adapter_without_standard_or_build_says_so() -> None:
    class Bare(AgentSpec):
        name = "bare"
        ui = Tiny.ui

    with pytest.raises(NotImplementedError, match="bare: no `standard`"):
        Bare().scenarios()
    with pytest.raises(NotImplementedError, match="no `npm_package`"):
        Bare().binary()


def test_npm_package_gives_binary_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path))
    package = tmp_path / "npm-tiny" / "node_modules" / "@tiny" / "cli"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "1.2.3"}))
    tiny = Tiny()
    assert tiny.binary() == tmp_path / "npm-tiny" / "node_modules" / ".bin" / "tiny"
    assert tiny.read_version() == "1.2.3"


def test_a_release_beside_the_default_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path))
    package = tmp_path / "npm-qwen-0.24.4" / "node_modules" / "@qwen-code" / "qwen-code"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "0.24.4"}))
    qwen = Qwen()
    qwen.use_version("0.24.4")
    assert qwen.binary() == tmp_path / "npm-qwen-0.24.4" / "node_modules" / ".bin" / "qwen"
    assert qwen.version() == "0.24.4"


@pytest.mark.parametrize(
    ("agent", "own"),
    [
        (
            Gemini(),
            [
                "trust_dialog",
                "yolo_bash",
                "auto_edit_write",
                "auto_edit_bash",
                "rewind",
                "loop_keep",
                "loop_disable",
                "loop_chant",
            ],
        ),
        (Qwen(), ["trust_dialog", "hooks_bash"]),
    ],
)
def test_the_gemini_family_plays_the_standard_scenarios(agent: AgentSpec, own: list[str]) -> None:
    assert list(agent.scenarios()) == [*STANDARD, "draft", *own]
