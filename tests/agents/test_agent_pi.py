"""Pi's hooks: our extension file in Pi's extensions folder (install, uninstall, refusals),
`launch pi`, what the endpoint makes of the extension's payloads, and (slow, with the lab's Pi)
the extension loaded by the real Pi reporting a run's states on its pane."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import pi, report
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from osf_tmux.agents.pi import private_path, render

USER_EXTENSION = b"// my gate\nexport default function (pi) { pi.on('tool_call', () => {}); }\n"


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def extensions(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".pi" / "agent" / "extensions"


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative name -> bytes), and every folder (-> b"/")."""
    return {
        str(p.relative_to(folder)): b"/" if p.is_dir() else p.read_bytes()
        for p in sorted(folder.rglob("*"))
    }


def test_install_adds_our_file_and_leaves_the_users_alone(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = extensions(tmp_path)
    folder.mkdir(parents=True)
    (folder / "gate.ts").write_bytes(USER_EXTENSION)
    (folder / "tools").mkdir()
    (folder / "tools" / "index.ts").write_bytes(b"export default () => {};\n")
    before = listing(folder)

    apply(plan_install("pi", env))
    ours = folder / pi.EXTENSION_NAME
    assert ours.read_bytes() == render()
    assert ours.stat().st_mode & 0o777 == 0o600
    assert {k: v for k, v in listing(folder).items() if k != pi.EXTENSION_NAME} == before
    assert not any(p.name.endswith(agent_hooks.BACKUP_SUFFIX) for p in folder.iterdir())
    assert agent_hooks.installed_files("pi", env) == [ours]

    assert plan_install("pi", env).changes == []  # a second install changes nothing
    apply(plan_uninstall("pi", env))
    assert listing(folder) == before  # exactly as it was
    assert agent_hooks.installed_files("pi", env) == []
    assert plan_uninstall("pi", env).changes == []


def test_the_extension_carries_the_endpoint_and_the_events(tmp_path: Path) -> None:
    text = render().decode()
    assert text.startswith("// osf-tmux: ")
    argv = json.loads(text.split("const REPORT: string[] = ", 1)[1].split(";\n", 1)[0])
    assert argv == agent_hooks.notify_argv("pi")
    assert argv[-1] == "pi" and Path(argv[-2]).name == "report.py"
    events = json.loads(text.split("const EVENTS: string[] = ", 1)[1].split(";\n", 1)[0])
    assert events == list(pi.EVENTS)
    assert "__" not in text.replace("__main__", "")  # every slot filled
    assert agent_hooks.is_our_command(text)


def test_agent_dir_from_the_environment(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    assert pi.agent_dir({"HOME": home}) == f"{home}/.pi/agent"
    assert pi.agent_dir({"HOME": home, "PI_CODING_AGENT_DIR": "~/pi-config"}) == (
        f"{home}/pi-config"
    )
    custom = tmp_path / "elsewhere"
    env = env_for(tmp_path, PI_CODING_AGENT_DIR=str(custom))
    apply(plan_install("pi", env))
    assert (custom / "extensions" / pi.EXTENSION_NAME).read_bytes() == render()
    assert not (tmp_path / "home").exists()


def test_a_file_of_the_users_by_our_name_is_never_touched(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = extensions(tmp_path)
    folder.mkdir(parents=True)
    theirs = folder / pi.EXTENSION_NAME
    theirs.write_bytes(USER_EXTENSION)
    with pytest.raises(HooksError, match="not osf-tmux's extension; nothing was changed"):
        plan_install("pi", env)
    assert plan_uninstall("pi", env).changes == []
    assert theirs.read_bytes() == USER_EXTENSION
    assert agent_hooks.installed_files("pi", env) == []


def test_refuses_when_the_extensions_folder_is_a_file(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = extensions(tmp_path)
    folder.parent.mkdir(parents=True)
    folder.write_bytes(b"oops")
    with pytest.raises(HooksError, match="is not a folder"):
        plan_install("pi", env)
    assert folder.read_bytes() == b"oops"


def test_an_older_extension_of_ours_is_replaced_without_a_backup(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    folder = extensions(tmp_path)
    folder.mkdir(parents=True)
    ours = folder / pi.EXTENSION_NAME
    older = render().replace(b"/report.py", b"/old-venv/report.py")
    ours.write_bytes(older)
    plan = plan_install("pi", env)
    assert [(c.before, c.after) for c in plan.changes] == [(older, render())]
    apply(plan)
    assert ours.read_bytes() == render()
    assert not agent_hooks.backup_path(ours).exists()
    apply(plan_uninstall("pi", env))
    assert listing(folder) == {}


def test_launch_passes_a_private_copy_for_one_run(tmp_path: Path) -> None:
    env = env_for(tmp_path, XDG_STATE_HOME=str(tmp_path / "state"))
    argv, notes = agent_hooks.launch_argv("pi", "/usr/bin/pi", ["-c", "--model", "x"], env)
    path = private_path(env)
    assert argv == ["/usr/bin/pi", "-e", str(path), "-c", "--model", "x"] and notes == []
    assert path.read_bytes() == render()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert not (tmp_path / "home").exists()  # nothing of Pi's was touched
    # installed already: Pi loads it itself, no second copy
    apply(plan_install("pi", env))
    argv, notes = agent_hooks.launch_argv("pi", "/usr/bin/pi", [], env)
    assert argv == ["/usr/bin/pi"] and "installed" in notes[0]


@pytest.mark.parametrize(
    ("payload", "state"),
    [
        ({"hook_event_name": "agent_start"}, "working"),
        ({"hook_event_name": "turn_start"}, "working"),
        ({"hook_event_name": "tool_execution_start"}, "working"),
        ({"hook_event_name": "agent_end", "notification_type": "stop"}, "done"),
        ({"hook_event_name": "agent_end", "notification_type": "error"}, "done"),
        ({"hook_event_name": "agent_end", "notification_type": "aborted"}, "idle"),
        ({"hook_event_name": "agent_end"}, None),
        ({"hook_event_name": "tool_call"}, None),
        ({"hook_event_name": "session_start"}, None),
    ],
)
def test_what_each_event_reports(payload: dict[str, str], state: str | None) -> None:
    assert report.state_for("pi", payload) == state


def test_a_file_install_writes_no_backup_and_cli_says_so(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from osf_tmux.cli.app import cli

    env = {**os.environ, **env_for(tmp_path)}
    result = CliRunner().invoke(cli, ["hooks", "install", "--agent", "pi"], env=env)
    assert result.exit_code == 0, result.output
    assert "write" in result.output and "kept the original" not in result.output
    assert "restart" in result.output
    result = CliRunner().invoke(cli, ["hooks", "uninstall", "--agent", "pi"], env=env)
    assert result.exit_code == 0 and "remove" in result.output


# --- the real Pi ------------------------------------------------------------------------------


def lab_pi() -> Path | None:
    from tools.agentlab.base import lab_home

    binary = lab_home() / "npm-pi" / "node_modules" / ".bin" / "pi"
    return binary if binary.exists() and shutil.which("node") else None


@pytest.mark.slow
@pytest.mark.tmux
@pytest.mark.skipif(lab_pi() is None, reason="Pi is not installed (tools/agentlab/install.sh pi)")
def test_the_real_pi_reports_through_our_extension(tmp_path: Path) -> None:
    """Pi 0.73.1 with the installed extension, against the lab's fake server: a prompt reports
    working then done; a long answer interrupted with Escape reports idle."""
    from tests.support.tmux_server import TmuxServer, retry_until
    from tools.agentlab import stories as st
    from tools.agentlab.fakeserver import FakeModelServer
    from tools.agentlab.script import Script

    binary = lab_pi()
    assert binary is not None
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    proj.mkdir()
    server = FakeModelServer(Script(st.ALL_TURNS), proj).start()
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": server.url + "/v1",
                        "api": "openai-completions",
                        "apiKey": "sk-fake",
                        "compat": {"supportsDeveloperRole": False},
                        "models": [{"id": "fake-model", "name": "Fake", "reasoning": False}],
                    }
                }
            }
        )
    )
    (agent / "settings.json").write_text(
        json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"})
    )
    env = {"HOME": str(home)}
    apply(plan_install("pi", env))
    tmux = TmuxServer(f"osf-pi-hooks-{os.getpid()}")
    try:
        tmux.start()
        command = (
            f"cd {proj} && exec env HOME={home} PI_OFFLINE=1 PI_TELEMETRY=0 "
            f"PATH={os.environ['PATH']} {binary}"
        )
        pane = tmux.cmd("new-window", "-P", "-F", "#{pane_id}", command).strip()

        def reported() -> str:
            return tmux.cmd("show-options", "-p", "-t", pane, "-qv", "@osf_report").strip()

        retry_until(lambda: "osf-tmux.ts" in tmux.cmd("capture-pane", "-p", "-t", pane),
                    what="Pi to start with our extension", timeout=60)  # fmt: skip
        tmux.cmd("send-keys", "-t", pane, "-l", st.P_TEXT)
        retry_until(lambda: st.P_TEXT in tmux.cmd("capture-pane", "-p", "-t", pane),
                    what="the prompt typed in the input box", timeout=10)  # fmt: skip
        tmux.cmd("send-keys", "-t", pane, "Enter")
        retry_until(lambda: reported().startswith("working "), what="working", timeout=30)
        retry_until(lambda: reported().startswith("done "), what="done", timeout=60)
        assert reported().endswith(" pi")

        tmux.cmd("send-keys", "-t", pane, "-l", st.P_ESSAY)
        retry_until(lambda: st.P_ESSAY in tmux.cmd("capture-pane", "-p", "-t", pane),
                    what="the prompt typed in the input box", timeout=10)  # fmt: skip
        tmux.cmd("send-keys", "-t", pane, "Enter")
        retry_until(lambda: reported().startswith("working "), what="working again", timeout=30)
        retry_until(lambda: "Terminals began" in tmux.cmd("capture-pane", "-p", "-t", pane),
                    what="the answer to stream", timeout=30)  # fmt: skip
        tmux.cmd("send-keys", "-t", pane, "Escape")
        retry_until(lambda: reported().startswith("idle "), what="idle after Escape", timeout=30)
    finally:
        tmux.kill()
        server.stop()
