from __future__ import annotations

from pathlib import Path

import pytest

from osf_tmux.judge.classify import classify, explain
from osf_tmux.judge.manifest import ManifestError, load_manifest, parse_manifest
from osf_tmux.judge.ruleset import UnknownAgentError, load_rules
from osf_tmux.vt.snapshot import Snapshot

GOOD = """
agent = "demo"
name = "Demo agent"
processes = ["demo"]
process_args = ['demo-cli\\.js$']

[[rule]]
id = "ask"
state = "blocked"
region = "tail:4"
all = ['^ *Proceed\\?$', '^ *1\\. Yes']
not = [{ re = 'typing', region = "title" }]

[[rule]]
id = "busy"
state = "working"
any = ['esc to interrupt', { re = '^⠋', region = "title" }]
"""


def write(tmp_path: Path, text: str, name: str = "demo.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_good_manifest_classifies(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, GOOD))
    assert (m.agent, m.name, m.processes) == ("demo", "Demo agent", ("demo",))
    prompt = Snapshot.from_text("old answer\n\nProceed?\n 1. Yes\n 2. No\n")
    assert classify(prompt, m).state == "blocked"
    assert classify(prompt, m).rule == "ask"
    # the same question far above the live area is transcript, not a prompt
    scrolled = Snapshot.from_text("Proceed?\n 1. Yes\n" + "line\n" * 6)
    assert classify(scrolled, m).state == "idle"
    assert classify(scrolled, m).rule is None
    # a `not` condition in another region vetoes the rule
    vetoed = Snapshot.from_text("Proceed?\n 1. Yes", title="typing")
    assert classify(vetoed, m).state == "idle"
    # `any` with a title condition
    assert classify(Snapshot.from_text("x", title="⠋ work"), m).state == "working"


def test_explain_says_why(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, GOOD))
    verdict, traces = explain(Snapshot.from_text("esc to interrupt"), m)
    assert verdict.state == "working"
    assert [t.rule.id for t in traces] == ["ask", "busy"]
    assert not traces[0].matched and "Proceed" in traces[0].reason
    assert traces[1].matched


def test_every_problem_reported_at_once(tmp_path: Path) -> None:
    bad = """
agent = "Bad Name"
colour = "red"
[[rule]]
id = "a"
state = "sleeping"
all = ['(unclosed']
[[rule]]
id = "a"
state = "idle"
region = "tail:0"
all = ['x']
[[rule]]
id = "late"
state = "blocked"
any = [{ re = 'x', region = "nowhere" }]
[[rule]]
id = "empty"
state = "idle"
"""
    with pytest.raises(ManifestError) as info:
        load_manifest(write(tmp_path, bad))
    text = str(info.value)
    for needle in [
        "agent: must be a lower-case name",
        "colour: unknown key",
        "rule a: state: must be one of",
        "rule a: all[1]: bad regex",
        "rule a: id: duplicate id",
        "rule a: region: region 'tail:0'",
        "rule late: any[1]: unknown region 'nowhere'",
        "rule empty: needs at least one condition",
    ]:
        assert needle in text, f"missing {needle!r} in:\n{text}"
    assert all(p.file.endswith("demo.toml") for p in info.value.problems)


def test_blocked_rules_must_come_first() -> None:
    data = {
        "agent": "x",
        "rule": [
            {"id": "w", "state": "working", "all": ["a"]},
            {"id": "b", "state": "blocked", "all": ["b"]},
        ],
    }
    with pytest.raises(ManifestError, match="blocked rules must come first"):
        parse_manifest(data, "x.toml")


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"agent = ", "not valid TOML"), (b"\xff\xfe", "not UTF-8")],
)
def test_unreadable_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(content)
    with pytest.raises(ManifestError, match=message):
        load_manifest(path)
    with pytest.raises(ManifestError, match="cannot read"):
        load_manifest(tmp_path / "missing.toml")


def test_user_manifest_overrides_and_broken_one_is_reported(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped"
    user = tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    write(shipped, GOOD)
    write(shipped, GOOD.replace('"demo"', '"other"', 1), "other.toml")
    write(user, GOOD.replace('name = "Demo agent"', 'name = "Mine"'), "demo.toml")
    write(user, 'agent = "other"\n[[rule]]\nid = 3\n', "other.toml")
    rules = load_rules(user, shipped)
    assert rules.get("demo").name == "Mine"
    assert rules.overridden == frozenset({"demo"})
    assert rules.get("other").source.endswith("shipped/other.toml")
    assert any("user/other.toml" in str(p) for p in rules.problems)
    with pytest.raises(UnknownAgentError, match="unknown agent 'nope'"):
        rules.get("nope")


def test_process_identification(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    rules = load_rules(None, tmp_path)
    assert rules.for_process(["/usr/bin/demo", "--x"]) is rules.get("demo")
    assert rules.for_process(["node", "/opt/lib/demo-cli.js"]) is rules.get("demo")
    assert rules.for_process(["bash"]) is None
    assert rules.for_process([]) is None


def test_shipped_manifests_are_valid() -> None:
    rules = load_rules(user_dir=None)
    assert not rules.problems, rules.problems
    assert {"claude"} <= set(rules.manifests)
