"""OpenCode's and Kilo's reports: our plugin file installed into (and taken out of) their plugin
folders, the launch that loads it for one run, the plugin itself run by node against a
recording endpoint and against the real endpoint on a private tmux server, and the states its
payloads stand for."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from osf_tmux.agents import hooks as agent_hooks
from osf_tmux.agents import report
from osf_tmux.agents.hooks import HooksError, apply, plan_install, plan_uninstall
from osf_tmux.agents.integration import agent_module
from osf_tmux.agents.opencode import FILE_NAME
from osf_tmux.agents.opencode import plugin_source as source_of
from osf_tmux.cli.app import cli
from tests.support.tmux_server import TmuxServer, retry_until

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# A person's own OpenCode setup: a config file and a plugin of theirs.
USER_CONFIG = '{\n  "model": "anthropic/claude",\n  "plugin": ["opencode-wakatime"]\n}\n'
USER_PLUGIN = "export const Mine = async () => ({ event: async () => {} })\n"


def plugin_source(agent: str, report: list[str] | None = None) -> bytes:
    return source_of(agent_module(agent), report)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def seed(tmp_path: Path, app: str = "opencode") -> Path:
    conf = tmp_path / "home" / ".config" / app
    (conf / "plugins").mkdir(parents=True)
    (conf / f"{app}.json").write_text(USER_CONFIG)
    (conf / "plugins" / "mine.js").write_text(USER_PLUGIN)
    return conf


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_install_adds_one_file_and_uninstall_takes_exactly_it(agent: str, tmp_path: Path) -> None:
    conf = seed(tmp_path, agent)
    before = tree(tmp_path / "home")
    env = env_for(tmp_path)

    apply(plan_install(agent, env))
    after = tree(tmp_path / "home")
    added = {k: v for k, v in after.items() if k not in before}
    assert list(added) == [f".config/{agent}/plugins/{FILE_NAME}"]
    assert {k: after[k] for k in before} == before  # nothing of the person's touched
    assert added[f".config/{agent}/plugins/{FILE_NAME}"] == plugin_source(agent)
    assert agent_hooks.installed_files(agent, env) == [conf / "plugins" / FILE_NAME]
    assert not list(conf.rglob("*.bak"))  # no backup: no file of theirs was changed

    assert plan_install(agent, env).changes == []  # a second install changes nothing

    apply(plan_uninstall(agent, env))
    assert tree(tmp_path / "home") == before
    assert agent_hooks.installed_files(agent, env) == []
    assert plan_uninstall(agent, env).changes == []


def test_the_plugin_follows_xdg_config_home(tmp_path: Path) -> None:
    env = env_for(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    apply(plan_install("opencode", env))
    assert (tmp_path / "xdg" / "opencode" / "plugins" / FILE_NAME).is_file()
    assert not (tmp_path / "home").exists()


def test_a_file_of_that_name_that_is_not_ours_is_refused_and_left(tmp_path: Path) -> None:
    conf = seed(tmp_path)
    theirs = conf / "plugins" / FILE_NAME
    theirs.write_text("// my own osf-tmux experiments\n")
    before = tree(tmp_path / "home")
    with pytest.raises(HooksError, match="not osf-tmux's plugin; nothing was changed"):
        plan_install("opencode", env_for(tmp_path))
    apply(plan_uninstall("opencode", env_for(tmp_path)))
    assert tree(tmp_path / "home") == before


def test_an_unreadable_plugin_path_is_refused(tmp_path: Path) -> None:
    conf = seed(tmp_path)
    (conf / "plugins" / FILE_NAME).mkdir()
    with pytest.raises(HooksError, match="cannot read"):
        plan_install("opencode", env_for(tmp_path))


def test_an_older_plugin_of_ours_is_replaced_without_a_backup(tmp_path: Path) -> None:
    conf = seed(tmp_path)
    env = env_for(tmp_path)
    old = plugin_source("opencode", ["/old/venv/bin/python", "-I", "-S",
                                     "/old/osf_tmux/agents/report.py", "opencode"])  # fmt: skip
    (conf / "plugins" / FILE_NAME).write_bytes(old)
    assert agent_hooks.installed_files("opencode", env)  # recognised as ours
    plan = plan_install("opencode", env)
    assert [c.after for c in plan.changes] == [plugin_source("opencode")]
    apply(plan)
    assert not list(conf.rglob("*.osf-tmux.bak"))
    apply(plan_uninstall("opencode", env))
    assert not (conf / "plugins" / FILE_NAME).exists()
    assert (conf / "plugins" / "mine.js").read_text() == USER_PLUGIN


def test_the_cli_installs_and_uninstalls(tmp_path: Path) -> None:
    seed(tmp_path)
    # In process (click's runner): the same command, without starting an interpreter.
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": None}
    done = CliRunner().invoke(cli, ["hooks", "install", "--agent", "opencode"], env=env)
    assert done.exit_code == 0, done.output
    assert f"write {tmp_path}/home/.config/opencode/plugins/{FILE_NAME}" in done.stdout
    assert "kept the original" not in done.stdout
    assert "restarted" in done.stdout  # the note: running sessions load plugins at start only
    gone = CliRunner().invoke(cli, ["hooks", "uninstall", "--agent", "opencode"], env=env)
    assert gone.exit_code == 0 and "remove" in gone.stdout


# ---- launch: the plugin for one run, through the agent's inline config variable ----------------


def launched(agent: str, tmp_path: Path, **extra: str) -> tuple[list[str], dict[str, Any]]:
    env = env_for(tmp_path, XDG_STATE_HOME=str(tmp_path / "state"), **extra)
    argv, notes = agent_hooks.launch_argv(agent, "/usr/bin/" + agent, ["--continue"], env)
    assert notes == []
    assert argv[0] == "env" and argv[2:] == ["/usr/bin/" + agent, "--continue"]
    name, _, value = argv[1].partition("=")
    return [name], json.loads(value)


@pytest.mark.parametrize(("agent", "variable"), [("opencode", "OPENCODE_CONFIG_CONTENT"),
                                                 ("kilo", "KILO_CONFIG_CONTENT")])  # fmt: skip
def test_launch_names_a_private_copy_of_the_plugin(
    agent: str, variable: str, tmp_path: Path
) -> None:
    names, content = launched(agent, tmp_path)
    assert names == [variable]
    plugin = tmp_path / "state" / "osf-tmux" / "plugins" / agent / FILE_NAME
    assert content == {"plugin": [plugin.as_uri()]}
    assert plugin.read_bytes() == plugin_source(agent)
    assert plugin.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "home").exists()  # no file of the person's


def test_launch_keeps_the_persons_own_inline_config(tmp_path: Path) -> None:
    own = json.dumps({"model": "x/y", "plugin": ["their-plugin"]})
    _, content = launched("opencode", tmp_path, OPENCODE_CONFIG_CONTENT=own)
    assert content["model"] == "x/y"
    assert content["plugin"][0] == "their-plugin" and len(content["plugin"]) == 2


def test_launch_refuses_an_inline_config_that_is_not_json(tmp_path: Path) -> None:
    with pytest.raises(HooksError, match="OPENCODE_CONFIG_CONTENT is not valid JSON"):
        launched("opencode", tmp_path, OPENCODE_CONFIG_CONTENT="{model: x")


# ---- the plugin's payloads and the states they stand for ---------------------------------------


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_payload_states(agent: str) -> None:
    def state(event: str, status: str | None = None) -> str | None:
        return report.state_for(agent, {"hook_event_name": event, "notification_type": status})

    assert state("chat.message") == "working"
    assert state("session.status", "busy") == "working"
    assert state("session.status", "retry") == "working"
    assert state("session.status", "idle") is None  # session.idle follows and says done
    assert state("tool.execute.before") == state("tool.execute.after") == "working"
    assert state("permission.asked") == state("question.asked") == "blocked"
    assert state("permission.replied") == state("question.replied") == "working"
    assert state("session.idle") == "done"
    assert state("session.updated") is None and state("message.updated") is None


# ---- the plugin itself, run by node as OpenCode runs it ----------------------------------------

# One session (ses_main) with a sub-agent (ses_sub): a prompt, a command that asks permission,
# the sub-agent's own turn and idle (not the end of the turn on screen), the end.
EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("event", {"type": "session.created", "properties": {"info": {"id": "ses_main"}}}),
    ("chat.message", {"sessionID": "ses_main"}),
    ("event", {"type": "session.status",
               "properties": {"sessionID": "ses_main", "status": {"type": "busy"}}}),
    ("tool.execute.before", {"tool": "bash", "sessionID": "ses_main"}),
    ("event", {"type": "permission.asked", "properties": {"sessionID": "ses_main"}}),
    ("event", {"type": "permission.replied",
               "properties": {"sessionID": "ses_main", "reply": "once"}}),
    ("tool.execute.after", {"tool": "bash", "sessionID": "ses_main"}),
    ("event", {"type": "session.created",
               "properties": {"info": {"id": "ses_sub", "parentID": "ses_main"}}}),
    ("chat.message", {"sessionID": "ses_sub"}),
    ("event", {"type": "session.status",
               "properties": {"sessionID": "ses_sub", "status": {"type": "busy"}}}),
    ("event", {"type": "question.asked", "properties": {"sessionID": "ses_sub"}}),
    ("event", {"type": "question.replied", "properties": {"sessionID": "ses_sub"}}),
    ("event", {"type": "session.idle", "properties": {"sessionID": "ses_sub"}}),
    ("event", {"type": "message.updated", "properties": {"sessionID": "ses_main"}}),
    ("event", {"type": "session.status",
               "properties": {"sessionID": "ses_main", "status": {"type": "idle"}}}),
    ("event", {"type": "session.idle", "properties": {"sessionID": "ses_main"}}),
]  # fmt: skip

HARNESS = """
const plugin = await import(process.argv[1]);
const hooks = await plugin.OsfTmux({});
for (const [hook, arg] of JSON.parse(process.argv[2])) {
  if (hook === "event") await hooks.event?.({ event: arg });
  else await hooks[hook]?.(arg, {});
}
"""

RECORDER = """
import json, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"argv": sys.argv[2:], "payload": json.loads(sys.stdin.read())}) + "\\n")
"""


def run_plugin(
    source: bytes, tmp_path: Path, env: dict[str, str], events: list[tuple[str, Any]]
) -> None:
    plugin = tmp_path / "plugin.mjs"
    plugin.write_bytes(source)
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--input-type=module", "-e", HARNESS, str(plugin), json.dumps(events)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def recorded(tmp_path: Path, agent: str, tmux: dict[str, str]) -> list[dict[str, Any]]:
    (tmp_path / "rec.py").write_text(RECORDER)
    log = tmp_path / "reports.jsonl"
    source = plugin_source(agent, [sys.executable, str(tmp_path / "rec.py"), str(log), agent])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **tmux}
    run_plugin(source, tmp_path, env, EVENTS)
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@needs_node
def test_the_plugin_tells_each_change_once_in_order(tmp_path: Path) -> None:
    calls = recorded(tmp_path, "opencode", {"TMUX": "/tmp/sock,1,0", "TMUX_PANE": "%3"})
    assert {tuple(c["argv"]) for c in calls} == {("opencode",)}
    said = [(c["payload"]["hook_event_name"], report.state_for("opencode", c["payload"]))
            for c in calls]  # fmt: skip
    # repeats of a state are not told again; the sub-agent's question is the person's to
    # answer, its status and idle are not the turn on screen.
    assert said == [
        ("chat.message", "working"),
        ("permission.asked", "blocked"),
        ("permission.replied", "working"),
        ("question.asked", "blocked"),
        ("question.replied", "working"),
        ("session.idle", "done"),
    ]


@needs_node
def test_the_plugin_is_silent_outside_tmux(tmp_path: Path) -> None:
    assert recorded(tmp_path, "opencode", {}) == []


@needs_node
@pytest.mark.tmux
def test_the_plugin_marks_its_pane_through_the_real_endpoint(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    pane = tmux_server.cmd("new-window", "-P", "-F", "#{pane_id}", "sleep 60").strip()
    socket = tmux_server.cmd("display-message", "-p", "#{socket_path}").strip()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "TMUX": f"{socket},{tmux_server.pid},0", "TMUX_PANE": pane}  # fmt: skip
    asked = [e for e in EVENTS if e[1].get("type") == "permission.asked"]
    run_plugin(plugin_source("kilo"), tmp_path, env, asked)

    def value() -> str | None:
        out = tmux_server.cmd("show-options", "-p", "-t", pane, "-qv", "@osf_report").strip()
        return out or None

    state, _, agent = retry_until(value, what="@osf_report on the pane").split()
    assert (state, agent) == ("blocked", "kilo")


def test_the_cli_launch_runs_the_agent_with_the_plugin_named(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    seen = tmp_path / "seen.json"
    fake = bin_dir / "opencode"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'content': os.environ.get('OPENCODE_CONFIG_CONTENT')}}"
        f", open({str(seen)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "st"),
           "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}  # fmt: skip
    env.pop("OPENCODE_CONFIG_CONTENT", None)
    done = subprocess.run([sys.executable, "-m", "osf_tmux", "launch", "opencode", "-c", "x"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads(seen.read_text())
    plugin = tmp_path / "st" / "osf-tmux" / "plugins" / "opencode" / FILE_NAME
    assert got == {"argv": ["-c", "x"], "content": json.dumps({"plugin": [plugin.as_uri()]},
                                                                separators=(",", ":"))}  # fmt: skip


# ---- answering Kilo's two-stage rejection on a real screen -------------------------------------

KILO = Path(__file__).resolve().parents[2] / "captures" / "kilo-7.7.7-lab"


@pytest.mark.tmux
def test_answer_follows_kilos_prompt_then_its_reject_message(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    # bash_esc: the permission prompt, Esc, the reject message, Enter. The screen is drawn into a
    # pane that records the keys osf-tmux types (no Kilo runs).
    from tests.agents.test_safe_input import RecordingPane, osf

    labels = json.loads((KILO / "bash_esc-120x32.labels.json").read_text())
    data = (KILO / "bash_esc-120x32.bytes").read_bytes()
    esc, enter = [e["offset"] for e in labels["driver_events"] if e["event"] == "keys"][1:3]
    pane = RecordingPane(tmux_server, tmp_path, agent="kilo")
    try:
        pane.write(data[:esc])
        pane.ready("Allow always")
        assert osf(tmux_server, "answer", pane.pane, "no").returncode == 0
        assert pane.keys() == b"\x1b"  # Esc: on to Kilo's reject message
        pane.write(data[esc:enter])
        pane.ready("Reject permission")
        assert osf(tmux_server, "answer", pane.pane, "no").returncode == 0
        assert pane.keys() == b"\r"  # Enter: the rejection confirmed
        assert osf(tmux_server, "answer", pane.pane, "yes").returncode == 0
        assert pane.keys() == b"\x1b"  # Esc: back to the prompt, never an approval from here
    finally:
        pane.close()


# ---- the plugin in the real agents (opt-in, like the live-agents lane) -------------------------


def live_selected(agent: str) -> bool:
    value = os.environ.get("OSF_LIVE_AGENTS", "").strip().lower()
    return value in ("1", "yes", "true", "all") or agent in value.split(",")


@pytest.mark.live_agents
@pytest.mark.slow
@pytest.mark.tmux
@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_the_real_agent_reports_through_the_installed_plugin(
    agent: str, tmux_server: TmuxServer, tmp_path: Path
) -> None:
    """`osf-tmux hooks install`, then the real agent in a pane against the lab's fake model:
    @osf_report follows prompt (working), permission prompt (blocked), approval (working) and
    the end of the turn (done)."""
    import time

    from tools.agentlab import stories as st
    from tools.agentlab.agents import AGENTS
    from tools.agentlab.base import RunDirs
    from tools.agentlab.fakeserver import FakeModelServer

    if not live_selected(agent):
        pytest.skip(f"opt-in: OSF_LIVE_AGENTS={agent} (or 1)")
    spec = AGENTS[agent]
    if not spec.installed():
        pytest.skip(f"{agent} is not installed: tools/agentlab/install.sh {agent}")
    scenario = spec.scenarios()["bash_yes"]
    dirs = RunDirs(tmp_path, tmp_path / "home", tmp_path / "proj")
    dirs.home.mkdir()
    dirs.proj.mkdir()
    server = FakeModelServer(scenario.script, dirs.proj, tmp_path / "requests.jsonl", spec.dialect)
    server.start()
    try:
        argv, env = spec.prepare(dirs, server.url, scenario)
        apply(plan_install(agent, env))
        # Not `env -i`: the pane's own TMUX and TMUX_PANE must reach the agent, as for a person.
        assignments = [f"{k}={v}" for k, v in env.items()]
        line = f"cd {shlex.quote(str(dirs.proj))} && exec env {shlex.join(assignments + argv)}"
        pane = tmux_server.new_pane(["sh", "-c", line], 120, 32)

        def screen() -> str:
            return tmux_server.cmd("capture-pane", "-p", "-t", pane)

        seen: list[str] = []

        def watch(until: str | None, timeout: float) -> None:
            """Poll @osf_report until `until` is on screen (None: for `timeout` seconds)."""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                out = tmux_server.cmd("show-options", "-p", "-t", pane, "-qv", "@osf_report")
                state = out.split()[0] if out.strip() else ""
                if state and (not seen or seen[-1] != state):
                    seen.append(state)
                if until is not None and until in screen():
                    return
                time.sleep(0.1)
            if until is not None:
                raise AssertionError(f"no {until!r} on screen; reports {seen}\n{screen()}")

        watch("ctrl+p commands", 180)
        tmux_server.cmd("send-keys", "-t", pane, "-l", st.P_BASH)
        watch(st.P_BASH, 10)  # typed into the input box before Enter goes
        tmux_server.cmd("send-keys", "-t", pane, "Enter")
        watch("Allow once", 120)
        watch(None, 1.5)  # the report may trail the drawing a little
        tmux_server.cmd("send-keys", "-t", pane, "Enter")
        watch("build directory is gone", 90)
        watch(None, 5.0)
        assert seen == ["working", "blocked", "working", "done"], seen
        report_agent = tmux_server.cmd("show-options", "-p", "-t", pane, "-qv", "@osf_report")
        assert report_agent.split()[2] == agent
    finally:
        server.stop()
