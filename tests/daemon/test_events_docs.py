"""The README's worked examples for `wait` and `events` do what it says: each script is taken
from the README as written and run by /bin/sh, with a stand-in `osf-tmux` on PATH that answers
as the real one does (its output and exit status), and stand-ins for what the scripts call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(first_lines: str) -> str:
    """The fenced code block of the README that starts with `first_lines`."""
    text = README.read_text(encoding="utf-8")
    start = text.index("```sh\n" + first_lines) + len("```sh\n")
    return text[start : text.index("```", start)]


def stand_ins(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """An environment whose PATH starts with a folder of shell scripts named as given."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in scripts.items():
        path = bin_dir / name.replace("_", "-")
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


WAIT_SCRIPT = "#!/bin/sh\npane=work:1.0\n"


@pytest.mark.parametrize(
    ("answer", "code", "says"),
    [
        ("%5\twork:1.0\tclaude\tdone", 0, "MAKE test"),
        ("%5\twork:1.0\tclaude\tidle", 0, "MAKE test"),
        ("%5\twork:1.0\tclaude\tblocked", 0, "NOTIFY the agent in work:1.0 asks something"),
        ("", 124, "still working after an hour"),
        ("", 4, "work:1.0 was closed"),
        ("", 3, "osf-tmux daemon not running (osf-tmux start)"),
    ],
)
def test_the_wait_example(tmp_path: Path, answer: str, code: int, says: str) -> None:
    script = readme_block(WAIT_SCRIPT)
    assert "--until done --until idle" in script
    env = stand_ins(
        tmp_path,
        osf_tmux=f'echo "$*" > "{tmp_path}/args"\nprintf "%s" "{answer}"\nexit {code}\n',
        notify_send='echo "NOTIFY $*"\n',
        make='echo "MAKE $*"\n',
    )
    out = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == says, out.stderr
    args = (tmp_path / "args").read_text().split()
    assert args[:3] == ["wait", "work:1.0", "--next"] and "--timeout" in args


EVENTS = [
    {"kind": "state", "pane": "%1", "target": "a:0.0", "agent": "claude", "after": "idle"},
    {"kind": "transition", "pane": "%2", "target": "b:1.0", "agent": "codex", "after": "blocked"},
    {"kind": "transition", "pane": "%1", "target": "a:0.0", "agent": "claude", "after": "blocked"},
    {"kind": "transition", "pane": "%2", "target": "b:1.0", "agent": "codex", "after": None},
    {"kind": "gone", "pane": "%1", "target": "a:0.0", "agent": "claude", "after": None},
]


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_the_waybar_example(tmp_path: Path) -> None:
    script = readme_block("#!/bin/sh\nosf-tmux events --json --current")
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    env = stand_ins(tmp_path, osf_tmux=f'echo "$*" > "{tmp_path}/args"\ncat "{feed}"\n')
    out = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    shown = [json.loads(line) for line in out.stdout.splitlines()]
    assert [s["text"] for s in shown] == ["", "1 waiting", "2 waiting", "1 waiting", ""]
    assert [s["class"] for s in shown] == ["quiet", "blocked", "blocked", "blocked", "quiet"]
    assert shown[2]["tooltip"].splitlines() == ["a:0.0 claude blocked", "b:1.0 codex blocked"]
    assert (tmp_path / "args").read_text().split() == ["events", "--json", "--current"]


def test_the_waybar_config_is_json() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index('```json\n"custom/agents"') + len("```json\n")
    config = json.loads("{" + text[start : text.index("```", start)] + "}")
    assert config["custom/agents"]["return-type"] == "json"
