"""The overview of every agent pane: `osf-tmux list` in a terminal, a `display-menu` on a key.

Which panes run an agent, and in which state, comes from tmux itself (one `list-panes -a`
reading the `@osf_state` the daemon publishes, as the status line does); the daemon's status
file adds the agent and since when. The screens of blocked panes are captured (one more tmux
call) for the question they ask and the options of their menu. Choosing a row jumps to its
pane; a blocked row's answers run `osf-tmux answer`, which judges the pane afresh before it
types anything, into that pane only.

Everything a pane shows is text in the menu, never a format or a command: `#` is doubled in
names, and commands hold only pane ids, answer choices and our own paths."""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from osf_tmux.daemon.lifecycle import DaemonFiles
from osf_tmux.daemon.source import PaneCapture, capture_panes
from osf_tmux.judge.answer import Answer, answer_tables
from osf_tmux.judge.question import ask_excerpt, clean, menu_options
from osf_tmux.paths import shipped_rules_dir, user_rules_dir
from osf_tmux.plugin import remote_view
from osf_tmux.plugin.invoke import own_command, plugin_log, shell_line, tmux_command
from osf_tmux.plugin.jump import client_line, shown_by
from osf_tmux.plugin.remote_view import ONLINE, SAFE_AGENT, HostState
from osf_tmux.tmux import SEP, Tmux, TmuxError
from osf_tmux.vt.snapshot import Snapshot

# What a key press imports is most of what it costs (cli/keys.py): `typing` only for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATES = ("blocked", "done", "working", "idle")  # most urgent first
ICONS = {"working": "◐", "idle": "○"}  # blocked and done: @osf-icon-blocked / @osf-icon-done
# Item keys: digits, then letters; tmux menus keep q (close) and j k g G (move) for themselves.
MENU_KEYS = "123456789abcdefhilmnoprstuvwxyz"
_STYLE = re.compile(r"^[\w#=, -]+$")  # a tmux style option's value, nothing that ends `#[`
_PANE_HEAD = "OSFAGENT" + SEP
_OPTIONS_HEAD = "OSFOPTS" + SEP
_MENU_OPTIONS = (
    "@osf-icon-blocked",
    "@osf-icon-done",
    "@osf-style-blocked",
    "@osf-style-done",
)


@dataclass(frozen=True)
class AgentPane:
    pane_id: str
    address: str  # session:window.pane
    state: str
    agent: str
    since: float | None  # when it entered this state (the daemon's clock), if known
    question: str = ""  # blocked: the row that asks
    detail: str = ""  # blocked: the row above it (the command or file it is about)
    options: tuple[tuple[str, str], ...] = ()  # blocked: numbered options, (number, label)
    # Another machine's pane (`@osf-hosts`): pane_id and address are its own there.
    host: str | None = None

    @property
    def where(self) -> str:
        """As people read it: `work:1.0` here, `devbox:work:1.0` on another machine."""
        return f"{self.host}:{self.address}" if self.host else self.address


@dataclass(frozen=True)
class View:
    """The client the menu opens on: the pane it shows and its size."""

    pane_id: str | None = None
    width: int = 80
    height: int = 24


@dataclass(frozen=True)
class Overview:
    panes: list[AgentPane]
    view: View
    options: Mapping[str, str]  # icons and colours
    daemon_running: bool = True  # whether a daemon holds this server's lock (its status read)
    hosts: tuple[HostState, ...] = ()  # the hosts that are not online: one row each


def order(panes: Sequence[AgentPane]) -> list[AgentPane]:
    """Most urgent state first; within one, the one in it longest first, then by pane number."""
    return sorted(
        panes,
        key=lambda p: (
            STATES.index(p.state) if p.state in STATES else len(STATES),
            p.since if p.since is not None else float("inf"),
            _pane_number(p.pane_id),
        ),
    )


def read(
    tmux: Tmux,
    status: Mapping[str, Any] | None,
    client: str | None,
    with_view: bool = True,
    remote: bool = False,
) -> Overview:
    """Every agent pane, in two tmux calls at most (the second only when some are blocked).
    With `remote`, other machines' too (from the status file): only for readers that never
    take a remote `%3` for this server's (`list`; the menu jumps and answers by pane id)."""
    fields = ("#{pane_id}", "#{session_name}:#{window_index}.#{pane_index}", "#{@osf_state}",
              "#{@osf-agent}", "#{pane_current_command}")  # fmt: skip
    commands = [
        ["list-panes", "-a", "-F", _PANE_HEAD + SEP.join(fields)],
        ["display-message", "-p", _OPTIONS_HEAD + SEP.join(f"#{{{o}}}" for o in _MENU_OPTIONS)],
    ]
    if with_view:
        commands.append(shown_by(client, ("#{client_width}", "#{client_height}")))
    out = tmux.run_many(commands)
    known = _status_panes(status)
    panes: list[AgentPane] = []
    view = View()
    values: dict[str, str] = {}
    for line in out.splitlines():
        if line.startswith(_PANE_HEAD):
            parts = line[len(_PANE_HEAD) :].split(SEP)
            if len(parts) != len(fields):
                continue  # a name holding our separator: not one of ours to guess at
            pane_id, address, state, override, command = parts
            if not state:
                continue  # no agent there (the daemon publishes a state for every agent pane)
            agent, since = known.get(pane_id, (None, None))
            panes.append(AgentPane(pane_id, address, state, agent or override or command, since))
        elif line.startswith(_OPTIONS_HEAD):
            values = dict(zip(_MENU_OPTIONS, line[len(_OPTIONS_HEAD) :].split(SEP), strict=False))
        elif (seen := client_line(line, client)) is not None and len(seen) == 3:
            view = View(seen[0] or None, _int(seen[1], 80), _int(seen[2], 24))
    blocked = [p.pane_id for p in panes if p.state == "blocked"]
    if blocked:
        captures = capture_panes(tmux, blocked, escapes=False)
        panes = [_asking(p, captures.get(p.pane_id)) for p in panes]
    if remote:
        panes += remote_panes(status)
    return Overview(order(panes), view, values, daemon_running=status is not None)


def remote_panes(status: Mapping[str, Any] | None) -> list[AgentPane]:
    """Other machines' agent panes, as the daemon's links last heard them (status.json rows
    with a `host`; checked for shape by remote_view, and only those of online hosts)."""
    return [
        AgentPane(
            p.pane_id, p.target, p.state, p.agent, p.since, p.question, p.detail, p.options, p.host
        )
        for p in remote_view.remote_panes(status)
    ]


def hosts_away(status: Mapping[str, Any] | None) -> list[str]:
    """A line for each host of `@osf-hosts` whose panes cannot be shown (offline, ...), with
    why: a list without them must not read as "no agent waits there"."""
    hosts = (status or {}).get("hosts")
    out = []
    for name, h in hosts.items() if isinstance(hosts, dict) else ():
        if isinstance(h, dict) and h.get("state") != "online":
            error = h.get("error")
            why = f": {clean(error, 200)}" if isinstance(error, str) and error else ""
            out.append(f"host {clean(str(name), 60)} is {h.get('state')}{why}")
    return out


def _asking(pane: AgentPane, capture: PaneCapture | None) -> AgentPane:
    """A blocked pane with what its screen asks."""
    if pane.state != "blocked" or capture is None:
        return pane
    snap = Snapshot(cols=capture.cols, rows=tuple(r.rstrip() for r in capture.lines))
    question, detail = ask_excerpt(snap)
    return replace(pane, question=question, detail=detail, options=tuple(menu_options(snap)))


def _status_panes(status: Mapping[str, Any] | None) -> dict[str, tuple[str | None, float | None]]:
    out: dict[str, tuple[str | None, float | None]] = {}
    for p in (status or {}).get("panes", []):
        if p.get("host"):
            continue  # another machine's %3 is not this server's
        pane_id, agent, since = p.get("pane"), p.get("agent"), p.get("since")
        if isinstance(pane_id, str):
            out[pane_id] = (
                agent if isinstance(agent, str) else None,
                float(since) if isinstance(since, (int, float)) else None,
            )
    return out


def duration(seconds: float | None) -> str:
    """`42s`, `5m`, `2h05m`, `3d`: how long a pane has been in its state ('-' when unknown)."""
    if seconds is None or seconds < 0:
        return "-"
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d"


# ---- the terminal: osf-tmux list ---------------------------------------------------------


def as_records(panes: Sequence[AgentPane], now: float) -> list[dict[str, Any]]:
    return [
        {
            "pane": p.pane_id,
            "target": p.address,  # session:window.pane, as in `events`, `wait` and `status`
            "agent": p.agent,
            "state": p.state,
            "since": p.since,
            "for_seconds": None if p.since is None else round(max(now - p.since, 0.0), 1),
            "question": p.question or None,
            "detail": p.detail or None,
            "options": [{"choice": n, "label": label} for n, label in p.options],
            "host": p.host,  # null: this machine's
        }
        for p in panes
    ]


def as_table(panes: Sequence[AgentPane], now: float) -> str:
    rows = [("PANE", "WHERE", "AGENT", "STATE", "FOR", "ASKS")]
    for p in panes:
        since = None if p.since is None else now - p.since
        rows.append((p.pane_id, p.where, p.agent, p.state, duration(since), p.question))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


# ---- the menu ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MenuItem:
    name: str  # shown (a tmux format: the text of panes is escaped); '' is a separator
    key: str
    command: str  # a tmux command


def menu_items(
    overview: Overview,
    answers: Mapping[str, Answer | None],
    answer_command: Callable[[str, str], str],
    now: float,
    client: str | None,
    go_command: Callable[[str], str] | None = None,
    capture_command: Callable[[str, str], str] | None = None,
) -> list[MenuItem]:
    """One row per agent pane (most urgent first) that jumps to it; under a blocked row, one
    row per answer its agent's `[answer]` table allows; then, when the client shows an agent
    pane, "osf-tmux is wrong about this pane"; last, one row per host that is not online.
    `answer_command(target, choice)` is the tmux command that runs `osf-tmux answer` for that
    pane (`%5`, or `devbox:%3` on a host); `go_command(target)` the one that takes the client to
    a remote pane (a row without it does nothing); `capture_command(pane, state)` the one that
    runs `osf-tmux capture` on the client's pane with the state the user says is right."""
    panes, view, values = overview.panes, overview.view, overview.options
    budget = row_budget(view.width)
    hosts = _host_rows(overview.hosts, now, budget + 4)
    if not panes:
        daemon = overview.daemon_running
        why = "no agent runs in any pane" if daemon else "the daemon is not running"
        room = row_budget(overview.view.width) + 4  # no key on a disabled row
        said = [f"-{why}"] + ([] if daemon else ["-start it: osf-tmux start (or: osf-tmux doctor)"])
        return [MenuItem(_literal(_fit(text, room)), "", "") for text in said] + hosts
    keys = iter(MENU_KEYS)
    agent_width = min(max(len(p.agent) for p in panes), 14)
    where_width = min(max(len(p.where) for p in panes), 28)
    jump = ["switch-client", *(["-c", client] if client else [])]
    items: list[MenuItem] = []
    for pane in panes:
        since = None if pane.since is None else now - pane.since
        icon, style = _icon(pane.state, values)
        where = clean(pane.where, where_width).ljust(where_width)
        agent = clean(pane.agent, agent_width).ljust(agent_width)
        asks = " — ".join(t for t in (pane.question, pane.detail) if t) or pane.state
        text = f"{where}  {agent}  {duration(since):>5}  {clean(asks, budget)}"
        # Bytes as tmux counts them once it has expanded the name: a badge's style and its reset
        # cost 20-40, so the colour is kept only where the whole row fits with it; a narrower
        # client gets the row's words instead (the icon still tells the state).
        styled = f"#[{style}]{icon}#[default] " if style else ""
        if styled and len(styled.encode()) + len(text.encode()) <= budget:
            name = f"#[{_literal(style)}]{_literal(icon)}#[default] {_literal(text)}"
        else:
            row = _fit(text, budget - len(f"{icon} ".encode()))
            name = f"{_literal(icon)} {_literal(row)}"
        if pane.host is None:
            command = tmux_command([*jump, "-t", pane.pane_id])
        else:
            command = go_command(_target(pane)) if go_command else ""
        items.append(MenuItem(name, next(keys, ""), command))
        table = answers.get(pane.agent)
        if pane.state != "blocked" or table is None:
            continue
        for choice, label in _answer_choices(table, pane.options):
            row = _literal(_fit("   ↳ " + clean(label, budget), budget))
            items.append(MenuItem(row, next(keys, ""), answer_command(_target(pane), choice)))
    shown = next((p for p in panes if p.host is None and p.pane_id == view.pane_id), None)
    if capture_command is not None and shown is not None:
        items.append(_wrong_row(shown, client, capture_command, budget))
    items += hosts
    if len(items) > view.height - 2:  # nor when it is taller than the client
        cut = max(view.height - 3, 1)
        more = _literal(_fit(f"-… {len(items) - cut} more: osf-tmux list", budget + 4))
        items = [*items[:cut], MenuItem(more, "", "")]
    return items


WRONG_KEY = "!"
# What the user may say the pane really is: `done` is idle on its screen (user_capture.py).
_REALLY = (
    ("blocked: it waits for me", "b", "blocked"),
    ("working: it is busy", "w", "working"),
    ("idle: it waits for nothing", "i", "idle"),
)


def _wrong_row(
    pane: AgentPane, client: str | None, capture: Callable[[str, str], str], budget: int
) -> MenuItem:
    """A row that asks what the client's pane really is (a small menu of its own), then keeps
    the evidence with `osf-tmux capture` (issue 33): the bytes, the screen, both states."""
    really = ["display-menu", *(["-c", client] if client else []), "-T", " this pane really is ",
              "-x", "R", "-y", "S", "--"]  # fmt: skip
    for name, key, state in _REALLY:
        really += [name, key, capture(pane.pane_id, state)]
    text = _literal(_fit(f"osf-tmux is wrong about this pane ({pane.state})", budget))
    return MenuItem(text, WRONG_KEY, tmux_command(really))


def _target(pane: AgentPane) -> str:
    """What `osf-tmux answer` and `go` take for a pane: `%5`, or `devbox:%3` on a host (its
    pane id there, never the text it reported)."""
    return pane.pane_id if pane.host is None else f"{pane.host}:{pane.pane_id}"


def _host_rows(hosts: Sequence[HostState], now: float, room: int) -> list[MenuItem]:
    """A disabled row per host that is not online: its state, for how long, and why. Its
    panes have no rows: what they were is not what they are."""
    rows = []
    for host in hosts:
        since = "" if host.since is None else f" for {duration(now - host.since)}"
        why = f": {host.error}" if host.error else ""
        text = clean(f"{host.name}: {host.state}{since}{why}", room)
        rows.append(MenuItem(_literal(_fit(f"-{text}", room)), "", ""))
    return rows


def with_remote(overview: Overview, status: Mapping[str, Any] | None) -> Overview:
    """The overview with the agent panes of the hosts that are online (status.json, from their
    daemons through ours), ordered with the local ones, and the other hosts for a row each."""
    hosts = tuple(h for h in remote_view.host_states(status) if h.state != ONLINE)
    return replace(overview, panes=order([*overview.panes, *remote_panes(status)]), hosts=hosts)


def show_menu(
    tmux: Tmux,
    files: DaemonFiles,
    status: Mapping[str, Any] | None,
    client: str | None,
    command: list[str] | None = None,
) -> str:
    """Open the overview menu on `client` (default: the current one); what it says, in a line.
    Three tmux calls: list the panes, capture the blocked ones, show the menu. Its rows run
    `command` (default: this osf-tmux) to answer and to go to another machine."""
    overview = with_remote(read(tmux, status, client), status)
    blocked = {
        p.agent
        for p in overview.panes
        if p.state == "blocked" and (p.host is None or SAFE_AGENT.match(p.agent))
    }
    answers = answer_tables(blocked, [shipped_rules_dir(), user_rules_dir()]) if blocked else {}
    command = command or own_command()
    log = plugin_log(files.state)
    to_client = ["--client", client] if client else []

    def answer(target: str, choice: str) -> str:
        args = ["answer", *to_client, target, choice]
        return tmux_command(["run-shell", "-b", shell_line(command, args, log)])

    def go(target: str) -> str:
        args = ["go", *to_client, target]
        return tmux_command(["run-shell", "-b", shell_line(command, args, log)])

    def capture(pane: str, state: str) -> str:
        args = ["capture", *to_client, "--state", state, pane]
        return tmux_command(["run-shell", "-b", shell_line(command, args, log)])

    items = menu_items(overview, answers, answer, time.time(), client, go, capture)
    _open(tmux, menu_command(items, heading(overview), client))
    return f"osf-tmux: {title(overview).strip()}"


def _open(tmux: Tmux, argv: list[str], grace: float = 0.05) -> None:
    """Run display-menu without waiting for the menu: the tmux client that asks for a menu
    waits until it closes, and a key's process should not. An error comes back at once (no
    such client, say): it is raised, as tmux.run would; after `grace` the menu is up."""
    argv = tmux.command_line([argv])  # a row ending in `;` must not end the command
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    except OSError as exc:
        raise TmuxError(f"{tmux.binary}: {exc.strerror or exc}") from None
    try:
        _, err = child.communicate(timeout=grace)
    except subprocess.TimeoutExpired:
        return  # open; the tmux client ends when the menu closes
    if child.returncode:
        message = err.decode(errors="replace").strip() or f"exit status {child.returncode}"
        raise TmuxError(f"{shlex.join(argv[:4])} ...: {message}")


def _answer_choices(table: Answer, options: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """yes and no, then the numbered options on screen whose keys differ from those two."""
    out = [("yes", f"yes ({' '.join(table.yes)})"), ("no", f"no ({' '.join(table.no)})")]
    if table.option:
        for number, label in options:
            if table.keys(number) not in (table.yes, table.no):
                out.append((number, f"{number}. {label}"))
    return out


def title(overview: Overview) -> str:
    counts = [sum(1 for p in overview.panes if p.state == s) for s in STATES]
    n = len(overview.panes)
    parts = [f"{c} {s}" for c, s in zip(counts, STATES, strict=True) if c]
    what = f"{n} agent{'s' if n != 1 else ''}" + (f": {', '.join(parts)}" if parts else "")
    return _literal(f" osf-tmux · {what} ")


def heading(overview: Overview) -> str:
    """The title, shortened for a narrow client: tmux draws no menu at all when its title is
    wider than the client (less the border)."""
    n = len(overview.panes)
    for text in (title(overview), _literal(f" osf-tmux · {n} agent{'s' if n != 1 else ''} ")):
        if len(text.replace("##", "#")) <= overview.view.width - 4:
            return text
    return " osf-tmux "


def menu_command(items: Sequence[MenuItem], heading: str, client: str | None) -> list[str]:
    """display-menu at the status line, on the right where the status counts are."""
    argv = ["display-menu", *(["-c", client] if client else []), "-T", heading]
    argv += ["-x", "R", "-y", "S", "--"]  # `--`: a disabled row's name starts with `-`
    for item in items:
        argv += [item.name, item.key, item.command]
    return argv


def _icon(state: str, values: Mapping[str, str]) -> tuple[str, str]:
    """The state's icon and the style of its badge (the status line's), if it is one."""
    if state in ("blocked", "done"):
        icon = values.get(f"@osf-icon-{state}") or ("●" if state == "blocked" else "✔")
        style = values.get(f"@osf-style-{state}", "")
        return icon, (style if _STYLE.match(style) else "")
    return ICONS.get(state, "?"), ""


def row_budget(client_width: int) -> int:
    """How long a row's name may be for tmux to draw it whole on a client this wide. tmux
    (3.3a and later) measures a menu item in bytes, styles included, not in columns: past
    `client width - 4` (the border) less the key's ` (k)`, it cuts the row and marks it `>`,
    and the cut can take the row's icon with it."""
    return max(client_width - 4 - 4, 12)


def _fit(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes of UTF-8, with an ellipsis when cut (spaces
    kept: the columns line up). Any character takes at least as many bytes as columns."""
    if len(text.encode()) <= limit:
        return text
    room = max(limit - len("…".encode()), 0)
    cut = text.encode()[:room].decode(errors="ignore")
    return cut.rstrip() + "…"


def _literal(text: str) -> str:
    """Text shown as it is: tmux expands formats in menu names (`#{...}`, `#(...)` runs a
    command), so every `#` is doubled."""
    return text.replace("#", "##")


def _int(text: str, default: int) -> int:
    return int(text) if text.isdigit() else default


def _pane_number(pane_id: str) -> int:
    digits = pane_id.lstrip("%")
    return int(digits) if digits.isdigit() else 0
