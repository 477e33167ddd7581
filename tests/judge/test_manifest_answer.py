"""The `[answer]` table of a manifest: the keys that answer an agent's blocked prompt."""

from __future__ import annotations

import pytest

from osf_tmux.judge.manifest import Answer, ManifestError, parse_manifest
from osf_tmux.judge.ruleset import load_rules

RULE = {"id": "ask", "state": "blocked", "all": ["Proceed\\?"]}


def manifest(answer: object) -> dict[str, object]:
    return {"agent": "demo", "rule": [RULE], "answer": answer}


def test_answer_keys() -> None:
    m = parse_manifest(manifest({"yes": ["1"], "no": ["Escape"], "option": ["{n}"]}), "demo")
    assert m.answer == Answer(("1",), ("Escape",), ("{n}",))
    assert m.answer.keys("yes") == ("1",)
    assert m.answer.keys("no") == ("Escape",)
    assert m.answer.keys("4") == ("4",)
    for bad in ("0", "10", "maybe", "", "y"):
        assert m.answer.keys(bad) is None


def test_without_options_only_yes_and_no() -> None:
    m = parse_manifest(manifest({"yes": ["y", "Enter"], "no": ["n", "Enter"]}), "demo")
    assert m.answer is not None
    assert m.answer.keys("yes") == ("y", "Enter")
    assert m.answer.keys("2") is None


def test_no_answer_table_means_none() -> None:
    assert parse_manifest({"agent": "demo", "rule": [RULE]}, "demo").answer is None


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("yes", "answer: must be a table"),
        ({"no": ["Escape"]}, "answer.yes: is required"),
        ({"yes": "1", "no": ["Escape"]}, "answer.yes: must be an array of tmux key names"),
        ({"yes": ["1"], "no": []}, "answer.no: must name at least one key"),
        ({"yes": [" 1"], "no": ["Escape"]}, "answer.yes: must be an array"),
        ({"yes": ["1"], "no": ["Escape"], "option": ["x"]}, "answer.option: must contain {n}"),
        ({"yes": ["1"], "no": ["Escape"], "maybe": ["2"]}, "answer.maybe: unknown key"),
        ({"yes": ["1"], "no": ["Escape"], "note": 3}, "answer.note: must be a string"),
    ],
)
def test_bad_answer_tables_are_reported(answer: object, message: str) -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest(manifest(answer), "demo.toml")
    assert any(message in str(p) for p in info.value.problems), info.value.problems


def test_all_problems_at_once() -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest(manifest({"yes": [], "option": ["x"], "odd": 1}), "demo.toml")
    assert len(info.value.problems) == 4


def test_shipped_agents_can_be_answered() -> None:
    rules = load_rules(None)
    assert not rules.problems
    for agent in ("claude", "codex", "gemini", "aider"):
        answer = rules.get(agent).answer
        assert answer is not None, agent
        assert answer.keys("yes") and answer.keys("no")
    claude = rules.get("claude").answer
    assert claude is not None and claude.keys("2") == ("2",)


def test_a_blocked_rule_can_carry_its_own_keys() -> None:
    second = {
        "id": "second-stage",
        "state": "blocked",
        "all": ["Reject permission"],
        "answer": {"yes": ["Escape"], "no": ["Enter"]},
    }
    m = parse_manifest(
        {"agent": "demo", "rule": [RULE, second], "answer": {"yes": ["1"], "no": ["Escape"]}},
        "demo",
    )
    assert m.answer_for("second-stage") == Answer(("Escape",), ("Enter",))
    assert m.answer_for("ask") == m.answer == Answer(("1",), ("Escape",))
    assert m.answer_for(None) == m.answer


def test_a_rules_keys_are_checked_like_the_manifests() -> None:
    rules = [
        {"id": "a", "state": "blocked", "all": ["x"], "answer": {"yes": ["1"]}},
        {"id": "b", "state": "working", "all": ["y"], "answer": {"yes": ["1"], "no": ["2"]}},
    ]
    with pytest.raises(ManifestError) as info:
        parse_manifest({"agent": "demo", "rule": rules}, "demo.toml")
    said = [str(p) for p in info.value.problems]
    assert "demo.toml: rule a: answer.no: is required: the keys that give this answer" in said
    assert "demo.toml: rule b: answer: only a blocked rule's prompt can be answered" in said
