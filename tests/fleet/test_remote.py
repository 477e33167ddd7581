"""What a remote daemon says is checked field by field: nothing it sends reaches a status line,
a list or a notification unless it has the shape ours would have."""

from __future__ import annotations

import json

import pytest

from osf_tmux.fleet.remote import MAX_LINE, Hello, Message, ProtocolError, parse_line


def _line(**fields: object) -> bytes:
    base: dict[str, object] = {
        "kind": "transition",
        "time": 1_800_000_000.5,
        "pane": "%3",
        "target": "work:1.0",
        "agent": "claude",
        "before": "working",
        "after": "blocked",
        "rule": "claude.permission",
        "question": "Do you want to proceed?",
    }
    base.update(fields)
    return json.dumps(base).encode()


def test_a_message_of_ours_is_read_whole() -> None:
    assert parse_line(_line()) == Message(
        kind="transition",
        pane="%3",
        target="work:1.0",
        agent="claude",
        after="blocked",
        since=1_800_000_000.5,
        rule="claude.permission",
        question="Do you want to proceed?",
    )
    assert parse_line(b'{"kind":"hello","version":"0.1.0","protocol":1}') == Hello("0.1.0", 1)
    assert parse_line(b'{"kind":"synced"}') == Message("synced")
    gone = parse_line(_line(kind="gone", after=None))
    assert gone == Message("gone", "%3", "work:1.0")


@pytest.mark.parametrize(
    "fields",
    [
        {"pane": "3"},
        {"pane": "%3; rm -rf ~"},
        {"pane": "%99999999999"},
        {"pane": 3},
        {"target": "work"},
        {"target": "work:1.0\n#[fg=red]"},
        {"target": "wo\x1brk:1.0"},
        {"target": "x" * 300 + ":1.0"},
        {"after": "pwned"},
        {"after": 1},
        {"agent": "#(touch /tmp/x)"},
        {"agent": "a" * 41},
    ],
)
def test_a_message_with_a_field_of_the_wrong_shape_is_dropped(fields: dict[str, object]) -> None:
    assert parse_line(_line(**fields)) is None


def test_text_loses_its_control_characters_and_its_length() -> None:
    m = parse_line(_line(question="Do\x1b[31m you\nwant\u2028" + "x" * 1000, rule="r\tx"))
    assert isinstance(m, Message)
    assert "\x1b" not in m.question and "\n" not in m.question and "\u2028" not in m.question
    assert m.question.startswith("Do [31m you want ")
    assert len(m.question) <= 300
    assert m.rule == "r x"


def test_what_is_not_a_message_is_skipped_and_a_huge_line_ends_the_link() -> None:
    for line in (b"", b"not json", b"[1,2]", b'{"kind":"shout"}', b'"hello"'):
        assert parse_line(line) is None
    assert parse_line(_line(time="yesterday")) == Message(
        "transition", "%3", "work:1.0", "claude", "blocked", None, "claude.permission",
        "Do you want to proceed?",
    )  # fmt: skip
    hello = parse_line(b'{"kind":"hello","version":"$(id)","protocol":"1"}')
    assert hello == Hello("unknown", 0)
    with pytest.raises(ProtocolError):
        parse_line(b"x" * (MAX_LINE + 1))
