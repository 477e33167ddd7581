"""The plugin's options, status placement and key binding, without tmux (pure functions)."""

from __future__ import annotations

from pathlib import Path

from osf_tmux.plugin import options as po
from osf_tmux.plugin.load import (
    STATUS_FRAGMENT,
    WINDOW_FRAGMENT,
    Binding,
    key_commands,
    next_binding,
    placement_commands,
    prefix_bindings,
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


def test_key_bound_when_free_and_left_alone_when_taken() -> None:
    commands, warning = key_commands("A", False, [], "/bin/osf-tmux", LOG)
    assert warning is None
    assert commands[-1][:6] == ["bind-key", "-T", "prefix", "A", "run-shell", "-b"]
    theirs = [Binding("A", "select-pane -t :.+")]
    commands, warning = key_commands("A", False, theirs, "/bin/osf-tmux", LOG)
    assert commands == [] and warning and "@osf-key-override" in warning
    commands, warning = key_commands("A", True, theirs, "/bin/osf-tmux", LOG)
    assert warning is None and commands[-1][3] == "A"


def test_key_moved_or_switched_off() -> None:
    ours = [Binding("A", next_binding("/bin/osf-tmux", LOG))]
    commands, _ = key_commands("N", False, ours, "/bin/osf-tmux", LOG)
    assert commands[0] == ["unbind-key", "-T", "prefix", "A"]
    assert commands[-1][3] == "N"
    commands, _ = key_commands("none", False, ours, "/bin/osf-tmux", LOG)
    assert commands == [["unbind-key", "-T", "prefix", "A"]]


def test_binding_escapes_formats_but_names_the_client() -> None:
    command = next_binding("/opt/a#b/osf-tmux", Path("/log"))
    assert "'/opt/a##b/osf-tmux' next --client #{q:client_name}" in command
    assert command.endswith("##osf-tmux:next")  # a shell comment once tmux expands it


def test_list_keys_parsing() -> None:
    listing = "\n".join(
        [
            "bind-key    -T prefix       \\;                    last-pane",
            "bind-key    -T prefix       '\"'                   split-window",
            "bind-key -r -T prefix       Up                    select-pane -U",
            'bind-key    -T prefix       A                     run-shell -b "x ##osf-tmux:next"',
        ]
    )
    keys = prefix_bindings(listing)
    assert [k.key for k in keys] == [";", '"', "Up", "A"]
    assert [k.ours for k in keys] == [False, False, False, True]


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
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    missing = [o.name for o in po.OPTIONS if f"`{o.name}`" not in readme]
    assert not missing, f"README lacks {missing}"
