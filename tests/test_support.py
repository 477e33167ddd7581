"""The test support's own pieces that a wrong answer would hide behind flaky tests."""

from __future__ import annotations

import os
import threading

import pytest

from tests.support.tmux_server import environ_now, outside_env


def test_the_environment_is_copied_whole_while_another_thread_changes_it() -> None:
    """pytest's main thread sets and deletes PYTEST_CURRENT_TEST while test_daemon_live's
    threads start panes and daemons; `dict(os.environ)` there raised KeyError (it fails this
    test within a few thousand changes)."""
    errors: list[BaseException] = []
    copies = 0
    stop = threading.Event()

    def reader() -> None:
        nonlocal copies
        try:
            while not stop.is_set():
                env = environ_now()
                assert "PATH" in env
                copies += 1
        except BaseException as e:  # whatever it was, the test reports it
            errors.append(e)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(50_000):
            os.environ["OSF_TEST_RACE"] = "1"
            del os.environ["OSF_TEST_RACE"]
            if errors:
                break
    finally:
        stop.set()
        thread.join()
    assert errors == [] and copies > 0


def test_outside_env_leaves_out_the_outer_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    # monkeypatch puts back a $TMUX the run had (from inside a pane), where `del` lost it.
    monkeypatch.setenv("TMUX", "/tmp/outer,1,0")
    monkeypatch.setenv("TMUX_PANE", "%9")
    env = outside_env()
    assert "TMUX" not in env and "TMUX_PANE" not in env and env["PATH"] == os.environ["PATH"]
