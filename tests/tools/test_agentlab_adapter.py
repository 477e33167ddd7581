"""What a new lab adapter has to say (tools/agentlab/base.py, shapes.py): its screen cues, the
words of its approval dialog (`standard`), its npm or PyPI package and its launch, all as data.
The standard scenarios, the binary, the version, the files and the command line follow from
those; no agent runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from tools.agentlab.actions import Cue, Expect, Keys, Type
from tools.agentlab.base import AgentSpec, Files, Options, RunDirs, Scenario
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
    launch_env: ClassVar[dict[str, str]] = {"TINY_BASE_URL": "{url}/v1", "TINY_UPDATES": "0"}
    launch_args = ("--endpoint", "{url}")
    option_args: ClassVar[dict[str, tuple[str, ...]]] = {
        "plan": ("--plan",),
        "agent": ("--agent", "{}"),
    }

    def settings(self, dirs: RunDirs, url: str, options: Options) -> Files:
        files: Files = {".tiny/config.json": {"baseUrl": f"{url}/v1", "theme": "dark"}}
        if options.get("hooks"):
            files[str(dirs.root / "hooks.toml")] = "[hooks]\n"
        return files


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


def test_a_launch_is_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default launch writes `settings` under HOME (JSON for a mapping, an absolute path
    as it is), starts the binary with `launch_args`, the options' arguments and a dress's, in
    BASE_ENV + HOME + `launch_env`, the fake server's URL put in."""
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path / "lab"))
    dirs = RunDirs(tmp_path, tmp_path / "home", tmp_path / "proj")
    scenario = Tiny().scenarios()["text"]
    options = {"plan": True, "agent": "ask", "hooks": True, "dress_args": ["--light"]}
    argv, env = Tiny().launch(
        dirs, "http://127.0.0.1:9", Scenario("t", "t", scenario.script, [], options=options)
    )
    binary = str(tmp_path / "lab" / "npm-tiny" / "node_modules" / ".bin" / "tiny")
    assert argv == [
        binary, "--endpoint", "http://127.0.0.1:9", "--plan", "--agent", "ask", "--light",
    ]  # fmt: skip
    assert env["HOME"] == str(dirs.home)
    assert env["TINY_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    config = json.loads((dirs.home / ".tiny" / "config.json").read_text())
    assert config == {"baseUrl": "http://127.0.0.1:9/v1", "theme": "dark"}
    assert (tmp_path / "hooks.toml").read_text() == "[hooks]\n"
    # an option that is off adds nothing
    argv, _ = Tiny().launch(dirs, "http://x", Scenario("t", "t", scenario.script, []))
    assert argv == [binary, "--endpoint", "http://x"]


def test_a_pypi_install_gives_binary_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSF_AGENTLAB_HOME", str(tmp_path))
    site = tmp_path / "tiny-venv" / "lib" / "python3.12" / "site-packages"
    (site / "tiny_cli-2.0.1.dist-info").mkdir(parents=True)

    class PyTiny(AgentSpec):
        name = "tiny"
        ui = Tiny.ui
        pypi_dist = "tiny_cli"
        pypi_command = "tiny-cli"

    class Wheel(PyTiny):
        pypi_entry = "tiny_cli/bin/tiny"

    assert PyTiny().binary() == tmp_path / "tiny-venv" / "bin" / "tiny-cli"
    assert PyTiny().read_version() == "2.0.1"
    assert Wheel().binary() == site / "tiny_cli" / "bin" / "tiny"


def test_standard_says_how_the_dialogs_differ() -> None:
    """Standard's optional parts: the keys of the dialog, the edit's and the new file's own
    dialogs and what shows between them, the interrupt keys, a command interrupted while it
    runs, the model's question, plan mode."""
    edit, write, question, plan = (Cue(p) for p in ("Edit?", "Create?", "Which one?", "plan"))
    running = Expect("working", Cue(r"Elapsed"), "the command runs")

    class Fuller(Tiny):
        standard = Standard(
            dialog=ASK, what="approval", first_option="1. Run", bash="the dialog",
            approve=Keys(("y",), "press y"), reject=None, esc=False, slow=running,
            interrupt_keys=("Escape",), edit_dialog=edit, write_dialog=write,
            between=Expect("idle", Cue(r"^> "), "no status row between the dialogs"),
            edit_after="write approved", question=question,
            question_answer=Keys(("2",), "press 2"), question_after=None, plan_idle=plan,
            edits_ask=True, draft=None,
        )  # fmt: skip

    table = Fuller().scenarios()
    assert list(table) == [
        "startup", "text", "bash_yes", "bash_interrupt", "interrupt_esc", "edit_write",
        "long_output", "thinking", "ask_back", "question", "plan_mode",
    ]  # fmt: skip
    assert Keys(("y",), "press y") in table["bash_interrupt"].actions
    assert running in table["bash_interrupt"].actions
    steps = [a for a in table["edit_write"].actions if isinstance(a, Expect)]
    assert [(e.state, e.cue) for e in steps[2:6]] == [
        ("blocked", edit), ("idle", Cue(r"^> ")), ("blocked", write), ("working", WORKING),
    ]  # fmt: skip
    asked = table["question"].actions
    assert Keys(("2",), "press 2") in asked
    # nothing between the answer and the end of the turn
    assert asked[asked.index(Keys(("2",), "press 2")) + 1].state == "idle"  # type: ignore[union-attr]
    assert table["plan_mode"].options == {"plan": True}
