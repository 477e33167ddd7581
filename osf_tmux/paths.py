"""Where osf-tmux keeps its files, from an injected environment so tests control it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    explicit = env.get("OSF_TMUX_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "osf-tmux"


def user_rules_dir(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / "rules"
