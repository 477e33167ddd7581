"""The FIFO a pane's bytes come through: reading it, and what its write stamp tells."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.source import READ_SIZE, PanePipe, PipeFactory


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[tuple[PanePipe, int]]:
    factory = PipeFactory(tmp_path / "run")
    factory.prepare()
    p = factory.open("%7")
    writer = os.open(p.path, os.O_WRONLY | os.O_NONBLOCK)
    yield p, writer
    os.close(writer)
    p.close()


def test_read_says_whether_the_fifo_was_drained(pipe: tuple[PanePipe, int]) -> None:
    p, writer = pipe
    assert p.read() == b"" and p.drained
    os.write(writer, b"x" * (3 * READ_SIZE))
    assert len(p.read(limit=1)) == READ_SIZE and not p.drained
    assert len(p.read()) == 2 * READ_SIZE and p.drained


def test_the_write_stamp_says_when_the_fifo_was_last_written(pipe: tuple[PanePipe, int]) -> None:
    p, writer = pipe
    os.write(writer, b"frame")
    before = time.time()
    # As if the write had happened a while ago (the kernel sets the stamp; utime stands in).
    earlier = time.time_ns() - 250_000_000
    os.utime(p.path, ns=(earlier, earlier))
    assert p.read() == b"frame"
    assert p.write_stamp() == earlier / 1e9
    # A stamp that has not moved since it was last seen tells nothing new.
    assert p.write_stamp() is None
    os.write(writer, b"next")
    assert p.read() == b"next"
    stamp = p.write_stamp()
    if stamp is not None:  # None: a filesystem that does not stamp FIFO writes
        assert before - 1 < stamp < time.time() + 1
