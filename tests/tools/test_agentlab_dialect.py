"""A forced tool shape that applies only when the offered tool takes its arguments
(tools/agentlab/dialect.py `ToolShape.when`): Copilot's ask_user is a form (`requestedSchema`)
in 1.0.102 and a question with choices in 1.0.66, under one name."""

from __future__ import annotations

from tools.agentlab.copilot import FORM_DIALECT
from tools.agentlab.dialect import shape_call

NEUTRAL = {
    "question": "Which database should the app use?",
    "header": "Database",
    "options": [("PostgreSQL", "Robust relational DB"), ("SQLite", "File-based, zero config")],
}
# The argument schemas the two releases offered (their requests to the lab's server).
FORM = {
    "type": "object",
    "properties": {"message": {"type": "string"}, "requestedSchema": {"type": "object"}},
    "required": ["message", "requestedSchema"],
}
CHOICES = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
        "allow_freeform": {"type": "boolean"},
    },
    "required": ["question"],
}


def test_the_form_shape_where_the_tool_takes_a_form() -> None:
    got = shape_call("question", NEUTRAL, {"ask_user": FORM}, FORM_DIALECT)
    assert got is not None and got[0] == "ask_user"
    assert got[1]["message"] == NEUTRAL["question"]
    assert got[1]["requestedSchema"]["properties"]["choice"]["enum"] == ["PostgreSQL", "SQLite"]


def test_the_schema_decides_where_the_tool_takes_choices() -> None:
    got = shape_call("question", NEUTRAL, {"ask_user": CHOICES}, FORM_DIALECT)
    assert got == (
        "ask_user",
        {"question": NEUTRAL["question"], "choices": ["PostgreSQL", "SQLite"]},
    )


def test_the_forced_shape_stands_when_the_tool_is_not_offered() -> None:
    got = shape_call("question", NEUTRAL, {}, FORM_DIALECT)
    assert got is not None and "requestedSchema" in got[1]
