"""`osf-tmux capture`: keep the evidence when osf-tmux is wrong about a pane, and `osf-tmux rules
test`: replay the captures kept that way against the rules in use."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import click

from osf_tmux.cli.rules import ruleset_in_use
from osf_tmux.cli.server import NoSuchPane, pane_id_of, pass_server
from osf_tmux.daemon.capture_server import socket_path
from osf_tmux.daemon.feed import FeedError, check_private, unix_address
from osf_tmux.daemon.lifecycle import EXIT_NO_DAEMON, DaemonFiles
from osf_tmux.judge.ruleset import UnknownAgentError
from osf_tmux.judge.user_capture import (
    USER_STATES,
    Written,
    check,
    user_captures,
    write_capture,
)
from osf_tmux.paths import UnsafeDirectoryError, captures_dir, private_dir
from osf_tmux.tmux import NoServerError, ServerSpec, Tmux, TmuxError

EXIT_GONE = 4
ANSWER_TIMEOUT = 10.0  # seconds: the daemon answers from a thread of its own
MAX_ANSWER = 8 << 20  # 256 KiB of bytes in base64 with their read times is far below this
SECRETS = (
    "These files hold whatever the pane showed (code, paths, tokens, secrets). Read them "
    "before you share them; --redact crosses out the rows no rule needs."
)


def _pane_id(server: ServerSpec, target: str | None) -> str:
    try:
        return pane_id_of(server, target)
    except NoServerError:
        raise click.ClickException(f"no tmux server running for {server.describe()}") from None
    except NoSuchPane as exc:
        raise NoPane(str(exc)) from None


class NoDaemon(click.ClickException):
    exit_code = EXIT_NO_DAEMON


class NoPane(click.ClickException):
    exit_code = EXIT_GONE


def ask_daemon(runtime: Path, pane: str) -> dict[str, Any]:
    """The daemon's answer for `pane` (daemon/capture_server.py)."""
    path = socket_path(runtime)
    try:
        check_private(runtime)
    except FeedError as exc:
        raise click.ClickException(str(exc)) from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(ANSWER_TIMEOUT)
    try:
        with unix_address(path) as address:
            sock.connect(address)
        sock.sendall((json.dumps({"pane": pane}) + "\n").encode())
        reply = bytearray()
        while len(reply) <= MAX_ANSWER:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            reply += chunk
    except (FileNotFoundError, ConnectionRefusedError):
        raise NoDaemon(
            "the osf-tmux daemon is not running here (osf-tmux start), or is older than `capture`"
        ) from None
    except OSError as exc:
        raise NoDaemon(f"the osf-tmux daemon did not answer: {exc}") from None
    finally:
        sock.close()
    try:
        answer = json.loads(bytes(reply))
    except ValueError:
        raise click.ClickException("the daemon's answer was cut short or garbled") from None
    if not isinstance(answer, dict):
        raise click.ClickException("the daemon's answer is not an object")
    return answer


def _name(agent: str, pane: str, wall: float) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(wall))
    return f"{re.sub(r'[^a-z0-9-]', '', agent)}-{stamp}-pane{pane.lstrip('%')}"


@click.command("capture")
@click.argument("target", required=False)
@click.option(
    "--state",
    "user_state",
    type=click.Choice(USER_STATES, case_sensitive=False),
    help="The state the pane really is in (what osf-tmux should have shown).",
)
@click.option("--note", metavar="TEXT", help="What you saw, in a few words (kept in the labels).")
@click.option(
    "--out",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write into (default: ~/.local/state/osf-tmux/captures, mode 0700).",
)
@click.option(
    "--client",
    metavar="NAME",
    help="Also say what happened on this tmux client (the menu's row passes its own).",
)
@click.option(
    "--redact",
    is_flag=True,
    help="Cross out (x for each character) the rows no rule needs; the capture keeps only the "
    "last screen, and still replays to the same state.",
)
@pass_server
def capture_cmd(
    server: ServerSpec,
    target: str | None,
    user_state: str | None,
    note: str | None,
    out: Path | None,
    client: str | None,
    redact: bool,
) -> None:
    """Keep what the agent in TARGET drew lately (this pane when not given), so that a wrong
    state can be replayed, explained, fixed with a rule of your own and shown in a bug report.

    The daemon keeps each agent pane's last 256 KiB of output with their read times. This
    writes them as NAME.bytes, NAME.timing, NAME.labels.json (agent, size, the state osf-tmux
    showed, --state: the one you say is right) and NAME.txt (the screen), the same format as
    the lab's captures: `osf-tmux explain NAME.bytes` shows the screen and which rule decided,
    `osf-tmux rules test` replays every capture against your rules.

    Exit status: 3 when no daemon runs for this tmux server, 4 when the pane does not exist."""
    try:
        written = _capture(server, target, user_state, note, out, redact)
    except click.ClickException as exc:
        _tell(server, client, f"osf-tmux capture: {exc.format_message()}")
        raise
    stem = written.bytes_path.with_suffix("")
    shown = written.shown or "no state"
    said = f"; you say {user_state.lower()}" if user_state else ""
    screen = written.screen
    click.echo(f"wrote {stem}.bytes (+ .timing, .labels.json, .txt): {written.size} bytes")
    click.echo(
        f"osf-tmux showed {shown}{said}; its screen alone reads {screen.state} "
        f"(rule: {screen.rule or 'none matched, default'})"
    )
    if written.kept_rows is not None:
        kept = ", ".join(map(str, written.kept_rows)) or "none"
        click.echo(f"redacted: rows kept as they were: {kept}; every other row crossed out")
    click.echo(f"see it: osf-tmux explain {stem}.bytes")
    click.echo(SECRETS, err=True)
    _tell(server, client, f"osf-tmux: kept {stem}.bytes (showed {shown}{said}; may hold secrets)")


def _tell(server: ServerSpec, client: str | None, message: str) -> None:
    if client:
        with contextlib.suppress(TmuxError):
            Tmux(server).run("display-message", "-c", client, message.replace("#", "##"))


def _capture(
    server: ServerSpec,
    target: str | None,
    user_state: str | None,
    note: str | None,
    out: Path | None,
    redact: bool,
) -> Written:
    pane = _pane_id(server, target)
    files = DaemonFiles.for_server(server)
    answer = ask_daemon(files.runtime, pane)
    if "error" in answer:
        raise NoPane(str(answer["error"]))
    try:
        data = base64.b64decode(answer["data"], validate=True)
        timing = [(int(o), float(t)) for o, t in answer["timing"]]
        agent = str(answer["agent"])
        int(answer["cols"]), int(answer["rows"])
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise click.ClickException("the daemon's answer lacks what a capture needs") from None
    try:
        manifest = ruleset_in_use().get(agent)
    except UnknownAgentError as exc:
        raise click.ClickException(str(exc)) from None
    folder = out if out is not None else captures_dir()
    try:
        private_dir(folder, levels=1)
    except (UnsafeDirectoryError, OSError) as exc:
        raise click.ClickException(f"cannot write into {folder}: {exc}") from None
    return write_capture(
        folder,
        _name(agent, pane, time.time()),
        data=data,
        timing=timing,
        daemon=answer,
        manifest=manifest,
        user_state=user_state.lower() if user_state else None,
        note=note,
        redacted=redact,
    )


@click.command("test")
@click.argument("folders", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per capture.")
def rules_test_cmd(folders: tuple[Path, ...], as_json: bool) -> None:
    """Replay your captures (`osf-tmux capture`; default folder:
    ~/.local/state/osf-tmux/captures) against the rules in use (the shipped ones and yours in
    ~/.config/osf-tmux/rules) and list each one whose state now differs from the state you
    gave with --state. A capture without one is listed as not checked.

    Exit status: 0 when every capture with a state reads as you said, 1 when one differs or
    cannot be read."""
    rules = ruleset_in_use()
    where = list(folders) or [captures_dir()]
    failed = checked = 0
    for labels in user_captures(where):
        result = check(labels, rules.get)
        bad = result.problem is not None or result.differs
        failed += bad
        checked += result.now is not None and result.user_state is not None
        if as_json:
            click.echo(
                json.dumps(
                    {
                        "capture": str(result.bytes_path),
                        "agent": result.agent,
                        "user_state": result.user_state,
                        "state": result.now.state if result.now else None,
                        "rule": result.now.rule if result.now else None,
                        "differs": result.differs,
                        "problem": result.problem,
                    }
                )
            )
            continue
        if result.problem is not None:
            click.echo(f"ERROR    {result.bytes_path}: {result.problem}")
        elif result.now is None or result.user_state is None:
            click.echo(f"-        {result.bytes_path}: no state given (capture --state)")
        else:
            mark = "DIFFERS " if result.differs else "ok      "
            rule = result.now.rule or "default"
            click.echo(
                f"{mark} {result.bytes_path}: you said {result.user_state}, "
                f"the rules say {result.now.state} ({rule})"
            )
    if not as_json:
        click.echo(f"{checked} checked, {failed} differ or failed")
    raise SystemExit(1 if failed else 0)


COMMANDS = [capture_cmd]
RULES_COMMANDS = [rules_test_cmd]  # under `osf-tmux rules`
