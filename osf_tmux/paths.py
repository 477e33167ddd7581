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


def shipped_rules_dir() -> Path:
    """Where the manifests that come with osf-tmux live: inside the installed package (the
    wheel puts rules/ there), else at the root of the checkout."""
    here = Path(__file__).resolve().parent  # the osf_tmux package
    installed = here / "rules"
    return installed if installed.is_dir() else here.parent / "rules"


def state_dir(server_key: str, env: Mapping[str, str] | None = None) -> Path:
    """Lock, status file and log of the daemon for one tmux server."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or str(
        Path(env.get("HOME", "~")).expanduser() / ".local" / "state"
    )
    return Path(base) / "osf-tmux" / server_key


def runtime_dir(server_key: str, env: Mapping[str, str] | None = None) -> Path:
    """The daemon's FIFOs: private to the user, gone with the machine."""
    env = os.environ if env is None else env
    base = env.get("XDG_RUNTIME_DIR")
    root = Path(base) / "osf-tmux" if base else Path("/tmp") / f"osf-tmux-{os.getuid()}"
    return root / server_key
