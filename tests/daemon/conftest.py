"""A private tmux server and one daemon on it, shared by the tests of a module that ask for them
(a module's own `server` or `daemon` fixture takes their place)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.live import DaemonProcess
from tests.support.tmux_server import TmuxServer


@pytest.fixture(scope="module")
def server() -> Iterator[TmuxServer]:
    srv = TmuxServer()
    srv.start()
    try:
        yield srv
    finally:
        srv.kill()


@pytest.fixture(scope="module")
def daemon(server: TmuxServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    d = DaemonProcess(server, tmp_path_factory.mktemp("daemon"))
    d.start()
    try:
        yield d
    finally:
        d.stop()
