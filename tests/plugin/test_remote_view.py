"""The remote panes and hosts as the status file tells them, checked for shape: what a remote
sent is text, and the panes of a host that is not online are never shown."""

from __future__ import annotations

from osf_tmux.plugin.jump import Waiting, order, pick, remote_waiting, since_times
from osf_tmux.plugin.remote_view import find, host_states, printable, remote_panes

HOSTS = {
    "devbox": {"state": "online", "since": 10.0},
    "gpu": {"state": "offline", "since": 20.0, "error": "Connection refused"},
}


def remote(
    pane: str, state: str = "blocked", host: str | None = "devbox", **kw: object
) -> dict[str, object]:
    return {"host": host, "pane": pane, "target": f"work:{pane[1:]}.0", "agent": "claude",
            "state": state, "since": 50.0, **kw}  # fmt: skip


def test_panes_of_online_hosts_only() -> None:
    status = {"hosts": HOSTS, "panes": [
        {"host": None, "pane": "%1", "target": "main:1.0", "state": "blocked", "since": 5.0},
        remote("%3"), remote("%4", host="gpu"), remote("%5", host="nowhere")]}  # fmt: skip
    panes = remote_panes(status)
    assert [(p.host, p.pane_id, p.where, p.session) for p in panes] == [
        ("devbox", "%3", "devbox:work:3.0", "work")
    ]
    assert [(h.name, h.state, h.error) for h in host_states(status)] == [
        ("devbox", "online", ""),
        ("gpu", "offline", "Connection refused"),
    ]
    assert find(status, "devbox", "work:3.0") == panes[0]
    assert find(status, "devbox", "%3") == panes[0]
    assert find(status, "gpu", "%4") is None  # its old state is not current


def test_entries_of_another_shape_are_left_out() -> None:
    bad = [
        remote("3"),  # not a pane id
        remote("%3;kill-server"),
        remote("%3", state="exploded"),
        remote("%3", target=""),
        remote("%3", target=["work"]),
        "a string",
        remote("%3", host=None),
    ]
    assert remote_panes({"hosts": HOSTS, "panes": bad}) == []
    assert remote_panes({"hosts": "nonsense", "panes": [remote("%3")]}) == []
    assert remote_panes(None) == [] and host_states(None) == []


def test_remote_text_has_no_control_character_left() -> None:
    status = {"hosts": HOSTS, "panes": [remote(
        "%3", target="wo\x1b]0;x\x07rk:1.0", agent="cla\nude", question="Proceed?\x1b[2J\r",
        options=[{"choice": "1", "label": "Yes\x1b[31m"}, {"choice": "x", "label": "no"},
                 ["2", "No"]])]}  # fmt: skip
    (pane,) = remote_panes(status)
    assert pane.target == "wo?]0;x?rk:1.0"
    assert pane.agent == "cla?ude"
    assert pane.question == "Proceed??[2J?"
    assert pane.options == (("1", "Yes?[31m"), ("2", "No"))


def test_printable_shows_controls_as_text() -> None:
    assert printable("ok\n\tx\x1b[2J\r\x7f\x9b") == "ok\n\tx^[[2J^M^?\\x9b"


def test_next_orders_remote_blocked_panes_with_local_ones() -> None:
    status = {"hosts": HOSTS, "panes": [
        {"pane": "%3", "since": 70.0, "host": None},
        remote("%3", since=40.0), remote("%8", state="done", since=1.0),
        remote("%9", state="working")]}  # fmt: skip
    local = [Waiting("%3", "main:1.0", "blocked", since_times(status)["%3"]),
             Waiting("%6", "main:2.0", "blocked", 60.0)]  # fmt: skip
    panes = local + remote_waiting(status)
    assert [(w.host, w.pane_id) for w in order(panes)] == [
        ("devbox", "%3"), (None, "%6"), (None, "%3"), ("devbox", "%8")]  # fmt: skip
    # the same pane id on two machines: two panes; cycling goes through both
    first = pick(panes, None)
    assert first is not None and first.key == ("devbox", "%3")
    after = pick(panes, ("devbox", "%3"))
    assert after is not None and after.key == (None, "%6")
    by_place = pick(panes, ("devbox", "work:3.0"))  # a window sent there by its target
    assert by_place is not None and by_place.key == (None, "%6")
    last_local = pick(panes, "%3")
    assert last_local is not None and last_local.key == ("devbox", "%8")


def test_since_times_are_local_panes_only() -> None:
    status = {"panes": [{"pane": "%1", "since": 12.5, "host": None}, remote("%1", since=99.0)]}
    assert since_times(status) == {"%1": 12.5}
