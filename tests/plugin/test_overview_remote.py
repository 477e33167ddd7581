"""`list` with other machines' panes: rows of online hosts only, named `host:session:w.p`,
`host` in the JSON; nothing a status file carries is taken on trust."""

from __future__ import annotations

from typing import Any

from osf_tmux.plugin.overview import as_records, as_table, hosts_away, order, remote_panes


def _row(host: str | None, pane: Any, state: Any = "blocked", **kw: Any) -> dict[str, Any]:
    return {"pane": pane, "target": "work:1.0", "agent": "claude", "state": state,
            "since": 100.0, "host": host, "question": "Proceed?", **kw}  # fmt: skip


STATUS = {
    "panes": [
        _row(None, "%1"),
        _row("devbox", "%3"),
        _row("devbox", "%4", state="pwned"),
        _row("devbox", 5),
        _row("gone", "%7"),
    ],
    "hosts": {"devbox": {"state": "online"}, "gone": {"state": "offline"}},
}


def test_remote_rows_of_online_hosts_with_their_host() -> None:
    panes = remote_panes(STATUS)
    assert [(p.host, p.pane_id, p.where, p.question) for p in panes] == [
        ("devbox", "%3", "devbox:work:1.0", "Proceed?")
    ]
    [record] = as_records(order(panes), 130.0)
    assert (record["host"], record["pane"], record["target"]) == ("devbox", "%3", "work:1.0")
    assert "devbox:work:1.0" in as_table(panes, 130.0)
    assert remote_panes(None) == [] and remote_panes({"panes": [_row("devbox", "%3")]}) == []


def test_hosts_whose_panes_cannot_be_shown_are_named() -> None:
    status = {"hosts": {"devbox": {"state": "online"},
                        "gone": {"state": "offline", "error": "no route\x1b[2J"}}}  # fmt: skip
    assert hosts_away(status) == ["host gone is offline: no route [2J"]
    assert hosts_away(None) == []
