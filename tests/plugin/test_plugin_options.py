"""The plugin's options, status placement and key binding, without tmux (pure functions)."""

from __future__ import annotations

import os
from pathlib import Path

from osf_tmux.plugin import options as po
from osf_tmux.plugin.invoke import own_command
from osf_tmux.plugin.load import (
    KEYS,
    STATUS_FRAGMENT,
    WINDOW_FRAGMENT,
    Binding,
    key_binding,
    key_commands,
    length_commands,
    placement_commands,
    prefix_bindings,
    unraise_commands,
)

TMUX_DEFAULTS = {
    "status-left": "[#{session_name}] ",
    "status-right": "#{?window_bigger,[#{window_offset_x}#,#{window_offset_y}] ,}"
    '"#{=21:pane_title}" %H:%M %d-%b-%y',
    "window-status-format": "#I:#W#{?window_flags,#{window_flags}, }",
    "window-status-current-format": "#I:#W#{?window_flags,#{window_flags}, }",
}
DEFAULTS = {o.name: o.default for o in po.OPTIONS}
LOG = Path("/state/osf-tmux/plugin.log")


def apply(current: dict[str, str], commands: list[list[str]]) -> dict[str, str]:
    out = dict(current)
    for command in commands:
        assert command[:2] == ["set-option", "-g"]
        out[command[2]] = command[3]
    return out


def test_placement_is_added_once_and_removed_exactly() -> None:
    first = apply(TMUX_DEFAULTS, placement_commands(DEFAULTS, TMUX_DEFAULTS))
    assert first["status-right"] == STATUS_FRAGMENT + TMUX_DEFAULTS["status-right"]
    assert first["status-left"] == TMUX_DEFAULTS["status-left"]
    for name in ("window-status-format", "window-status-current-format"):
        assert first[name] == TMUX_DEFAULTS[name] + WINDOW_FRAGMENT
    # A reload finds its own text and writes nothing.
    assert placement_commands(DEFAULTS, first) == []
    # Switched off, everything is as it was before.
    off = {**DEFAULTS, "@osf-status-placement": "off", "@osf-window-placement": "off"}
    assert apply(first, placement_commands(off, first)) == TMUX_DEFAULTS


def test_placement_left_moves_it() -> None:
    right = apply(TMUX_DEFAULTS, placement_commands(DEFAULTS, TMUX_DEFAULTS))
    left_values = {**DEFAULTS, "@osf-status-placement": "left"}
    left = apply(right, placement_commands(left_values, right))
    assert left["status-right"] == TMUX_DEFAULTS["status-right"]
    assert left["status-left"] == TMUX_DEFAULTS["status-left"] + STATUS_FRAGMENT


def test_user_placed_format_is_respected() -> None:
    mine = {**TMUX_DEFAULTS, "status-right": f"{STATUS_FRAGMENT}| %H:%M"}
    assert not any(c[2] == "status-right" for c in placement_commands(DEFAULTS, mine))


BIN = ["/bin/osf-tmux"]
NEXT, MENU = KEYS


def keys(**values: str) -> dict[str, str]:
    return {**DEFAULTS, **{f"@osf-key-{k}": v for k, v in values.items()}}


def binds(commands: list[list[str]]) -> dict[str, str]:
    return {c[3]: c[6] for c in commands if c[0] == "bind-key"}


def test_keys_bound_when_free_and_left_alone_when_taken() -> None:
    commands, warnings, bound = key_commands(DEFAULTS, [], BIN, LOG)
    assert warnings == [] and bound == {"next": "A", "menu": "W"}
    assert [c[:6] for c in commands] == [
        ["bind-key", "-T", "prefix", k, "run-shell", "-b"] for k in ("A", "W")
    ]
    theirs = [Binding("A", "select-pane -t :.+")]
    commands, warnings, bound = key_commands(DEFAULTS, theirs, BIN, LOG)
    assert list(binds(commands)) == ["W"] and bound == {"menu": "W"}
    assert len(warnings) == 1 and "@osf-key-override" in warnings[0] and "prefix + A" in warnings[0]
    commands, warnings, _ = key_commands({**DEFAULTS, "@osf-key-override": "on"}, theirs, BIN, LOG)
    assert warnings == [] and list(binds(commands)) == ["A", "W"]


def test_keys_moved_swapped_or_switched_off() -> None:
    ours = [
        Binding("A", key_binding(NEXT, BIN, LOG)),
        Binding("W", key_binding(MENU, BIN, LOG)),
    ]
    commands, _, _ = key_commands(keys(next="N"), ours, BIN, LOG)
    assert commands[0] == ["unbind-key", "-T", "prefix", "A"]
    assert binds(commands)["N"].endswith("##osf-tmux:next")
    commands, _, bound = key_commands(keys(next="W", menu="A"), ours, BIN, LOG)
    assert bound == {"next": "W", "menu": "A"}
    assert binds(commands)["W"].endswith("##osf-tmux:next")
    assert binds(commands)["A"].endswith("##osf-tmux:menu")
    commands, _, bound = key_commands(keys(next="none", menu="off"), ours, BIN, LOG)
    assert sorted(commands) == [["unbind-key", "-T", "prefix", k] for k in ("A", "W")]
    assert bound == {}


def test_two_actions_on_one_key_is_said() -> None:
    commands, warnings, bound = key_commands(keys(menu="A"), [], BIN, LOG)
    assert bound == {"next": "A"} and list(binds(commands)) == ["A"]
    assert warnings == ["@osf-key-menu is A, the key osf-tmux next already has"]


def test_binding_escapes_formats_names_the_client_and_logs_errors_only() -> None:
    command = key_binding(NEXT, ["/opt/a#b/osf-tmux"], Path("/log"))
    assert command.startswith("'/opt/a##b/osf-tmux' next --client #{q:client_name} ")
    assert ">/dev/null 2>>/log" in command  # what a key press says goes to the client, not a log
    assert command.endswith("##osf-tmux:next")  # a shell comment once tmux expands it


def test_own_command_is_absolute(tmp_path: Path) -> None:
    script = tmp_path / "bin" / "osf-tmux"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert own_command("bin/osf-tmux") == [str(script)]
    finally:
        os.chdir(here)
    assert own_command(str(tmp_path / "osf_tmux" / "__main__.py"))[1:] == ["-m", "osf_tmux"]


def test_list_keys_parsing() -> None:
    listing = "\n".join(
        [
            "bind-key    -T prefix       \\;                    last-pane",
            "bind-key    -T prefix       '\"'                   split-window",
            "bind-key -r -T prefix       Up                    select-pane -U",
            'bind-key    -T prefix       A                     run-shell -b "x ##osf-tmux:next"',
            'bind-key    -T prefix       W                     run-shell -b "x ##osf-tmux:menu"',
        ]
    )
    found = prefix_bindings(listing)
    assert [k.key for k in found] == [";", '"', "Up", "A", "W"]
    assert [k.ours for k in found] == [False, False, False, True, True]
    assert [k.runs(NEXT) for k in found] == [False, False, False, True, False]
    assert [k.runs(MENU) for k in found] == [False, False, False, False, True]


def test_problems_are_reported_together() -> None:
    bad = {
        **DEFAULTS,
        "@osf-notify-done": "maybe",
        "@osf-status-placement": "top",
        "@osf-notify-cooldown": "soon",
    }
    found = po.problems(bad)
    assert len(found) == 3
    assert po.problems(DEFAULTS) == []


def test_every_option_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    missing = [o.name for o in po.OPTIONS if f"`{o.name}`" not in readme]
    assert not missing, f"README lacks {missing}"


def test_status_right_length_raised_from_tmux_default_only_and_put_back() -> None:
    width = po.STATUS_WIDTH
    commands, warning = length_commands(40, 20)  # tmux's own status-right, a short title
    assert warning is None
    assert commands == [  # room for the longest title tmux's own shows (21 columns) too
        ["set-option", "-g", "status-right-length", str(40 + width)],
        ["set-option", "-g", "@osf_status_right_length", f"40 {40 + width}"],
    ]
    assert length_commands(40, 60)[0][0][3] == str(60 + width)  # a long status-right of yours
    assert length_commands(80, 39) == ([], None)  # room enough
    commands, warning = length_commands(50, 39)  # the user's own length: only said
    assert commands == [] and warning and f"set -g status-right-length {39 + width}" in warning
    raised = f"40 {40 + width}"
    assert unraise_commands(40 + width, raised) == [
        ["set-option", "-gu", "@osf_status_right_length"],
        ["set-option", "-gu", "status-right-length"],
    ]
    assert unraise_commands(100, raised) == [["set-option", "-gu", "@osf_status_right_length"]]
    assert unraise_commands(40, "") == []
