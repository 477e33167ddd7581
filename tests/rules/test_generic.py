"""The `generic` rules (rules/generic.toml): the prompt shapes most terminal programs share, used
only where the user asks; never `blocked` for a draft, an answer ending in a question or a `?`
in output."""

from __future__ import annotations

import dataclasses
import functools
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from osf_tmux.daemon.identify import generic_names
from osf_tmux.judge.classify import classify, same_verdict
from osf_tmux.judge.corpus import Capture
from osf_tmux.judge.manifest import Manifest
from osf_tmux.judge.replay import snapshots_at
from osf_tmux.judge.ruleset import RuleSet
from osf_tmux.plugin import options as po
from osf_tmux.tmux import PaneInfo
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import (
    foreground_agent,
    manifest_fixture,
    manifest_of,
    shipped_rules,
)
from tests.rules.harness import printed as screen
from tests.support.corpus import captures
from tests.support.live import DaemonProcess
from tests.support.panes import pane_info
from tests.support.tmux_server import TmuxServer, retry_until

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "captures"


generic = manifest_fixture("generic")


def state(snap: Snapshot, manifest: Manifest) -> str:
    v = classify(snap, manifest)
    return v.state if v.state != "blocked" else f"blocked:{v.rule}"


BLOCKED = {
    "apt": (
        "Reading package lists... Done\nThe following NEW packages will be installed:\n  cowsay\n"
        "Do you want to continue? [Y/n] ",
        "yes-no",
    ),
    "script": ("$ ./deploy.sh\nDeploying to prod.\nContinue? [y/N] ", "yes-no"),
    "parens": ("Overwrite config.yml? (y/n) ", "yes-no"),
    "ssh": (
        "The authenticity of host '[127.0.0.1]:2222' can't be established.\n"
        "ED25519 key fingerprint is SHA256:abc.\n"
        "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
        "yes-no",
    ),
    "aider-style": ("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ", "yes-no"),
    "git-add-p": ("(1/1) Stage this hunk [y,n,q,a,d,e,?]? ", "yes-no"),
    "npm-ok": ('{\n  "name": "x"\n}\n\n\nIs this OK? (yes) ', "yes-no"),
    "rm-i-q": ("Remove all files? [yes/no]: ", "yes-no"),
    "enter": ("Installed.\nPress Enter to continue...", "press-enter"),
    "any-key": ("Press any key to continue . . . ", "press-enter"),
    "sudo": ("$ sudo apt-get update\n[sudo] password for ann: ", "password"),
    "ssh-pw": ("ann@127.0.0.1's password: ", "password"),
    "passphrase": ("Enter passphrase for key '/home/ann/.ssh/id_ed25519': ", "password"),
    "select": ("1) apple\n2) banana\n3) cherry\n#? ", "numbered-menu"),
    "numbered-choice": (
        "Which database?\n  1. PostgreSQL\n  2. SQLite\n  3. MySQL\nEnter a number [1-3]: ",
        "numbered-menu",
    ),
    "inquirer": (
        "? Which framework? (Use arrow keys)\n❯ React\n  Vue\n  Svelte\x1b[1;36H",
        "pointer-menu",
    ),
    "inquirer-second": (
        "? Which framework? (Use arrow keys)\n  React\n❯ Vue\n  Svelte\x1b[1;36H",
        "pointer-menu",
    ),
    "gt-pointer": ("Pick a colour?\n  red\n> green\n  blue\n", "pointer-menu"),
    # npm init and other wizards: one field a row, a default in parentheses
    "npm-init-first": (
        "Press ^C at any time to quit.\npackage name: (proj) ",
        "field-default",
    ),
    "npm-init-version": ("package name: (proj) \nversion: (1.0.0) ", "field-default"),
    "npm-init-no-default": (
        "package name: (proj) \nversion: (1.0.0) \ndescription: ",
        "field-series",
    ),
    "npm-init-later": (
        "package name: (proj) demo\nversion: (1.0.0) \ndescription: a demo\n"
        "entry point: (index.js) \ntest command: \ngit repository: ",
        "field-series",
    ),
}


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_the_shapes_it_knows_are_blocked(generic: Manifest, name: str) -> None:
    text, rule = BLOCKED[name]
    assert state(screen(text), generic) == f"blocked:{rule}"


NOT_BLOCKED = {
    "shell prompt": "user@host:~/proj$ ",
    "shell prompt after output": "$ ls\nREADME.md  setup.py\nuser@host:~$ ",
    # a draft typed at a prompt: the row starts like a shell's, a REPL's or an agent's prompt
    "draft at a shell": "user@host:~$ echo 'Continue? [y/N]'",
    "draft at zsh": "➜  proj git:(main) ✗ read -p 'Continue? [y/N] '",
    "draft in a REPL": ">>> input('Password: ')",
    "draft at an agent prompt": "> should I say [y/N]",
    "draft at a pointer prompt": "Any questions?\n› fix the tests\n  ? for shortcuts\x1b[2;16H",
    # the question printed, the cursor gone on (the program moved on or exited)
    "question answered": "Continue? [y/N] y\nDone.\n",
    "question, cursor not right after": "Continue? [y/N] \x1b[1;3H",
    "question with text after the cursor": "Continue? [y/N] yes please\x1b[1;17H",
    "question above the last row": "Continue? [y/N] \nworking...\x1b[1;17H",
    "an answer ending in a question": (
        "I can add tests for main(). Should I go ahead?\n\nuser@host:~$ "
    ),
    "a ? in output": "What now?\n  1. foo\n  2. bar\nuser@host:~$ ",
    "a numbered list, no prompt": "Steps?\n1. build\n2. test\n",
    "a log line": "2026-12-01 password: (hidden) rotated\n",
    "press enter in the transcript": "Press Enter to continue\nOK\n$ ",
    "markdown quote": "Is it?\n> quoted\n> more\n",
    "diff": "Apply this?\n--- a\n+++ b\n> new line\n< old line\n$ ",
    # a colon at the cursor is not a field on its own
    "streamed colon": "I read the code.\nHere is the plan: ",
    "streamed colon after a label row": "Summary: two files\nHere is the plan: ",
    "a default with words": "Note: (see the docs) ",
    "a field answered, cursor on": "package name: (proj) demo\x1b[1;25H",
}


@pytest.mark.parametrize("name", sorted(NOT_BLOCKED))
def test_drafts_answers_and_output_are_not_blocked(generic: Manifest, name: str) -> None:
    assert state(screen(NOT_BLOCKED[name]), generic) == "idle"


# Sent, and nothing back yet: the program works without printing (or waits unasked).
SUBMITTED = {
    "a command": "lab@box:~/proj$ sleep 5 && make\n",
    "a command at zsh": "ann@box ~/proj % make\n",
    "a command at a bare prompt": "$ npm install\n",
    "a command in a REPL": ">>> import time; time.sleep(9)\n",
    "an answer": "Do you want to continue? [Y/n] y\n",
    "git's answer": "(1/1) Stage this hunk [y,n,q,a,d,e,?]? y\n",
    "a password sent": "$ sudo make install\n[sudo] password for ann: \n",
    "Enter pressed": "Installed.\nPress Enter to continue...\n",
    "a pick": "1) apple\n2) banana\n#? 2\n",
}


@pytest.mark.parametrize("name", sorted(SUBMITTED))
def test_a_sent_command_or_answer_reads_working(generic: Manifest, name: str) -> None:
    v = classify(screen(SUBMITTED[name]), generic)
    assert (v.state, v.rule) == ("working", "submitted")


NOT_SUBMITTED = {
    "output, then the cursor under it": "$ make\ngcc -c main.c\n",
    "a prompt, the cursor not at its row's start": "lab@box:~$ make\n\x1b[2;3H",
    "a row under the cursor": "$ make\n\nstatus: ok\x1b[2;1H",
    "the shell's prompt back": "$ make\nbuilt\nlab@box:~/proj$ ",
}


@pytest.mark.parametrize("name", sorted(NOT_SUBMITTED))
def test_output_or_a_prompt_is_not_a_sent_line(generic: Manifest, name: str) -> None:
    assert classify(screen(NOT_SUBMITTED[name]), generic).rule != "submitted"


AT_PROMPT = {
    "bash": "$ make\nbuilt\nlab@box:~/proj$ ",
    "typing at bash": "lab@box:~/proj$ npm ini",
    "an autosuggestion after the cursor": "ann@box ~/proj % npm\x1b[0K init\x1b[1;21H",
    "root": "root@host:/# ",
    "fedora": "[ann@box proj]$ ",
    "starship": "~/proj on main\n❯ ",
    "oh-my-zsh": "➜  proj git:(main) ",
    "python": "Python 3.11\n>>> ",
    "ipython": "In [3]: ",
    "irb": "irb(main):001:0> ",
    "sqlite": "sqlite> ",
    "psql": "postgres=# ",
}


@pytest.mark.parametrize("name", sorted(AT_PROMPT))
def test_a_shell_or_repl_prompt_is_idle_by_its_rule(generic: Manifest, name: str) -> None:
    v = classify(screen(AT_PROMPT[name]), generic)
    assert (v.state, v.rule) == ("idle", "at-prompt")


NOT_AT_PROMPT = {
    "output under the prompt": "lab@box:~$ make\ngcc -c main.c",
    "a percentage": "Downloading 45% [=====>    ]",
    "a markdown heading": "# Results",
    "a quote": "> quoted",
}


@pytest.mark.parametrize("name", sorted(NOT_AT_PROMPT))
def test_output_is_not_a_prompt(generic: Manifest, name: str) -> None:
    assert classify(screen(NOT_AT_PROMPT[name]), generic).rule != "at-prompt"


def test_wide_characters_before_the_cursor_are_two_columns(generic: Manifest) -> None:
    assert state(screen("続けますか？ [y/N] "), generic) == "blocked:yes-no"
    assert state(screen("続けますか？ [y/N] \x1b[1;3H"), generic) == "idle"


def test_generic_is_used_by_no_process_name_by_itself(generic: Manifest) -> None:
    assert generic.processes == () and generic.process_args == ()
    assert generic.output_flow == 2.0
    assert generic.answer is None  # each prompt shape has its own keys, a password none
    rule = {r.id: r for r in generic.rules}
    assert rule["password"].answer is None
    assert rule["yes-no"].answer is not None and rule["yes-no"].answer.yes == ("y", "Enter")


def pane(**fields: Any) -> PaneInfo:
    """A pane whose shell is bash."""
    return pane_info(**{"current_command": "bash", **fields})


def agent(rules: RuleSet, info: PaneInfo, commands: list[list[str]]) -> str | None:
    return foreground_agent(commands, info, rules)


def test_only_where_the_user_asks(rules: RuleSet) -> None:
    goose = [["/usr/local/bin/goose", "session"]]
    assert agent(rules, pane(), goose) is None
    assert agent(rules, pane(agent_override="generic"), goose) == "generic"
    # (names of programs without rules of their own: Amp has had its own since issue 27)
    listed = pane(generic_processes="cursor-agent goose")
    assert agent(rules, listed, goose) == "generic"
    # the script an interpreter runs, and tmux's command name
    assert agent(rules, listed, [["node", "/opt/cursor/bin/cursor-agent", "--x"]]) == "generic"
    assert (
        agent(rules, dataclasses.replace(listed, current_command="cursor-agent"), []) == "generic"
    )
    # not a later argument, not another program, and a shell at its prompt never
    assert agent(rules, listed, [["vim", "goose"]]) is None
    assert agent(rules, listed, [["bash"]]) is None
    assert agent(rules, pane(generic_processes="bash zsh"), [["bash"]]) is None
    # an agent with rules of its own keeps them
    assert agent(rules, listed, [["claude"]]) == "claude"


def test_the_option_is_read_and_checked() -> None:
    assert "@osf-generic-processes" in po.BY_NAME
    assert generic_names("cursor-agent, goose  amp bash") == {"cursor-agent", "goose", "amp"}
    assert po.problems({"@osf-generic-processes": "goose amp"}) == []
    (problem,) = po.problems({"@osf-generic-processes": "goose zsh"})
    assert "zsh" in problem


def _segment_state(capture: Capture, offset: int) -> str | None:
    before = [s for s in capture.labels().get("segments", []) if int(s["offset"]) <= offset]
    return str(before[-1]["state"]) if before else None


def _other_captures() -> list[Capture]:
    return [
        c
        for c in captures(CAPTURES)
        if not c.bytes_path.parent.name.startswith("generic") and c.labels_path is not None
    ]


@dataclass(frozen=True)
class Read:
    """One screen of another agent's capture as the generic rules judge it."""

    capture: str
    offset: int
    labelled: bool  # a labelled point (the others: pipe-pane read boundaries)
    # where generic reads it blocked (else None, False: the labels are read only there)
    segment: str | None  # the label's state there
    generic_rule: str | None  # the rule that read it blocked
    own_blocked: bool  # the agent's own rules read it blocked too


@functools.cache
def _other_agents_reads() -> tuple[Read, ...]:
    """Every other agent's capture replayed once per process (both tests below read the same
    screens): at its labelled points and its read boundaries."""
    rules, generic = shipped_rules(), manifest_of("generic")
    out = []
    for capture in _other_captures():
        size = capture.size()
        assert size is not None
        data = capture.bytes_path.read_bytes()
        labelled = {p.offset for p in capture.points()}
        offsets = set(labelled)
        timing = capture.bytes_path.with_suffix(".timing")
        if timing.exists():
            offsets |= {int(line.split()[0]) for line in timing.read_text().splitlines() if line}
        own_name = capture.agent()
        own = rules.get(own_name) if own_name else None
        wanted = sorted(o for o in offsets if 0 < o <= len(data))
        for offset, snap in snapshots_at(data, *size, wanted):
            verdict = classify(snap, generic)
            blocked = verdict.state == "blocked"
            out.append(
                Read(
                    capture.name,
                    offset,
                    offset in labelled,
                    _segment_state(capture, offset) if blocked else None,
                    verdict.rule if blocked else None,
                    blocked and own is not None and classify(snap, own).state == "blocked",
                )
            )
    return tuple(out)


def _false_blocked(every_read: bool) -> tuple[int, int, list[str], int]:
    """Every other agent's capture with the generic rules in place of its own: the points where
    generic says blocked and the label does not. At every read boundary too, a prompt already
    on screen before the recorder's labelled offset (the agent's own rules say blocked there as
    well) is not counted."""
    points, wrong, early = 0, [], 0
    for read in _other_agents_reads():
        if not (every_read or read.labelled):
            continue
        points += 1
        if read.generic_rule is None or read.segment == "blocked":
            continue
        if every_read and read.own_blocked:
            early += 1
            continue
        wrong.append(f"{read.capture}@{read.offset}: {read.generic_rule}")
    return points, len(wrong), wrong, early


@pytest.mark.slow
def test_no_false_blocked_at_any_labelled_point_of_other_agents(generic: Manifest) -> None:
    points, false_blocked, wrong, _ = _false_blocked(every_read=False)
    print(f"generic at other agents' labelled points: {points}, {false_blocked} false blocked")
    assert points > 500
    assert false_blocked == 0, wrong


@pytest.mark.slow
def test_no_false_blocked_at_any_read_of_other_agents(generic: Manifest) -> None:
    points, false_blocked, wrong, early = _false_blocked(every_read=True)
    print(
        f"generic over other agents' captures: {points} reads, {false_blocked} false blocked "
        f"({early} reads show a prompt before its labelled offset, the agent's own rules "
        "saying blocked there too)"
    )
    assert points > 10_000
    assert false_blocked == 0, wrong


ASKING = """import sys, time
for i in range(1, 7):
    print(f"step {i} of 6", flush=True)
    time.sleep(0.5)
answer = input("Continue? [y/N] ")
print(f"you said {answer!r}", flush=True)
time.sleep(6)
"""


@pytest.mark.slow
@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_daemon_shows_a_listed_program_working_blocked_then_idle(tmp_path: Path) -> None:
    """`@osf-generic-processes` through the real daemon: a shell has no state, the listed
    program reads working while it prints, blocked at its question, idle once it goes quiet
    (never done), and no state again when the shell is back."""
    script = tmp_path / "asker.py"
    script.write_text(ASKING)
    server = TmuxServer()
    server.start()
    (tmp_path / "home").mkdir()
    daemon = DaemonProcess(server, tmp_path / "home")
    try:
        server.cmd("set-option", "-g", "@osf-generic-processes", "asker.py")
        pane = server.new_pane(["bash", "--norc", "--noprofile", "-i"], 80, 24)
        daemon.start()

        def state() -> str:
            return server.cmd("show-options", "-p", "-v", "-t", pane, "@osf_state", check=False)

        def reaches(wanted: str, timeout: float = 15) -> None:
            retry_until(lambda: state().strip() == wanted, timeout=timeout, what=wanted)

        retry_until(
            lambda: any(p.get("pane") == pane for p in daemon.status().get("panes", [])),
            timeout=10,
            what="the daemon to see the pane",
        )
        assert state().strip() == ""  # a shell at its prompt: no state
        server.cmd("send-keys", "-t", pane, "-l", f"{sys.executable} {script}")
        server.cmd("send-keys", "-t", pane, "Enter")
        reaches("working")
        reaches("blocked")
        seen = {state().strip()}
        server.cmd("send-keys", "-t", pane, "n", "Enter")
        # back to idle once the output stops (2 s); never done

        def idle_yet() -> bool:
            now = state().strip()
            seen.add(now)
            return now == "idle"

        retry_until(idle_yet, timeout=15, what="idle")
        assert "done" not in seen
        reaches("", timeout=20)  # the program ended: the shell again, no state
    finally:
        daemon.stop()
        server.kill()


def test_a_screen_with_the_cursor_elsewhere_on_its_row_is_judged_again(generic: Manifest) -> None:
    asking = screen("Go on? [y/N] ")
    moved = dataclasses.replace(asking, cursor=(2, asking.cursor[1]))
    assert asking.rows == moved.rows
    assert not same_verdict(asking, moved, generic)  # the rows alike, the cursor's column not
    assert state(asking, generic) == "blocked:yes-no" and state(moved, generic) == "idle"
