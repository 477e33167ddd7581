"""What the daemon holds for its panes, shared by the loop's parts: the settings (every timing
constant in one place), one PaneWatch per pane, and the PaneTable of them with what the parts
tell each other between turns (which panes have work, what drew lately, whether the status or
the published states are stale, the counters)."""

from __future__ import annotations

from dataclasses import dataclass, field

from osf_tmux.daemon.recent import DEFAULT_CAP, RecentBytes
from osf_tmux.daemon.source import PanePipe
from osf_tmux.judge.classify import Verdict
from osf_tmux.judge.combine import PaneState, PaneTracker, Report, Timing
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.screen_judge import ScreenJudge
from osf_tmux.tmux import PaneInfo
from osf_tmux.vt.pane import PaneScreen
from osf_tmux.vt.snapshot import Snapshot


@dataclass(frozen=True)
class Settings:
    sweep_interval: float = 2.0  # list-panes: new and gone panes, sizes, focus, reports
    # Bytes of each agent pane's recent output kept for `osf-tmux capture` (0: none kept).
    recent_bytes: int = DEFAULT_CAP
    # With tmux hooks, most changes of panes, sizes or focus, and every agent report, wake the
    # daemon for a sweep at once; the periodic one catches what no hook reports (an
    # `@osf-agent` set by hand, a process change in a pane that prints nothing, and, in tmux
    # 3.3a, `resize-window` on a one-pane window with no client: no hook fires). A longer
    # interval would leave such a pane's screen at its old size that much longer, so it
    # stays at the plain interval; raise it only where every resize is known to be hooked.
    sweep_interval_hooked: float = 2.0
    # An agent pane that prints has its processes re-read this often: an agent that exits
    # leaves its shell's prompt, so the pane stops being judged as the agent's without waiting
    # for a sweep.
    agent_identify: float = 2.0
    retry_sweep: float = 0.25  # after a tmux call failed (a pane closed meanwhile), look again
    # (tmux hooks wake the daemon for a sweep at once when panes or focus change)
    settle: float = 0.03  # a pane quiet this long has finished drawing its frame
    ceiling: float = 0.25  # judge at least this often while output keeps coming
    max_pending: int = 256 * 1024  # unparsed bytes past this are dropped and the pane re-seeded
    feed_budget: int = 64 * 1024  # bytes parsed per pane per loop turn, so no pane starves others
    reseed_quiet: float = 0.1  # after a dropped flood, re-seed once the pane is this quiet
    reseed_every: float = 1.0  # ... or this often while the flood goes on
    check_interval: float = 10.0  # cross-check screens against capture-pane
    # An agent pane whose pipe is someone else's (tmux-logging, a recorder) gets no bytes: its
    # screen is captured this often while it changes, works or waits for an answer ...
    foreign_poll: float = 0.1
    foreign_poll_idle: float = 0.5  # ... and this often while it sits unchanged, idle or done
    foreign_hot: float = 2.0  # "changes": its screen changed this recently
    identify_interval: float = 0.5  # re-read a non-agent pane's process when it prints
    # ... and, once it has printed nothing for this long, let the sweep re-read it only this
    # often: a quiet shell's process tree costs a few /proc reads per sweep (~60 % of a sweep
    # of 200 panes). A pane that printed lately is re-read at every sweep: an agent may start
    # without drawing, exec'd by the program that just drew (issue #29), and so is a pane
    # first listed less than this ago (what it drew before our pipe came never reached us).
    # Agent panes are re-read at every sweep.
    quiet_identify: float = 10.0
    status_interval: float = 0.2  # at most this often rewrite the status file
    status_refresh: float = 5.0  # ... and at least this often (fresh counters for `status`)
    # While several panes draw, one wake-up gathers the frames of all of them: a wake-up costs
    # about as much CPU as a frame (measured ~0.1-0.3 ms on a VM, even with nothing to do). The
    # loop waits `batch_per_pane` per pane that drew in the last second, at most `batch`. A
    # frame read at a wake-up is judged at once if its FIFO's write stamp shows it settled
    # already, else at the next one, so the wait costs latency only for frames still moving.
    batch: float = 0.09
    batch_per_pane: float = 0.03
    stamp_slack: float = 0.01  # FIFO write stamps come from a coarse clock that lags a tick or two
    # A pane that keeps drawing while its verdict and state hold (a spinner, an answer that
    # streams under the same status row) is read on a slower beat once at least
    # `steady_min_drawing` panes draw: its FIFO leaves the selector and is read every
    # `steady_read` seconds, all such panes at the same instants (one wake-up for all of
    # them). Each such read is judged at once, and a verdict or state that changes, or
    # `steady_quiet` reads in a row that find the pane quiet, put it back on the selector
    # (agents pause 0.3-1.4 s between a spinner's frames now and then). Measured with 10 panes of
    # every agent's frames: a frame looked at costs ~100 µs however small (a wake-up's cold
    # caches), so the beat, not the bytes, sets the CPU. It costs a prompt that comes while
    # its pane still draws up to `steady_read` of latency (bench/RESULTS.md, session 7).
    steady_after: float = 1.0
    steady_read: float = 0.25
    steady_min_drawing: int = 3
    steady_quiet: int = 2
    # Every read on the beat costs about the same, so with many panes on it their reads are
    # what the CPU goes on: past `steady_looks` reads a second in all (more than 25 panes at
    # 0.25 s), the beat goes to the next multiple of `steady_read` that keeps them so few (50
    # panes: 0.5 s, a prompt seen up to that late), never slower than `steady_read_max`.
    # Multiples keep one grid: the slower beat's instants are the faster one's.
    steady_looks: float = 100.0
    steady_read_max: float = 1.0
    timing: Timing = field(default_factory=Timing)


@dataclass(frozen=True)
class Transition:
    """A pane's published state changed (what notifications are made of)."""

    pane: PaneInfo
    agent: str | None
    before: PaneState
    after: PaneState
    snapshot: Snapshot | None  # the screen that decided it, when the screen did
    # Whether `before` and `after` only stand in for a prompt that went, not confirmed yet
    # (PaneTracker.standing_in): notifications tell an answer from a redraw by it.
    standing_in: tuple[bool, bool] = (False, False)


@dataclass
class PaneWatch:
    """Everything the daemon holds for one pane."""

    info: PaneInfo
    tracker: PaneTracker
    pipe: PanePipe | None = None
    mode: str = "none"  # pipe | foreign | none
    manifest: Manifest | None = None
    screen: PaneScreen | None = None
    pending: bytearray = field(default_factory=bytearray)
    dropping_since: float | None = None
    needs_seed: bool = False
    last_bytes: float = float("-inf")  # when the pane last wrote (monotonic)
    # When the bytes last changed the screen's text, and that text: a blinking cursor drawn
    # as a reverse-video cell (Mistral Vibe, every 0.2-0.5 s) writes bytes without end, and
    # a pane that only blinks has stopped printing.
    last_change: float = float("-inf")
    shown: tuple[str, ...] | None = None
    last_read: float = float("-inf")  # when its FIFO was last read with bytes in it
    dirty_since: float | None = None
    checked_bytes: bool = False
    verdict: Verdict | None = None
    judge: ScreenJudge | None = None  # classifies this pane's screens, one after another
    # The ids of its manifest's holds (judge/holds.py) whose conditions match the screen last
    # judged: matched with the rules, under the CPU budget, and handed to the tracker (only
    # where a hold can apply: rule_budget.judged).
    holding: frozenset[str] = frozenset()
    report: tuple[str, Report | None] = ("", None)  # `@osf_report` as read, and parsed
    last_identify: float = float("-inf")
    identity: tuple[object, ...] = ()  # what identified it last (PaneRegistry.identify)
    signature_read: float = float("-inf")  # when its foreground processes were last read
    # When the sweep first listed it: a program that drew before our pipe was attached sent
    # us no bytes, and may exec the agent after the first read of its processes.
    first_seen: float = float("-inf")
    seed_not_before: float = float("-inf")
    # Someone else's pipe: the screen as the last capture showed it, and when to capture next.
    polled: Snapshot | None = None
    next_poll: float = float("inf")
    reseeds: int = 0
    mismatches: int = 0
    dropped: int = 0
    # The slower beat (Settings.steady_read): since when the verdict and state have been what
    # they are (`steady`), whether the FIFO is off the selector, when it is read next, and
    # whether the bytes that read brought are to be judged without waiting for them to settle.
    steady: tuple[object, ...] = ()
    steady_since: float = float("-inf")
    parked: bool = False
    next_read: float = float("inf")
    hurry: bool = False
    quiet_beats: int = 0  # reads in a row on the beat that found nothing
    parks: int = 0  # times it went onto the slower beat
    # What it drew lately, for `osf-tmux capture` (daemon/recent.py); from its first seed on.
    recent: RecentBytes | None = None


COUNTERS = (
    "sweeps",
    "publishes",
    "reseeds",
    "mismatches",
    # cross-checks that found a pane drawing while its screen was captured (not a mismatch)
    "check_races",
    "wakeups",  # loop turns that waited for bytes or a deadline
    "judged",  # screens judged; of them, classified (the rest kept their verdict)
    "classified",
    "parked",  # times a pane went onto the slower beat
)


class PaneTable:
    """The watched panes, and the marks the loop's parts leave for each other."""

    def __init__(self) -> None:
        self.panes: dict[str, PaneWatch] = {}
        # Panes with something to do (bytes to parse, a frame to judge, a seed, a deadline):
        # the loop visits only these, so quiet panes cost nothing per turn.
        self.active: set[str] = set()
        self.polled: set[str] = set()  # panes captured on a timer (someone else's pipe)
        # When each pane that drew lately last did (its `last_read`): the wait that gathers
        # frames counts these, and counting them over every pane cost a pass over 200 panes
        # at every wake-up. Entries older than a second are dropped as they are counted.
        self.recent: dict[str, float] = {}
        self.counters: dict[str, int] = dict.fromkeys(COUNTERS, 0)
        self.status_dirty = True
        self.publish_due = False  # panes went away: counts and marks must be written again

    def busy(self) -> list[PaneWatch]:
        return [w for p in self.active if (w := self.panes.get(p)) is not None]

    def drawing(self, now: float) -> int:
        """How many panes read bytes in the last second."""
        recent = self.recent
        stale = [p for p, t in recent.items() if now - t >= 1.0]
        for p in stale:
            del recent[p]
        return len(recent)

    def states(self) -> dict[str, PaneState]:
        return {pid: w.tracker.current for pid, w in self.panes.items()}


def wants_seed(w: PaneWatch) -> bool:
    """A seed is taken only for an agent's pane (a plain pane has no screen): the flag a new
    pipe sets on every pane must not keep 180 quiet shells in the loop's active set, each
    visited three times at every wake-up (measured: most of a wake-up's CPU at 200 panes)."""
    return w.needs_seed and w.manifest is not None
