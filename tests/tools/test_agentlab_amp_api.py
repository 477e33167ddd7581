"""The lab's fake of Amp's thread actor (tools/agentlab/amp_api.py) over a real socket pair: what
the CLI sends (JSON-RPC in masked WebSocket frames) and what the fake answers."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.agentlab import amp_api
from tools.agentlab import stories as st
from tools.agentlab.dialect import Dialect
from tools.agentlab.script import Script
from tools.agentlab.websocket import WebSocket

# The fake streams its answers at the pace the lab records them: the live tier.
pytestmark = pytest.mark.live

SHELL = {
    "name": "shell_command",
    "inputSchema": {"type": "object", "properties": {"command": {}, "workdir": {}}},
}


class Client:
    """The CLI's side: masked frames out, plain frames in."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.rfile = sock.makefile("rb")
        self.seq = 0

    def send(self, method: str, **params: Any) -> None:
        self.seq += 1
        self.raw(
            json.dumps(
                {"jsonrpc": "2.0", "id": f"c-{self.seq}", "method": method, "params": params}
            )
        )

    def raw(self, text: str) -> None:
        data = text.encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        head += (
            bytes([0x80 | len(data)])
            if len(data) < 126
            else bytes([0x80 | 126]) + len(data).to_bytes(2, "big")
        )
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self) -> Any:
        _, b1 = self.rfile.read(2)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(self.rfile.read(2), "big")
        elif n == 127:
            n = int.from_bytes(self.rfile.read(8), "big")
        text = self.rfile.read(n).decode()
        return text if text == "pong" else json.loads(text)

    def until(self, method: str, **match: Any) -> dict[str, Any]:
        """Server notifications up to the first `method` whose params contain `match`."""
        for _ in range(500):
            msg = self.recv()
            if isinstance(msg, dict) and msg.get("method") == method:
                params = msg["params"]
                if all(params.get(k) == v for k, v in match.items()):
                    return dict(params)
        raise AssertionError(f"no {method} {match}")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    ours, theirs = socket.socketpair()
    ws = WebSocket(ours.makefile("rb"), ours.makefile("wb"))
    script = Script([st.bash_turn(), *st.ALL_TURNS])
    actor = amp_api.ThreadActor(
        ws,
        "T-00000000-0000-0000-0000-000000000000",
        script,
        Dialect(),
        lambda p: str(tmp_path / p),
        lambda entry: None,
        lambda delta: None,
    )
    thread = threading.Thread(target=actor.run, daemon=True)
    thread.start()
    theirs.settimeout(20)
    c = Client(theirs)
    c.send("executor_connect", clientId="neo-lab")
    assert c.until("executor_connected")["executorId"] == "neo-lab"
    yield c
    theirs.shutdown(socket.SHUT_RDWR)  # the fake reads the end of its socket and stops
    c.rfile.close()
    theirs.close()
    thread.join(5)
    ours.close()


def prompt(c: Client, text: str) -> None:
    content = [{"type": "text", "text": text}]
    c.send("client_append_user_msg", content=content, messageId="M-" + "a" * 22)
    # the CLI registers its tools only after the first prompt: the reply waits for them
    c.send("executor_tools_register", tools=[SHELL])
    c.send("executor_tools_bootstrap_complete", ok=True)


def test_ping_is_answered_pong(client: Client) -> None:
    client.raw("ping")
    assert _pong(client)


def _pong(c: Client) -> bool:
    return any(c.recv() == "pong" for _ in range(50))


def test_text_turn_streams_then_idles(client: Client) -> None:
    prompt(client, st.P_TEXT)
    delta = client.until("delta", state="generating")
    assert delta["blockIndex"] == 0 and delta["contentMode"] == "snapshot"
    done = client.until("message_added")
    while done["message"]["role"] != "assistant":
        done = client.until("message_added")
    assert done["message"]["content"][0]["text"].startswith("This project is a tiny Python demo")
    client.until("agent_state", state="idle")


def test_command_is_leased_to_the_cli_and_its_result_continues_the_turn(client: Client) -> None:
    prompt(client, st.P_BASH)
    lease = client.until("tool_lease")
    assert lease["toolName"] == "shell_command"
    assert lease["args"]["command"] == st.BASH_COMMAND
    assert lease["toolCallId"].startswith("TU-") and len(lease["toolCallId"]) == 25
    run = {"status": "done", "result": {"output": "done\n", "exitCode": 0}}
    client.send("executor_tool_result", toolCallId=lease["toolCallId"], run=run)
    client.until("executor_tool_result_ack", toolCallId=lease["toolCallId"])
    answer = client.until("delta", state="generating")
    assert answer["blocks"][0]["text"].startswith("Done")
    client.until("agent_state", state="idle")


def test_a_rejected_command_ends_the_turn_with_a_short_answer(client: Client) -> None:
    prompt(client, st.P_BASH)
    lease = client.until("tool_lease")
    run = {"status": "done", "result": "Tool rejected by plugin: keep it"}
    client.send("executor_tool_result", toolCallId=lease["toolCallId"], run=run)
    answer = client.until("delta", state="generating")
    assert answer["blocks"][0]["text"] == "OK."
    client.until("agent_state", state="idle")


def test_cancel_stops_the_answer(client: Client) -> None:
    prompt(client, st.P_ESSAY)
    client.until("delta", state="generating")
    client.send("client_cancel")
    cancelled = client.until("cancelled")
    assert cancelled["messageId"].startswith("M-")
    client.until("agent_state", state="idle")


def test_routes_take_only_amps_paths() -> None:
    assert amp_api.route("/api/internal") == "amp"
    assert amp_api.route("/api/thread-actors") == "amp"
    assert amp_api.route("/actors/gateway/threadActor/websocket/") == "amp_thread"
    assert amp_api.route("/actors/gateway/userActor/connect") == "amp_actor"
    # an OpenAI-style base URL under /api/ is another agent's
    assert amp_api.route("/api/v1/chat/completions") is None
    status, body = amp_api.http_answer("/api/internal?notices", "T-x")
    assert (status, body) == (200, {"ok": True, "result": []})
