"""The lab's stdio MCP server (tools/agentlab/mcp_server.py) speaks enough MCP for an agent
to list and call its tools: one JSON-RPC message per line in, one answer per request out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parents[2] / "tools" / "agentlab" / "mcp_server.py"


def talk(messages: list[dict[str, Any]], *args: str) -> list[dict[str, Any]]:
    """What the server answers; Claude Code's config starts it with `--tools deploy`."""
    text = "".join(json.dumps(m) + "\n" for m in messages) + "not json\n\n"
    out = subprocess.run(
        [sys.executable, str(SERVER), *args], input=text, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_handshake_list_and_call() -> None:
    answers = talk(
        [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {}},
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "deploy", "arguments": {"target": "staging"}},
            },
            {"jsonrpc": "2.0", "id": 4, "method": "no/such"},
        ],
        "--tools",
        "deploy",
    )
    # the notification and the junk lines get no answer
    assert [a["id"] for a in answers] == [1, 2, 3, 4]
    init = answers[0]["result"]
    assert init["protocolVersion"] == "2025-03-26"
    assert init["serverInfo"]["name"] == "lab"
    assert "tools" in init["capabilities"]
    names = [t["name"] for t in answers[1]["result"]["tools"]]
    assert names == ["deploy", "lookup"]
    call = answers[2]["result"]
    assert call["isError"] is False
    assert "staging" in call["content"][0]["text"]
    assert answers[3]["error"]["code"] == -32601


def test_unknown_tool_is_an_error_result() -> None:
    (answer,) = talk(
        [{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "rm"}}],
        "--tools",
        "deploy",
    )
    assert answer["result"]["isError"] is True


def test_codex_tool_set_notes_and_logs(tmp_path: Path) -> None:
    """mcp_server.py's default tool set (Codex's config): lab_note writes notes.txt in the
    working directory, lab_lookup only reads, and every message is logged when a path is given."""
    log = tmp_path / "mcp.log"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "lab_note", "arguments": {"text": "teletypes"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "lab_lookup", "arguments": {"word": "Terminal"}},
        },
    ]
    out = subprocess.run(
        [sys.executable, str(SERVER), str(log)],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    listed, noted, looked = (json.loads(line) for line in out.stdout.splitlines())
    tools = {t["name"]: t for t in listed["result"]["tools"]}
    assert list(tools) == ["lab_note", "lab_lookup"]
    assert tools["lab_note"]["annotations"]["destructiveHint"] is True
    assert tools["lab_lookup"]["annotations"]["readOnlyHint"] is True
    assert noted["result"]["content"][0]["text"] == "noted: teletypes"
    assert (tmp_path / "notes.txt").read_text() == "teletypes\n"
    assert looked["result"]["content"][0]["text"].startswith("terminal: a device")
    assert len(log.read_text().splitlines()) == 3
