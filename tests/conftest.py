"""Shared fixtures: a private tmux server (own `-L` socket, `-f /dev/null`), killed afterwards.

Never the user's default server. `tmux_server` is per test; `tmux_server_session` is shared by
every test of a run that asks for it (each case then works in its own session)."""

from __future__ import annotations

import gc
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.nodeid import coerce_node_id

from tests.support.examples import set_fast_tier
from tests.support.tmux_server import TMUX, TmuxServer, tmux_version_text

# Where PYTHONDONTWRITEBYTECODE is set (this machine's images set it), every run would rewrite the
# asserts of ~250 test modules and compile the package again: about 4 s of each worker's start.
# The compiled files go under .pytest_cache (ignored by git), not into the source folders.
# The same for every Python the tests start (the CLI, the daemon, the plugin's commands), which
# inherit the environment: each compiled the package's modules it imports again, ~0.1-0.15 s
# of CPU per start (0.38 s against 0.23 s for `osf-tmux --help`).
if sys.dont_write_bytecode:
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(Path(__file__).resolve().parents[1] / ".pytest_cache" / "pyc")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix

TMUX_MISSING = "tmux is not installed (these tests drive a real tmux server)"


def pytest_configure(config: pytest.Config) -> None:
    # Hypothesis tests draw fewer examples in the fast tier (tests/support/examples.py).
    set_fast_tier(config.getoption("markexpr", "") or "")


def pytest_report_header() -> str:
    # Which tmux the live tests drive: the first on PATH (the lab runs them against other
    # releases with PATH=/opt/tmux-VER/bin:$PATH, README "tmux versions tested").
    return f"tmux: {tmux_version_text() or 'not installed'} ({TMUX or 'not on PATH'})"


def _started() -> TmuxServer:
    if shutil.which("tmux") is None:
        pytest.skip(TMUX_MISSING)
    server = TmuxServer()
    server.start()
    return server


@pytest.fixture
def tmux_server() -> Iterator[TmuxServer]:
    server = _started()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="session")
def tmux_server_session() -> Iterator[TmuxServer]:
    server = _started()
    try:
        yield server
    finally:
        server.kill()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (~360,000 objects: every module, item and parameter, the captures'
    labels) lives until the run ends. Frozen, a full `gc.collect()` no longer walks it: the
    desktop notifier collects after every connection it drops (plugin/notify_desktop.py), and
    with the whole suite collected each of those took ~0.1 s, about 7 s of a worker's CPU in
    test_notify_desktop (1.7 s when the file runs alone)."""
    gc.freeze()


def pytest_itemcollected(item: pytest.Item) -> None:
    """A test that drives tmux is live, and every live test is slow: before `-m` deselects. On
    two cores the live tests were a third of the fast tier's CPU and most of its waiting (91
    tests: 21 s of CPU and 49 s of wall of the 100 and 129 of 6,751 tests, measured on
    2026-12-06), so they are a tier of their own (`-m live`) that the whole suite runs."""
    if item.get_closest_marker("tmux") is not None and item.get_closest_marker("live") is None:
        item.add_marker(pytest.mark.live)
    if item.get_closest_marker("live") is not None and item.get_closest_marker("slow") is None:
        item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """loadgroup's scheduling, without the work per test that grows with the run
    (tests/support/xdist_scheduling.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.xdist_scheduling import LeanLoadGroupScheduling

    return LeanLoadGroupScheduling(config, log)


def _shared_server_group(item: pytest.Item) -> set[str]:
    """A module's tests that share its tmux server (a module-scoped fixture of a `tmux` test)
    go to one worker, which starts that server (and the daemon or plugin on it) once. Spread
    over both workers, as each test alone is, each worker started its own (and again after
    each other module's tests in between). Not the real agents' scenarios (opt-in): minutes
    each, side by side, and what they share is a report, not a server."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None or item.get_closest_marker("tmux") is None:
        return set()
    if item.get_closest_marker("live_agents") is not None:
        return set()
    shared = any(
        defs[-1].scope in ("module", "class", "package") for defs in info.name2fixturedefs.values()
    )
    return {item.nodeid.split("::")[0]} if shared else set()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--dist loadgroup` (the README's test command): xdist 3.8 puts a test's group in its node
    id by setting `item._nodeid`, which pytest 9.2 no longer reads (it keeps `_id`), so every
    group was spread over the workers. Set it where pytest reads it; xdist's worker sets
    `config.option.loadgroup` (not set without -n, so a serial run keeps its ids)."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        } or _shared_server_group(item)
        # xdist reads the group after the last `@` past the parameters' `]` (an id may hold `@`)
        if names and item.nodeid.rfind("@") <= item.nodeid.rfind("]"):
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(names))}")
