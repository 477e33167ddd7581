"""Commands that judge recorded bytes and check rule manifests (no tmux needed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from osf_tmux.judge.classify import RuleTrace, Verdict
from osf_tmux.judge.classify import explain as explain_snapshot
from osf_tmux.judge.corpus import Capture
from osf_tmux.judge.manifest import (
    Manifest,
    ManifestError,
    load_manifest,
    manifest_files,
    shipped_rules_dir,
)
from osf_tmux.judge.replay import parse_size, replay_with_time, snapshots_at
from osf_tmux.judge.ruleset import RuleSet, UnknownAgentError, load_rules
from osf_tmux.paths import user_rules_dir
from osf_tmux.vt.snapshot import Snapshot

F = TypeVar("F", bound=Callable[..., Any])


def ruleset_in_use() -> RuleSet:
    """The shipped rules and the user's, each problem of the user's said once on stderr."""
    rules = load_rules(user_rules_dir())
    for problem in rules.problems:
        click.echo(f"warning: {problem} (the shipped rules stay in force)", err=True)
    return rules


def _read_capture(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise click.ClickException(f"cannot read {path}: {exc.strerror or exc}") from None


def _size_and_agent(
    path: str, size: str | None, agent: str | None, need_agent: bool = True
) -> tuple[int, int, Manifest | None]:
    """The pane size and the agent's rules for a capture: from the options, else from the
    capture's labels, name and folder. Without an agent (and `need_agent` false): no rules."""
    capture = Capture(Path(path), _labels_beside(Path(path)))
    try:
        guessed_size = capture.size()
        guessed_agent = capture.agent()
    except (ValueError, KeyError) as exc:
        raise click.ClickException(f"bad labels beside {path}: {exc}") from None
    if size is not None:
        try:
            cols, rows = parse_size(size)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--size") from None
    elif guessed_size is not None:
        cols, rows = guessed_size
    else:
        raise click.UsageError("give --size COLSxROWS (the capture's name does not say)")
    name = agent or guessed_agent
    if name is None:
        if need_agent:
            raise click.UsageError("give --agent NAME (the capture's folder does not say)")
        return cols, rows, None
    try:
        manifest = ruleset_in_use().get(name)
    except UnknownAgentError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent") from None
    return cols, rows, manifest


def _labels_beside(path: Path) -> Path | None:
    if not path.name.endswith(".bytes"):
        return None
    labels = path.with_name(path.name[: -len(".bytes")] + ".labels.json")
    return labels if labels.is_file() else None


def _timing_beside(path: Path) -> list[tuple[int, float]] | None:
    if not path.name.endswith(".bytes"):
        return None
    return Capture(path, None).timing()


def _offsets(spec: str | None, total: int) -> list[int]:
    if spec is None:
        return [total]
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise click.BadParameter(f"{part!r} is not a byte offset", param_hint="--at")
        offset = int(part)
        if offset > total:
            raise click.BadParameter(
                f"offset {offset} is past the end of the capture ({total} bytes)", param_hint="--at"
            )
        out.append(offset)
    if not out:
        raise click.BadParameter("no offsets given", param_hint="--at")
    return out


def _capture_options(func: F) -> F:
    func = click.option(
        "--agent",
        metavar="NAME",
        help="Agent whose rules apply: claude, codex, ... (any case; claude-code, ... too).",
    )(func)
    return click.option(
        "--size",
        metavar="COLSxROWS",
        help="Pane size the capture was recorded at (default: from its labels or name).",
    )(func)


@click.command("replay")
@click.argument("capture", type=click.Path(dir_okay=False))
@_capture_options
@click.option("--at", "at", metavar="OFFSET,...", help="Byte offsets to judge at (default: end).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def replay_cmd(
    capture: str, size: str | None, agent: str | None, at: str | None, as_json: bool
) -> None:
    """The state a pane would show after the first OFFSET bytes of CAPTURE.

    CAPTURE is raw bytes an agent wrote into a pane (e.g. recorded with `pipe-pane -O`). For
    rules with `output_flow` (generic) and a CAPTURE.timing beside it, each offset is judged
    when the next bytes arrived: `working` if the screen's text changed shortly before."""
    data = _read_capture(capture)  # a missing file is the first thing to hear about
    cols, rows, manifest = _size_and_agent(capture, size, agent)
    assert manifest is not None
    offsets = _offsets(at, len(data))
    timing = _timing_beside(Path(capture)) if manifest.output_flow is not None else None
    for point in replay_with_time(data, cols, rows, manifest, offsets, timing):
        v = point.verdict
        if as_json:
            click.echo(
                json.dumps(
                    {"offset": point.offset, "state": v.state, "rule": v.rule, "agent": v.agent}
                )
            )
        else:
            click.echo(f"{point.offset}\t{v.state}\t{v.rule or '(default)'}")


@click.command("explain")
@click.argument("capture", type=click.Path(dir_okay=False))
@_capture_options
@click.option("--at", "at", metavar="OFFSET,...", help="Byte offsets to show (default: the end).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per offset and line.")
def explain_cmd(
    capture: str, size: str | None, agent: str | None, at: str | None, as_json: bool
) -> None:
    """Show the screen as osf-tmux sees it after the first OFFSET bytes of CAPTURE, which rule
    decided, and why the rules before it did not.

    Without an agent (given, or told by the capture's folder) the screen is shown unjudged."""
    data = _read_capture(capture)
    cols, rows, manifest = _size_and_agent(capture, size, agent, need_agent=False)
    offsets = _offsets(at, len(data))
    for n, (offset, snap) in enumerate(snapshots_at(data, cols, rows, offsets)):
        verdict, traces = explain_snapshot(snap, manifest) if manifest else (None, [])
        if as_json:
            click.echo(json.dumps(_explained(offset, cols, rows, snap, manifest, verdict, traces),
                                  ensure_ascii=False))  # fmt: skip
            continue
        if n:
            click.echo()
        name = manifest.agent if manifest else "none"
        click.echo(f"offset {offset} of {len(data)}  size {cols}x{rows}  agent {name}")
        click.echo(f"title {snap.title!r}  cursor {snap.cursor}  alt_screen {snap.alt_screen}")
        width = len(str(rows - 1))
        click.echo("+" + "-" * cols)
        for i, row in enumerate(snap.rows):
            click.echo(f"{i:>{width}}|{row}")
        click.echo("+" + "-" * cols)
        for t in traces:
            mark = "=>" if t.matched else "  "
            click.echo(f"{mark} {t.rule.id} [{t.rule.state}]: {t.reason}")
        if verdict is None:
            click.echo("state: not judged (no agent: give --agent NAME to apply its rules)")
        else:
            click.echo(f"state: {verdict.state} (rule: {verdict.rule or 'none matched, default'})")


def _explained(
    offset: int,
    cols: int,
    rows: int,
    snap: Snapshot,
    manifest: Manifest | None,
    verdict: Verdict | None,
    traces: list[RuleTrace],
) -> dict[str, Any]:
    return {
        "offset": offset,
        "agent": manifest.agent if manifest else None,
        "size": [cols, rows],
        "rows": list(snap.rows),
        "cursor": list(snap.cursor),
        "title": snap.title,
        "alt_screen": snap.alt_screen,
        "state": verdict.state if verdict else None,
        "rule": verdict.rule if verdict else None,
        "trace": [
            {"rule": t.rule.id, "state": t.rule.state, "matched": t.matched, "reason": t.reason}
            for t in traces
        ],
    }


@click.group("rules")
def rules_group() -> None:
    """Inspect and validate rule manifests."""


@rules_group.command("check")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
def rules_check(files: tuple[str, ...]) -> None:
    """Validate manifests: FILES, or the shipped ones plus your own (~/.config/osf-tmux/rules).

    Every problem is listed (file, rule, key, what is wrong); exit status 1 if any."""
    paths = [Path(f) for f in files]
    if not paths:
        paths = manifest_files(shipped_rules_dir())
        user = user_rules_dir()
        if user.is_dir():
            paths += manifest_files(user)
    failed = 0
    for path in paths:
        try:
            m = load_manifest(path)
        except ManifestError as exc:
            failed += 1
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            continue
        extends = f", extends {m.extends}" if m.extends else ""
        holds = f", {len(m.holds)} hold{'s' * (len(m.holds) != 1)}" if m.holds else ""
        click.echo(f"ok: {path} ({m.agent}, {len(m.rules)} rules{holds}{extends})")
    if failed:
        raise click.ClickException(f"{failed} of {len(paths)} manifests have problems")


@rules_group.command("list")
def rules_list() -> None:
    """The agents known and where each one's rules come from."""
    rules = ruleset_in_use()
    for name, m in sorted(rules.manifests.items()):
        origin = "user" if name in rules.overridden else "shipped"
        click.echo(f"{name}\t{m.name}\t{len(m.rules)} rules\t{origin}: {m.source}")


COMMANDS = (replay_cmd, explain_cmd, rules_group)
