"""A tiny local MCP server for the lab: JSON-RPC 2.0 over stdio, one JSON message per line.

It offers two harmless tools so that an agent shows its MCP tool permission dialog: `deploy`
(answers that a pretend deployment of the named target finished) and `lookup` (echoes a key).
Nothing is run, nothing leaves the process; it only ever writes to its standard output.
Standard library only, so any Python 3 can start it: `python3 mcp_lab_server.py`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

Json = dict[str, Any]

SERVER_NAME = "lab"
PROTOCOL = "2025-06-18"

TOOLS: list[Json] = [
    {
        "name": "deploy",
        "description": "Deploy the project to a named target (the lab's stand-in: nothing runs).",
        "inputSchema": {
            "type": "object",
            "properties": {"target": {"type": "string", "description": "where to deploy"}},
            "required": ["target"],
        },
    },
    {
        "name": "lookup",
        "description": "Look a key up in the lab's notes (echoes the key).",
        "inputSchema": {
            "type": "object",
            "properties": {"key": {"type": "string"}},
            "required": ["key"],
        },
    },
]


def call_tool(name: str, args: Json) -> Json:
    if name == "deploy":
        text = f"Deployed to {args.get('target', 'staging')} (lab stand-in, nothing ran)."
    elif name == "lookup":
        text = f"{args.get('key', '')}: no notes."
    else:
        return {"content": [{"type": "text", "text": f"unknown tool {name}"}], "isError": True}
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(msg: Json) -> Json | None:
    """The response to one request; None for notifications (no id)."""
    if "id" not in msg:
        return None
    method = msg.get("method")
    params = msg.get("params") or {}
    result: Json
    if method == "initialize":
        result = {
            "protocolVersion": str(params.get("protocolVersion") or PROTOCOL),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = call_tool(str(params.get("name", "")), dict(params.get("arguments") or {}))
    elif method in ("ping", "resources/list", "prompts/list", "resources/templates/list"):
        key = {"resources/list": "resources", "prompts/list": "prompts"}.get(str(method))
        key = key or ("resourceTemplates" if method == "resources/templates/list" else "")
        result = {key: []} if key else {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": msg["id"],
            "error": {"code": -32601, "message": f"method not found: {method}"},
        }
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def main() -> int:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        out = answer(msg)
        if out is not None:
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
