"""Notifications: what they say (from a real capture), when they stay quiet (a fake clock),
and the fallback chain when no desktop notification service answers."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.watch import Transition
from osf_tmux.judge.combine import PaneState
from osf_tmux.judge.question import ask_excerpt, clean
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.plugin.notify import Notice, Notifier, NotifyConfig, NullBackend
from osf_tmux.plugin.notify_backends import TerminalBackend, osc_bytes
from osf_tmux.plugin.notify_prompts import PromptBook
from osf_tmux.tmux import PaneInfo, ServerSpec, Tmux
from osf_tmux.vt.snapshot import Snapshot

CAPTURE = Path(__file__).resolve().parents[2] / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the Bash permission prompt (c_bash_yes-120x32.labels.json)

PANE = PaneInfo(
    pane_id="%5",
    pid=1,
    tty="/dev/pts/9",
    width=120,
    height=32,
    piped=True,
    dead=False,
    active=True,
    window_active=False,
    window_id="@2",
    session_id="$1",
    session_name="work",
    window_index="1",
    pane_index="0",
    session_attached=1,
    current_command="claude",
    agent_override="",
    report="",
    our_pipe="",
    alt_screen=False,
)


def blocked_snapshot() -> Snapshot:
    [(_, snap)] = snapshots_at(CAPTURE.read_bytes(), 120, 32, [BLOCKED_AT])
    return snap


def transition(state: str, pane: PaneInfo = PANE, snap: Snapshot | None = None) -> Transition:
    before = PaneState("working", 1.0, None, "screen")
    return Transition(pane, "claude", before, PaneState(state, 2.0, "r", "screen"), snap)


class Recorder:
    def __init__(self, name: str, available: bool = True, fails: bool = False) -> None:
        self.name = name
        self.available = available
        self.fails = fails
        self.sent: list[Notice] = []

    def is_available(self, notice: Notice | None = None) -> bool:
        return self.available

    def send(self, notice: Notice) -> None:
        if self.fails:
            raise OSError("broken")
        self.sent.append(notice)


def notifier(config: NotifyConfig, *backends: Recorder, clock: FakeClock) -> Notifier:
    return Notifier(lambda: config, lambda c: [*backends, NullBackend()], clock=clock, inline=True)


def test_excerpt_from_a_real_permission_prompt() -> None:
    question, detail = ask_excerpt(blocked_snapshot())
    assert question == "Do you want to proceed?"
    assert detail == "rm -rf build && sleep 4 && echo done"
    assert ask_excerpt(None) == ("", "")
    assert ask_excerpt(Snapshot.from_text("just text\n 1. not a question?")) == ("", "")


def test_clean_strips_control_characters_and_truncates() -> None:
    assert clean("a\x1b[31mb\x07\tc\n d", 100) == "a [31mb c d"
    assert clean("x" * 50, 10) == "x" * 9 + "…"


def test_notice_names_agent_place_and_question() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    n.on_transition(transition("blocked", snap=blocked_snapshot()))
    [notice] = rec.sent
    assert notice.title == "claude is waiting for you in work:1.0"
    assert "Do you want to proceed?" in notice.line() and "rm -rf build" in notice.line()
    osc = osc_bytes(notice)
    assert osc.startswith(b"\x1b]9;claude is waiting") and b"\x1b]777;notify;" in osc
    assert osc.count(b"\x07") == 2


def test_cooldown_per_pane_and_state() -> None:
    """Transitions out of a screen no rule knew (the tests' `transition`): the cooldown."""
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(states=frozenset({"blocked", "done"})), rec, clock=clock)
    n.on_transition(transition("blocked"))
    n.on_transition(transition("blocked"))  # the same pane blocks again at once: quiet
    n.on_transition(transition("blocked", replace(PANE, pane_id="%6")))  # another pane: not
    assert [(x.pane_id, x.state) for x in rec.sent] == [("%5", "blocked"), ("%6", "blocked")]
    clock.advance(29.9)
    n.on_transition(transition("blocked"))
    assert len(rec.sent) == 2
    clock.advance(0.2)
    n.on_transition(transition("blocked"))
    assert len(rec.sent) == 3
    n.on_transition(transition("done"))  # another state is its own cooldown
    n.on_transition(transition("done"))
    assert [x.state for x in rec.sent] == ["blocked"] * 3 + ["done"]
    clock.advance(30)
    n.on_transition(transition("done"))
    assert len(rec.sent) == 5


def test_quiet_for_the_pane_in_view_and_for_done_by_default() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    n.on_transition(transition("blocked", replace(PANE, window_active=True)))  # seen
    n.on_transition(transition("done"))
    n.on_transition(transition("working"))
    assert rec.sent == []


def test_chain_falls_back_past_unavailable_and_failing_backends() -> None:
    clock = FakeClock()
    desktop = Recorder("desktop", available=False)
    broken = Recorder("broken", fails=True)
    terminal = Recorder("terminal")
    n = notifier(NotifyConfig(), desktop, broken, terminal, clock=clock)
    n.on_transition(transition("blocked"))
    assert [name for name, _ in n.delivered] == ["terminal"]
    assert n.describe() == "broken"  # available, though it will fail when used
    nothing = notifier(NotifyConfig(), Recorder("desktop", available=False), clock=clock)
    assert nothing.deliver(Notice("%1", "", "s:0.0", "claude", "blocked")) == "none"


def test_options_reread_after_a_plugin_load(tmp_path: Path) -> None:
    stamp = tmp_path / "plugin.stamp"
    configs = [NotifyConfig(states=frozenset()), NotifyConfig()]
    rec = Recorder("terminal")
    n = Notifier(
        lambda: configs[0],
        lambda c: [rec],
        clock=FakeClock(),
        stamp=stamp,
        inline=True,
    )
    n.on_transition(transition("blocked"))
    assert rec.sent == []
    configs.pop(0)
    stamp.touch()  # what `osf-tmux plugin load` does
    n.on_transition(transition("blocked"))
    assert len(rec.sent) == 1


def test_config_from_option_values() -> None:
    c = NotifyConfig.from_values(
        {"@osf-notify-done": "on", "@osf-notify-cooldown": "5", "@osf-notify-bell": "off"}
    )
    assert c.states == {"blocked", "done"} and c.cooldown == 5.0 and not c.bell and c.osc
    assert NotifyConfig.from_values({"@osf-notify-cooldown": "soon"}).cooldown == 30.0


def test_terminal_backend_writes_bell_and_osc() -> None:
    writes: list[tuple[str, bytes]] = []

    class FakeTerminal(TerminalBackend):
        def clients(self) -> list:  # type: ignore[type-arg]
            from osf_tmux.plugin.notify_backends import Client

            return [Client("/dev/pts/3", "/dev/pts/3", False), Client("client-9", "", True)]

    class NoTmux(Tmux):
        def run_many(self, commands):  # type: ignore[no-untyped-def]
            self.sent = commands
            return ""

    tmux = NoTmux(ServerSpec("none"))
    backend = FakeTerminal(tmux, NotifyConfig(), write=lambda p, d: writes.append((p, d)))
    backend.send(Notice("%5", "/dev/pts/9", "work:1.0", "claude", "blocked", "Proceed?", "rm x"))
    assert writes[0] == ("/dev/pts/9", b"\a")
    assert [p for p, _ in writes[1:]] == ["/dev/pts/3"]  # control clients have no terminal
    assert [c[:3] for c in tmux.sent] == [
        ["display-message", "-c", "/dev/pts/3"],
        ["display-message", "-c", "client-9"],
    ]
    # the message covers the whole status line, the counts too: it must not hide them long
    assert all(c[3] == "-d" and int(c[4]) <= 2000 for c in tmux.sent)


# ---- once per prompt: kept across restarts, a prompt that went and came back is new -------


def asking(question: str, detail: str) -> Snapshot:
    return Snapshot.from_text(f"{detail}\n{question}\n❯ 1. Yes\n  2. No\nEsc to cancel")


def move(
    before: str,
    after: str,
    pane: PaneInfo = PANE,
    snap: Snapshot | None = None,
    rule: str | None = "r",
    was_rule: str | None = None,
) -> Transition:
    """`rule` None: the screen the pane went to matched no rule (a prompt being redrawn)."""
    was = PaneState(before or None, 1.0, was_rule, "screen")
    return Transition(pane, "claude", was, PaneState(after or None, 2.0, rule, "screen"), snap)


class Withdrawing(Recorder):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.withdrawn: list[str] = []

    def withdraw(self, pane_id: str) -> None:
        self.withdrawn.append(pane_id)


def daemon(path: Path, clock: FakeClock, rec: Recorder) -> Notifier:
    """A new daemon's notifier on the same state file."""
    return Notifier(
        lambda: NotifyConfig(),
        lambda c: [rec, NullBackend()],
        clock=clock,
        inline=True,
        book=PromptBook(path),
    )


def test_a_restarted_daemon_does_not_notify_again_for_a_prompt_still_waiting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`stop` and a start minutes later, or `kill -9` and a revival: each new daemon first sees
    every waiting pane go from nothing to `blocked`. Held back however long it waited (the
    cooldown is 30 s, these waited 6 minutes); another prompt, another pane, or the same
    prompt once it went and came back, notifies."""
    path = tmp_path / "state" / "notify-prompts.json"
    clock = FakeClock()
    rec = Recorder("terminal")
    prompt = asking("Do you want to proceed?", "rm -rf build")
    daemon(path, clock, rec).on_transition(move("working", "blocked", snap=prompt))
    assert len(rec.sent) == 1
    assert path.stat().st_mode & 0o777 == 0o600
    assert "proceed" not in path.read_text() and "rm -rf" not in path.read_text()
    for wait in (10, 140, 210):  # a stop + load, a kill -9 revival, and another
        clock.advance(wait)
        with caplog.at_level(logging.INFO, logger="osf_tmux"):
            daemon(path, clock, rec).on_transition(move("", "blocked", snap=prompt))
        assert len(rec.sent) == 1
    assert "not notified, already notified for this prompt, which still waits" in caplog.text
    other = replace(PANE, pane_id="%7")
    again = daemon(path, clock, rec)
    again.on_transition(move("", "blocked", pane=other, snap=prompt))  # never notified
    again.on_transition(move("", "blocked", snap=asking("Run the tests?", "npm test")))
    assert [n.pane_id for n in rec.sent] == ["%5", "%7", "%5"]
    reused = replace(PANE, pid=4242)  # %5 again, but another pane (a new tmux server)
    daemon(path, clock, rec).on_transition(move("", "blocked", pane=reused, snap=prompt))
    assert len(rec.sent) == 4
    path.write_text("{not json")  # a damaged file is a warning, not a crash
    daemon(path, clock, rec).on_transition(move("", "blocked", snap=prompt))
    assert len(rec.sent) == 5


def test_a_prompt_answered_without_anyone_looking_notifies_when_asked_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Answered from the menu, a phone, a script or `send-keys`: the pane went to a screen a
    rule knows (the agent works), nobody looking. The same question 4 s later is new, and the
    pop-up of the first one is withdrawn when it went."""
    clock = FakeClock()
    rec = Withdrawing("desktop")
    n = notifier(NotifyConfig(), rec, clock=clock)
    edit = asking("Do you want to make this edit to a.py?", "Edit a.py")
    n.on_transition(move("working", "blocked", snap=edit))
    n.on_transition(move("blocked", "working", rule="spinner"))  # answered, unseen
    clock.advance(4)
    n.on_transition(move("working", "blocked", snap=edit, was_rule="spinner"))
    assert len(rec.sent) == 2
    n.on_transition(move("blocked", "idle", rule="input"))  # rejected with Esc, unseen
    clock.advance(4)
    n.on_transition(move("idle", "blocked", snap=edit, was_rule="input"))
    assert len(rec.sent) == 3
    assert rec.withdrawn == ["%5", "%5"]


def test_a_redrawn_prompt_stays_quiet_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    """Gone for a frame into a screen no rule knows (a resize, a redraw), or the agent not
    recognised for a moment (a re-seed): the same prompt back is the one already notified."""
    clock = FakeClock()
    rec = Withdrawing("desktop")
    n = notifier(NotifyConfig(), rec, clock=clock)
    edit = asking("Do you want to make this edit to a.py?", "Edit a.py")
    n.on_transition(move("working", "blocked", snap=edit))
    n.on_transition(move("blocked", "working", rule=None))  # a frame no rule knows
    clock.advance(1)
    with caplog.at_level(logging.INFO, logger="osf_tmux"):
        n.on_transition(move("working", "blocked", snap=edit))
    assert len(rec.sent) == 1 and rec.withdrawn == []
    assert "%5 work:1.0: not notified, the same prompt back after 1.0s" in caplog.text
    n.on_transition(move("blocked", "", rule=None))  # the agent not recognised for a moment
    clock.advance(2)
    n.on_transition(move("", "blocked", snap=edit))
    assert len(rec.sent) == 1
    n.on_transition(move("blocked", "working", rule=None))
    clock.advance(31)  # unrecognised longer than the cooldown: a new prompt
    n.on_transition(move("working", "blocked", snap=edit))
    assert len(rec.sent) == 2
    n.on_transition(move("blocked", "working", rule=None))
    clock.advance(1)
    n.on_transition(move("working", "blocked", snap=asking("Run the tests?", "npm test")))
    assert len(rec.sent) == 3  # another question, however soon


CODEX_DIALOG = """• Running {command}

  Would you like to run the following command?

  Environment: local

  Reason: Do you want to run this command?

  $ {command}

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with `{head}` (p)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel"""


def codex(command: str, cols: int = 120) -> Snapshot:
    text = CODEX_DIALOG.format(command=command, head=command.split()[0])
    rows = []
    for row in text.splitlines():  # a narrow pane wraps long rows
        rows += [row[i : i + cols] for i in range(0, max(len(row), 1), cols)]
    return Snapshot.from_text("\n".join(rows))


def test_codex_prompts_differ_by_their_command_not_by_their_reason() -> None:
    """Codex 0.171.0 (the soak): every prompt's question and the row above it read
    `Reason: Do you want to run this command?` / `Environment: local`; the command is below
    the question. Two prompts, one right after the other through a screen no rule knew, are
    two notifications, each with its command; the same one rewrapped by a resize is one."""
    clock = FakeClock()
    rec = Recorder("desktop")
    n = notifier(NotifyConfig(), rec, clock=clock)
    first = codex("sleep 4; echo build-ok")
    assert ask_excerpt(first) == ("Reason: Do you want to run this command?", "Environment: local")
    n.on_transition(move("working", "blocked", snap=first))
    n.on_transition(move("blocked", "working", rule=None))
    clock.advance(2)
    second = codex("npm test -- --watch=false")
    n.on_transition(move("working", "blocked", snap=second))
    assert len(rec.sent) == 2
    assert "$ sleep 4; echo build-ok" in rec.sent[0].body
    assert "$ npm test -- --watch=false" in rec.sent[1].body
    assert "npm test -- --watch=false" in rec.sent[1].line()
    n.on_transition(move("blocked", "working", rule=None))
    clock.advance(1)
    n.on_transition(move("working", "blocked", snap=codex("npm test -- --watch=false", cols=20)))
    assert len(rec.sent) == 2


def test_the_body_of_a_second_prompt_carries_its_command() -> None:
    """Claude Code 2.1.328 writes `This command requires approval` between the command and the
    question: the row above the question is not the command."""
    snap_file = CAPTURE.parent / "h_two_perms-120x32.snapshots" / "04-blocked.txt"
    snap = Snapshot.from_text(snap_file.read_text())
    assert ask_excerpt(snap)[1] == "This command requires approval"
    rec = Recorder("desktop")
    notifier(NotifyConfig(), rec, clock=FakeClock()).on_transition(
        move("working", "blocked", snap=snap)
    )
    [notice] = rec.sent
    command = "curl -sS -o /dev/null http://127.0.0.1:18765/health; sleep 3; echo fetched"
    assert notice.body.startswith("Do you want to proceed?\n")
    assert command in notice.body.splitlines()


def test_a_way_that_fails_warns_once_per_outage(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    desktop = Recorder("desktop", fails=True)
    terminal = Recorder("terminal")
    n = notifier(NotifyConfig(), desktop, terminal, clock=clock)
    with caplog.at_level(logging.INFO, logger="osf_tmux"):
        for _ in range(3):
            n.deliver(Notice("%1", "", "s:0.0", "claude", "blocked"))
        desktop.fails = False
        n.deliver(Notice("%1", "", "s:0.0", "claude", "blocked"))
        desktop.fails = True
        n.deliver(Notice("%1", "", "s:0.0", "claude", "blocked"))
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert (
        warned
        == ["desktop notification failed: broken; notifying the next way until it works again"] * 2
    )
    assert "desktop notifications work (again)" in caplog.text
    assert [name for name, _ in n.delivered] == ["terminal"] * 3 + ["desktop", "terminal"]


def test_the_book_of_prompts_is_private_and_never_goes_through_a_link(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"version": 2, "entries": []}')
    (state / "notify-prompts.json").symlink_to(elsewhere)
    book = PromptBook(state / "notify-prompts.json")  # a link is not read: a warning
    book.notified("%5:1", "blocked", "Proceed?", 1.0)
    assert elsewhere.read_text() == '{"version": 2, "entries": []}'
    path = state / "notify-prompts.json"
    assert not path.is_symlink() and path.stat().st_mode & 0o777 == 0o600
    assert PromptBook(path).same("%5:1", "blocked", "Proceed?") is not None


class Watched:
    """A pane as the daemon's loop drives it: a real PaneTracker judging frames, each change
    of state handed to the notifier as the loop does (with what stands in for a prompt)."""

    def __init__(self, n: Notifier, clock: FakeClock) -> None:
        from osf_tmux.judge.combine import PaneTracker, Timing

        self.n, self.clock = n, clock
        self.tracker = PaneTracker(Timing(idle_confirm=0.4))

    def frame(self, state: str, snap: Snapshot | None = None, after: float = 0.1) -> None:
        from osf_tmux.judge.classify import Verdict
        from osf_tmux.judge.combine import Observation

        self.clock.advance(after)
        before, stood_in = self.tracker.current, self.tracker.standing_in
        obs = Observation(True, Verdict(state, f"rule-{state}", "claude"), False, snapshot=snap)
        now = self.tracker.update(obs, self.clock.now(), self.clock.wall())
        if now.state != before.state:
            stand_ins = (stood_in, self.tracker.standing_in)
            self.n.on_transition(Transition(PANE, "claude", before, now, snap, stand_ins))


def test_a_frame_of_the_agents_input_in_a_redraw_is_no_answer() -> None:
    """A resize redraws the prompt; one frame judged in the middle shows the agent's input box
    (a rule knows it): `working` stands in for the prompt for that frame. The prompt back is
    the one notified. An answer shows the agent at work, or its input for `idle_confirm`:
    the same question after that is a new prompt."""
    clock = FakeClock()
    rec = Recorder("desktop")
    pane = Watched(notifier(NotifyConfig(), rec, clock=clock), clock)
    edit = asking("Do you want to make this edit to a.py?", "Edit a.py")
    pane.frame("working")
    pane.frame("blocked", edit)
    pane.frame("idle")  # the redraw, half done
    pane.frame("blocked", edit)
    assert len(rec.sent) == 1
    pane.frame("idle")  # answered by send-keys: a frame of its input, then its spinner
    pane.frame("working")
    pane.frame("blocked", edit, after=3)
    assert len(rec.sent) == 2
    pane.frame("idle")  # rejected with Esc: back at its input, and it stays there
    pane.frame("idle", after=0.5)
    pane.frame("blocked", edit, after=1)
    assert len(rec.sent) == 3
