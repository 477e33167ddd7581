"""Long command lists: tmux takes at most 16 KB of commands per call, so they are split."""

from __future__ import annotations

import shutil

import pytest

from osf_tmux.tmux import CALL_BYTES, ServerSpec, Tmux, batches, command_bytes
from tests.support.tmux_server import TmuxServer


def test_batches_keep_calls_under_the_limit_and_groups_whole() -> None:
    groups = [
        [["pipe-pane", "-O", "-t", f"%{i}", "x" * 300], ["set-option", "-p", "-t", f"%{i}", "y"]]
        for i in range(200)
    ]
    calls = batches(groups)
    assert len(calls) > 1
    assert [c for call in calls for c in call] == [c for g in groups for c in g]
    for call in calls:
        assert sum(command_bytes(c) for c in call) <= CALL_BYTES
        assert len(call) % 2 == 0  # a pane's two commands never split
    # A group too large for one call still goes, alone.
    huge = [[["set-option", "-g", "@x", "z" * (2 * CALL_BYTES)]], [["display-message", "a"]]]
    assert [len(c) for c in batches(huge)] == [1, 1]


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_long_command_lists_run_in_several_calls(tmux_server: TmuxServer) -> None:
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    commands = [["set-option", "-g", f"@osf_scale_{i}", "v" * 200] for i in range(150)]
    tmux.run_batched([c] for c in commands)
    assert tmux_server.cmd("show-options", "-gv", "@osf_scale_149").strip() == "v" * 200


@pytest.mark.tmux
def test_an_argument_ending_in_a_semicolon_arrives_whole(tmux_server: TmuxServer) -> None:
    tmux = Tmux(ServerSpec(tmux_server.socket_name))
    said = ["make clean;", "a \\;", ";", "x;;", "a;b"]
    out = tmux.run_many([["display-message", "-p", s] for s in said])
    assert out.splitlines() == said
