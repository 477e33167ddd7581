from __future__ import annotations

from osf_tmux.plugin.jump import Waiting, jump_commands, order, pick, since_times


def w(pane: str, state: str, since: float) -> Waiting:
    return Waiting(pane, f"s:{pane}", state, since)


PANES = [w("%4", "done", 10.0), w("%2", "blocked", 50.0), w("%7", "blocked", 20.0)]


def test_blocked_first_longest_waiting_first() -> None:
    assert [p.pane_id for p in order(PANES)] == ["%7", "%2", "%4"]


def test_repeated_presses_cycle() -> None:
    seen = []
    current = "%0"  # somewhere that does not wait
    for _ in range(4):
        target = pick(PANES, current)
        assert target is not None
        seen.append(target.pane_id)
        current = target.pane_id
    assert seen == ["%7", "%2", "%4", "%7"]
    assert pick([], "%1") is None


def test_unknown_times_come_last_in_pane_order() -> None:
    panes = [w("%9", "blocked", float("inf")), w("%3", "blocked", float("inf")), PANES[1]]
    assert [p.pane_id for p in order(panes)] == ["%2", "%3", "%9"]


def test_since_times_from_status() -> None:
    status = {"panes": [{"pane": "%1", "since": 12.5}, {"pane": "%2", "since": None}, {}]}
    assert since_times(status) == {"%1": 12.5}
    assert since_times(None) == {}


def test_jump_targets_the_client() -> None:
    assert jump_commands("%3", "/dev/pts/1") == [["switch-client", "-c", "/dev/pts/1", "-t", "%3"]]
    assert jump_commands("%3", None) == [["switch-client", "-t", "%3"]]
