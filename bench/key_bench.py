"""How fast the plugin's keys answer, from the key press to what the key does. Prints numbers.

  python bench/key_bench.py [--trials 30] [--panes 3] [--bin PATH]

A private tmux server (never the default one) with the plugin loaded (`plugin load`, so the
real daemon watches it) and PANES panes blocked at a recorded Claude Code permission prompt. A
second private server runs `tmux attach` to the first in one of its panes: a real client with
a terminal. Keys are typed into that terminal (send-keys into the outer pane), so each
measurement includes the whole way a key press takes: terminal, client, server, key binding,
run-shell, the osf-tmux process and its tmux calls.

- next: `prefix + A` (@osf-key-next); the time until tmux reports that the client shows
  another session (each blocked pane has its own), to a control-mode client: no polling.
- menu: `prefix + W` (@osf-key-menu); the time until the menu's title reaches the client's
  terminal (the outer server reports its pane's output), then Escape closes it.
- process: each command run directly (`osf-tmux next --client C`): its wall time, and its CPU
  time with the tmux clients it ran (rusage), which a busy machine inflates far less than the
  wall times: on an idle machine the key's time is about this CPU time plus tmux's own work.

--bin runs another osf-tmux (e.g. the console script of a venv with an older checkout) to
compare. Before measuring, the osf_tmux package that program imports is byte-compiled, as pip
does for a wheel and Python does on the first import of an editable install: where
PYTHONDONTWRITEBYTECODE is set (this machine sets it), every key press would compile the
modules it imports from source, which is not what a user's machine does. The machine is shared:
the load average is printed with the numbers."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.control_mode import ControlMode, Terminal  # noqa: E402
from tests.support.live import Feeder  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402

CAPTURE = ROOT / "captures" / "claude-2.1.328" / "c_bash_yes-120x32.bytes"
BLOCKED_AT = 5676  # the first offset labelled blocked in that capture
MENU_TITLE = " osf-tmux "  # the start of the menu's title (`next` says "osf-tmux: ...")
DEFAULT_BIN = Path(sys.executable).with_name("osf-tmux")


@contextlib.contextmanager
def loaded(binary: Path, panes: int) -> Iterator[tuple[TmuxServer, Terminal, ControlMode]]:
    """The inner server with the plugin loaded and `panes` blocked panes, a terminal attached
    to it from the outer server, and a control client of the inner server for polling."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        inner, outer = TmuxServer(), TmuxServer()
        inner.start()
        outer.start()
        inner.cmd("set-option", "-g", "status", "on")
        # Escape closes the menu; with tmux's default escape-time (500 ms) the next trial's
        # prefix key would be read as Meta-prefix.
        inner.cmd("set-option", "-s", "escape-time", "10")
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        for name, sub in (("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "run"),
                          ("XDG_CONFIG_HOME", "config")):  # fmt: skip
            env[name] = str(home / sub)
            inner.cmd("set-environment", "-g", name, env[name])
        feeders: list[Feeder] = []
        terminal = control = None
        try:
            subprocess.run([str(binary), "-L", inner.socket_name, "plugin", "load"], env=env,
                           check=True, capture_output=True, timeout=60)  # fmt: skip
            data = CAPTURE.read_bytes()[:BLOCKED_AT]
            for _ in range(panes):
                feeder = Feeder(inner, home, 120, 32, "claude")
                feeders.append(feeder)
                retry_until(functools.partial(feeder.option, "@osf_pipe"), timeout=10, what="pipe")
                feeder.write(data)
            for feeder in feeders:
                retry_until(functools.partial(is_blocked, feeder), timeout=20, what="blocked")
            terminal = Terminal(inner, outer)
            control = ControlMode(inner)
            yield inner, terminal, control
        finally:
            for c in (control, terminal):
                if c is not None:
                    c.close()
            for feeder in feeders:
                feeder.close()
            subprocess.run([str(binary), "-L", inner.socket_name, "stop"], env=env,
                           capture_output=True, timeout=60)  # fmt: skip
            inner.kill()
            outer.kill()


def compile_package(binary: Path) -> str:
    """Byte-compile the osf_tmux that `binary` (a console script) imports; where it is."""
    python = binary.read_text().splitlines()[0].removeprefix("#!").strip()
    # from / : in the checkout, `python -c` would import the checkout's osf_tmux instead
    ask = [python, "-c", "import osf_tmux; print(osf_tmux.__path__[0])"]
    where = subprocess.run(ask, cwd="/", capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], cwd="/", check=True)
    return where


def is_blocked(feeder: Feeder) -> bool:
    return feeder.state() == "blocked"


def bound(inner: TmuxServer, option: str) -> str | None:
    key = inner.cmd("show-options", "-gqv", option).strip()
    keys = inner.cmd("list-keys", "-T", "prefix")
    ours = [line for line in keys.splitlines() if f" {key} " in line and "osf-tmux" in line]
    return key if key and ours else None


def next_key(
    inner: TmuxServer, terminal: Terminal, control: ControlMode, trials: int
) -> list[float]:
    """Each blocked pane has a session of its own, so every jump is a session change, which
    tmux reports to control clients (%client-session-changed): no polling."""
    key = bound(inner, "@osf-key-next")
    assert key is not None, "prefix + @osf-key-next is not bound to osf-tmux"
    head = f"%client-session-changed {terminal.name} "
    out = []
    for _ in range(trials + 1):
        control.forget()
        start = time.perf_counter()
        terminal.press("C-b", key)
        out.append(control.wait_for(lambda line: line.startswith(head)) - start)
        time.sleep(0.5)  # let the daemon's sweep after the switch pass
    return out[1:]  # the first press warms the page cache


def menu_key(inner: TmuxServer, terminal: Terminal, trials: int) -> list[float] | None:
    """Until the menu's title reaches the client's terminal (%output of the outer pane)."""
    key = bound(inner, "@osf-key-menu")
    if key is None:
        return None
    out = []
    for _ in range(trials + 1):
        terminal.keys.forget()
        start = time.perf_counter()
        terminal.press("C-b", key)
        out.append(terminal.drawn(MENU_TITLE) - start)
        terminal.press("Escape")
        time.sleep(0.5)
    return out[1:]


def cold(
    binary: Path, inner: TmuxServer, args: list[str], trials: int, after: Callable[[], None]
) -> tuple[list[float], list[float]]:
    """Wall time and CPU time (the process and the tmux clients it ran) of each run."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    wall, cpu = [], []
    for _ in range(trials):
        start = time.perf_counter()
        child = subprocess.Popen([str(binary), "-L", inner.socket_name, *args], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        _, _, usage = os.wait4(child.pid, 0)
        wall.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        child.returncode = 0  # reaped above
        after()
        time.sleep(0.2)
    return wall, cpu


def show(name: str, values: list[float] | None) -> None:
    if not values:
        print(f"{name:<28} (not bound)")
        return
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    print(f"{name:<28} n={len(ms):<3} p50 {statistics.median(ms):6.1f} ms  "
          f"p90 {p90:6.1f} ms  min {ms[0]:6.1f}  max {ms[-1]:6.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--panes", type=int, default=3)
    parser.add_argument("--bin", type=Path, default=DEFAULT_BIN, help="the osf-tmux to measure")
    args = parser.parse_args()
    package = compile_package(args.bin)
    print(f"osf-tmux: {args.bin} ({package}, byte-compiled)")
    print(f"load average at start {os.getloadavg()[0]:.2f}")
    with loaded(args.bin, args.panes) as (inner, terminal, control):
        show("prefix + A -> pane shown", next_key(inner, terminal, control, args.trials))
        show("prefix + W -> menu shown", menu_key(inner, terminal, args.trials))
        client = ["--client", terminal.name]
        nothing: Callable[[], None] = lambda: None  # noqa: E731
        escape: Callable[[], None] = lambda: terminal.press("Escape")  # noqa: E731
        wall, cpu = cold(args.bin, inner, ["next", *client], args.trials, nothing)
        show("osf-tmux next (process)", wall)
        show("  its CPU time", cpu)
        if bound(inner, "@osf-key-menu"):
            wall, cpu = cold(args.bin, inner, ["menu", *client], args.trials, escape)
            show("osf-tmux menu (process)", wall)
            show("  its CPU time", cpu)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
