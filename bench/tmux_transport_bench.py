"""How the daemon should talk to tmux: a process per call, or a control-mode client (`tmux -C`).
Prints numbers and what each way does to the user's sessions; on a private server.

  python bench/tmux_transport_bench.py [--panes 200] [--calls 200]

1. The cost of one command: a `tmux` process per call, against one persistent control client.
   CPU is counted for everything involved: this process, its children, the control client
   and the tmux server.
2. `list-panes -a` with the daemon's fields over `--panes` panes, both ways.
3. How many panes' `pipe-pane` + `set-option` fit into one `tmux` process (the 16 KB limit).
4. What an attached control client (`attach -f no-output,ignore-size,read-only`) does to the
   session it attaches to, against an unattached one (`tmux -C wait-for CHANNEL`): does it count
   as attached, does a bell in the window it shows still mark the window, does the pane it
   shows get a focus-in (`ESC [ I`), does the window keep its size.
5. Whether tmux survives control clients connecting while sessions are created (`--trials`
   times, no hooks involved), and the same with plain clients (`tmux wait-for`)."""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from osf_tmux.daemon.source import PanePipe, PipeFactory  # noqa: E402
from osf_tmux.tmux import ServerSpec, Tmux, TmuxError, list_panes_format  # noqa: E402
from tests.support.tmux_server import TmuxServer, retry_until  # noqa: E402


def cpu_of(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


LISTED = "#{session_name} #{?session_attached,(attached),}"


class Control:
    """A control client: commands one per line, answers between %begin and %end."""

    def __init__(self, server: TmuxServer, *args: str) -> None:
        self.proc = subprocess.Popen(
            [server.tmux, "-L", server.socket_name, "-C", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.buf = b""

    def line(self) -> bytes:
        assert self.proc.stdout is not None
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.proc.stdout], [], [], 10)
            if not ready:
                raise TimeoutError("control client did not answer")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("control client exited")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def call(self, command: str) -> list[bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command.encode() + b"\n")
        while not self.line().startswith(b"%begin"):
            pass  # notifications
        out: list[bytes] = []
        while True:
            line = self.line()
            if line.startswith((b"%end", b"%error")):
                return out
            out.append(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=5)


def per_call(server: TmuxServer, calls: int) -> None:
    assert server.pid is not None
    tmux = Tmux(ServerSpec(server.socket_name))
    s0, c0, t0 = cpu_of(server.pid), own_cpu(), time.perf_counter()
    for _ in range(calls):
        tmux.run("display-message", "-p", "x")
    wall, cpu, srv = time.perf_counter() - t0, own_cpu() - c0, cpu_of(server.pid) - s0
    print(
        f"  a process per call: {1000 * wall / calls:.2f} ms wall, "
        f"{1000 * (cpu + srv) / calls:.2f} ms CPU per call "
        f"(this process and its tmux children {1000 * cpu / calls:.2f}, server "
        f"{1000 * srv / calls:.2f})"
    )
    ctl = Control(server, "attach", "-f", "no-output,ignore-size,read-only", "-t", "osf-base")
    ctl.call("display-message -p x")
    n = calls * 10
    s0, c0, k0, t0 = cpu_of(server.pid), own_cpu(), cpu_of(ctl.proc.pid), time.perf_counter()
    for _ in range(n):
        ctl.call("display-message -p x")
    wall, cpu = time.perf_counter() - t0, own_cpu() - c0
    srv, client = cpu_of(server.pid) - s0, cpu_of(ctl.proc.pid) - k0
    ctl.close()
    print(
        f"  control client:     {1000 * wall / n:.3f} ms wall, "
        f"{1000 * (cpu + srv + client) / n:.3f} ms CPU per call (this process "
        f"{1000 * cpu / n:.3f}, control client {1000 * client / n:.3f}, server "
        f"{1000 * srv / n:.3f})"
    )


def list_panes(server: TmuxServer, panes: int) -> None:
    assert server.pid is not None
    fmt = list_panes_format()
    tmux = Tmux(ServerSpec(server.socket_name))
    n = 20
    s0, c0, t0 = cpu_of(server.pid), own_cpu(), time.perf_counter()
    for _ in range(n):
        out = tmux.run("list-panes", "-a", "-F", fmt)
    wall, cpu, srv = time.perf_counter() - t0, own_cpu() - c0, cpu_of(server.pid) - s0
    lines = len(out.splitlines())
    print(
        f"  a process per call: {1000 * wall / n:.1f} ms wall, {1000 * (cpu + srv) / n:.1f} ms "
        f"CPU ({lines} panes, {len(out)} bytes; server {1000 * srv / n:.1f} ms)"
    )
    ctl = Control(server, "attach", "-f", "no-output,ignore-size,read-only", "-t", "osf-base")
    quoted = "'" + fmt + "'"
    s0, c0, k0, t0 = cpu_of(server.pid), own_cpu(), cpu_of(ctl.proc.pid), time.perf_counter()
    for _ in range(n):
        rows = ctl.call(f"list-panes -a -F {quoted}")
    wall, cpu = time.perf_counter() - t0, own_cpu() - c0
    srv, client = cpu_of(server.pid) - s0, cpu_of(ctl.proc.pid) - k0
    ctl.close()
    print(
        f"  control client:     {1000 * wall / n:.1f} ms wall, "
        f"{1000 * (cpu + srv + client) / n:.1f} ms CPU ({len(rows)} panes; server "
        f"{1000 * srv / n:.1f} ms, control client {1000 * client / n:.1f} ms)"
    )


def command_limit(server: TmuxServer, pane_ids: list[str], workdir: Path) -> None:
    tmux = Tmux(ServerSpec(server.socket_name))
    factory = PipeFactory(workdir / "run-directory-of-a-typical-length" / "tmux-1000-default-1234")
    path = factory.directory / "pane-0"
    fits = 0
    for count in range(10, len(pane_ids) + 1, 5):
        commands: list[list[str]] = []
        for pane in pane_ids[:count]:
            fake = PanePipe(path, -1, -1)  # its paths only; nothing is opened
            for command in factory.attach_command(fake, pane, "token"):
                # a user option stands in for each command: the same length, no pipe opened
                commands.append(["set-option", "-p", "-t", pane, "@osf_bench", command[-1]])
        try:
            tmux.run_many(commands)
        except TmuxError as exc:
            size = sum(len(a) + 1 for c in commands for a in c)
            print(f"  {count} panes' attach commands ({size} bytes) in one call: {exc}"[:160])
            break
        fits = count
    print(f"  at most {fits} panes' attach commands fit into one tmux process")


def side_effects(server: TmuxServer, workdir: Path) -> None:
    """Each kind of client on a fresh session whose pane records what it receives."""
    for label, args in (
        ("attached control client", ("attach", "-f", "no-output,ignore-size,read-only", "-t")),
        ("unattached `-C wait-for`", ("wait-for", "osf-bench-never")),
        ("no client at all", ()),
    ):
        name = f"fx{abs(hash(label)) % 10000}"
        log = workdir / f"{name}.in"
        server.cmd("set-option", "-g", "focus-events", "on")
        server.cmd(
            "new-session", "-d", "-s", name, "-x", "100", "-y", "30",
            f"printf '\\033[?1004h'; stty raw -echo; cat -v > {log}",
        )  # fmt: skip
        retry_until(lambda: log.exists(), timeout=5)  # noqa: B023
        time.sleep(0.2)
        ctl = None
        if args:
            full = [*args, name] if args[-1] == "-t" else list(args)
            ctl = Control(server, *full)
            time.sleep(0.3)
        attached = server.cmd("display-message", "-p", "-t", name, "#{session_attached}").strip()
        listed = server.cmd("list-sessions", "-F", LISTED)
        # a bell as a program in the pane rings it: written to the pane's terminal
        tty = server.cmd("display-message", "-p", "-t", name, "#{pane_tty}").strip()
        with open(tty, "w") as bell_out:
            bell_out.write("\a")
        time.sleep(0.3)
        bell = server.cmd("display-message", "-p", "-t", f"{name}:", "#{window_bell_flag}").strip()
        size = server.cmd("display-message", "-p", "-t", name, "#{window_width}x#{window_height}")
        got = log.read_text()
        print(
            f"  {label:26} session_attached={attached}  in `tmux ls`: "
            f"{'(attached)' if f'{name} (attached)' in listed else '-'}  bell marks the window: "
            f"{'yes' if bell == '1' else 'NO'}  focus-in sent to the pane: "
            f"{'YES' if '^[[I' in got else 'no'}  window {size.strip()}"
        )
        if ctl is not None:
            ctl.close()
        server.cmd("kill-session", "-t", name)


def connect_while_creating(trials: int) -> None:
    """A client connects (and ends) while another creates a session, `trials` times."""
    for label, flag in (("control clients (tmux -C wait-for)", ["-C"]), ("plain clients", [])):
        crashes = 0
        server = TmuxServer()
        server.start()
        try:
            for trial in range(trials):
                waiter = subprocess.Popen(
                    [server.tmux, "-L", server.socket_name, *flag, "wait-for", "osf-bench"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                made = subprocess.run(
                    [server.tmux, "-L", server.socket_name, "new-session", "-d", "sleep 100"],
                    capture_output=True,
                    text=True,
                )
                if waiter.stdin is not None:
                    waiter.stdin.close()
                waiter.terminate()
                waiter.wait(timeout=5)
                if made.returncode != 0 or not _alive(server):
                    crashes += 1
                    server.kill()
                    server = TmuxServer()
                    server.start()
                elif trial % 20 == 19:
                    server.cmd("kill-session", "-a", "-t", "osf-base")
        finally:
            server.kill()
        print(f"  {label}: the tmux server crashed {crashes} times in {trials}")


def _alive(server: TmuxServer) -> bool:
    try:
        server.cmd("display-message", "-p", "#{pid}")
    except Exception:
        return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--panes", type=int, default=200)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--trials", type=int, default=200)
    args = ap.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        server = TmuxServer()
        server.start()
        try:
            print(f"1. one command (display-message -p), {args.calls} calls:")
            per_call(server, args.calls)
            panes = [server.new_pane(["sleep", "100000"], 80, 24) for _ in range(args.panes - 1)]
            print(f"2. list-panes -a with the daemon's {len(list_panes_format())}-byte format:")
            list_panes(server, args.panes)
            print("3. the daemon's attach commands in one tmux process:")
            command_limit(server, panes, Path(tmp))
            print("4. what a client does to the session it is in (focus-events on):")
            side_effects(server, Path(tmp))
        finally:
            server.kill()
        print("5. clients connecting while sessions are created:")
        connect_while_creating(args.trials)


if __name__ == "__main__":
    main()
