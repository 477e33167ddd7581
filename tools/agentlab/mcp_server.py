"""The lab's MCP server: JSON-RPC 2.0 over stdio (one JSON object per line), stdlib only, no
network. Agents started by the lab list it in their config so that their MCP tool-approval
dialogs can be recorded. Run as `python3 tools/agentlab/mcp_server.py [--tools SET] [LOG]`; with
LOG, every message received is appended there (the run directory, for --keep).

The tool sets are data (`TOOL_SETS`), one per way the lab records a dialog:
- `lab` (the default; Codex's `config.toml`): `lab_note` writes a line into `notes.txt` in the
  working directory (annotated as destructive, so agents that ask before non-read-only tools
  ask), `lab_lookup` only reads (annotated read-only).
- `deploy` (Claude Code's `mcp` and `mcp_project` scenarios, `--tools deploy`): `deploy`
  answers that a pretend deployment of the named target finished, `lookup` echoes a key.
  Nothing is run, nothing leaves the process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Json = dict[str, Any]

SERVER_NAME = "lab"
PROTOCOL = "2025-06-18"
GLOSSARY = {"terminal": "a device for entering data into and showing data from a computer"}


def _text(text: str, error: bool = False) -> Json:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _note(args: Json) -> Json:
    text = str(args.get("text", ""))
    with Path("notes.txt").open("a", encoding="utf-8") as out:
        out.write(text + "\n")
    return _text(f"noted: {text}")


def _lookup_word(args: Json) -> Json:
    word = str(args.get("word", "")).lower()
    return _text(f"{word}: {GLOSSARY.get(word, 'not in the glossary')}")


@dataclass(frozen=True)
class McpTool:
    """One tool: what `tools/list` says of it, and what `tools/call` answers."""

    name: str
    description: str
    properties: Json
    required: tuple[str, ...]
    call: Callable[[Json], Json]
    annotations: Json | None = None

    def listed(self) -> Json:
        entry: Json = {
            "name": self.name,
            "description": self.description,
            "inputSchema": {
                "type": "object",
                "properties": self.properties,
                "required": list(self.required),
            },
        }
        if self.annotations is not None:
            entry["annotations"] = self.annotations
        return entry


TOOL_SETS: dict[str, tuple[McpTool, ...]] = {
    "lab": (
        McpTool(
            "lab_note",
            "Append a line of text to notes.txt in the project.",
            {"text": {"type": "string", "description": "the line to append"}},
            ("text",),
            _note,
            {
                "title": "Write a note",
                "readOnlyHint": False,
                "destructiveHint": True,
                "openWorldHint": False,
            },
        ),
        McpTool(
            "lab_lookup",
            "Look a word up in the lab's small glossary.",
            {"word": {"type": "string", "description": "the word to look up"}},
            ("word",),
            _lookup_word,
            {"title": "Look a word up", "readOnlyHint": True},
        ),
    ),
    "deploy": (
        McpTool(
            "deploy",
            "Deploy the project to a named target (the lab's stand-in: nothing runs).",
            {"target": {"type": "string", "description": "where to deploy"}},
            ("target",),
            lambda a: _text(
                f"Deployed to {a.get('target', 'staging')} (lab stand-in, nothing ran)."
            ),
        ),
        McpTool(
            "lookup",
            "Look a key up in the lab's notes (echoes the key).",
            {"key": {"type": "string"}},
            ("key",),
            lambda a: _text(f"{a.get('key', '')}: no notes."),
        ),
    ),
}

# Lists the server answers empty: it has no resources or prompts.
EMPTY_LISTS = {
    "ping": None,
    "resources/list": "resources",
    "prompts/list": "prompts",
    "resources/templates/list": "resourceTemplates",
}


def answer(msg: Json, tools: tuple[McpTool, ...]) -> Json | None:
    """The response to one request; None for notifications (no id)."""
    rid = msg.get("id")
    if rid is None:
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
        result = {"tools": [t.listed() for t in tools]}
    elif method == "tools/call":
        name = str(params.get("name", ""))
        args = dict(params.get("arguments") or {})
        tool = next((t for t in tools if t.name == name), None)
        result = tool.call(args) if tool else _text(f"unknown tool {name}", error=True)
    elif method in EMPTY_LISTS:
        key = EMPTY_LISTS[str(method)]
        result = {key: []} if key else {}
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return {"jsonrpc": "2.0", "id": rid, "error": error}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main(argv: list[str]) -> int:
    args = argv[1:]
    tool_set = "lab"
    if args[:1] == ["--tools"] and len(args) > 1:
        tool_set, args = args[1], args[2:]
    tools = TOOL_SETS[tool_set]
    log = Path(args[0]) if args else None
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if log is not None:
            with log.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        reply = answer(msg, tools) if isinstance(msg, dict) else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
