"""@osf-hosts and @osf-remote-command: what is accepted, what is reported, and how a target
names its host."""

from __future__ import annotations

import pytest

from osf_tmux.fleet.hosts import (
    Host,
    HostError,
    parse_host,
    parse_hosts,
    remote_command,
    split_target,
)


@pytest.mark.parametrize(
    ("text", "destination", "port"),
    [
        ("devbox", "devbox", None),
        ("me@gpu.example.com", "me@gpu.example.com", None),
        ("box:2222", "box", 2222),
        ("me@10.0.0.7:22", "me@10.0.0.7", 22),
        ("[::1]:2200", "::1", 2200),
        ("user.name@my_host-1", "user.name@my_host-1", None),
    ],
)
def test_a_host_keeps_its_name_and_gives_ssh_its_parts(
    text: str, destination: str, port: int | None
) -> None:
    host = parse_host(text)
    assert host == Host(name=text, destination=destination, port=port)


@pytest.mark.parametrize(
    "text",
    [
        "-oProxyCommand=touch /tmp/x",  # ssh would read it as an option
        "-p",
        "box;rm -rf ~",
        "$(id)",
        "a b",
        "box:0",
        "box:70000",
        "box:",
        "me@",
        "@box",
        "'quoted'",
        "::1",
        "[::1]",
        "x" * 300,
    ],
)
def test_an_entry_that_is_no_host_is_refused(text: str) -> None:
    with pytest.raises(HostError):
        parse_host(text)


def test_the_option_is_split_on_spaces_and_commas_and_problems_are_reported() -> None:
    hosts, problems = parse_hosts(" devbox,gpu:2222  -oProxyCommand=x devbox me@lab ")
    assert [h.name for h in hosts] == ["devbox", "gpu:2222", "me@lab"]
    assert len(problems) == 2
    assert "-oProxyCommand=x" in problems[0] and "not a host" in problems[0]
    assert "listed twice" in problems[1]
    assert parse_hosts("") == ([], [])


def test_the_remote_command_is_an_argv_never_a_shell_line() -> None:
    assert remote_command("") == ["osf-tmux"]
    assert remote_command("  ") == ["osf-tmux"]
    assert remote_command("osf-tmux -L work") == ["osf-tmux", "-L", "work"]
    assert remote_command("'/opt/my tools/osf-tmux' -S /tmp/s") == [
        "/opt/my tools/osf-tmux",
        "-S",
        "/tmp/s",
    ]
    assert remote_command("osf-tmux; rm -rf ~") == ["osf-tmux;", "rm", "-rf", "~"]
    with pytest.raises(HostError, match="No closing quotation"):
        remote_command("osf-tmux 'open")
    with pytest.raises(HostError, match="program first"):
        remote_command("-L work")


def test_a_target_names_its_host_by_the_longest_configured_name() -> None:
    hosts, _ = parse_hosts("devbox box box:2222 me@lab")
    by = {h.name: h for h in hosts}
    assert split_target("devbox:work:1.0", hosts) == (by["devbox"], "work:1.0")
    assert split_target("box:2222:w:0.1", hosts) == (by["box:2222"], "w:0.1")
    assert split_target("box:main", hosts) == (by["box"], "main")
    assert split_target("me@lab:%3", hosts) == (by["me@lab"], "%3")
    assert split_target("devbox:", hosts) == (by["devbox"], "")
    # Not a configured host: a local target, as it was.
    assert split_target("work:1.0", hosts) == (None, "work:1.0")
    assert split_target("devbox2:work", hosts) == (None, "devbox2:work")
    assert split_target("%3", hosts) == (None, "%3")
    assert split_target("devbox:1", []) == (None, "devbox:1")
