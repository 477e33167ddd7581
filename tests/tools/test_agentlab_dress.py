"""The lab's pane environment and dresses (tools/agentlab/dress.py, `record --dress`): what an
agent's environment holds in a plain lab pane and in each dress. No agent runs; one test starts
a private tmux server to check the values against what tmux itself gives a pane's program."""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from tests.support.tmux_server import retry_until
from tools.agentlab import dress as lab_dress
from tools.agentlab.base import BASE_ENV, AgentSpec, RunDirs
from tools.agentlab.claude import Claude
from tools.agentlab.copilot import Copilot
from tools.agentlab.dress import COMMON_DRESSES, PANE, Dress, PaneFacts, combine, pane_env
from tools.agentlab.driver import Recorder
from tools.agentlab.droid import Droid
from tools.agentlab.gemini import Gemini
from tools.agentlab.grok_build import GrokBuild
from tools.agentlab.kilo import SLOW_SNAPSHOT_MS, Kilo
from tools.agentlab.kimi import Kimi
from tools.agentlab.kimi_code import KimiCode
from tools.agentlab.qwen import Qwen
from tools.agentlab.vibe import Vibe

FACTS = PaneFacts(
    socket_path="/tmp/tmux-0/osf-agentlab-1-ab",
    server_pid=4242,
    session_id="$3",
    pane_id="%7",
    version="3.3a",
    terminal="tmux-256color",
)
AGENT_ENV = {**BASE_ENV, "HOME": "/tmp/h", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}


def test_plain_pane_gives_what_tmux_gives() -> None:
    env = pane_env(AGENT_ENV, FACTS, PANE)
    assert env["TMUX"] == "/tmp/tmux-0/osf-agentlab-1-ab,4242,3"
    assert env["TMUX_PANE"] == "%7"
    assert env["TERM_PROGRAM"] == "tmux"
    assert env["TERM_PROGRAM_VERSION"] == "3.3a"
    assert env["TERM"] == "tmux-256color"
    # the adapter's own variables and the terminal's colour claim stay
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["COLORTERM"] == "truecolor"
    assert env["LANG"] == "C.UTF-8"


def test_term_is_the_servers_default_terminal() -> None:
    facts = PaneFacts(**{**FACTS.__dict__, "terminal": "screen"})
    assert pane_env(AGENT_ENV, facts, PANE)["TERM"] == "screen"


@pytest.mark.parametrize(
    ("name", "term", "colorterm"),
    [("256", "xterm-256color", None), ("screen", "screen", None)],
)
def test_terminal_dresses_change_term_and_drop_colorterm(
    name: str, term: str, colorterm: str | None
) -> None:
    dress = COMMON_DRESSES[name]
    assert dress.terminal == term
    facts = PaneFacts(**{**FACTS.__dict__, "terminal": dress.terminal})
    env = pane_env(AGENT_ENV, facts, dress)
    assert env["TERM"] == term
    assert env.get("COLORTERM") == colorterm
    assert env["TMUX"].endswith(",4242,3")


def test_ascii_and_nocolor() -> None:
    ascii_env = pane_env(AGENT_ENV, FACTS, COMMON_DRESSES["ascii"])
    assert (ascii_env["LANG"], ascii_env["LC_ALL"]) == ("C", "C")
    assert "NO_COLOR" not in ascii_env
    assert pane_env(AGENT_ENV, FACTS, COMMON_DRESSES["nocolor"])["NO_COLOR"] == "1"


def test_notmux_is_the_old_lab_environment() -> None:
    env = pane_env({**AGENT_ENV, "TMUX": "stale"}, FACTS, COMMON_DRESSES["notmux"])
    assert not any(k in env for k in lab_dress.TMUX_VARS)
    assert env == {**AGENT_ENV}


def test_combined_dresses() -> None:
    both = combine([COMMON_DRESSES["256"], COMMON_DRESSES["nocolor"]])
    assert both.name == "256+nocolor"
    env = pane_env(AGENT_ENV, PaneFacts(**{**FACTS.__dict__, "terminal": both.terminal}), both)
    assert (env["TERM"], env["NO_COLOR"], "COLORTERM" in env) == ("xterm-256color", "1", False)
    assert combine([]) is PANE


def test_agent_dress_lookup_and_options() -> None:
    agent = Qwen()
    assert set(COMMON_DRESSES) <= set(agent.all_dresses())
    with pytest.raises(SystemExit, match="unknown dress"):
        agent.dress("no-such-dress")
    # a dress with options rides in every scenario's options, for the adapter's launch
    own = Dress("probe", "test", options={"probe": True})
    played = agent.configured_scenarios(None, own)["text"]
    assert played.options["probe"] is True
    assert "probe" not in agent.configured_scenarios(None)["text"].options


def test_combined_dresses_keep_tmux_options() -> None:
    light = Copilot().dress("light+nocolor")
    assert light.tmux_options == lab_dress.LIGHT_WINDOW
    assert pane_env(AGENT_ENV, FACTS, light)["NO_COLOR"] == "1"
    assert COMMON_DRESSES["256"].tmux_options == {}


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


def test_lab_pane_environment_matches_tmux(tmp_path: Path) -> None:
    """The values the lab computes are those a real pane's program gets from the lab server."""
    agent = Qwen()
    scenario = agent.scenarios()["text"]
    for dress in (PANE, COMMON_DRESSES["screen"]):
        out = tmp_path / f"env-{dress.name}.txt"
        rec = Recorder(agent, scenario, 80, 24, tmp_path, verbose=False, pipe=False, dress=dress)
        try:
            rec.start_server(f"sh -c {shlex.quote(f'env > {out}.tmp; mv {out}.tmp {out}')}")
            facts = rec.pane_facts()
            text = retry_until(functools.partial(_read, out), what="pane env")
        finally:
            rec.tmux.kill()
        real = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        ours = pane_env({}, facts, dress)
        for key in (*lab_dress.TMUX_VARS, "TERM"):
            assert ours[key] == real[key], key
        assert real["TERM"] == dress.terminal


@pytest.mark.parametrize(
    ("name", "ui"),
    [
        ("light", {"theme": "Qwen Light"}),
        ("screenreader", {"accessibility": {"screenReader": True}}),
        ("nophrases", {"accessibility": {"enableLoadingPhrases": False}}),
        ("light+screenreader", {"theme": "Qwen Light", "accessibility": {"screenReader": True}}),
    ],
)
def test_qwen_dresses_write_its_settings(tmp_path: Path, name: str, ui: dict[str, object]) -> None:
    agent = Qwen()
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    scenario = agent.configured_scenarios(None, agent.dress(name))["text"]
    agent.launch(dirs, "http://127.0.0.1:9", scenario)
    settings = json.loads((dirs.home / ".qwen" / "settings.json").read_text())
    assert settings["ui"] == ui
    # the plain pane writes no ui settings
    plain = tmp_path / "plain"
    dirs = RunDirs(root=plain, home=plain / "home", proj=plain / "proj")
    dirs.home.mkdir(parents=True)
    agent.launch(dirs, "http://127.0.0.1:9", agent.scenarios()["text"])
    assert "ui" not in json.loads((dirs.home / ".qwen" / "settings.json").read_text())


def test_gemini_dresses_write_its_settings(tmp_path: Path) -> None:
    agent = Gemini()
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    scenario = agent.configured_scenarios(None, agent.dress("light+nophrases"))["text"]
    agent.launch(dirs, "http://127.0.0.1:9", scenario)
    settings = json.loads((dirs.home / ".gemini" / "settings.json").read_text())
    assert settings["ui"] == {
        "theme": "Default Light",
        "accessibility": {"enableLoadingPhrases": False},
    }


def test_old_folders_are_not_recorded_over(tmp_path: Path) -> None:
    """A folder recorded before the pane's environment keeps its captures."""
    from tools.agentlab.__main__ import _recorded_outside_tmux

    (tmp_path / "text-120x32.labels.json").write_text(json.dumps({"segments": []}))
    assert _recorded_outside_tmux(tmp_path)
    (tmp_path / "text-120x32.labels.json").write_text(json.dumps({"environment": {}}))
    assert not _recorded_outside_tmux(tmp_path)
    assert not _recorded_outside_tmux(tmp_path / "new")


def test_claude_notitle_dress_sets_its_variable() -> None:
    dress = Claude().dress("notitle")
    env = pane_env(AGENT_ENV, FACTS, dress)
    assert env["CLAUDE_CODE_DISABLE_TERMINAL_TITLE"] == "1"
    assert env["TMUX"].endswith(",4242,3")
    assert Claude().dress("light").options == {"theme": "light"}


def _launch(agent: AgentSpec, root: Path, dress: str | None) -> RunDirs:
    """Write what the agent's launch writes for `text` in a dress (None: the plain pane)."""
    dirs = RunDirs(root=root, home=root / "home", proj=root / "proj")
    dirs.home.mkdir(parents=True)
    dirs.proj.mkdir()
    scenarios = agent.configured_scenarios(None, agent.dress(dress)) if dress else None
    agent.launch(dirs, "http://127.0.0.1:9", (scenarios or agent.scenarios())["text"])
    return dirs


def test_claude_reduced_motion_and_accessibility(tmp_path: Path) -> None:
    agent = Claude()
    settings = _launch(agent, tmp_path / "rm", "reducedmotion").home / ".claude" / "settings.json"
    assert json.loads(settings.read_text())["prefersReducedMotion"] is True
    plain = _launch(agent, tmp_path / "plain", None).home / ".claude" / "settings.json"
    assert "prefersReducedMotion" not in json.loads(plain.read_text())
    env = pane_env(AGENT_ENV, FACTS, agent.dress("accessibility"))
    assert env["CLAUDE_CODE_ACCESSIBILITY"] == "1"


def _toml(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads(path.read_text())
    return data


@pytest.mark.parametrize(
    ("agent", "read"),
    [
        (GrokBuild(), lambda d: _toml(d.home / ".grok" / "config.toml").get("ui", {}).get("theme")),
        (KimiCode(), lambda d: _toml(d.home / ".kimi-code" / "tui.toml").get("theme")),
        (Kimi(), lambda d: _toml(d.home / ".kimi" / "config.toml").get("theme")),
        (Vibe(), lambda d: _toml(d.home / ".vibe" / "config.toml").get("theme")),
        (
            Droid(),
            lambda d: json.loads((d.home / ".factory" / "settings.json").read_text()).get("theme"),
        ),
    ],
    ids=lambda v: getattr(v, "name", ""),
)
def test_light_dresses_write_the_theme(
    tmp_path: Path, agent: AgentSpec, read: Callable[[RunDirs], object]
) -> None:
    """Each `light` dress names the agent's light theme where the agent reads it, the file
    still parses, and the plain pane names none (the agent's default)."""
    assert (
        read(_launch(agent, tmp_path / "light", "light")) == agent.dress("light").options["theme"]
    )
    assert read(_launch(agent, tmp_path / "plain", None)) is None


def test_grok_build_light_joins_the_remember_configs_ui_table(tmp_path: Path) -> None:
    agent = GrokBuild()
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    scenario = next(iter(agent.configured_scenarios("remember", agent.dress("light")).values()))
    agent.launch(dirs, "http://127.0.0.1:9", scenario)
    ui = _toml(dirs.home / ".grok" / "config.toml")["ui"]
    assert ui == {"remember_tool_approvals": True, "theme": "grokday"}


def test_grok_build_minimal_dress_starts_minimal_with_its_own_cues(tmp_path: Path) -> None:
    """`--dress minimal` starts `grok --minimal` and plays the scenarios with the cues of that
    screen (no input box, no key-hint footer); the plain pane is left as it was."""
    from tools.agentlab import grok_build as lab_grok

    agent = GrokBuild()
    dirs = RunDirs(root=tmp_path, home=tmp_path / "home", proj=tmp_path / "proj")
    dirs.home.mkdir()
    table = agent.configured_scenarios(None, agent.dress("minimal"))
    assert set(table) == {
        "startup",
        "text",
        "bash_yes",
        "bash_no",
        "edit_write",
        "question",
        "plan",
    }
    argv, _ = agent.launch(dirs, "http://127.0.0.1:9", table["bash_yes"])
    assert argv[1:] == ["--minimal"]
    cues = [a.cue.pattern for a in table["bash_yes"].actions if hasattr(a, "cue")]
    assert lab_grok.MIN_PERMISSION.pattern in cues and lab_grok.MIN_IDLE.pattern in cues
    plain = agent.scenarios()
    assert agent.launch(dirs, "http://127.0.0.1:9", plain["bash_yes"])[0][1:] == []
    assert lab_grok.PERMISSION.pattern in [
        a.cue.pattern for a in plain["bash_yes"].actions if hasattr(a, "cue")
    ]


# Asks tmux for the default background (OSC 11), then for the device attributes (DA1, which tmux
# always answers), and writes what came back once the DA1 answer is in.
_COLOUR_QUERY = """
import os, sys, tty
fd = sys.stdin.fileno()
tty.setraw(fd)
os.write(1, b"\\033]11;?\\033\\\\\\033[c")
got = b""
while not got.endswith(b"c"):
    got += os.read(fd, 100)
open(sys.argv[1] + ".tmp", "wb").write(got)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
"""


def _read_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def test_light_terminal_dress_answers_the_background_query(tmp_path: Path) -> None:
    """Copilot CLI picks its palette from the background the terminal reports; tmux 3.3a
    answers OSC 11 from window-style only, which the `light` dress sets on the lab server
    before the pane starts. The plain pane answers no colour."""
    script = tmp_path / "query.py"
    script.write_text(_COLOUR_QUERY)
    agent = Qwen()
    scenario = agent.scenarios()["text"]
    answers: dict[str, bytes] = {}
    for dress in (PANE, Copilot().dress("light")):
        out = tmp_path / f"answer-{dress.name}"
        rec = Recorder(agent, scenario, 80, 24, tmp_path, verbose=False, pipe=False, dress=dress)
        try:
            rec.start_server(shlex.join([sys.executable, str(script), str(out)]))
            answers[dress.name] = retry_until(functools.partial(_read_bytes, out), what="answer")
        finally:
            rec.tmux.kill()
    assert b"]11;rgb:ffff/ffff/ffff" in answers["light"]
    assert b"]11;" not in answers["pane"]


def test_kilo_never_waits_on_its_snapshot_question_but_in_snapshot_slow(tmp_path: Path) -> None:
    """Kilo starts with `snapshot: false` (what its slow-snapshot question's `Disable for this
    project` writes), except in `snapshot_slow`, which keeps snapshots on and makes tracking
    time out at once so that the question comes up."""
    agent = Kilo()
    plain = _launch(agent, tmp_path / "plain", None)
    config = json.loads((plain.home / ".config" / "kilo" / "kilo.json").read_text())
    assert config["snapshot"] is False
    dirs = RunDirs(root=tmp_path / "slow", home=tmp_path / "slow" / "home", proj=tmp_path / "p")
    dirs.home.mkdir(parents=True)
    _, env = agent.launch(dirs, "http://127.0.0.1:9", agent.scenarios()["snapshot_slow"])
    config = json.loads((dirs.home / ".config" / "kilo" / "kilo.json").read_text())
    assert "snapshot" not in config
    assert env["KILO_SNAPSHOT_TRACK_TIMEOUT_MS"] == SLOW_SNAPSHOT_MS
