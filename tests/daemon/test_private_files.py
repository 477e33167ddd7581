"""The daemon's files are private: FIFOs (every byte a pane prints), pid files, log and status
(prompt excerpts). A directory someone else prepared is refused, never used."""

from __future__ import annotations

import logging
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from osf_tmux.daemon.lifecycle import DaemonFiles, setup_logging
from osf_tmux.daemon.loop import Daemon
from osf_tmux.daemon.source import PanePipe, PipeFactory
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.paths import UnsafeDirectoryError, private_dir, runtime_dir
from osf_tmux.plugin import doctor
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.tmux_server import TmuxServer

NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="only root can give a directory away")


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what most people have: new files 0644 unless made private
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def log_handlers() -> Iterator[None]:
    root = logging.getLogger("osf_tmux")
    before = list(root.handlers)
    try:
        yield
    finally:
        for handler in root.handlers[len(before) :]:
            handler.close()
            root.removeHandler(handler)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_runtime_dirs_are_created_private(tmp_path: Path) -> None:
    run = runtime_dir("srv", {"XDG_RUNTIME_DIR": str(tmp_path)})
    PipeFactory(run).prepare()
    assert mode(run) == 0o700
    assert mode(run.parent) == 0o700  # $XDG_RUNTIME_DIR/osf-tmux, or /tmp/osf-tmux-<uid>


def test_a_symlinked_runtime_dir_is_refused(tmp_path: Path) -> None:
    # Someone made /tmp/osf-tmux-<uid> first, as a link to a directory they can read.
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o777)
    os.chmod(theirs, 0o777)
    (tmp_path / "osf-tmux").symlink_to(theirs)
    run = runtime_dir("srv", {"XDG_RUNTIME_DIR": str(tmp_path)})
    with pytest.raises(UnsafeDirectoryError, match="symbolic link"):
        PipeFactory(run).prepare()
    assert list(theirs.iterdir()) == []  # nothing of ours went there


@as_root
def test_someone_elses_runtime_dir_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "osf-tmux"
    theirs.mkdir(mode=0o777)
    os.chown(theirs, NOBODY, NOBODY)
    run = runtime_dir("srv", {"XDG_RUNTIME_DIR": str(tmp_path)})
    with pytest.raises(UnsafeDirectoryError, match=f"belongs to uid {NOBODY}, not to you"):
        PipeFactory(run).prepare()
    assert list(theirs.iterdir()) == []


def test_a_directory_of_another_uid_is_refused(tmp_path: Path) -> None:
    # The same check without root: the directory is ours, the caller claims another uid.
    (tmp_path / "osf-tmux").mkdir(mode=0o700)
    other = os.getuid() + 1
    with pytest.raises(UnsafeDirectoryError, match=f"not to you \\(uid {other}\\)"):
        private_dir(tmp_path / "osf-tmux" / "srv", uid=other)
    assert not (tmp_path / "osf-tmux" / "srv").exists()


def test_our_own_loose_runtime_dir_is_tightened(tmp_path: Path) -> None:
    # What earlier versions left: the leaf 0700, the directory above it 0755.
    root = tmp_path / "osf-tmux"
    root.mkdir(mode=0o755)
    run = root / "srv"
    run.mkdir(mode=0o700)
    PipeFactory(run).prepare()
    assert (mode(root), mode(run)) == (0o700, 0o700)


def test_a_fifo_swapped_for_a_symlink_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    factory = PipeFactory(tmp_path / "run")
    factory.prepare()
    elsewhere = tmp_path / "elsewhere"
    mkfifo = os.mkfifo

    def swapped(path: str | os.PathLike[str], mode: int = 0o666) -> None:
        # Between mkfifo and open, the FIFO becomes a link to someone else's FIFO.
        mkfifo(elsewhere, 0o600)
        os.symlink(elsewhere, path)

    monkeypatch.setattr(os, "mkfifo", swapped)  # as the daemon calls it
    with pytest.raises(OSError):
        factory.open("%3")


def test_a_loose_fifo_left_in_place_is_not_reused(tmp_path: Path) -> None:
    factory = PipeFactory(tmp_path / "run")
    factory.prepare()
    planted = factory.directory / "pane-4"
    os.mkfifo(planted)
    os.chmod(planted, 0o666)
    listener = os.open(planted, os.O_RDONLY | os.O_NONBLOCK)  # whoever planted it reads it
    pipe = factory.open("%4")
    try:
        assert mode(pipe.path) == 0o600
        os.write(pipe.keep_fd, b"secret")
        try:
            heard = os.read(listener, 64)
        except BlockingIOError:
            heard = b""
        assert heard == b""
    finally:
        pipe.close()
        os.close(listener)


def test_a_symlinked_pid_file_is_not_believed(tmp_path: Path) -> None:
    factory = PipeFactory(tmp_path / "run")
    factory.prepare()
    alive = tmp_path / "alive.pid"
    alive.write_text(str(os.getpid()))
    PanePipe(factory.directory / "pane-5", -1, -1).pid_path.symlink_to(alive)
    assert factory.earlier_pipe("%5") == "unknown"


def test_log_is_private_and_never_written_through_a_link(
    tmp_path: Path, log_handlers: None
) -> None:
    files = DaemonFiles(tmp_path / "state" / "osf-tmux" / "srv", tmp_path / "run")
    setup_logging(files)
    logging.getLogger("osf_tmux.test").info("prompt: Do you want to proceed?")
    assert mode(files.log) == 0o600 and mode(files.state) == 0o700


def test_log_through_a_symlink_is_refused(tmp_path: Path, log_handlers: None) -> None:
    files = DaemonFiles(tmp_path / "state" / "osf-tmux" / "srv", tmp_path / "run")
    private_dir(files.state)
    target = tmp_path / "readable-by-all"
    target.write_text("")
    files.log.symlink_to(target)
    with pytest.raises(OSError):
        setup_logging(files)
    assert target.read_text() == ""


def test_status_file_is_private(tmp_path: Path) -> None:
    files = DaemonFiles(tmp_path / "state" / "osf-tmux" / "srv", tmp_path / "run")
    private_dir(files.state)
    daemon = Daemon(
        Tmux(ServerSpec("nowhere")),
        load_rules(None),
        PipeFactory(files.runtime),
        "token",
        status_file=files.status,
    )
    daemon.write_status()
    assert mode(files.status) == 0o600
    assert '"running": true' in files.status.read_text()


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_start_refuses_an_unsafe_runtime_dir_with_a_clear_message(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "osf-tmux").symlink_to(theirs)
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    env.pop("TMUX", None)
    env.pop("TMUX_PANE", None)
    for command in ("start", "daemon"):
        done = subprocess.run(
            [sys.executable, "-m", "osf_tmux", "-L", tmux_server.socket_name, command],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert "is a symbolic link" in done.stderr
        assert "another user could read" in done.stderr
    assert list(theirs.iterdir()) == []


def test_doctor_names_an_unsafe_runtime_dir(tmp_path: Path) -> None:
    files = DaemonFiles(tmp_path / "state" / "osf-tmux" / "srv", tmp_path / "run" / "srv")
    fresh = doctor.private_dirs(files)
    assert [c.level for c in fresh] == ["ok", "ok"]
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "run").symlink_to(theirs)
    runtime, state = doctor.private_dirs(files)
    assert runtime.level == "fail" and state.level == "ok"
    assert "symbolic link" in runtime.message and "another user" in runtime.message
    assert "rm -r" in runtime.fix and "XDG_RUNTIME_DIR" in runtime.fix
    (tmp_path / "run").unlink()
    (tmp_path / "run").mkdir(mode=0o755)
    os.chmod(tmp_path / "run", 0o755)
    [loose] = [c for c in doctor.private_dirs(files) if c.name == "runtime dir"]
    assert loose.level == "warn" and "755" in loose.message
    private_dir(files.state)
    assert [c.level for c in doctor.private_dirs(files)] == ["warn", "ok"]
    other = os.getuid() + 1
    assert [c.level for c in doctor.private_dirs(files, uid=other)] == ["fail", "fail"]
