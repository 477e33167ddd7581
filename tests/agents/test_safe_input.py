"""`send` and `answer` against a pane that shows a real Claude Code permission prompt.

The pane runs tests/support/pane_recorder.py: the test draws capture bytes into it and reads back
every key osf-tmux typed. Private tmux servers only."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from osf_tmux.agents import safe_input
from osf_tmux.cli.app import cli
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.tmux import ServerSpec, Tmux
from tests.support.tmux_server import TmuxServer, retry_until

CAPTURE = Path(__file__).resolve().parents[2] / "captures" / "claude-2.1.328"
RECORDER = Path(__file__).resolve().parents[1] / "support" / "pane_recorder.py"
SENTINEL = "Z"  # typed straight through tmux: once it is recorded, earlier keys would be too


class RecordingPane:
    """A pane that shows what the test writes and records what is typed into it."""

    def __init__(self, server: TmuxServer, workdir: Path, agent: str | None = "claude") -> None:
        self.server = server
        self.fifo = workdir / "feed"
        self.record = workdir / "keys"
        self.record.touch()
        os.mkfifo(self.fifo)
        argv = [sys.executable, str(RECORDER), str(self.fifo), str(self.record)]
        self.pane = server.new_pane(argv, 120, 32)
        if agent:
            server.cmd("set-option", "-p", "-t", self.pane, "@osf-agent", agent)
        self.fd = os.open(self.fifo, os.O_WRONLY)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]

    def shows(self, text: str) -> bool:
        return text in self.server.cmd("capture-pane", "-p", "-t", self.pane)

    def keys(self) -> bytes:
        """Everything typed so far, made certain by typing a sentinel and waiting for it."""
        self.server.cmd("send-keys", "-t", self.pane, "-l", SENTINEL)
        retry_until(lambda: self.record.read_bytes().endswith(SENTINEL.encode()),
                    what="the sentinel key")  # fmt: skip
        data = self.record.read_bytes()[: -len(SENTINEL)]
        self.record.write_bytes(b"")
        return data

    def ready(self, text: str) -> None:
        """Wait until the screen shows `text`; forget tmux's own replies to the capture's
        terminal queries (DA1, XTVERSION), which reach the program as input too."""
        retry_until(lambda: self.shows(text), what=repr(text))
        self.keys()

    def close(self) -> None:
        os.close(self.fd)


def osf(server: TmuxServer, *args: str) -> subprocess.CompletedProcess[str]:
    """`osf-tmux -L SOCKET ARGS` run in this process (click's runner: a fresh interpreter for
    each call cost most of these tests' time), outside any tmux client."""
    argv = ["-L", server.socket_name, *args]
    result = CliRunner().invoke(cli, argv, env={"TMUX": None, "TMUX_PANE": None})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, result.stderr)


def offsets() -> dict[str, int]:
    labels = json.loads((CAPTURE / "c_bash_yes-120x32.labels.json").read_text())
    blocked = next(s for s in labels["segments"] if s["state"] == "blocked")
    # the prompt is up from its segment's offset until the driver typed its answer
    answered = next(e for e in labels["driver_events"] if e["offset"] > blocked["offset"])
    return {"idle": labels["segments"][0]["offset"], "blocked": answered["offset"]}


@pytest.fixture
def claude_pane(tmux_server: TmuxServer, tmp_path: Path) -> Iterator[RecordingPane]:
    pane = RecordingPane(tmux_server, tmp_path)
    try:
        yield pane
    finally:
        pane.close()


@pytest.mark.tmux
def test_send_refused_and_answer_accepted_on_a_real_permission_prompt(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    claude_pane.write(data[: offsets()["blocked"]])
    claude_pane.ready("Do you want to proceed?")

    refused = osf(tmux_server, "send", claude_pane.pane, "please", "go", "on")
    assert refused.returncode != 0
    assert "waiting for an answer" in refused.stderr and "nothing was typed" in refused.stderr
    assert claude_pane.keys() == b""

    answered = osf(tmux_server, "answer", claude_pane.pane, "yes")
    assert answered.returncode == 0, answered.stderr
    assert claude_pane.keys() == b"1"  # Claude's `❯ 1. Yes`, from rules/claude.toml [answer]

    assert osf(tmux_server, "answer", claude_pane.pane, "3").returncode == 0
    assert claude_pane.keys() == b"3"
    assert osf(tmux_server, "answer", claude_pane.pane, "no").returncode == 0
    assert claude_pane.keys() == b"\x1b"

    wrong = osf(tmux_server, "answer", claude_pane.pane, "perhaps")
    assert wrong.returncode != 0 and "yes, no or an option number" in wrong.stderr
    assert claude_pane.keys() == b""


@pytest.mark.tmux
def test_send_types_into_an_idle_agent_and_answer_refuses(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    claude_pane.write(data[: offsets()["idle"]])
    claude_pane.ready("? for shortcuts")

    refused = osf(tmux_server, "answer", claude_pane.pane, "yes")
    assert refused.returncode != 0 and "not waiting for an answer" in refused.stderr
    assert claude_pane.keys() == b""

    sent = osf(tmux_server, "send", claude_pane.pane, "fix the tests")
    assert sent.returncode == 0, sent.stderr
    # Claude asked for bracketed paste (ESC[?2004h): the text arrives as one paste, then Enter
    assert claude_pane.keys() == b"\x1b[200~fix the tests\x1b[201~\r"


@pytest.mark.tmux
def test_a_fresh_blocked_report_refuses_before_the_dialog_is_drawn(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    # Claude's PermissionRequest hook comes a moment before its dialog is on screen.
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    claude_pane.write(data[: offsets()["idle"]])
    claude_pane.ready("? for shortcuts")
    pane = claude_pane.pane
    # The report is fresh only for the grace (2 s); on a loaded machine the CLI alone can take
    # longer to start, and then the screen rightly decides. Judge only the tries that were quick.
    for _ in range(5):
        sent = time.time()
        tmux_server.cmd("set-option", "-p", "-t", pane, "@osf_report", f"blocked {sent} claude")
        refused = osf(tmux_server, "send", pane, "hello")
        if time.time() - sent < 1.5:
            break
    else:
        pytest.skip("the CLI never answered within the report's grace on this machine")
    assert refused.returncode != 0 and "its hook" in refused.stderr
    # ... but once the report is older than the grace, the screen decides again
    old = time.time() - 10
    tmux_server.cmd("set-option", "-p", "-t", pane, "@osf_report", f"blocked {old} claude")
    assert osf(tmux_server, "send", pane, "hello").returncode == 0
    assert claude_pane.keys().endswith(b"hello\x1b[201~\r")


@pytest.mark.tmux
def test_panes_without_an_agent_get_nothing(tmux_server: TmuxServer, tmp_path: Path) -> None:
    pane = RecordingPane(tmux_server, tmp_path, agent=None)
    try:
        pane.write(b"$ ")
        for args in (["send", pane.pane, "hi"], ["answer", pane.pane, "yes"]):
            proc = osf(tmux_server, *args)
            assert proc.returncode != 0 and "runs no agent osf-tmux knows" in proc.stderr
        assert pane.keys() == b""
        missing = osf(tmux_server, "send", "%999", "hi")
        assert missing.returncode != 0 and "no pane '%999'" in missing.stderr
    finally:
        pane.close()


def blocked_claude(server: TmuxServer, pane: RecordingPane) -> None:
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    pane.write(data[: offsets()["blocked"]])
    pane.ready("Do you want to proceed?")


def address(server: TmuxServer, pane: str) -> str:
    fmt = "#{session_name}:#{window_index}.#{pane_index}"
    return server.cmd("display-message", "-p", "-t", pane, fmt).strip()


@pytest.mark.tmux
def test_a_target_that_names_no_pane_exactly_is_refused(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    # tmux 3.3a takes `sess:0.1` (no such pane) or `sess:9` for some other pane of `sess`:
    # `answer` once approved the prompt of a pane nobody named.
    blocked_claude(tmux_server, claude_pane)
    session = address(tmux_server, claude_pane.pane).split(":")[0]
    for target in (f"{session}:0.1", f"{session}:9.0", f"{session}:9", session, "%999"):
        refused = osf(tmux_server, "answer", target, "yes")
        assert refused.returncode != 0, target
        assert "nothing was typed" in refused.stderr or "does not name one pane" in refused.stderr
        assert claude_pane.keys() == b"", target
    exact = osf(tmux_server, "answer", f"{session}:0.0", "yes")
    assert exact.returncode == 0, exact.stderr
    assert claude_pane.keys() == b"1"


class ChangesAfterFirstLook(Tmux):
    """A tmux connection that runs `change` once, right after the first capture of a pane: what
    a pane may do between osf-tmux's judging and its keys."""

    def __init__(self, server: TmuxServer, change: Callable[[], None]) -> None:
        super().__init__(ServerSpec(server.socket_name))
        self.change: Callable[[], None] | None = change

    def run_many(self, commands: Sequence[Sequence[str]]) -> str:
        out = super().run_many(commands)
        if self.change is not None and any(c[0] == "capture-pane" for c in commands):
            change, self.change = self.change, None
            change()
        return out


@pytest.mark.tmux
def test_the_prompt_is_checked_again_right_before_the_keys(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    blocked_claude(tmux_server, claude_pane)

    def answered_elsewhere() -> None:  # the prompt goes away, the agent moves on
        claude_pane.write(b"\x1b[2J\x1b[H> ")
        retry_until(lambda: not claude_pane.shows("Do you want to proceed?"), what="cleared")

    tmux = ChangesAfterFirstLook(tmux_server, answered_elsewhere)
    with pytest.raises(safe_input.InputRefused, match="changed while osf-tmux looked"):
        safe_input.answer(tmux, load_rules(None), claude_pane.pane, "yes")
    assert claude_pane.keys() == b""


@pytest.mark.tmux
def test_a_respawned_pane_gets_no_keys(
    tmux_server: TmuxServer, claude_pane: RecordingPane, tmp_path: Path
) -> None:
    blocked_claude(tmux_server, claude_pane)
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()[: offsets()["blocked"]]

    def respawned() -> None:  # the same pane id, another process showing the same prompt
        fifo = tmp_path / "feed2"
        os.mkfifo(fifo)
        argv = [sys.executable, str(RECORDER), str(fifo), str(claude_pane.record)]
        tmux_server.cmd("respawn-pane", "-k", "-t", claude_pane.pane, shlex.join(argv))
        fd = os.open(fifo, os.O_WRONLY)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        retry_until(lambda: claude_pane.shows("Do you want to proceed?"), what="the prompt")

    tmux = ChangesAfterFirstLook(tmux_server, respawned)
    with pytest.raises(safe_input.InputRefused, match="runs another program"):
        safe_input.answer(tmux, load_rules(None), claude_pane.pane, "yes")
    claude_pane.keys()  # the new recorder's terminal replies
    assert b"1" not in claude_pane.record.read_bytes()


@pytest.mark.tmux
def test_send_never_lets_the_text_end_the_paste(
    tmux_server: TmuxServer, claude_pane: RecordingPane
) -> None:
    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    claude_pane.write(data[: offsets()["idle"]])
    claude_pane.ready("? for shortcuts")
    # The paste would end at ESC[201~; Shift+Tab (ESC[Z) and Ctrl-C would arrive as keys.
    for text in ("hi\x1b[201~\x1b[Z\x03 more", "a\rb", "x\x9b201~"):
        refused = osf(tmux_server, "send", claude_pane.pane, text)
        assert refused.returncode != 0, repr(text)
        assert "control character" in refused.stderr and "Nothing was typed" in refused.stderr
        assert claude_pane.keys() == b"", repr(text)
    sent = osf(tmux_server, "send", claude_pane.pane, "two\nlines\tand a tab")
    assert sent.returncode == 0, sent.stderr
    assert claude_pane.keys() == b"\x1b[200~two\rlines\tand a tab\x1b[201~\r"


def test_check_text_allows_newlines_and_tabs_only() -> None:
    safe_input.check_text("fix it\n\tplease")
    for text, name in (("\x1b[201~", "Escape"), ("a\x03", "Ctrl-C"), ("\x7f", "Delete")):
        with pytest.raises(safe_input.InputRefused, match=name):
            safe_input.check_text(text)
    with pytest.raises(safe_input.InputRefused, match=r"U\+009B"):
        safe_input.check_text("\x9b201~")


def test_send_help_says_which_characters_are_refused() -> None:
    from click.testing import CliRunner

    from osf_tmux.cli.app import cli as main

    shown = " ".join(CliRunner().invoke(main, ["send", "--help"]).output.split())
    assert "newlines and tabs" in shown and "control character" in shown
    assert "%N" in CliRunner().invoke(main, ["answer", "--help"]).output


def test_the_prompt_is_the_lines_its_rule_matched() -> None:
    from osf_tmux.judge.classify import classify, matched_lines
    from osf_tmux.judge.replay import snapshots_at

    data = (CAPTURE / "c_bash_yes-120x32.bytes").read_bytes()
    [(_, snap)] = snapshots_at(data, 120, 32, [offsets()["blocked"]])
    claude = load_rules(None).get("claude")
    verdict = classify(snap, claude)
    prompt = matched_lines(snap, claude, verdict.rule)
    assert verdict.state == "blocked"
    assert " Do you want to proceed?" in prompt and " ❯ 1. Yes" in prompt
    # a row no condition matched may change (a clock, a spinner); the prompt stays the same
    top = ("12:00:01 elsewhere", *snap.rows[1:])
    moved = dataclasses.replace(snap, rows=top)
    assert matched_lines(moved, claude, verdict.rule) == prompt
    assert matched_lines(snap, claude, "no-such-rule") == ()
