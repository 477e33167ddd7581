"""The lab driver's pure pieces."""

from __future__ import annotations

from tools.agentlab.driver import split_title


def test_split_title_keeps_the_last_row_when_the_title_is_empty() -> None:
    # capture-pane's rows, then display's title: an empty title is just a newline.
    out = "one\n╰── box ─╯\n\n"
    assert split_title(out) == ("one\n╰── box ─╯", "")


def test_split_title_keeps_blank_rows_above_an_empty_title() -> None:
    assert split_title("one\n\n\n\n") == ("one\n\n", "")


def test_split_title_with_a_title() -> None:
    assert split_title("one\ntwo\n\nmy title\n") == ("one\ntwo\n", "my title")
