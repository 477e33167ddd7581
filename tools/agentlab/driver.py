"""Record one scenario: a private tmux server, a pane at the scenario size, pipe-pane into a sink
before the agent starts, the agent pointed at the fake model server, and a loop that polls
`capture-pane` (~50 ms) to know when to act and where each state begins.

Writes NAME-COLSxROWS.bytes, .timing, .labels.json and .snapshots/NN-state.txt."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.agentlab.actions import Expect, Keys, PickOption, Sleep, Type
from tools.agentlab.base import AgentSpec, RunDirs, Scenario
from tools.agentlab.dress import PANE, TMUX_VARS, Dress, PaneFacts, pane_env
from tools.agentlab.fakeserver import FakeModelServer
from tools.agentlab.refine import cue_matches, refine_offsets

POLL = 0.05
SINK = Path(__file__).with_name("pipesink.py")

# Called as listener(kind, info) while a scenario plays, for tools that watch the run live (the
# live-agents test lane): kind "ready" (the pane exists, the agent has not started; info: socket,
# target), "event" (a driver event: launch, typed, keys, end) and "label" (a labelled segment,
# the moment the poll saw its cue). Every info carries `epoch`, the wall-clock time of the moment.
Listener = Callable[[str, dict[str, Any]], None]


# The variables of the agent's environment written into the labels: what a terminal, tmux or a
# dress sets (HOME, PATH and the API endpoint are the run's own).
TERMINAL_VARS = ("TERM", "COLORTERM", "LANG", "LC_ALL", "NO_COLOR", *TMUX_VARS)


def split_title(out: str) -> tuple[str, str]:
    """`capture-pane -p ; display -p '#{pane_title}'` output as (screen text, title). Only the
    title's own newline is cut: an empty title (Amp sets one) must not take the screen's last
    row as the title, nor blank rows be lost above it."""
    body = out[:-1] if out.endswith("\n") else out
    text, _, title = body.rpartition("\n")
    return text, title


class DriverError(RuntimeError):
    pass


def reap_strays(root: Path) -> list[int]:
    """Kill processes that an agent left behind (daemons that detached from the pane). Only
    processes whose command line or working directory lies inside this run's own directory
    are touched: those can only have been started by this run."""
    killed: list[int] = []
    marker = str(root)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if marker in cmdline or cwd == marker or cwd.startswith(marker + "/"):
            try:
                os.kill(int(entry.name), signal.SIGTERM)
                killed.append(int(entry.name))
            except OSError:
                pass
    return killed


class Tmux:
    """A tmux server of our own: unique `-L` socket, no config file; never the default server."""

    def __init__(self) -> None:
        exe = shutil.which("tmux")
        if exe is None:
            raise DriverError("tmux is not installed")
        self.exe = exe
        self.socket = f"osf-agentlab-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.started = False

    def __call__(self, *args: str, check: bool = True) -> str:
        argv = [self.exe, "-L", self.socket, "-f", "/dev/null", *args]
        env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        # From inside a pane, TMUX and TMUX_PANE name the outer server's pane.
        env.pop("TMUX", None)
        env.pop("TMUX_PANE", None)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env)
        if check and proc.returncode != 0:
            raise DriverError(f"{shlex.join(argv)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def kill(self) -> None:
        if self.started:
            self("kill-server", check=False)
            self.started = False


@dataclass
class Recording:
    segments: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


class Recorder:
    def __init__(
        self,
        agent: AgentSpec,
        scenario: Scenario,
        cols: int,
        rows: int,
        out_dir: Path,
        keep_run_dir: bool = False,
        verbose: bool = True,
        listener: Listener | None = None,
        run_root: Path | None = None,
        pipe: bool = True,
        dress: Dress = PANE,
    ) -> None:
        self.agent = agent
        self.scenario = scenario
        self.cols, self.rows = cols, rows
        self.out_dir = out_dir
        self.name = f"{scenario.name}-{cols}x{rows}"
        self.base = out_dir / self.name
        self.keep_run_dir = keep_run_dir
        self.verbose = verbose
        self.tmux = Tmux()
        self.rec = Recording()
        self.t0 = 0.0
        self.server: FakeModelServer | None = None
        self.listener = listener
        # Throwaway run directories live under run_root/<agent>/<scenario>/.
        self.run_root = run_root or Path(tempfile.gettempdir()) / "agentlab"
        # pipe=False: no pipe-pane sink, so no .bytes (labels keep their polled offsets, 0):
        # a pane has a single pipe, and whoever watches the run live may need it.
        self.pipe = pipe
        # The pane's environment (TMUX, TERM, ...) and what the dress changes in it.
        self.dress = dress
        self.environment: dict[str, str] = {}

    # -- helpers ------------------------------------------------------------------------------
    def say(self, msg: str) -> None:
        if self.verbose:
            print(
                f"  [{self.name} {self.elapsed():6.2f}s @{self.offset():6d}] {msg}",
                file=sys.stderr,
                flush=True,
            )

    def elapsed(self) -> float:
        return time.time() - self.t0 if self.t0 else 0.0

    def offset(self) -> int:
        try:
            return Path(str(self.base) + ".bytes").stat().st_size
        except FileNotFoundError:
            return 0

    def run_name(self) -> str:
        """The run directory's agent part: a configuration or another release than the default
        gets one of its own, so that recordings of one agent in two setups never share it."""
        config = self.scenario.options.get("config")
        name = self.agent.name
        if self.agent.version_pinned():
            name += f"-{self.agent.version()}"
        if config:
            name += f"-{config}"
        return name if self.dress is PANE else f"{name}-{self.dress.name}"

    def capture(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "lab:0.0", check=False)

    def capture_with_title(self) -> tuple[str, str]:
        """Screen text and pane title from one tmux call (the poll loop runs every 50 ms)."""
        out = self.tmux(
            "capture-pane",
            "-p",
            "-t",
            "lab:0.0",
            ";",
            "display",
            "-p",
            "-t",
            "lab:0.0",
            "#{pane_title}",
            check=False,
        )
        return split_title(out)

    def event(self, kind: str, note: str) -> None:
        self._add_event(
            {"offset": self.offset(), "t": round(self.elapsed(), 3), "event": kind, "note": note}
        )

    def _add_event(self, ev: dict[str, Any]) -> None:
        self.rec.events.append(ev)
        self.notify("event", ev)

    def notify(self, kind: str, info: dict[str, Any], epoch: float | None = None) -> None:
        if self.listener is not None:
            self.listener(kind, {**info, "epoch": time.time() if epoch is None else epoch})

    def snapshot(self, label: str) -> str:
        snaps = Path(str(self.base) + ".snapshots")
        snaps.mkdir(exist_ok=True)
        n = len(list(snaps.glob("*.txt")))
        name = f"{n:02d}-{label}"
        (snaps / f"{name}.txt").write_text(self.capture())
        return name

    # -- the run -------------------------------------------------------------------------------
    def _clear_outputs(self) -> None:
        for suffix in (".bytes", ".timing", ".labels.json"):
            Path(str(self.base) + suffix).unlink(missing_ok=True)
        shutil.rmtree(str(self.base) + ".snapshots", ignore_errors=True)

    def run(self) -> Path:
        """Record; on failure no partial capture is left in the output folder."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._clear_outputs()
        try:
            return self._run()
        except BaseException:
            self._clear_outputs()
            raise

    def _run(self) -> Path:
        # The working directory shows in the agents' banners: a stable path per scenario keeps
        # re-recordings comparable (a random mkdtemp name would change every capture).
        root = self.run_root / self.run_name() / self.scenario.name
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        dirs = RunDirs(root=root, home=root / "home", proj=root / "proj")
        dirs.home.mkdir()
        dirs.proj.mkdir()
        server = FakeModelServer(
            self.scenario.script, dirs.proj, root / "requests.jsonl", self.agent.dialect
        )
        server.start()
        self.server = server
        try:
            argv, env = self.agent.prepare(dirs, server.url, self.scenario)
            self._start_pane(dirs, argv, env)
            self._play()
            time.sleep(0.5)
            self.snapshot("zz-final")
            self.event("end", "recording stopped; tmux server killed")
        finally:
            self.tmux.kill()
            server.stop()
            reap_strays(root)
            if self.keep_run_dir:
                self.say(f"run directory kept: {root}")
            else:
                shutil.rmtree(root, ignore_errors=True)
        time.sleep(0.2)  # the sink sees EOF when the server dies; let its last write land
        return self._write_labels()

    def pane_facts(self) -> PaneFacts:
        """What the lab's server gives the pane's program: its socket, pid, session, pane,
        version and default-terminal (the values of TMUX, TMUX_PANE, TERM_PROGRAM_VERSION,
        TERM)."""
        fmt = "#{socket_path}\t#{pid}\t#{session_id}\t#{pane_id}\t#{version}"
        out = self.tmux("display", "-p", "-t", "lab:0.0", fmt).strip().split("\t")
        terminal = self.tmux("show-options", "-gv", "default-terminal").strip()
        return PaneFacts(out[0], int(out[1]), out[2], out[3], out[4], terminal)

    def start_server(self, command: str) -> None:
        """The lab's tmux server with one pane at the scenario size running `command`.
        The options are set before the session exists: default-terminal is the pane's TERM, as
        a user's tmux.conf sets it (and the dress's other options), and a pane whose command
        ends at once must remain."""
        dressed: list[str] = []
        for name, value in self.dress.tmux_options.items():
            dressed += [";", "set-option", "-g", name, value]
        self.tmux(
            "start-server",
            *dressed,
            ";",
            "set-option",
            "-g",
            "default-terminal",
            self.dress.terminal,
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "set-option",
            "-g",
            "status",
            "off",
            ";",
            "new-session",
            "-d",
            "-s",
            "lab",
            "-x",
            str(self.cols),
            "-y",
            str(self.rows),
            command,
        )
        self.tmux.started = True
        size = self.tmux("display", "-p", "-t", "lab:0.0", "#{pane_width}x#{pane_height}").strip()
        if size != f"{self.cols}x{self.rows}":
            raise DriverError(f"pane is {size}, wanted {self.cols}x{self.rows}")

    def _start_pane(self, dirs: RunDirs, argv: list[str], env: dict[str, str]) -> None:
        go = dirs.root / "go"
        launcher = dirs.root / "launch.sh"
        run = dirs.root / "run.sh"
        # The pane first waits, silently, for the go file: pipe-pane must be attached before the
        # agent writes its first byte, and tmux can only pipe a pane that already exists. The
        # agent's command (run.sh) is written once the pane exists: its environment carries the
        # pane's own TMUX and TMUX_PANE.
        launcher.write_text(
            "#!/bin/sh\n"
            f"while [ ! -e {shlex.quote(str(go))} ]; do sleep 0.02; done\n"
            f"exec /bin/sh {shlex.quote(str(run))}\n"
        )
        launcher.chmod(0o755)
        self.start_server(str(launcher))
        full = pane_env(env, self.pane_facts(), self.dress)
        shown = (*TERMINAL_VARS, *self.dress.env)
        self.environment = {k: full[k] for k in shown if k in full}
        env_args = " ".join(shlex.quote(f"{k}={v}") for k, v in full.items())
        run.write_text(
            f"cd {shlex.quote(str(dirs.proj))} || exit 1\n"
            f"exec env -i {env_args} {shlex.join(argv)}\n"
        )
        if self.pipe:
            sink = shlex.join([sys.executable, str(SINK), str(self.base)])
            self.tmux("pipe-pane", "-O", "-t", "lab:0.0", sink)
            time.sleep(0.2)  # the sink process must be up before the first byte
        self.notify("ready", {"socket": self.tmux.socket, "target": "lab:0.0"})
        self.t0 = time.time()
        go.touch()
        self._add_event(
            {
                "offset": 0,
                "t": 0.0,
                "event": "launch",
                "note": shlex.join(argv[:1] + [a for a in argv[1:3]]),
            }
        )
        self.rec.segments.append(
            {
                "offset": 0,
                "t": 0.0,
                "state": "working",
                "note": "booting: agent starting, UI not ready yet",
                "offset_polled": 0,
            }
        )

    def _play(self) -> None:
        for action in self.scenario.actions:
            if isinstance(action, Expect):
                self._expect(action)
            elif isinstance(action, Type):
                self.event("typed", action.note or action.text)
                self.tmux("send-keys", "-t", "lab:0.0", "-l", action.text)
                self.say(f"typed {action.text!r}")
                time.sleep(0.3)
            elif isinstance(action, Keys):
                self.event("keys", f"{' '.join(action.keys)} {action.note}".strip())
                self.tmux("send-keys", "-t", "lab:0.0", *action.keys)
                self.say(f"keys {action.keys} ({action.note})")
            elif isinstance(action, PickOption):
                screen = self.capture()
                m = re.search(r"(\d)\.\s+" + action.label, screen)
                if not m:
                    raise DriverError(
                        f"{self.name}: no option {action.label!r} on screen:\n" + screen
                    )
                self.event("keys", f"{m.group(1)} {action.note}")
                self.tmux("send-keys", "-t", "lab:0.0", m.group(1))
                self.say(f"picked option {m.group(1)} ({action.note})")
            elif isinstance(action, Sleep):
                time.sleep(action.seconds)

    def _expect(self, exp: Expect) -> None:
        deadline = time.time() + exp.timeout
        quiet_at: int | None = None
        last_text, changed_at = None, time.time()
        while True:
            before = self.offset()
            if (
                exp.server_quiet
                and quiet_at is None
                and self.server is not None
                and self.server.quiet()
            ):
                quiet_at = before
            text, title = self.capture_with_title()
            seen = time.time()
            if text != last_text:
                last_text, changed_at = text, seen
            if (
                cue_matches(exp.cue, text, title)
                and (not exp.server_quiet or (self.server is not None and self.server.quiet()))
                and seen - changed_at >= exp.still
            ):
                break
            if time.time() > deadline:
                self.snapshot("timeout")
                raise DriverError(
                    f"{self.name}: timed out waiting for {exp.note!r} "
                    f"({exp.cue.pattern!r}); screen:\n{text}"
                )
            time.sleep(POLL)
        if exp.state is not None:
            seg: dict[str, Any] = {
                "server_quiet": exp.server_quiet,
                "offset_server_quiet": quiet_at,
                "still": exp.still,
                "offset": before,
                "t": round(self.elapsed(), 3),
                "state": exp.state,
                "note": exp.note,
                "cue": exp.cue.pattern,
                "absent": exp.cue.absent,
                "tail": exp.cue.tail,
                "title": exp.cue.title,
                "title_absent": exp.cue.title_absent,
                "pane_title": title,
                "offset_polled": before,
                "offset_after_detect": self.offset(),
            }
            seg["snapshot"] = self.snapshot(exp.state)
            self.rec.segments.append(seg)
            self.notify("label", seg, epoch=seen)
            self.say(f"{exp.state}: {exp.note}")
        if exp.settle:
            time.sleep(exp.settle)

    def _config_labels(self) -> dict[str, object]:
        """The configuration the agent ran in (none for its defaults), so that the scorer and
        a reader can tell captures of one version apart."""
        opts = self.scenario.options
        if "config" not in opts:
            return {}
        settings = {k: v for k, v in opts.items() if k not in ("config", "config_description")}
        return {
            "config": opts["config"],
            "config_description": opts.get("config_description", ""),
            "config_options": settings,
        }

    def _write_labels(self) -> Path:
        raw = Path(str(self.base) + ".bytes")
        data = raw.read_bytes() if raw.exists() else b""  # none without the pipe
        timing = Path(str(self.base) + ".timing")
        boundaries = (
            [int(line.split()[0]) for line in timing.read_text().splitlines() if line.strip()]
            if timing.exists()
            else []
        )
        refine_offsets(data, self.cols, self.rows, self.rec.segments, self.rec.events, boundaries)
        labels = {
            "agent": self.agent.name,
            "version": self.agent.version(),
            "scenario": self.scenario.name,
            "description": self.scenario.description,
            **self._config_labels(),
            "dress": self.dress.name,
            "dress_description": self.dress.description,
            **({"tmux_options": dict(self.dress.tmux_options)} if self.dress.tmux_options else {}),
            "environment": self.environment,
            "cols": self.cols,
            "rows": self.rows,
            "bytes_file": self.name + ".bytes",
            "total_bytes": len(data),
            "t0_epoch": round(self.t0, 3),
            "recorder": "tools/agentlab (python -m tools.agentlab record)",
            "offset_semantics": (
                "offset = offset_exact when found, else offset_polled. offset_polled = size of "
                ".bytes at the first ~50 ms capture-pane poll that showed the cue. offset_exact ="
                " first pipe-pane read boundary (from .timing), searched from the previous "
                "segment's offset to the next driver action, at which a replay of the bytes "
                "into osf_tmux.vt.pane.PaneScreen shows the cue (and not `absent`)."
            ),
            "segments": self.rec.segments,
            "driver_events": self.rec.events,
        }
        path = Path(str(self.base) + ".labels.json")
        path.write_text(json.dumps(labels, indent=1, ensure_ascii=False) + "\n")
        return path
