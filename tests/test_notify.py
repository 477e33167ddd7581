"""Notifications: what they say (from a real capture), when they stay quiet (a fake clock),
and the fallback chain when no desktop notification service answers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from osf_tmux.clock import FakeClock
from osf_tmux.daemon.loop import Transition
from osf_tmux.judge.combine import PaneState
from osf_tmux.judge.question import ask_excerpt, clean
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.plugin.notify import Notice, Notifier, NotifyConfig, NullBackend
from osf_tmux.plugin.notify_backends import TerminalBackend, osc_bytes
from osf_tmux.plugin.notify_cooldown import CooldownBook
from osf_tmux.tmux import PaneInfo, ServerSpec, Tmux
from osf_tmux.vt.snapshot import Snapshot

CAPTURE = Path(__file__).resolve().parent.parent / "captures/claude-2.1.328/c_bash_yes-120x32.bytes"
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
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(states=frozenset({"blocked", "done"})), rec, clock=clock)
    n.on_transition(transition("blocked"))
    n.on_transition(transition("blocked"))  # the same pane blocks again at once: quiet
    n.on_transition(transition("done"))  # another state is its own cooldown
    n.on_transition(transition("blocked", replace(PANE, pane_id="%6")))  # another pane too
    assert [(x.pane_id, x.state) for x in rec.sent] == [
        ("%5", "blocked"),
        ("%5", "done"),
        ("%6", "blocked"),
    ]
    clock.advance(29.9)
    n.on_transition(transition("blocked"))
    assert len(rec.sent) == 3
    clock.advance(0.2)
    n.on_transition(transition("blocked"))
    assert len(rec.sent) == 4


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


# ---- the cooldown: kept across restarts, reset by an answer or a new question --------------


def asking(question: str, detail: str) -> Snapshot:
    return Snapshot.from_text(f"{detail}\n{question}\n❯ 1. Yes\n  2. No\nEsc to cancel")


def move(
    before: str, after: str, pane: PaneInfo = PANE, snap: Snapshot | None = None
) -> Transition:
    was = PaneState(before or None, 1.0, None, "screen")
    return Transition(pane, "claude", was, PaneState(after, 2.0, "r", "screen"), snap)


def test_cooldown_survives_a_daemon_restart(tmp_path: Path) -> None:
    path = tmp_path / "state" / "notify-cooldowns.json"
    clock = FakeClock()
    rec = Recorder("terminal")

    def daemon() -> Notifier:
        return Notifier(
            lambda: NotifyConfig(),
            lambda c: [rec, NullBackend()],
            clock=clock,
            inline=True,
            cooldowns=CooldownBook(path),
        )

    prompt = asking("Do you want to proceed?", "rm -rf build")
    daemon().on_transition(move("working", "blocked", snap=prompt))
    assert len(rec.sent) == 1
    assert path.stat().st_mode & 0o777 == 0o600
    assert "proceed" not in path.read_text() and "rm -rf" not in path.read_text()
    clock.advance(10)
    daemon().on_transition(move("", "blocked", snap=prompt))  # a new daemon finds it waiting
    assert len(rec.sent) == 1
    clock.advance(21)
    daemon().on_transition(move("", "blocked", snap=prompt))  # the cooldown is over
    assert len(rec.sent) == 2
    path.write_text("{not json")  # a damaged file is a warning, not a crash
    daemon().on_transition(move("", "blocked", snap=prompt))
    assert len(rec.sent) == 3


def test_an_answered_prompt_resets_the_cooldown() -> None:
    """Claude asks to edit a file, the user answers it, and two seconds later asks to write
    another file while the user has gone to look elsewhere: that is a new notification."""
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    edit = asking("Do you want to make this edit to a.py?", "Edit a.py")
    n.on_transition(move("working", "blocked", snap=edit))
    at_the_pane = replace(PANE, window_active=True)  # on the screen of an attached client
    n.on_transition(move("blocked", "working", pane=at_the_pane))  # answered there
    clock.advance(2)
    n.on_transition(move("working", "blocked", snap=edit))  # even the same text again
    assert len(rec.sent) == 2
    write = asking("Do you want to create b.py?", "Write b.py")
    n.on_transition(move("blocked", "working", pane=at_the_pane))
    clock.advance(2)
    n.on_transition(move("working", "blocked", snap=write))
    assert len(rec.sent) == 3


def test_a_flickering_prompt_stays_quiet_and_a_new_question_does_not() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    edit = asking("Do you want to make this edit to a.py?", "Edit a.py")
    n.on_transition(move("working", "blocked", snap=edit))
    n.on_transition(move("blocked", "idle"))  # gone for a frame, nobody at the pane
    clock.advance(1)
    n.on_transition(move("idle", "blocked", snap=edit))
    assert len(rec.sent) == 1  # what the cooldown is for
    n.on_transition(move("blocked", "working"))
    clock.advance(1)
    n.on_transition(move("working", "blocked", snap=asking("Run the tests?", "npm test")))
    assert len(rec.sent) == 2  # another question, though nobody answered at the pane
