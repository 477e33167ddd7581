"""The hook endpoint: real payloads to states, silence outside tmux, `@osf_report` on the right
pane of a private server, and the daemon woken."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import report
from tests.support.tmux_server import TmuxServer, retry_until

CAPTURES = Path(__file__).resolve().parents[2] / "captures"
CLAUDE_HOOKS = CAPTURES / "claude-2.1.328" / "j_hooks_bash-120x32.hooks.jsonl"
CODEX_HOOKS = sorted((CAPTURES / "codex-0.169.0").glob("*.hooks.jsonl"))


def claude_events() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CLAUDE_HOOKS.read_text().splitlines()]


def codex_records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(kind, payload): kind is the hook event, or "notify" with the JSON Codex passed as argv."""
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec["argv"][0] == "notify":
            out.append(("notify", json.loads(rec["argv"][1])))
        else:
            out.append((rec["argv"][1], json.loads(rec["stdin"])))
    return out


def test_claude_payloads_in_order() -> None:
    states = [(e["event"], report.state_for("claude", e["payload"])) for e in claude_events()]
    assert states == [
        ("SessionStart", None),
        ("UserPromptSubmit", "working"),
        ("PreToolUse", "working"),
        ("MessageDisplay", None),
        ("PermissionRequest", "blocked"),
        ("PostToolUse", None),
        ("PostToolBatch", None),
        ("MessageDisplay", None),
        ("Stop", "done"),
        ("Notification", "idle"),  # idle_prompt, 60 s after Stop
        ("SessionEnd", None),
    ]


def test_claude_notifications_by_type() -> None:
    base = {"hook_event_name": "Notification", "message": "Claude needs your permission"}
    assert report.state_for("claude", {**base, "notification_type": "permission_prompt"}) == (
        "blocked"
    )
    assert report.state_for("claude", {**base, "notification_type": "idle_prompt"}) == "idle"
    assert report.state_for("claude", {**base, "notification_type": "auth_success"}) is None
    assert report.state_for("claude", base) is None
    assert report.state_for("claude", {"hook_event_name": "SubagentStop"}) is None


@pytest.mark.parametrize("path", CODEX_HOOKS, ids=lambda p: p.name)
def test_codex_payloads_and_the_title_thread(path: Path) -> None:
    records = codex_records(path)
    states = [(kind, report.state_for("codex", p)) for kind, p in records]
    notifies = [s for kind, s in states if kind == "notify"]
    # Two agent-turn-complete per capture: the title side thread's first (ignored), then the
    # real turn's.
    assert notifies == [None, "done"]
    sessions = {p["session_id"] for kind, p in records if kind != "notify"}
    for kind, payload in records:
        if kind == "notify":
            is_main = payload["thread-id"] in sessions
            assert (report.state_for("codex", payload) == "done") == is_main
    hooks = dict((k, s) for k, s in states if k != "notify")
    assert hooks["UserPromptSubmit"] == "working"
    assert hooks["Stop"] == "done"
    assert hooks["SessionStart"] is None
    if "PermissionRequest" in hooks:
        assert hooks["PermissionRequest"] == "blocked"
        assert hooks["PreToolUse"] == "working"


def test_codex_notify_payload_comes_as_an_argument() -> None:
    _, notify = next(r for r in codex_records(CODEX_HOOKS[0])[::-1] if r[0] == "notify")
    args = [json.dumps(notify)]
    # (stdin is not even looked at when the payload is an argument)
    assert report.read_payload(args, stdin_fd=-1) == notify


def test_gemini_payloads() -> None:
    perm = {"hook_event_name": "Notification", "notification_type": "ToolPermission"}
    assert report.state_for("gemini", perm) == "blocked"
    assert report.state_for("gemini", {"hook_event_name": "BeforeAgent"}) == "working"
    assert report.state_for("gemini", {"hook_event_name": "BeforeTool"}) == "working"
    assert report.state_for("gemini", {"hook_event_name": "AfterAgent"}) == "done"
    assert report.state_for("gemini", {"hook_event_name": "AfterModel"}) is None


def test_unknown_agent_or_shapes_report_nothing() -> None:
    assert report.state_for("aider", {"hook_event_name": "Stop"}) is None
    assert report.state_for("claude", {"hook_event_name": 3}) is None
    assert report.state_for("codex", {"type": "agent-turn-complete", "thread-id": "x"}) == "done"


def test_json_parsing_without_the_json_module() -> None:
    assert report.parse_json(b' {"a": [1, 2.5, null, true, "\\u00e9"]}\n') == {
        "a": [1, 2.5, None, True, "é"]
    }
    for bad in (b"", b"{", b'{"a": 1,}', b'{"a": 1} trailing', b"\xff\xfe"):
        assert report.parse_json(bad) is None


# ---- the endpoint as a process ----------------------------------------------------------------


def _fake_tmux(tmp_path: Path) -> tuple[Path, Path]:
    """A `tmux` on PATH that only records that it was run."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "tmux-calls"
    tmux = bindir / "tmux"
    tmux.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    tmux.chmod(0o755)
    return bindir, log


def _endpoint(
    agent: str, payload: bytes, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[bytes]:
    argv = agent_hooks.notify_argv(agent) + list(args)
    return subprocess.run(argv, input=payload, env=env, capture_output=True, timeout=30)


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env.update(extra)
    return env


def test_outside_tmux_it_does_nothing_and_says_nothing(tmp_path: Path) -> None:
    bindir, log = _fake_tmux(tmp_path)
    env = _clean_env(PATH=f"{bindir}:{os.environ['PATH']}")
    stop = json.dumps({"hook_event_name": "Stop"}).encode()
    for e in (env, {**env, "TMUX": "/tmp/x,1,0"}, {**env, "TMUX_PANE": "%1"}):
        proc = _endpoint("claude", stop, e)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not log.exists()


def test_it_never_fails_the_agent(tmp_path: Path) -> None:
    bindir, log = _fake_tmux(tmp_path)
    env = _clean_env(PATH=f"{bindir}:{os.environ['PATH']}", TMUX="/nonexistent,1,0",
                     TMUX_PANE="%1")  # fmt: skip
    for payload in (b"", b"not json", b"[1, 2]", b'{"hook_event_name": "Stop"'):
        proc = _endpoint("claude", payload, env)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not log.exists()  # nothing worth reporting: tmux not even asked
    # no tmux at all, a server that is not there, no agent argument
    for path in ("/nonexistent", os.environ["PATH"]):
        proc = _endpoint("claude", b'{"hook_event_name": "Stop"}', {**env, "PATH": path})
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    proc = subprocess.run(agent_hooks.notify_argv("claude")[:-1], input=b"{}", env=env,
                          capture_output=True, timeout=30)  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_it_does_not_wait_for_a_terminal_on_stdin(tmp_path: Path) -> None:
    # Codex's notify may inherit the terminal: the payload is the argument, stdin is not read.
    import pty

    master, slave = pty.openpty()
    try:
        bindir, log = _fake_tmux(tmp_path)
        env = _clean_env(PATH=f"{bindir}:{os.environ['PATH']}", TMUX="/s,1,0", TMUX_PANE="%7")
        argv = [*agent_hooks.notify_argv("codex"), '{"type": "agent-turn-complete"}']
        proc = subprocess.run(argv, stdin=slave, env=env, capture_output=True, timeout=30)
        assert proc.returncode == 0
        assert "-t %7 @osf_report done" in log.read_text()
        # a hook (no argument) with a terminal for stdin reports nothing and returns at once
        proc = subprocess.run(argv[:-1], stdin=slave, env=env, capture_output=True, timeout=30)
        assert proc.returncode == 0
        assert log.read_text().count("@osf_report") == 1
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.tmux
def test_report_lands_on_the_right_pane_and_wakes_the_daemon(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    ours = tmux_server.new_pane(["sleep", "3600"], 80, 24)
    other = tmux_server.new_pane(["sleep", "3600"], 80, 24)
    socket = tmux_server.cmd("display-message", "-p", "#{socket_path}").strip()
    # The daemon's waiter: a tmux client that ends when the wake channel is signalled.
    waiter = subprocess.Popen(
        [tmux_server.tmux, "-L", tmux_server.socket_name, "wait-for", report.WAKE_CHANNEL]
    )
    try:
        env = _clean_env(TMUX=f"{socket},{tmux_server.pid},0", TMUX_PANE=ours)
        event = next(e for e in claude_events() if e["event"] == "PermissionRequest")
        proc = _endpoint("claude", json.dumps(event["payload"]).encode(), env)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

        def option(pane: str) -> str:
            out = tmux_server.cmd("show-options", "-p", "-v", "-t", pane, "@osf_report",
                                  check=False)  # fmt: skip
            return out.strip()

        state, epoch, agent = option(ours).split()
        assert (state, agent) == ("blocked", "claude")
        assert abs(float(epoch) - time.time()) < 30
        assert option(other) == ""
        assert waiter.wait(timeout=10) == 0  # woken
    finally:
        if waiter.poll() is None:
            waiter.kill()
        waiter.wait(timeout=10)


def test_the_wake_channel_is_the_daemons() -> None:
    from osf_tmux.daemon.tmux_hooks import CHANNEL

    assert report.WAKE_CHANNEL == CHANNEL


@pytest.mark.tmux
def test_a_stale_daemon_pid_of_another_program_is_not_signalled(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """An older daemon published its pid; after it died, that pid may be any program's. One
    whose command line happens to say `osf` (a file name) passed the old check, and SIGUSR1
    killed it. The endpoint signals no process at all now."""
    pane = tmux_server.new_pane(["sleep", "3600"], 80, 24)
    socket = tmux_server.cmd("display-message", "-p", "#{socket_path}").strip()
    bystander = subprocess.Popen(  # SIGUSR1 would kill it
        [sys.executable, "-c", "import time; time.sleep(3600)", "notes-on-osf-tmux.txt"]
    )
    try:
        tmux_server.cmd("set-option", "-g", "@osf_daemon_pid", str(bystander.pid))
        env = _clean_env(TMUX=f"{socket},{tmux_server.pid},0", TMUX_PANE=pane)
        proc = _endpoint("claude", b'{"hook_event_name": "Stop"}', env)
        assert proc.returncode == 0
        report_text = tmux_server.cmd("show-options", "-p", "-v", "-t", pane, "@osf_report")
        assert report_text.startswith("done ")
        time.sleep(0.2)  # a signal, had one been sent, is delivered by now
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait(timeout=10)


def test_a_huge_payload_is_not_kept_in_memory(tmp_path: Path) -> None:
    # 100 MB on stdin took 302 MB of memory: the endpoint now keeps at most STDIN_CAP of it.
    probe = f"""
import resource, subprocess, sys
argv = {agent_hooks.notify_argv("claude")!r}
proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
chunk = b" " * (1 << 20)
try:
    proc.stdin.write(b'{{"hook_event_name": "Stop", "pad": "')
    for _ in range(100):
        proc.stdin.write(chunk)
    proc.stdin.close()
except BrokenPipeError:
    pass
proc.wait()
print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
    env = _clean_env(TMUX="/nonexistent,1,0", TMUX_PANE="%1")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    code, max_kb = done.stdout.split()
    assert code == "0", done.stderr
    assert int(max_kb) < 64 * 1024, f"the endpoint grew to {int(max_kb) // 1024} MB"


def test_payloads_past_the_cap_report_nothing() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b'{"hook_event_name": "Stop", "pad": "' + b"x" * 5000 + b'"}')
    os.close(write_fd)
    try:
        assert report._read_capped(read_fd, 4096) is None
    finally:
        os.close(read_fd)
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b'{"hook_event_name": "Stop"}')
    os.close(write_fd)
    try:
        assert report._read_capped(read_fd, 4096) == b'{"hook_event_name": "Stop"}'
    finally:
        os.close(read_fd)


def test_a_frozen_tmux_is_killed_with_the_endpoint(tmp_path: Path) -> None:
    # A tmux client that never answers (the server is stopped): the alarm ends the endpoint,
    # and its tmux child with it instead of leaving it behind.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    pidfile = tmp_path / "tmux.pid"
    fake = bindir / "tmux"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 60\n")
    fake.chmod(0o755)
    env = _clean_env(PATH=f"{bindir}:{os.environ['PATH']}", TMUX="/s,1,0", TMUX_PANE="%3")
    script = agent_hooks.notify_argv("claude")[3]
    run = (
        f"import sys; sys.argv = [{script!r}, 'claude']; "
        f"sys.path.insert(0, {str(Path(script).parents[2])!r}); "
        "from osf_tmux.agents import report; report.TMUX_TIMEOUT = 1; report.main()"
    )
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", run],
                          input=b'{"hook_event_name": "Stop"}', env=env,
                          capture_output=True, timeout=30)  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

    def started() -> str | None:
        text = pidfile.read_text().strip() if pidfile.exists() else ""
        return text or None

    pid = int(retry_until(started, what="the fake tmux to start"))
    try:
        retry_until(lambda: not _running(pid), timeout=5, what="the tmux child to be gone")
    finally:
        if _running(pid):
            os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
