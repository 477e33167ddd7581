"""What the daemon published (`@osf_state`) in every pane of a private tmux server, over time.

One poller thread reads every pane's state with one `list-panes -a` at a time and keeps each
pane's record of changes, so that many replays can run side by side in one server and wait on
their own pane without a `show-options` per pane and per poll (at a hundred polls a second per
waiting pane, dozens of panes would keep both cores busy with tmux clients)."""

from __future__ import annotations

import threading
import time

from tests.support.tmux_server import TmuxServer

FORMAT = "#{pane_id} #{@osf_state}"


class PublishedStates:
    """A thread polling `list-panes -a` every `interval` seconds until `close`."""

    def __init__(self, server: TmuxServer, interval: float = 0.03) -> None:
        self.server = server
        self.interval = interval
        self._changed = threading.Condition()
        self._now: dict[str, str | None] = {}
        self._reads = 0
        self._records: dict[str, list[tuple[float, str | None]]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="published-states", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            out = self.server.cmd("list-panes", "-a", "-F", FORMAT, check=False)
            at = time.monotonic()
            now: dict[str, str | None] = {}
            for line in out.splitlines():
                pane, _, shown = line.partition(" ")
                now[pane] = shown.strip() or None
            with self._changed:
                for pane, state in now.items():
                    record = self._records.setdefault(pane, [])
                    if not record or record[-1][1] != state:
                        record.append((at, state))
                self._now = now
                self._reads += 1
                self._changed.notify_all()
            self._stop.wait(self.interval)

    def state(self, pane: str) -> str | None:
        with self._changed:
            return self._now.get(pane)

    def wait_for(self, pane: str, want: tuple[str, ...], timeout: float) -> bool:
        """Whether a read made after this call shows `pane` in one of `want` within `timeout`
        seconds (a read from before it could predate the bytes just written)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            first = self._reads + 1
            while True:
                if self._reads >= first and self._now.get(pane) in want:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 1.0))

    def record(self, pane: str, since: float) -> str:
        """The pane's states as published, each with the seconds since `since` it was seen."""
        with self._changed:
            changes = list(self._records.get(pane, []))
        return ", ".join(f"{at - since:.2f}s {state}" for at, state in changes)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
