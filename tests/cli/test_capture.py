"""`osf-tmux capture`'s files (judge/user_capture.py) and `osf-tmux rules test`, without a daemon:
the daemon's answer is built from a lab capture. tests/cli/test_capture_live.py takes one from
a live pane."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from osf_tmux.cli.app import cli
from osf_tmux.judge.classify import classify
from osf_tmux.judge.ruleset import load_rules
from osf_tmux.judge.user_capture import last_screen, redact, write_capture
from osf_tmux.paths import private_dir

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "captures/claude-2.1.328/c_bash_yes-120x32"
IDLE_AT, BLOCKED_AT = 1362, 5676  # its labels: the empty prompt box; the Bash permission prompt


def daemon_answer(state: str) -> dict[str, Any]:
    return {"pane": "%7", "target": "work:1.0", "agent": "claude", "cols": 120, "rows": 32,
            "state": state, "rule": None, "source": "screen", "pipe": "pipe"}  # fmt: skip


def timing_upto(offset: int) -> list[tuple[int, float]]:
    """Reads every 512 bytes, 10 ms apart (this reference capture has no .timing)."""
    ends = [*range(512, offset, 512), offset]
    return [(o, 1000.0 + i / 100) for i, o in enumerate(ends)]


def capture(
    folder: Path, offset: int, user_state: str | None, redacted: bool = False, name: str = "c"
) -> Path:
    manifest = load_rules(None).get("claude")
    written = write_capture(
        private_dir(folder, levels=1),
        name,
        data=LAB.with_suffix(".bytes").read_bytes()[:offset],
        timing=timing_upto(offset),
        daemon=daemon_answer("idle" if offset == IDLE_AT else "blocked"),
        manifest=manifest,
        user_state=user_state,
        note="the lab's",
        redacted=redacted,
    )
    return written.bytes_path


def test_four_private_files_the_replay_and_the_scorer_read(tmp_path: Path) -> None:
    path = capture(tmp_path / "caps", BLOCKED_AT, "blocked")
    stem = path.with_suffix("")
    for ext in (".bytes", ".timing", ".labels.json", ".txt"):
        f = Path(str(stem) + ext)
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, ext
    assert stat.S_IMODE((tmp_path / "caps").stat().st_mode) == 0o700
    labels = json.loads(Path(str(stem) + ".labels.json").read_text())
    assert labels["user_state"] == "blocked" and labels["shown"]["state"] == "blocked"
    assert labels["segments"][-1] == {**labels["segments"][-1], "offset": BLOCKED_AT}
    res = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["state"] == "blocked"
    res = CliRunner().invoke(cli, ["explain", str(path)])
    assert "Do you want to proceed?" in res.output
    assert "Do you want to proceed?" in Path(str(stem) + ".txt").read_text()


def test_redacted_keeps_only_the_rows_the_verdict_needs_and_the_same_state(
    tmp_path: Path,
) -> None:
    manifest = load_rules(None).get("claude")
    data = LAB.with_suffix(".bytes").read_bytes()[:BLOCKED_AT]
    snap = last_screen(data, 120, 32)
    crossed, kept = redact(snap, manifest)
    assert classify(crossed, manifest) == classify(snap, manifest)
    filled = [y for y, row in enumerate(snap.rows) if row.strip()]
    assert kept and len(kept) < len(filled)
    for y in filled:
        if y not in kept:
            assert set(crossed.rows[y]) <= {"x", " "} and len(crossed.rows[y]) == len(snap.rows[y])
    path = capture(tmp_path, BLOCKED_AT, "blocked", redacted=True)
    res = CliRunner().invoke(cli, ["replay", str(path), "--json"])
    assert json.loads(res.output)["state"] == "blocked"
    written = path.read_bytes().decode()
    for y in filled:
        words = snap.rows[y].split()
        longest = max(words, key=len) if words else ""
        if y not in kept and words and not any(longest in snap.rows[k] for k in kept):
            assert longest not in written, snap.rows[y]
    assert "xxxx" in path.with_suffix(".txt").read_text()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("OSF_TMUX_CONFIG_DIR", raising=False)
    return home


def test_rules_test_lists_a_capture_the_rules_read_otherwise_until_an_override(
    tmp_path: Path, config: Path
) -> None:
    folder = tmp_path / "mine"
    capture(folder, BLOCKED_AT, "blocked", name="agrees")
    # The user says the empty prompt box waits on them: the shipped rules say idle.
    capture(folder, IDLE_AT, "blocked", name="disagrees")
    capture(folder, IDLE_AT, None, name="unsaid")
    res = CliRunner().invoke(cli, ["rules", "test", str(folder)])
    assert res.exit_code == 1, res.output
    assert "DIFFERS" in res.output and "disagrees" in res.output
    assert "ok" in res.output and "agrees" in res.output
    assert "no state given" in res.output and "unsaid" in res.output
    rules = config / "osf-tmux" / "rules"
    rules.mkdir(parents=True)
    (rules / "claude.toml").write_text(
        'agent = "claude"\nextends = "claude"\n\n[[rule]]\nid = "my-empty-box"\n'
        'state = "blocked"\nregion = "tail:3"\nall = [\'\\? for shortcuts\']\n'
    )
    res = CliRunner().invoke(cli, ["rules", "test", str(folder), "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert {r["capture"].rsplit("/", 1)[1]: r["rule"] for r in rows}["disagrees.bytes"] == (
        "my-empty-box"
    )
    assert not any(r["differs"] for r in rows)


def test_rules_test_says_what_it_cannot_read(tmp_path: Path, config: Path) -> None:
    (tmp_path / "x.labels.json").write_text("{not json")
    res = CliRunner().invoke(cli, ["rules", "test", str(tmp_path)])
    assert res.exit_code == 1 and "ERROR" in res.output
