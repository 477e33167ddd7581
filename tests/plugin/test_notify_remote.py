"""Notifications for other machines' panes (the fleet): once per prompt, as for this machine's,
named by host, with nothing that would reach a pane of this server."""

from __future__ import annotations

from osf_tmux.clock import FakeClock
from osf_tmux.fleet.remote import RemotePane, RemoteTransition
from osf_tmux.plugin.notify import NotifyConfig
from osf_tmux.plugin.notify_command import command_env, event
from tests.plugin.test_notify import Recorder, notifier


def _pane(state: str, question: str = "Do you want to proceed?", pane: str = "%3") -> RemotePane:
    return RemotePane("devbox", pane, "work:1.0", "claude", state, 1_800_000_000.0, "r", question)


def _t(before: str | None, after: str | None, **kw: str) -> RemoteTransition:
    return RemoteTransition(_pane(after or before or "idle", **kw), before, after)


def test_a_remote_prompt_notifies_once_named_by_its_host() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    n.on_remote(_t("working", "blocked"))
    [notice] = rec.sent
    assert notice.title == "claude is waiting for you in devbox:work:1.0"
    assert notice.question == "Do you want to proceed?"
    assert (notice.host, notice.pane_id, notice.key) == ("devbox", "%3", "devbox:%3")
    assert notice.pane_tty == ""  # no bell into a tty of this machine
    # The link came back: the remote daemon reports the same prompt as it is (no state before).
    clock.advance(120)
    n.on_remote(_t(None, "blocked"))
    assert len(rec.sent) == 1
    # Another host's %3 is another pane.
    n.on_remote(RemoteTransition(RemotePane("gpu", "%3", "w:0.0", "codex", "blocked", None,
                                            None, "Allow?"), "working", "blocked"))  # fmt: skip
    assert [x.host for x in rec.sent] == ["devbox", "gpu"]


def test_an_answered_remote_prompt_and_the_next_one() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    n = notifier(NotifyConfig(), rec, clock=clock)
    n.on_remote(_t("working", "blocked"))
    n.on_remote(_t("blocked", "working"))  # answered there
    clock.advance(1)
    n.on_remote(_t("working", "blocked"))  # the same words, a new prompt
    assert len(rec.sent) == 2
    # The pane vanished from the feed (its agent left) and came back with the same prompt at
    # once: a redraw, not a new prompt.
    n.on_remote(_t("blocked", None))
    n.on_remote(_t(None, "blocked"))
    assert len(rec.sent) == 2
    n.on_remote(_t("blocked", "idle"))
    n.on_remote(_t("idle", "working"))
    n.on_remote(_t("working", "done"))  # done is off by default
    assert len(rec.sent) == 2


def test_the_notify_command_gets_the_host() -> None:
    clock = FakeClock()
    rec = Recorder("terminal")
    notifier(NotifyConfig(), rec, clock=clock).on_remote(_t("working", "blocked"))
    env = command_env(rec.sent[0], {})
    assert (env["OSF_HOST"], env["OSF_PANE"], env["OSF_TARGET"]) == (
        "devbox",
        "%3",
        "devbox:work:1.0",
    )
    local = rec.sent[0].__class__("%5", "", "work:1.0", "claude", "blocked")
    assert event(local)["host"] is None and command_env(local, {})["OSF_HOST"] == ""
