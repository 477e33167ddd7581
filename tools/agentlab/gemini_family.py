"""Gemini CLI and its fork Qwen Code: one program family, one screen. What the two share beyond
the standard scenarios is here once: their `Ui` but for the pause before Enter, the dresses of
their `ui` settings, and the pieces of their settings file (`~/.gemini/settings.json`,
`~/.qwen/settings.json`)."""

from __future__ import annotations

from collections.abc import Mapping

from tools.agentlab.actions import Cue
from tools.agentlab.base import Options
from tools.agentlab.dress import Dress, by_name
from tools.agentlab.shapes import Ui


def ui_dresses(light_theme: str) -> dict[str, Dress]:
    """The dresses of the family's settings: a light theme, the screen-reader mode, the loading
    phrases off."""
    return by_name(
        Dress("light", f"ui.theme {light_theme}", options={"theme": light_theme}),
        Dress(
            "screenreader",
            "ui.accessibility.screenReader: plain-text output",
            options={"screen_reader": True},
        ),
        Dress(
            "nophrases",
            "ui.accessibility.enableLoadingPhrases off (no witty phrases on the spinner row)",
            options={"loading_phrases": False},
        ),
    )


def ui_settings(options: Mapping[str, object]) -> dict[str, object]:
    """The `ui` settings those dresses' options ask for (empty: none)."""
    ui: dict[str, object] = {}
    if options.get("theme"):
        ui["theme"] = options["theme"]
    accessibility: dict[str, object] = {}
    if options.get("screen_reader"):
        accessibility["screenReader"] = True
    if options.get("loading_phrases") is False:
        accessibility["enableLoadingPhrases"] = False
    if accessibility:
        ui["accessibility"] = accessibility
    return ui


def family_ui(idle: Cue, working: Cue, submit_pause: float) -> Ui:
    """The family's screen: an Enter right after typed text can be taken as part of a paste
    (`submit_pause`, its own per agent), answer text streams without the spinner line at times
    (the end of a turn waits for the fake server to be quiet), dialogs are held shorter than
    Claude Code's."""
    return Ui(
        idle=idle,
        working=working,
        submit_pause=submit_pause,
        done_settle=1.0,
        done_quiet=True,
        dialog_settle=1.2,
        stream_settle=1.0,
    )


def trusted(options: Options) -> bool:
    """Whether the project folder is trusted in advance (not in the trust dialog's scenario)."""
    return bool(options.get("seed_trust", True))


def security(auth: str, options: Options) -> dict[str, object]:
    """The settings' `security`: the endpoint's kind of auth; folder trust on only for the
    trust dialog's scenario."""
    return {
        "security": {
            "auth": {"selectedType": auth},
            "folderTrust": {"enabled": not trusted(options)},
        }
    }


# No usage statistics, no telemetry: nothing leaves the machine.
NO_REPORTS: dict[str, object] = {
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def ui_block(options: Options) -> dict[str, object]:
    """The settings' `ui`, when the scenario's dress asks for any."""
    ui = ui_settings(options)
    return {"ui": ui} if ui else {}
