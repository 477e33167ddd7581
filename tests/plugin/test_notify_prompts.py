"""The notified prompts' book stays bounded however many panes come and go (issue #30)."""

from __future__ import annotations

from pathlib import Path

from osf_tmux.plugin.notify_prompts import PromptBook


def test_panes_closed_while_they_waited_do_not_grow_the_book(tmp_path: Path) -> None:
    # A busy server for a day: 300 panes, each notified once, each closed while its
    # prompt waited (the entry is marked away and stays: it may be a redraw).
    book = PromptBook(tmp_path / "notify-prompts.json")
    for i in range(300):
        pane = f"%{i}:{4000 + i}"
        book.notified(pane, "blocked", f"Run command {i}?", now=1_000_000.0 + 60 * i)
        book.away(pane, "blocked", now=1_000_000.0 + 60 * i + 5)
    assert len(book.entries) <= 256
    newest = "%299:4299"
    assert book.same(newest, "blocked", "Run command 299?") is not None
    assert book.get("%0:4000", "blocked") is None  # the oldest went first
    again = PromptBook(tmp_path / "notify-prompts.json")
    assert again.entries == book.entries
