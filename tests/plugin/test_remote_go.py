"""Where `osf-tmux go HOST:TARGET` goes: the session of a pane the host's daemon reported, a
target that names its session, or a refusal that says why."""

from __future__ import annotations

import pytest

from osf_tmux.fleet.hosts import parse_host
from osf_tmux.plugin.remote_go import RemoteError, place_of
from osf_tmux.plugin.remote_window import RemotePlace

DEVBOX = parse_host("devbox")
PANE = {"host": "devbox", "pane": "%3", "target": "work:1.0", "agent": "claude",
        "state": "blocked", "since": 5.0}  # fmt: skip


def test_a_known_pane_by_id_or_target() -> None:
    status = {"hosts": {"devbox": {"state": "online"}}, "panes": [PANE]}
    want = RemotePlace("devbox", "work", "%3", "devbox:work:1.0")
    assert place_of(status, DEVBOX, "%3") == want
    assert place_of(status, DEVBOX, "work:1.0") == want


def test_a_target_that_names_its_session_goes_there_unknown() -> None:
    place = place_of(None, DEVBOX, "play:2.1")
    assert place == RemotePlace("devbox", "play", "play:2.1", "devbox:play:2.1")


@pytest.mark.parametrize("target", ["%9", "work", ":1.0"])
def test_an_unknown_pane_id_or_a_bare_name_is_refused(target: str) -> None:
    with pytest.raises(RemoteError, match="no agent pane the daemon knows"):
        place_of({"hosts": {"devbox": {"state": "online"}}, "panes": [PANE]}, DEVBOX, target)


def test_an_offline_host_says_so_instead_of_opening_a_window() -> None:
    status = {"hosts": {"devbox": {"state": "offline", "error": "Connection refused"}},
              "panes": [PANE]}  # fmt: skip
    with pytest.raises(RemoteError, match="devbox is offline: Connection refused"):
        place_of(status, DEVBOX, "work:1.0")
