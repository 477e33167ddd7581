"""Gemini CLI rules on screens we have no capture of.

Layouts come from three places (rules/NOTES-gemini.md has the details):
- the 0.61.0 capture snapshots (captures/gemini-cli-0.61.0/*.snapshots): composer, footer,
  shell/edit confirmation boxes, spinner line;
- Gemini CLI 0.61.0 run in tmux at 80x24 with an empty home directory and no network: the trust,
  auth and API-key dialogs and a typed draft below are those screens verbatim;
- the program text of older versions (0.1.9 ... 0.30.1) for their wording and box layout.
"""

from __future__ import annotations

import pytest

from osf_tmux.judge.classify import classify
from osf_tmux.judge.manifest import Manifest
from osf_tmux.vt.snapshot import Snapshot
from tests.rules.harness import from_bottom, manifest_fixture, screens_test

READY = "◇  Ready (proj)"
WORKING = "✦  Working… (proj)"
ACTION = "✋  Action Required (proj)"


manifest = manifest_fixture("gemini")


def screen(
    lines: list[str], cols: int, rows: int, title: str = READY, cursor: tuple[int, int] = (0, 0)
) -> Snapshot:
    """`lines` as the bottom of a `cols`x`rows` pane (Gemini draws its live area at the bottom
    of the normal screen; the transcript scrolls off the top)."""
    return from_bottom(lines, cols, rows, title=title, cursor=cursor)


def box(body: list[str], width: int, margin: int = 0) -> list[str]:
    """An Ink round-border box `width` wide with one column of padding, `margin` columns in."""
    pad = " " * margin
    inner = width - 4
    assert all(len(b) <= inner for b in body), "box content wider than the box"
    return (
        [pad + "╭" + "─" * (width - 2) + "╮"]
        + [pad + "│ " + b.ljust(inner) + " │" for b in body]
        + [pad + "╰" + "─" * (width - 2) + "╯"]
    )


def composer(cols: int, text: str = "  Type your message or @path/to/file") -> list[str]:
    """0.61 status row, rule, mode hint, input box and footer (from 06-idle.txt, re-laid)."""
    gap = cols - 48
    return [
        " " * (cols - 16) + "? for shortcuts",
        "─" * cols,
        " Shift+Tab to accept edits",
        "▄" * cols,
        f" > {text}",
        "▀" * cols,
        " workspace (/directory)" + " " * (gap - 4) + "sandbox" + " " * 10 + "/model",
        " /home/dev/project/proj" + " " * (gap - 4) + "no sandbox" + " " * 4 + "gemini-2.5-pro",
    ]


def spinner_and_composer(cols: int, phrase: str = "Thinking...", secs: str = "3s") -> list[str]:
    """The 0.61 working bottom (02-working.txt): spinner line instead of the status row."""
    line = f" ⠙ {phrase} (esc to cancel, {secs})"
    return [line.ljust(cols - 16) + "? for shortcuts", *composer(cols)[1:]]


def user_message(cols: int, text: str) -> list[str]:
    return ["▄" * cols, f" > {text}", "▀" * cols]


HEADER = [
    " ▝▜▄     Gemini CLI v0.61.0",
    "   ▝▜▄",
    "  ▗▟▀    Authenticated with gemini-api-key /auth",
    " ▝▀",
    "",
]

# Verbatim: 0.61.0 in tmux 80x24, first start in an untrusted folder.
TRUST_80x24 = """2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

ℹ Skipping project agents due to untrusted folder. To enable, ensure that the
  project root is trusted.

 ╭────────────────────────────────────────────────────────────────────────────╮
 │                                                                            │
 │ Do you trust the files in this folder?                                     │
 │                                                                            │
 │ Trusting a folder allows Gemini CLI to load its local configurations,      │
 │ including custom commands, hooks, MCP servers, agent skills, and settings. │
 │ These configurations could execute code on your behalf or change the       │
 │ behavior of the CLI.                                                       │
 │                                                                            │
 │                                                                            │
 │ ● 1. Trust folder (proj)                                                   │
 │   2. Trust parent folder (run)                                             │
 │   3. Don't trust                                                           │
 │                                                                            │
 ╰────────────────────────────────────────────────────────────────────────────╯"""

# Verbatim: the same run after trusting, no credentials configured.
AUTH_80x24 = """ Gemini CLI is restarting to apply the trust changes...

╭──────────────────────────────────────────────────────────────────────────────╮
│                                                                              │
│ ? Get started                                                                │
│                                                                              │
│   How would you like to authenticate for this project?                       │
│                                                                              │
│   ● 1. Sign in with Google                                                   │
│     2. Use Gemini API Key                                                    │
│     3. Vertex AI                                                             │
│                                                                              │
│   No authentication method selected.                                         │
│                                                                              │
│   (Use Enter to select)                                                      │
│                                                                              │
│   Terms of Services and Privacy Notice for Gemini CLI                        │
│                                                                              │
│   https://geminicli.com/docs/resources/tos-privacy/                          │
│                                                                              │
╰──────────────────────────────────────────────────────────────────────────────╯"""

# Verbatim: "Use Gemini API Key" chosen in the dialog above.
API_KEY_80x24 = """╭──────────────────────────────────────────────────────────────────────────────╮
│                                                                              │
│ Enter Gemini API Key                                                         │
│                                                                              │
│ Please enter your Gemini API key. It will be securely stored in your system  │
│ keychain.                                                                    │
│ You can get an API key from https://aistudio.google.com/app/apikey           │
│                                                                              │
│ ╭──────────────────────────────────────────────────────────────────────────╮ │
│ │ Paste your API key here                                                  │ │
│ ╰──────────────────────────────────────────────────────────────────────────╯ │
│                                                                              │
│ (Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)           │
│                                                                              │
╰──────────────────────────────────────────────────────────────────────────────╯"""

# Verbatim: an unsent draft typed into the idle 0.61 input box at 80x24 (it wraps; the typed
# "?" had opened the shortcuts panel above the box).
DRAFT_80x24 = """Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results

────────────────────────────────────────────────────────────────────────────────
 Shortcuts See /help for more
 ! shell mode             Shift+Tab cycle mode      Ctrl+V paste images
 @ select file or folder  Ctrl+Y YOLO mode          Alt+M raw markdown mode
 Double Esc clear &       Ctrl+R reverse-search     Ctrl+G open external
            rewind               history                   editor
 Tab focus UI


────────────────────────────────────────────────────────────────────────────────
 Shift+Tab to accept edits
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 > Allow execution of [Shell] (Y)es/(N)o/(D)on't ask again [Yes]: and ● 1.
   Allow once
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
 workspace (/directory)                    sandbox                       /model
 /work/scratch/run/proj                    no sandbox                      Auto
"""


# Verbatim: 0.61.0 at 80x24 against a local stand-in for the API that asks for a shell command
# with a redirection; the title had already turned to Action Required.
SHELL_REAL_80x24 = """Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
3. Ask coding questions, edit code or run commands
4. Be specific for the best results
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 > Run the build
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
✦ I will run it.

╭──────────────────────────────────────────────────────────────────────────────╮
│ ? Shell  sleep 2; echo build-ok > out.txt                                    │
│ ╭──────────────────────────────────────────────────────────────────────────╮ │
│ │ sleep 2; echo build-ok > out.txt                                         │ │
│ ╰──────────────────────────────────────────────────────────────────────────╯ │
│ Allow execution of [Shell]?                                                  │
│ Redirection detected. To auto-accept, press Shift+Tab                        │
│                                                                              │
│ ● 1. Allow once                                                              │
│   2. Allow for this session                                                  │
│   3. No, suggest changes (esc)                                               │
╰──────────────────────────────────────────────────────────────────────────────╯"""

# Verbatim: the same dialog rejected with Esc (cancelled tool box, "Request cancelled.").
REJECTED_REAL_80x24 = """4. Be specific for the best results
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 > Run the build
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
✦ I will run it.

╭──────────────────────────────────────────────────────────────────────────╮
│ -  Shell sleep 2; echo build-ok > out.txt                                │
│                                                                          │
╰──────────────────────────────────────────────────────────────────────────╯


ℹ Request cancelled.


                                                                ? for shortcuts
────────────────────────────────────────────────────────────────────────────────
 Shift+Tab to accept edits
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 >   Type your message or @path/to/file
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
 workspace (/directory)                    sandbox                       /model
 /work/scratch/run/proj                    no sandbox                      Auto"""

# Verbatim: approved on the next turn; the answer ends with a question to the user.
ANSWER_QUESTION_REAL_80x24 = """
ℹ Request cancelled.
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 > Run the build again
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
✦ I will run it.

╭──────────────────────────────────────────────────────────────────────────╮
│ ✓  Shell sleep 2; echo build-ok > out.txt                                │
│                                                                          │
╰──────────────────────────────────────────────────────────────────────────╯

✦ The command finished. Would you like me to run the tests too?


                                                                ? for shortcuts
────────────────────────────────────────────────────────────────────────────────
 Shift+Tab to accept edits
▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄
 >   Type your message or @path/to/file
▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀
 workspace (/directory)                    sandbox                       /model
 /work/scratch/run/proj                    no sandbox                      Auto"""


def shell_dialog(cols: int, command: str, question: str, options: list[str]) -> list[str]:
    """0.61 shell confirmation (03-blocked.txt of shell_approve), re-laid at `cols`."""
    inner = cols - 4
    cmd_box = box([command], inner)
    radio = [("● " if i == 0 else "  ") + f"{i + 1}. {o}" for i, o in enumerate(options)]
    return box([f"? Shell  {command}", *cmd_box, question, "", *radio], cols)


# Footer of versions before 0.45 (cwd and branch, sandbox, model).
FOOTER_OLD = "~/proj (main*)      no sandbox (see /docs)      gemini-2.5-pro (99% context left)"

SHELL_OPTIONS = ["Allow once", "Allow for this session", "No, suggest changes (esc)"]

CASES: list[tuple[str, Snapshot, str]] = [
    # --- real 0.61.0 screens at 80x24 (see the constants above) ---
    (
        "real-shell-confirm-redirection-80x24",
        screen(SHELL_REAL_80x24.split("\n"), 80, 24, title=ACTION),
        "blocked",
    ),
    ("real-rejected-then-idle-80x24", screen(REJECTED_REAL_80x24.split("\n"), 80, 24), "idle"),
    (
        "real-answer-ending-in-question-80x24",
        screen(ANSWER_QUESTION_REAL_80x24.split("\n"), 80, 24),
        "idle",
    ),
    # --- start-up dialogs (blocked) ---
    ("trust-dialog-80x24", screen(TRUST_80x24.split("\n"), 80, 24), "blocked"),
    ("auth-dialog-80x24", screen(AUTH_80x24.split("\n"), 80, 24), "blocked"),
    ("api-key-dialog-80x24", screen(API_KEY_80x24.split("\n"), 80, 24), "blocked"),
    # Trust wording of 0.5-0.30 (FolderTrustDialog): "Do you trust this folder?" with numbered
    # options and the "(Use Enter to select)" hint, in a box at column 0.
    (
        "trust-dialog-old-wording-200x50",
        screen(
            box(
                [
                    "Do you trust this folder?",
                    "",
                    "Trusting a folder allows Gemini to execute commands it suggests. This is a"
                    " security feature to prevent accidental execution in untrusted directories.",
                    "",
                    "● 1. Trust folder (proj)",
                    "  2. Trust parent folder (work)",
                    "  3. Don't trust (esc)",
                ],
                200,
            ),
            200,
            50,
        ),
        "blocked",
    ),
    # 0.1.x auth dialog (AuthDialog.js): title, ●/○ radio list, hint; no numbers.
    (
        "auth-dialog-0.1-120x32",
        screen(
            box(
                [
                    "",
                    "Select Auth Method",
                    "● Login with Google",
                    "○ Gemini API Key (AI Studio)",
                    "○ Vertex AI",
                    "",
                    "(Use Enter to select)",
                    "",
                ],
                120,
            ),
            120,
            32,
        ),
        "blocked",
    ),
    # Theme picker (ThemeDialog): "> Select Theme", numbered list, preview, hint.
    (
        "theme-dialog-120x32",
        screen(
            box(
                [
                    "",
                    "> Select Theme                                   Preview",
                    "● 1. ANSI Dark                                   ╭──────────────────╮",
                    "  2. Atom One Dark                               │ # function       │",
                    "  3. Ayu Dark                                    │ def fib(n):      │",
                    "  4. Default Dark                                ╰──────────────────╯",
                    "",
                    "(Use Enter to select, Tab to configure scope, Esc to close)",
                    "",
                ],
                120,
            ),
            120,
            32,
        ),
        "blocked",
    ),
    # Loop detection (LoopDetectionConfirmation; the lab's loop_keep-80x24 02-blocked): the box
    # one column in, "?  A potential loop was detected", the question, the options.
    (
        "loop-detection-80x24",
        screen(
            [
                *HEADER,
                *user_message(80, "keep refactoring until the tests pass"),
                "",
                *box(
                    [
                        "?  A potential loop was detected",
                        "",
                        "This can happen due to repetitive tool calls or other model behavior. Do",
                        "you want to keep loop detection enabled or disable it for this session?",
                        "",
                        "● 1. Keep loop detection enabled (esc)",
                        "  2. Disable loop detection for this session",
                    ],
                    79,
                    margin=1,
                ),
            ],
            80,
            24,
            title=ACTION,
        ),
        "blocked",
    ),
    # --- tool confirmations (blocked) ---
    # 03-blocked of shell_approve re-laid at 80 columns; the title has not caught up yet.
    (
        "shell-confirm-80x24",
        screen(
            [
                *HEADER,
                *user_message(80, "Run the build"),
                "✦ I will run the build.",
                "",
                *shell_dialog(
                    80, "sleep 4; echo build-ok", "Allow execution of [Shell]?", SHELL_OPTIONS
                ),
            ],
            80,
            24,
            title=WORKING,
        ),
        "blocked",
    ),
    # With a redirection warning between question and options, at 200x50.
    (
        "shell-confirm-redirection-200x50",
        screen(
            [
                *HEADER,
                *user_message(200, "save the listing"),
                "",
                *box(
                    [
                        "? Shell  ls -la > listing.txt",
                        *box(["ls -la > listing.txt"], 196),
                        "Allow execution of [Shell]?",
                        "Redirection detected. To auto-accept, press Shift+Tab",
                        "",
                        "● 1. Allow once",
                        "  2. Allow for this session",
                        "  3. No, suggest changes (esc)",
                    ],
                    200,
                ),
            ],
            200,
            50,
            title=ACTION,
        ),
        "blocked",
    ),
    # Setting ui.collapseDrawerDuringApproval=false keeps the input box and footer under it.
    (
        "shell-confirm-composer-kept-120x32",
        screen(
            [
                *user_message(120, "Run the build"),
                *shell_dialog(120, "make", "Allow execution of [Shell]?", SHELL_OPTIONS),
                "",
                *composer(120),
            ],
            120,
            32,
            title=ACTION,
        ),
        "blocked",
    ),
    # A frame read half-drawn: the box is drawn down to the question (capture @107459).
    (
        "shell-confirm-half-drawn",
        screen(
            [
                *user_message(120, "Run the build"),
                "✦ I will run the build.",
                "",
                *shell_dialog(120, "make", "Allow execution of [Shell]?", SHELL_OPTIONS)[:6],
            ],
            120,
            32,
            title=WORKING,
        ),
        "blocked",
    ),
    # Edit confirmation (03-blocked of edit_approve) at 80x24 with a long diff cut by the box.
    (
        "edit-confirm-80x24",
        screen(
            [
                *box(
                    [
                        "? Edit  src/app.py: def main(): => def main(argv):",
                        *box(
                            [
                                "... first 14 lines hidden ...",
                                "15 - def main():",
                                "15 + def main(argv):",
                            ],
                            76,
                        ),
                        "Apply this change?",
                        "",
                        "● 1. Allow once",
                        "  2. Allow for this session",
                        "  3. Modify with external editor",
                        "  4. No, suggest changes (esc)",
                    ],
                    80,
                ),
            ],
            80,
            24,
            title=ACTION,
        ),
        "blocked",
    ),
    # MCP tool confirmation (ToolConfirmationQueue for other tools): "Action Required" header,
    # the question wraps at 80 columns.
    (
        "mcp-confirm-wrapped-80x24",
        screen(
            box(
                [
                    "Action Required",
                    "",
                    '?  get_issue (github MCP Server) {"number":12}',
                    "MCP Server: github",
                    "Tool: get_issue",
                    'Allow execution of MCP tool "get_issue" from server',
                    '"github"?',
                    "",
                    "● 1. Allow once",
                    "  2. Allow tool for this session",
                    "  3. Allow all server tools for this session",
                    "  4. No, suggest changes (esc)",
                ],
                80,
            ),
            80,
            24,
            title=ACTION,
        ),
        "blocked",
    ),
    # Web fetch / info confirmation: "Do you want to proceed?".
    (
        "info-confirm-120x32",
        screen(
            box(
                [
                    "Action Required",
                    "",
                    "?  WebFetch Fetching content from https://example.com/docs",
                    "Fetch https://example.com/docs and summarise it",
                    "",
                    "URLs to fetch:",
                    " - https://example.com/docs",
                    "Do you want to proceed?",
                    "",
                    "● 1. Allow once",
                    "  2. Allow for this session",
                    "  3. No, suggest changes (esc)",
                ],
                120,
            ),
            120,
            32,
        ),
        "blocked",
    ),
    # 0.20-0.30 wording: "Allow execution of: 'npm'?" with "Yes, allow once" options; the box's
    # sides are drawn by the tool group (ToolGroupMessage), column 0.
    (
        "shell-confirm-0.20-120x32",
        screen(
            [
                *box(
                    [
                        "?  Shell npm test (run the tests)",
                        "",
                        "npm test",
                        "",
                        "Allow execution of: 'npm'?",
                        "",
                        "● 1. Yes, allow once",
                        "  2. Yes, allow always ...",
                        "  3. No, suggest changes (esc)",
                    ],
                    120,
                ),
                "",
                "⠏ Polishing the pixels...",
                "",
                FOOTER_OLD,
            ],
            120,
            32,
        ),
        "blocked",
    ),
    # 0.1.x: the tool group box starts in column 1, question "Allow execution?", ●/○ options,
    # loading line without a timer below, footer.
    (
        "shell-confirm-0.1-100x30",
        screen(
            [
                *box(
                    [
                        "?  Shell rm -rf build (clean the build directory)",
                        "",
                        "   rm -rf build",
                        "",
                        "  Allow execution?",
                        "",
                        "  ● Yes, allow once",
                        '  ○ Yes, allow always "rm ..."',
                        "  ○ No (esc)",
                    ],
                    99,
                    margin=1,
                ),
                "",
                "⠏ Reticulating splines",
                "",
                "~/proj (main*)                 no sandbox (see /docs)          gemini-2.5-pro",
            ],
            100,
            30,
        ),
        "blocked",
    ),
    # --- not blocked: drafts, transcript, finished tools ---
    ("draft-with-prompt-phrases-80x24", screen(DRAFT_80x24.split("\n"), 80, 24), "idle"),
    # A multi-line draft pasting a whole confirmation (continuation rows are indented by the
    # prompt width, so no row starts with the box side).
    (
        "multiline-draft-pasting-a-dialog-120x32",
        screen(
            [
                *HEADER,
                *composer(120, "what does this mean:")[:4],
                " > what does this mean:",
                "   Allow execution of [Shell]?",
                "   ● 1. Allow once",
                "   2. Allow for this session",
                *composer(120)[5:],
            ],
            120,
            32,
        ),
        "idle",
    ),
    # An answer that ends with a question to the user.
    (
        "answer-ending-in-question-120x32",
        screen(
            [
                *HEADER,
                *user_message(120, "Why is the build slow?"),
                "✦ The build recompiles every module because the cache key includes a timestamp.",
                "",
                "  Would you like me to switch the cache key to file hashes? Apply this change?",
                "",
                *composer(120),
            ],
            120,
            32,
        ),
        "idle",
    ),
    # The answered confirmation: the box turned into a finished tool box (06-idle.txt).
    (
        "approved-then-idle-80x24",
        screen(
            [
                *user_message(80, "Run the build"),
                "✦ I will run the build.",
                "",
                *box(["✓  Shell sleep 4; echo build-ok", "", "build-ok", ""], 80),
                "",
                "✦ The build finished: build-ok.",
                "",
                *composer(80),
            ],
            80,
            24,
        ),
        "idle",
    ),
    # A rejected confirmation (Esc): cancelled tool box, then the input box again.
    (
        "rejected-then-idle-120x32",
        screen(
            [
                *user_message(120, "Run the build"),
                *box(["-  Shell sleep 4; echo build-ok", ""], 120),
                "",
                "ℹ Request cancelled.",
                "",
                *composer(120),
            ],
            120,
            32,
        ),
        "idle",
    ),
    # A finished tool whose output contains a confirmation question (cat of a transcript).
    (
        "tool-output-with-question-120x32",
        screen(
            [
                *box(
                    [
                        "✓  Shell cat notes/session.txt",
                        "",
                        "Allow execution of [Shell]?",
                        "Apply this change?",
                        "● 1. Allow once",
                        "",
                    ],
                    120,
                ),
                "",
                "✦ That file is a saved session transcript.",
                "",
                *composer(120),
            ],
            120,
            32,
        ),
        "idle",
    ),
    # /gemma status in the transcript uses ●/○ dots (GemmaStatus); not a dialog.
    (
        "status-dots-in-transcript-120x32",
        screen(
            [
                "Gemma Local Model Routing",
                "",
                "● Binary: /usr/local/bin/llama-server",
                "○ Model: gemma-3-1b (not downloaded)",
                "○ Server: not running",
                "● 1. enable routing in settings",
                "  2. run /gemma setup",
                "",
                *composer(120),
            ],
            120,
            32,
        ),
        "idle",
    ),
    # Long output filling a 200x50 pane, idle.
    (
        "long-answer-idle-200x50",
        screen(
            [
                *user_message(200, "summarise the repo"),
                *[f"  - module_{i}.py: helpers for part {i} of the pipeline" for i in range(40)],
                "",
                *composer(200),
            ],
            200,
            50,
        ),
        "idle",
    ),
    # --- working ---
    # Thinking with a thought subject as the spinner text (LoadingIndicator).
    (
        "thinking-subject-120x32",
        screen(
            [
                *HEADER,
                *user_message(120, "Refactor the parser"),
                "",
                *spinner_and_composer(120, "Planning the parser refactor", "1m 5s"),
            ],
            120,
            32,
            title="✦  Planning the parser refactor (proj)",
        ),
        "working",
    ),
    # Below 80 columns the timer goes on a row of its own (isNarrowWidth).
    (
        "spinner-narrow-60x20",
        screen(
            [
                *user_message(60, "Run the build"),
                " ⠼ Thinking...",
                "(esc to cancel, 12s)",
                "─" * 60,
                "▄" * 60,
                " >   Type your message or @path/to/file",
                "▀" * 60,
            ],
            60,
            20,
        ),
        "working",
    ),
    # Answer streaming, long output scrolling (spinner still under it).
    (
        "streaming-long-answer-200x50",
        screen(
            [
                *[f"  step {i}: rewrite the {i}th call site to the new API" for i in range(45)],
                "",
                *spinner_and_composer(200, "Writing the migration", "42s"),
            ],
            200,
            50,
            title="✦  Writing the migration (proj)",
        ),
        "working",
    ),
    # Between frames after an approval: the live area erased, not redrawn yet (@108980); only
    # the title says what is going on.
    (
        "between-frames-after-approval",
        screen(
            [*HEADER, *user_message(120, "Run the build"), "✦ I will run the build."],
            120,
            32,
            title=ACTION,
        ),
        "working",
    ),
    # The same title while the idle input box is already drawn: the title lags, the box wins.
    (
        "stale-working-title-idle-box",
        screen([*HEADER, "✦ Done.", "", *composer(120)], 120, 32, title=WORKING),
        "idle",
    ),
    # Old versions (input box hidden while responding): spinner line above the footer.
    (
        "old-version-working-120x32",
        screen(
            [
                "╭" + "─" * 118 + "╮",
                "│ > Explain the code" + " " * 99 + "│",
                "╰" + "─" * 118 + "╯",
                "✦ The code parses arguments and",
                "",
                "⠏ Counting electrons (esc to cancel, 7s)",
                "",
                FOOTER_OLD,
            ],
            120,
            32,
            title="Gemini - proj",
        ),
        "working",
    ),
    # --- idle ---
    ("idle-no-title-80x24", screen([*HEADER, *composer(80)], 80, 24, title=""), "idle"),
]


test_gemini_screens = screens_test(CASES)


# Screen-reader mode (ui.accessibility.screenReader; captures/gemini-cli-0.61.0-lab-screenreader):
# plain rows at column 0, the selection said in words, the window title still "Working".
SR_HEAD = [
    "User:  clean the build directory",
    "Model:  I'll remove the build directory.",
    "workspace (/directory)",
    "/tmp/proj branch",
    "main sandbox",
    "no sandbox /model",
    "Auto",
]


@pytest.mark.parametrize("cols", [60, 120, 200])
@pytest.mark.parametrize(
    ("header", "question"),
    [
        ("? Shell   rm -rf build && sleep 1 && echo done", "Allow execution of [Shell]?"),
        ("? Edit   app.py: print('hello') => print('hello, world')", "Apply this change?"),
    ],
)
def test_screen_reader_confirmation(
    cols: int, header: str, question: str, manifest: Manifest
) -> None:
    rows = [
        *SR_HEAD,
        header[:cols],
        "rm -rf build && sleep 1 && echo done",
        question,
        "(checked) 1. Allow once",
        "2. Allow for this session",
        "3. No, suggest changes (esc)",
    ]
    verdict = classify(screen(rows, cols, 32, title="✦  Working… (proj)"), manifest)
    assert (verdict.state, verdict.rule) == ("blocked", "tool-confirmation")


def test_screen_reader_finished_tool_and_a_numbered_answer_are_not_blocked(
    manifest: Manifest,
) -> None:
    rows = [
        *SR_HEAD,
        "✓ Shell   rm -rf build && sleep 1 && echo done",
        "Model:  Done. Do you want to proceed?",
        "- 1. Run the tests",
        "2. Stop here",
        "responding Thinking... (esc to cancel, 2s) ? for shortcuts",
        " >    Type your message or @path/to/file",
    ]
    assert classify(screen(rows, 120, 32), manifest).state != "blocked"
