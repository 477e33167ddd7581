"""Real terminal programs that ask, recorded for the `generic` rules (rules/generic.toml).

Each program runs in an ordinary interactive bash in a throwaway directory, against local
resources only, and every answer leaves the machine as it was: `apt-get install` is told no,
`git add -p` and `ssh-keygen` work on files of the run directory, the script is the run's own.
The lab's recorder (driver.Recorder) drives the pane and writes the bytes, `.timing` and labels
into captures/generic-<program>/; the fake model server it starts is not used.

    .venv/bin/python -m tools.agentlab.generic [PROGRAM ...] [--sizes 80x24,120x32]

Labels: the shell prompt is idle (each held 3 s: `generic` reads a pane idle 2 s after its
output stops), the program printing is working, each question is blocked."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from tools.agentlab.actions import Action, Cue, Expect, Keys, Type, flatten
from tools.agentlab.base import AgentSpec, Scenario
from tools.agentlab.driver import DriverError, Recorder
from tools.agentlab.script import Script
from tools.agentlab.shapes import Ui

REPO = Path(__file__).resolve().parents[2]
PS1 = "lab@box:~/proj$ "
SHELL_PROMPT = Cue(r"^lab@box:~/proj\$$", tail=1)
SETTLE_IDLE = 3.0  # longer than generic's output_flow (2 s): the idle state is reached


def at_prompt(note: str) -> Expect:
    return Expect("idle", SHELL_PROMPT, note, timeout=30, settle=SETTLE_IDLE)


def asks(question: str, note: str, timeout: float = 30.0) -> Expect:
    """A question on the last row, the cursor after it: `question` is a regex of its end."""
    return Expect("blocked", Cue(question + "$", tail=1), note, timeout=timeout)


def back_at_prompt(after: str, note: str) -> Expect:
    """The shell prompt again, right under the program's last line (a regex: `after`)."""
    cue = Cue(after + r"\n" + SHELL_PROMPT.pattern[1:], tail=2)
    return Expect("idle", cue, note, settle=SETTLE_IDLE)


def run(command: str, note: str) -> list[Action]:
    """Typed a key at a time, as a person types: a keystroke echoed at the cursor is not
    output (judge/output_flow.py), a whole line arriving at once is."""
    keys: list[Action] = [
        Type(c, f"{note}: {command}" if i == 0 else "") for i, c in enumerate(command)
    ]
    return [*keys, Keys(("Enter",), "run it")]


def answer(text: str, note: str) -> list[Action]:
    """A short answer and Enter in one go, as a person answers `[y/N]`; the screen with the
    answer typed but not sent does not read blocked (rules/NOTES-generic.md)."""
    return [Keys((text, "Enter") if text else ("Enter",), note)]


def typed_fast(command: str, note: str) -> list[Action]:
    """A whole command at once (a paste, a completion, a fast typist between two reads): the
    prompt's row changes by more than a keystroke, and it is still typing, not output."""
    return [Type(command, note)]


def sent(line: str, note: str, settle: float = 2.5) -> Expect:
    """The line just sent (`line`: a regex of the whole last row), the cursor under it, nothing
    printed yet: the program works silently (held `settle` seconds)."""
    return Expect("working", Cue(line + "$", tail=1), note, settle=settle)


def secret(text: str, note: str) -> list[Action]:
    """A passphrase: typed (not echoed), then Enter."""
    return [Type(text, note), Keys(("Enter",), "send it")]


ASK_SCRIPT = """#!/bin/bash
echo "Checking 5 files"
for i in 1 2 3 4 5; do echo "checked file $i of 5"; sleep 0.6; done
read -r -p "Apply the changes? [y/N] " reply
echo "you said: $reply"
PS3='#? '
echo "Which branch should get them?"
select branch in main develop release; do echo "picked $branch"; break; done
read -r -p "Press Enter to continue..." _
python3 -c "input('Upload the report too? (y/n) ')"
echo "all done"
"""


QUIET_SCRIPT = """#!/bin/bash
read -r -s -p "Password: " pw
echo
sleep 4
echo "unlocked"
"""


class GenericProgram(AgentSpec):
    """One program, run from a shell prompt; its version is the program's own."""

    name = "generic"
    ui = Ui(idle=SHELL_PROMPT, working=Cue(r"\S"), place="shell prompt")

    def __init__(self, program: str, version_argv: list[str], scenario: Scenario) -> None:
        self.program = program
        self.folder = f"generic-{program}"
        self._version_argv = version_argv
        self._scenario = scenario

    def binary(self) -> Path:
        found = subprocess.run(
            ["bash", "-c", f"command -v {self._version_argv[0]}"], capture_output=True, text=True
        ).stdout.strip()
        return Path(found or f"/nonexistent/{self._version_argv[0]}")

    def read_version(self) -> str:
        out = subprocess.run(self._version_argv, capture_output=True, text=True, timeout=10)
        words = (out.stdout or out.stderr).split()
        return next((w for w in words if w[:1].isdigit()), "unknown")

    def build(self, shapes: object) -> list[Scenario]:
        return [self._scenario]

    def scenarios(self) -> dict[str, Scenario]:
        return {self._scenario.name: self._scenario}

    launch_env: ClassVar[dict[str, str]] = {
        "PS1": PS1,
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "HISTFILE": "/dev/null",
        # npm: no update check, no funding line (offline, and the same screen every run)
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
        "PYTHONSTARTUP": "",
    }

    def command(self) -> list[str]:
        return ["bash", "--norc", "--noprofile", "-i"]


def scenario(name: str, description: str, actions: list[Action | list[Action]],
             files: dict[str, str] | None = None) -> Scenario:  # fmt: skip
    return Scenario(name, description, Script([]), flatten(actions), files or {})


PROGRAMS: dict[str, GenericProgram] = {
    "apt-get": GenericProgram(
        "apt-get",
        ["apt-get", "--version"],
        scenario(
            "install_no",
            "apt-get install without -y asks [Y/n]; the answer is no (nothing installed)",
            [
                at_prompt("shell prompt"),
                run("apt-get install --no-install-recommends fortune-mod", "install, no -y"),
                Expect(
                    "working", Cue(r"^Reading package lists"), "apt-get reads its lists", timeout=60
                ),
                asks(
                    r"Do you want to continue\? \[Y/n\]",
                    "Do you want to continue? [Y/n]",
                    timeout=60,
                ),
                answer("n", "no: nothing is installed"),
                back_at_prompt(r"^Abort\.", "aborted, back at the shell prompt"),
            ],
        ),
    ),
    "git": GenericProgram(
        "git",
        ["git", "--version"],
        scenario(
            "add_patch",
            "git add -p asks about each hunk: [y,n,q,a,d,e,?]",
            [
                at_prompt("shell prompt"),
                run("printf 'one more line\\n' >> notes.txt && git add -p", "change, add -p"),
                asks(r"Stage this hunk \[y,n,q,a,d,e,\?\]\?", "Stage this hunk [y,n,q,a,d,e,?]?"),
                answer("y", "stage it"),
                at_prompt("staged, back at the shell prompt"),
                run("git diff --cached --stat", "show what is staged"),
                back_at_prompt(
                    r"1 file changed[^\n]*", "the stat printed, back at the shell prompt"
                ),
            ],
            files={"notes.txt": "first line\n"},
        ),
    ),
    "ssh-keygen": GenericProgram(
        "ssh-keygen",
        ["ssh", "-V"],
        scenario(
            "overwrite_passphrase",
            "ssh-keygen over an existing file: Overwrite (y/n)?, then the passphrase twice",
            [
                at_prompt("shell prompt"),
                run("ssh-keygen -t ed25519 -C lab -f ./lab_key", "a key over an existing file"),
                asks(r"Overwrite \(y/n\)\?", "Overwrite (y/n)?"),
                answer("y", "overwrite"),
                asks(
                    r"Enter passphrase[^\n]*\(empty for no passphrase\):",
                    "Enter passphrase (empty for no passphrase):",
                ),
                secret("lab-secret", "type a passphrase (not echoed)"),
                asks(r"Enter same passphrase again:", "Enter same passphrase again:"),
                secret("lab-secret", "type it again"),
                back_at_prompt(
                    r"\+----\[SHA256\]-----\+", "key written (randomart), back at the shell prompt"
                ),
            ],
            files={"lab_key": "not a key yet\n"},
        ),
    ),
    "bash-script": GenericProgram(
        "bash-script",
        ["bash", "--version"],
        scenario(
            "ask",
            "a script: prints for 3 s, then read -p [y/N], a select menu, Press Enter, a "
            "python input() (y/n)",
            [
                at_prompt("shell prompt"),
                run("bash ask.sh", "run the script"),
                Expect("working", Cue(r"^checked file 1 of 5$", tail=1), "the script prints"),
                asks(r"Apply the changes\? \[y/N\]", "read -p: Apply the changes? [y/N]"),
                answer("y", "yes"),
                Expect("blocked", Cue(r"3\) release\n#\?$", tail=2), "select: a numbered menu, #?"),
                answer("2", "pick develop"),
                asks(r"Press Enter to continue\.\.\.", "Press Enter to continue..."),
                answer("", "Enter"),
                asks(
                    r"Upload the report too\? \(y/n\)",
                    "python input(): Upload the report too? (y/n)",
                ),
                answer("n", "no"),
                back_at_prompt(r"^all done", "the script ended, back at the shell prompt"),
            ],
            files={"ask.sh": ASK_SCRIPT},
        ),
    ),
    "npm-init": GenericProgram(
        "npm-init",
        ["npm", "--version"],
        scenario(
            "fields",
            "npm init: one field a row (`package name: (proj)`, `version: (1.0.0)`, "
            "`description:` without a default, ...), then `Is this OK? (yes)`",
            [
                at_prompt("shell prompt"),
                run("npm init", "npm init"),
                asks(r"^package name: \([^)]+\)", "package name: (default)"),
                answer("", "take the default"),
                asks(r"^version: \(1\.0\.0\)", "version: (1.0.0)"),
                answer("", "take the default"),
                asks(r"^description:", "description: (no default)"),
                answer("a lab demo", "a description"),
                asks(r"^entry point: \(index\.js\)", "entry point: (index.js)"),
                answer("", "take the default"),
                asks(r"^test command:", "test command: (no default)"),
                answer("", "leave it empty"),
                asks(r"^git repository:", "git repository: (no default)"),
                answer("", "leave it empty"),
                asks(r"^keywords:", "keywords:"),
                answer("", "leave it empty"),
                asks(r"^author:", "author:"),
                answer("", "leave it empty"),
                asks(r"^license: \(ISC\)", "license: (ISC)"),
                answer("", "take the default"),
                # npm 11 asks the module type too (npm 10 did not)
                asks(r"^type: \(commonjs\)", "type: (commonjs)"),
                answer("", "take the default"),
                asks(r"Is this OK\? \(yes\)", "Is this OK? (yes)"),
                answer("", "yes"),
                at_prompt("package.json written, back at the shell prompt"),
            ],
        ),
    ),
    "python-repl": GenericProgram(
        "python-repl",
        ["python3", "--version"],
        scenario(
            "repl",
            "python3's REPL: a line typed at once at `>>> `, run silently for 4 s, then "
            "its answer and the prompt back",
            [
                at_prompt("shell prompt"),
                run("python3 -q", "start the REPL"),
                Expect("idle", Cue(r"^>>>$", tail=1), "the REPL's prompt", settle=SETTLE_IDLE),
                typed_fast("import time; time.sleep(4); print(6 * 7)", "a line, typed at once"),
                Expect(
                    "idle",
                    Cue(r"^>>> import time; time\.sleep\(4\); print\(6 \* 7\)$", tail=1),
                    "typed, not sent: still at the prompt",
                    settle=1.0,
                ),
                Keys(("Enter",), "run it"),
                sent(r"^>>> import time; time\.sleep\(4\); print\(6 \* 7\)", "it sleeps, silently"),
                Expect("idle", Cue(r"^42\n>>>$", tail=2), "the answer, the prompt back"),
                Keys(("C-d",), "leave the REPL"),
                at_prompt("back at the shell prompt"),
            ],
        ),
    ),
    "quiet-work": GenericProgram(
        "quiet-work",
        ["bash", "--version"],
        scenario(
            "password_then_quiet",
            "a command typed at once that works silently for 4 s, then a script that asks "
            "a password and works silently for 4 s after it",
            [
                at_prompt("shell prompt"),
                typed_fast("sleep 4", "a command, typed at once"),
                Expect("idle", Cue(r"^lab@box:~/proj\$ sleep 4$", tail=1), "typed", settle=1.0),
                Keys(("Enter",), "run it"),
                sent(r"^lab@box:~/proj\$ sleep 4", "sleep: nothing printed"),
                at_prompt("back at the shell prompt"),
                run("bash quiet.sh", "run the script"),
                asks(r"^Password:", "read -s -p Password:"),
                secret("lab-secret", "type it (not echoed)"),
                sent(r"^Password:", "the script works silently after the password"),
                back_at_prompt(r"^unlocked", "the script ended, back at the shell prompt"),
            ],
            files={"quiet.sh": QUIET_SCRIPT},
        ),
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--sizes", default="80x24")
    args = parser.parse_args()
    failed = []
    for name in args.programs:
        program = PROGRAMS[name]
        for size in args.sizes.split(","):
            cols, _, rows = size.partition("x")
            out = REPO / "captures" / program.folder
            try:
                path = Recorder(program, program._scenario, int(cols), int(rows), out).run()
            except DriverError as exc:
                print(f"FAILED {name} {size}: {exc}", file=sys.stderr)
                failed.append(f"{name} {size}")
                continue
            print(f"wrote {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
