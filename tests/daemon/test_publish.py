from __future__ import annotations

from osf_tmux.daemon.publish import PanePlace, Publisher, summary

PLACES = {"%1": PanePlace("%1", "@1"), "%2": PanePlace("%2", "@1"), "%3": PanePlace("%3", "@2")}


def test_only_changes_are_written() -> None:
    pub = Publisher()
    first = pub.commands({"%1": "working", "%2": None, "%3": "blocked"}, PLACES)
    assert ["set-option", "-p", "-t", "%1", "@osf_state", "working"] in first
    assert ["set-option", "-u", "-p", "-t", "%2", "@osf_state"] in first
    assert ["set-option", "-w", "-t", "@1", "@osf_window_state", "working"] in first
    assert ["set-option", "-w", "-t", "@2", "@osf_window_state", "blocked"] in first
    assert ["set-option", "-g", "@osf_status", "1 blocked"] in first
    assert pub.commands({"%1": "working", "%2": None, "%3": "blocked"}, PLACES) == []
    second = pub.commands({"%1": "done", "%2": None, "%3": "blocked"}, PLACES)
    assert ["set-option", "-p", "-t", "%1", "@osf_state", "done"] in second
    assert ["set-option", "-w", "-t", "@1", "@osf_window_state", "done"] in second
    assert ["set-option", "-g", "@osf_status", "1 blocked · 1 done"] in second
    assert not any("@2" in c for c in second)


def test_clear_unsets_everything_written() -> None:
    pub = Publisher()
    pub.commands({"%1": "idle"}, {"%1": PLACES["%1"]})
    cleared = pub.clear_commands()
    assert ["set-option", "-u", "-p", "-t", "%1", "@osf_state"] in cleared
    assert ["set-option", "-u", "-w", "-t", "@1", "@osf_window_state"] in cleared
    assert ["set-option", "-g", "-u", "@osf_status"] in cleared
    assert pub.clear_commands() == []


def test_summary_counts() -> None:
    s = summary({"a": "blocked", "b": "blocked", "c": "working", "d": None, "e": "idle"})
    assert s["@osf_status"] == "2 blocked"
    assert (s["@osf_blocked_count"], s["@osf_working_count"], s["@osf_idle_count"]) == (
        "2",
        "1",
        "1",
    )
    assert summary({})["@osf_status"] == ""
