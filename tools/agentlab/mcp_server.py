"""A tiny MCP server for the lab: JSON-RPC 2.0 over stdio (one JSON object per line), stdlib only,
no network. Agents started by the lab list it in their config so that their MCP tool-approval
dialogs can be recorded. Run as `python3 tools/agentlab/mcp_server.py [LOG]`; with LOG, every
message received is appended there (the run directory, for --keep).

Tools: `lab_note` writes a line into `notes.txt` in the working directory (annotated as
destructive, so agents that ask before non-read-only tools ask), `lab_lookup` only reads
(annotated read-only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "lab_note",
        "description": "Append a line of text to notes.txt in the project.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "the line to append"}},
            "required": ["text"],
        },
        "annotations": {
            "title": "Write a note",
            "readOnlyHint": False,
            "destructiveHint": True,
            "openWorldHint": False,
        },
    },
    {
        "name": "lab_lookup",
        "description": "Look a word up in the lab's small glossary.",
        "inputSchema": {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "the word to look up"}},
            "required": ["word"],
        },
        "annotations": {"title": "Look a word up", "readOnlyHint": True},
    },
]

GLOSSARY = {"terminal": "a device for entering data into and showing data from a computer"}


def call_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    if name == "lab_note":
        text = str(args.get("text", ""))
        with Path("notes.txt").open("a", encoding="utf-8") as out:
            out.write(text + "\n")
        return {"content": [{"type": "text", "text": f"noted: {text}"}], "isError": False}
    if name == "lab_lookup":
        word = str(args.get("word", "")).lower()
        meaning = GLOSSARY.get(word, "not in the glossary")
        return {"content": [{"type": "text", "text": f"{word}: {meaning}"}], "isError": False}
    return {"content": [{"type": "text", "text": f"unknown tool {name}"}], "isError": True}


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to one message, None for notifications."""
    method = request.get("method")
    rid = request.get("id")
    if rid is None:
        return None
    params = request.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", PROTOCOL),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "lab", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = call_tool(str(params.get("name", "")), params.get("arguments") or {})
    elif method in ("ping", "resources/list", "prompts/list", "resources/templates/list"):
        result = {} if method == "ping" else {method.split("/")[0]: []}
        if method == "resources/templates/list":
            result = {"resourceTemplates": []}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no method"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main(argv: list[str]) -> int:
    log = Path(argv[1]) if len(argv) > 1 else None
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if log is not None:
            with log.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
        try:
            request = json.loads(line)
        except ValueError:
            continue
        reply = answer(request) if isinstance(request, dict) else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
