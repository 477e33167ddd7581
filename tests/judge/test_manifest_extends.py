"""`extends = "NAME"`: a manifest built on another one's rules, processes and answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from osf_tmux.cli.app import cli
from osf_tmux.judge.manifest import ManifestError, load_manifest, shipped_rules_dir
from osf_tmux.judge.ruleset import load_rules

BASE = """
agent = "base"
processes = ["base-bin"]
process_args = ['base\\.js$']
output_flow = 1.5
[[rule]]
id = "base-prompt"
state = "blocked"
all = ['Allow\\?']
[[rule]]
id = "base-busy"
state = "working"
all = ['busy']
[[rule]]
id = "base-idle"
state = "idle"
all = ['ready']
[answer]
yes = ["y"]
no = ["n"]
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def shipped(tmp_path: Path) -> Path:
    folder = tmp_path / "shipped"
    folder.mkdir()
    write(folder, "base", BASE)
    return folder


def ids(path: Path, shipped: Path) -> list[str]:
    return [r.id for r in load_manifest(path, shipped).rules]


def test_own_rules_come_first_within_blocked_and_within_the_rest(
    tmp_path: Path, shipped: Path
) -> None:
    own = write(
        tmp_path,
        "child",
        """
agent = "child"
extends = "base"
[[rule]]
id = "child-prompt"
state = "blocked"
all = ['Proceed\\?']
[[rule]]
id = "child-busy"
state = "working"
all = ['spinning']
""",
    )
    assert ids(own, shipped) == [
        "child-prompt",
        "base-prompt",
        "child-busy",
        "base-busy",
        "base-idle",
    ]


def test_names_answers_and_flow_come_from_the_base_unless_given(
    tmp_path: Path, shipped: Path
) -> None:
    bare = write(tmp_path, "bare", 'agent = "bare"\nextends = "base"\n')
    m = load_manifest(bare, shipped)
    assert (m.agent, m.extends) == ("bare", "base")
    assert m.processes == ("base-bin",)
    assert [p.pattern for p in m.process_args] == ["base\\.js$"]
    assert m.answer is not None and m.answer.yes == ("y",)
    assert m.output_flow == 1.5

    named = write(
        tmp_path,
        "named",
        'agent = "named"\nextends = "base"\nprocesses = ["mine"]\noutput_flow = 3\n'
        '[answer]\nyes = ["Enter"]\nno = ["Escape"]\n',
    )
    m = load_manifest(named, shipped)
    assert m.processes == ("mine",)
    assert m.process_args == ()  # a program with its own names is another program
    assert m.answer is not None and m.answer.yes == ("Enter",)
    assert m.output_flow == 3.0


def test_an_own_rule_with_a_base_rules_id_takes_its_place(tmp_path: Path, shipped: Path) -> None:
    own = write(
        tmp_path,
        "child",
        'agent = "child"\nextends = "base"\n'
        '[[rule]]\nid = "base-busy"\nstate = "working"\nall = ["other"]\n',
    )
    m = load_manifest(own, shipped)
    assert [r.id for r in m.rules] == ["base-prompt", "base-busy", "base-idle"]
    busy = next(r for r in m.rules if r.id == "base-busy")
    assert [c.pattern.pattern for c in busy.all] == ["other"]


def test_an_unknown_name_is_refused_with_the_names_known(tmp_path: Path, shipped: Path) -> None:
    own = write(tmp_path, "child", 'agent = "child"\nextends = "nosuch"\n')
    with pytest.raises(ManifestError) as err:
        load_manifest(own, shipped)
    text = str(err.value)
    assert "extends" in text and "no manifest named 'nosuch'" in text and "base" in text


def test_a_circle_is_refused(tmp_path: Path, shipped: Path) -> None:
    write(tmp_path, "a", 'agent = "a"\nextends = "b"\n')
    write(tmp_path, "b", 'agent = "b"\nextends = "c"\n')
    write(tmp_path, "c", 'agent = "c"\nextends = "a"\n')
    with pytest.raises(ManifestError) as err:
        load_manifest(tmp_path / "a.toml", shipped)
    assert "circle: a -> b -> c -> a" in str(err.value)


def test_a_broken_base_is_named_in_the_extending_files_problems(
    tmp_path: Path, shipped: Path
) -> None:
    write(tmp_path, "broken", 'agent = "broken"\n[[rule]]\nid = "x"\nstate = "odd"\nall = ["a"]\n')
    own = write(tmp_path, "child", 'agent = "child"\nextends = "broken"\n')
    with pytest.raises(ManifestError) as err:
        load_manifest(own, shipped)
    first, *rest = err.value.problems
    assert "extends 'broken'" in first.message
    assert any("state" in str(p) for p in rest)


def test_extends_must_be_a_name(tmp_path: Path, shipped: Path) -> None:
    own = write(tmp_path, "child", 'agent = "child"\nextends = ["base"]\n')
    with pytest.raises(ManifestError, match="must name another manifest's agent"):
        load_manifest(own, shipped)


def test_a_user_file_extending_its_own_name_builds_on_the_shipped_one(
    tmp_path: Path, shipped: Path
) -> None:
    user = tmp_path / "user"
    user.mkdir()
    write(
        user,
        "base",
        'agent = "base"\nextends = "base"\n'
        '[[rule]]\nid = "mine"\nstate = "blocked"\nall = ["Sure\\\\?"]\n',
    )
    rules = load_rules(user, shipped)
    assert rules.problems == ()
    m = rules.get("base")
    assert [r.id for r in m.rules] == ["mine", "base-prompt", "base-busy", "base-idle"]
    assert "base" in rules.overridden


def test_a_user_manifest_extends_a_shipped_one(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    write(user, "mytool", 'agent = "mytool"\nextends = "generic"\nprocesses = ["mytool"]\n')
    rules = load_rules(user)
    assert rules.problems == ()
    mine, generic = rules.get("mytool"), rules.get("generic")
    assert [r.id for r in mine.rules] == [r.id for r in generic.rules]
    assert mine.output_flow == generic.output_flow is not None
    assert rules.for_process(["/usr/bin/mytool", "--x"]) is mine


def test_kilo_extends_opencode() -> None:
    kilo = load_manifest(shipped_rules_dir() / "kilo.toml")
    opencode = load_manifest(shipped_rules_dir() / "opencode.toml")
    assert kilo.extends == "opencode"
    assert kilo.rules == opencode.rules
    assert kilo.processes == ("kilo", ".kilo") and "opencode" not in kilo.processes


def test_rules_check_says_what_is_wrong(tmp_path: Path) -> None:
    write(tmp_path, "a", 'agent = "a"\nextends = "b"\n')
    write(tmp_path, "b", 'agent = "b"\nextends = "a"\n')
    write(tmp_path, "lost", 'agent = "lost"\nextends = "nosuch"\n')
    ok = write(tmp_path, "fine", 'agent = "fine"\nextends = "generic"\nprocesses = ["fine"]\n')
    runner = CliRunner()
    result = runner.invoke(cli, ["rules", "check", str(tmp_path / "a.toml"), str(ok)])
    assert result.exit_code == 1
    assert "circle: a -> b -> a" in result.output
    assert f"ok: {ok} (fine," in result.output and "extends generic" in result.output
    result = runner.invoke(cli, ["rules", "check", str(tmp_path / "lost.toml")])
    assert result.exit_code == 1 and "no manifest named 'nosuch'" in result.output
