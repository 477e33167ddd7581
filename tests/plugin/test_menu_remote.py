"""The overview menu's rows for other machines: a remote pane shows with its host and takes the
client there (`osf-tmux go`), its answers run `osf-tmux answer devbox:%3`, a host that is not
online is one row that says so, and nothing a remote sent is a format or a command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osf_tmux.judge.answer import Answer
from osf_tmux.plugin.overview import AgentPane, MenuItem, Overview, View, menu_items, with_remote
from osf_tmux.plugin.remote_view import SAFE_AGENT

CLAUDE = Answer(("1",), ("Escape",), ("{n}",))
HOSTS = {
    "devbox": {"state": "online", "since": 10.0},
    "gpu": {"state": "offline", "since": 100.0, "error": "ssh: connect to host gpu: refused"},
    "old": {"state": "incompatible", "error": "osf-tmux 0.1 there"},
}


def entry(
    pane: str, state: str, since: float, host: str | None = "devbox", **kw: object
) -> dict[str, object]:
    return {"host": host, "pane": pane, "target": f"work:{pane[1:]}.0", "agent": "claude",
            "state": state, "since": since, **kw}  # fmt: skip


def menu(
    status: Mapping[str, Any], local: list[AgentPane] | None = None, height: int = 40
) -> list[MenuItem]:
    seen = with_remote(Overview(local or [], View("%9", 120, height), {}), status)
    return menu_items(seen, {"claude": CLAUDE}, lambda t, c: f"answer {t} {c}", 160.0,
                      "/dev/pts/3", lambda t: f"go {t}")  # fmt: skip


def test_remote_rows_show_their_host_and_go_there() -> None:
    status = {"hosts": HOSTS, "panes": [
        entry("%3", "blocked", 40.0, question="Do you want to proceed?",
              options=[{"choice": "1", "label": "Yes"}, {"choice": "2", "label": "Always"}]),
        entry("%4", "working", 100.0), entry("%5", "blocked", 1.0, host="gpu")]}  # fmt: skip
    local = [AgentPane("%3", "main:1.0", "blocked", "claude", 80.0)]
    rows = menu(status, local)
    names = [r.name for r in rows]
    assert names[0].startswith("● devbox:work:3.0  claude     2m  Do you want to proceed?")
    assert rows[0].command == "go devbox:%3"
    answers = [(r.name.strip(), r.command) for r in rows[1:4]]
    assert answers == [
        ("↳ yes (1)", "answer devbox:%3 yes"),
        ("↳ no (Escape)", "answer devbox:%3 no"),
        ("↳ 2. Always", "answer devbox:%3 2"),
    ]
    assert names[4].startswith("● main:1.0")
    assert rows[4].command == "switch-client -c /dev/pts/3 -t %3"
    assert rows[5].command == "answer %3 yes"  # the local %3's own answers
    assert rows[7].name.startswith("◐ devbox:work:4.0") and rows[7].command == "go devbox:%4"
    # gpu is offline: one row that says so and does nothing; its pane %5 is not shown
    host_rows = [r for r in rows if r.name.startswith("-")]
    assert [(r.name, r.key, r.command) for r in host_rows] == [
        ("-gpu: offline for 1m: ssh: connect to host gpu: refused", "", ""),
        ("-old: incompatible: osf-tmux 0.1 there", "", ""),
    ]
    assert not any("%5" in r.command for r in rows)


def test_no_agent_anywhere_still_says_which_hosts_are_offline() -> None:
    rows = menu({"hosts": HOSTS, "panes": [entry("%5", "blocked", 1.0, host="gpu")]})
    assert [r.name for r in rows] == [
        "-no agent runs in any pane",
        "-gpu: offline for 1m: ssh: connect to host gpu: refused",
        "-old: incompatible: osf-tmux 0.1 there",
    ]


def test_hostile_remote_text_is_never_a_format_or_a_command() -> None:
    status = {"hosts": {**HOSTS, "gpu": {"state": "offline", "error": "#(rm -rf ~)\n;x"}},
              "panes": [entry("%3", "blocked", 40.0, agent="#(rm -rf ~)", target="#{pane_id};:1.0",
                              question="Proceed? #(touch /tmp/owned)\n; kill-server \\;",
                              options=[{"choice": "1", "label": "#[fg=red]Yes;"}])]}  # fmt: skip
    rows = menu(status)
    row = rows[0]
    assert "devbox:##{pane_id};:1.0" in row.name
    assert "##(rm -rf ~)" in row.name and "##(touch /tmp/owned)?; kill-server \\;" in row.name
    assert "\n" not in row.name
    assert row.command == "go devbox:%3"  # the pane id only, never the remote's target text
    # an agent name that is no manifest id gets no answers: it would name a file here
    assert not SAFE_AGENT.match("#(rm -rf ~)")
    assert len([r for r in rows if "↳" in r.name]) == 0
    assert rows[-2].name == "-gpu: offline: ##(rm -rf ~)?;x"


def test_a_remote_pane_never_lends_its_times_to_a_local_pane_of_the_same_id() -> None:
    from osf_tmux.plugin.overview import _status_panes

    status = {"panes": [{"pane": "%3", "agent": "codex", "since": 5.0, "host": None},
                        entry("%3", "blocked", 99.0)]}  # fmt: skip
    assert _status_panes(status) == {"%3": ("codex", 5.0)}
