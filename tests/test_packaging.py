"""The package as it would be published: sdist and wheel built (`python -m build`, which fetches
hatchling from the package index) and checked (`twine check`); the wheel installed into a
fresh venv, away from the checkout, loads the plugin into a private tmux server and passes
`osf-tmux doctor`, with the rules it ships."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.support.tmux_server import TmuxServer

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(
        importlib.util.find_spec("build") is None or importlib.util.find_spec("twine") is None,
        reason="build and twine are not installed (pip install -e '.[test]')",
    ),
]


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{argv}: {out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return out.stdout


def test_the_wheel_installs_into_a_fresh_venv_and_passes_doctor(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], tmp_path)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    checked = run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)],
                  tmp_path)  # fmt: skip
    assert checked.count("PASSED") == 2

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])], tmp_path)
    osf = env_dir / "bin" / "osf-tmux"
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE", "PYTHONPATH")}
    env.update(XDG_STATE_HOME=str(home / "state"), XDG_RUNTIME_DIR=str(home / "run"),
               XDG_CONFIG_HOME=str(home / "config"))  # fmt: skip
    elsewhere = tmp_path  # not the checkout: nothing may come from it
    listed = run([str(osf), "rules", "list"], elsewhere, env)
    rules = env_dir / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert f"shipped: {rules}/site-packages/osf_tmux/rules/claude.toml" in listed
    assert {"aider", "claude", "codex", "gemini"} <= {x.split("\t")[0] for x in listed.splitlines()}

    server = TmuxServer()
    server.start()
    try:
        for name in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"):
            server.cmd("set-environment", "-g", name, env[name])
        run([str(osf), "-L", server.socket_name, "plugin", "load"], elsewhere, env)
        doctor = subprocess.run([str(osf), "-L", server.socket_name, "doctor", "--json"],
                                cwd=elsewhere, env=env, capture_output=True, text=True,
                                timeout=120)  # fmt: skip
        checks = json.loads(doctor.stdout)
        assert doctor.returncode == 0, [c for c in checks if c["level"] != "ok"]
        assert {"tmux", "daemon", "plugin", "plugin log", "rules"} <= {c["name"] for c in checks}
        keys = server.cmd("list-keys", "-T", "prefix")
        assert str(osf) in keys  # the keys run the installed program
    finally:
        subprocess.run([str(osf), "-L", server.socket_name, "stop"], cwd=elsewhere, env=env,
                       capture_output=True, timeout=60)  # fmt: skip
        server.kill()
