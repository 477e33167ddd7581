"""Working frames like a real agent's, for the daemon's CPU benchmark (issue #15).

Two kinds of source, each a byte prefix that sets the screen up and a loop of (pause, bytes):

- `claude-2.1-issue`: Claude Code 2.1.x at work as issue #15 describes it, 120x32, alternate
  screen, footer `⏸ manual mode on · esc to interrupt · ← for agents`; at 10 Hz the spinner row
  is erased (`CSI 2K`) and redrawn with a token count that changes every frame, then the cursor
  goes back to the input box.
- an agent's name: a working stretch of a real capture of that agent (captures/, labelled),
  replayed at its recorded pace (the `.timing` stamps of each pipe-pane read). At the end of the
  stretch the screen is reset (`ESC c`) and painted again as it was when the stretch began
  (`repaint`: its rows, cursor, modes, scroll region and title, a few kB at most), so every loop
  starts from the very screen the stretch started from. Until session 6 the junction wrote every
  byte before the stretch again (the agent's whole start-up and transcript: 3-47 kB every 1.3-30
  s), which no agent does while it works; `--junction replay` in daemon_bench.py still does that
  (`JUNCTIONS`). Where the repaint does not give the same screens at every read of the stretch
  (`repaint_faithful`), the replay is used.

`python bench/agent_frames.py` lists the stretch chosen for every agent."""

from __future__ import annotations

import base64
import itertools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from osf_tmux.judge.classify import classify  # noqa: E402
from osf_tmux.judge.corpus import Capture, find_captures  # noqa: E402
from osf_tmux.judge.ruleset import load_rules  # noqa: E402
from osf_tmux.vt.pane import PaneScreen  # noqa: E402

ISSUE_CLAUDE = "claude-2.1-issue"
GLYPHS = "·✢✳✶✻✽"
SIZE = (120, 32)
# Preferred scenarios, in order: the one that only thinks, then answers that stream.
SCENARIOS = ("thinking", "long_output", "text")


@dataclass(frozen=True)
class Stretch:
    """A working stretch of one capture: `data[start:end]`, read by tmux in `chunks`."""

    capture: Capture
    start: int
    end: int
    chunks: tuple[tuple[float, int], ...]  # (seconds since the stretch began, end offset)

    @property
    def seconds(self) -> float:
        return self.chunks[-1][0] if self.chunks else 0.0

    def describe(self) -> str:
        return (
            f"{self.capture.name} bytes {self.start}-{self.end}: {len(self.chunks)} reads in "
            f"{self.seconds:.1f} s ({len(self.chunks) / max(self.seconds, 1e-9):.1f}/s)"
        )


def _timing(cap: Capture) -> list[tuple[int, float]]:
    path = cap.bytes_path.with_suffix(".timing")
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            offset, stamp = line.split()[:2]
            out.append((int(offset), float(stamp)))
    return out


def _working_reads(cap: Capture, start: int, reads: list[tuple[int, float]]) -> int:
    """How many of `reads` (after `start`) the agent's rules still judge `working`, from the
    first on: a label's segment ends where the next cue was seen, which may be a little later
    than where the screen stopped saying so."""
    manifest = load_rules(None).manifests[cap.agent() or ""]
    size = cap.size()
    assert size is not None
    data = cap.bytes_path.read_bytes()
    screen = PaneScreen(*size)
    screen.feed(data[:start])
    fed = start
    for i, (offset, _) in enumerate(reads):
        screen.feed(data[fed:offset])
        fed = offset
        if classify(screen.snapshot(), manifest).state != "working":
            return i
    return len(reads)


def stretches(cap: Capture) -> list[Stretch]:
    """Every labelled working segment of `cap` that tmux read in at least 3 pieces, up to the
    last read before the next segment's cue showed and the rules stopped saying `working`."""
    timing = _timing(cap)
    segments = cap.labels().get("segments", [])
    size = cap.bytes_path.stat().st_size
    out = []
    for i, seg in enumerate(segments):
        if seg["state"] != "working" or "booting" in str(seg.get("note", "")):
            continue
        start = int(seg["offset"])
        limit = int(segments[i + 1]["offset"]) if i + 1 < len(segments) else size + 1
        reads = [(o, t) for o, t in timing if start < o < limit]
        reads = reads[: _working_reads(cap, start, reads)]
        if len(reads) < 3:
            continue
        t0 = next((t for o, t in timing if o == start), reads[0][1])
        chunks = tuple((t - t0, o) for o, t in reads)
        out.append(Stretch(cap, start, reads[-1][0], chunks))
    return out


def pick_stretch(agent: str) -> Stretch:
    """The stretch that stands for `agent`: at 120x32, from the first scenario of SCENARIOS
    that has one, else the longest; among a scenario's stretches, the longest."""
    found = [
        s
        for cap in find_captures(ROOT / "captures")
        if cap.labels_path is not None and cap.agent() == agent and cap.size() == SIZE
        for s in stretches(cap)
    ]
    if not found:
        raise SystemExit(f"no labelled working stretch of {agent} at {SIZE[0]}x{SIZE[1]}")

    def rank(s: Stretch) -> tuple[int, float]:
        scenario = s.capture.labels().get("scenario", "")
        pref = SCENARIOS.index(scenario) if scenario in SCENARIOS else len(SCENARIOS)
        return pref, -s.seconds

    return min(found, key=rank)


def agents_with_stretches() -> list[str]:
    return sorted(
        {
            agent
            for cap in find_captures(ROOT / "captures")
            if cap.labels_path is not None
            and (agent := cap.agent()) is not None
            and cap.size() == SIZE
            and stretches(cap)
        }
    )


def issue_claude(cols: int = 120, rows: int = 32) -> tuple[bytes, Iterator[tuple[float, bytes]]]:
    rule = "─" * cols
    prefix = (
        "\x1b[?1049h\x1b[2J\x1b[H\r\n"
        "           Claude Code v2.1.332\r\n"
        " ▐▛███▜▌   Opus 5.5 · API Usage Billing\r\n"
        "▝▜█████▛▘  /tmp/proj\r\n\r\n"
        "❯ think hard about the structure of app.py\r\n"
        f"\x1b[{rows - 4};1H{' ' * (cols - 20)}◐ medium · /effort"
        f"\x1b[{rows - 3};1H{rule}\x1b[{rows - 2};1H❯\u00a0\x1b[{rows - 1};1H{rule}"
        f"\x1b[{rows};1H  ⏸ manual mode on · esc to interrupt · ← for agents"
        f"\x1b[{rows - 2};3H"
    )

    def frames() -> Iterator[tuple[float, bytes]]:
        n = 0
        while True:
            n += 1
            glyph = GLYPHS[n % len(GLYPHS)]
            frame = (
                f"\x1b[{rows - 5};1H\x1b[2K{glyph} Zesting… ({n // 10}s · ↓ {n} tokens)"
                f"\x1b[{rows - 2};3H"
            )
            yield 0.1, frame.encode()

    return prefix.encode(), frames()


# How a loop goes back to the stretch's first screen (see the module's docstring).
JUNCTIONS = ("repaint", "replay")


def repaint(screen: PaneScreen) -> bytes:
    """Bytes that take any screen of this size to what `screen` shows: a reset, then its rows,
    scroll region, modes, title and cursor (colours are not modelled, so not repainted)."""
    s = screen._screen  # the bench reads the model's state; the daemon never does this
    out = ["\x1bc"]
    if s.alt_screen:
        out.append("\x1b[?1049h")
    for y, row in enumerate(screen.snapshot().rows):
        if row:
            out.append(f"\x1b[{y + 1};1H{row}")
    if (s.rupper, s.rlower) != (0, s.rows - 1):
        out.append(f"\x1b[{s.rupper + 1};{s.rlower + 1}r")
    out.append(f"\x1b]2;{s.title}\x07")  # a reset keeps the title: set it, empty or not
    if not s.mode_wrap:
        out.append("\x1b[?7l")
    if s.mode_insert:
        out.append("\x1b[4h")
    top = 0
    if s.mode_origin:
        out.append("\x1b[?6h")
        top = s.rupper
    out.append(f"\x1b[{s.cy - top + 1};{min(s.cx, s.cols - 1) + 1}H")
    if not s.cursor_visible:
        out.append("\x1b[?25l")
    return "".join(out).encode()


def _screens(start: bytes, stretch: Stretch, data: bytes) -> list[object]:
    cols, rows = stretch.capture.size() or SIZE
    screen = PaneScreen(cols, rows)
    screen.feed(start)
    out: list[object] = [screen.snapshot()]
    offset = stretch.start
    for _, end in stretch.chunks:
        screen.feed(data[offset:end])
        out.append(screen.snapshot())
        offset = end
    return out


def repaint_faithful(stretch: Stretch) -> bytes | None:
    """The repaint of the stretch's first screen, when the stretch played after it shows the very
    screens it shows after the bytes before it (every read compared); else None."""
    data = stretch.capture.bytes_path.read_bytes()
    prefix = data[: stretch.start]
    cols, rows = stretch.capture.size() or SIZE
    before = PaneScreen(cols, rows)
    before.feed(prefix)
    junction = repaint(before)
    # After the stretch, as in the loop: the repaint comes on top of the stretch's last screen.
    if _screens(prefix, stretch, data) != _screens(
        prefix + data[stretch.start : stretch.end] + junction, stretch, data
    ):
        return None
    return junction


def capture_loop(
    agent: str, junction: str = "repaint"
) -> tuple[bytes, Iterator[tuple[float, bytes]]]:
    stretch = pick_stretch(agent)
    data = stretch.capture.bytes_path.read_bytes()
    prefix = data[: stretch.start]
    back = repaint_faithful(stretch) if junction == "repaint" else None
    if back is None:
        back = b"\x1bc" + prefix

    def frames() -> Iterator[tuple[float, bytes]]:
        while True:
            at, offset = 0.0, stretch.start
            for t, end in stretch.chunks:
                yield max(0.0, t - at), data[offset:end]
                at, offset = t, end
            # Back to the stretch's first screen, one write.
            yield 0.1, back

    return prefix, frames()


def source(name: str, junction: str = "repaint") -> tuple[bytes, Iterator[tuple[float, bytes]]]:
    return issue_claude() if name == ISSUE_CLAUDE else capture_loop(name, junction)


def write_loop(name: str, path: Path, junction: str = "repaint") -> None:
    """One loop of `name`'s frames, for bench/replay_pane.py to play over and over: worked out
    once here, so that ten panes do not each replay captures (and load rules) as they start."""
    prefix, frames = source(name, junction)
    if name == ISSUE_CLAUDE:
        loop = list(itertools.islice(frames, 3000))  # five minutes at 10 Hz
    else:
        stretch = pick_stretch(name)
        loop = list(itertools.islice(frames, len(stretch.chunks) + 1))  # and the reset
    data = {
        "prefix": base64.b64encode(prefix).decode(),
        "frames": [[pause, base64.b64encode(chunk).decode()] for pause, chunk in loop],
    }
    path.write_text(json.dumps(data))


def main() -> None:
    for agent in agents_with_stretches():
        print(f"{agent:10} {pick_stretch(agent).describe()}")


if __name__ == "__main__":
    main()
