"""Augment's own API, as Auggie (the Augment CLI) speaks it: just enough to run the real CLI
offline against the lab's fake server. Auggie talks to nothing else (no OpenAI or Anthropic
route), so this is its dialect of the fake model server (fakeserver.py routes the paths below
here; the server listens on 127.0.0.1 only).

What the CLI sends and expects (read from its bundle, `augment.mjs` of @augmentcode/auggie
0.36.0, and from its requests in the lab):

- every call is `POST <tenantURL><endpoint>` with a JSON body and `Authorization: Bearer ...`
  (the token of `AUGMENT_SESSION_AUTH`, never checked here);
- `get-models` must answer `default_model` (a string) and `models` (name + suggested prefix /
  suffix char counts), else the CLI reports "converting get-models response failed";
- `chat-stream` answers NDJSON: one JSON object per line, each a chunk of the answer: `text`
  (a delta of the answer text) and `nodes` (response nodes: type 0 raw text, 5 tool use
  `{tool_use_id, tool_name, input_json}` (a JSON string), 8 thinking, 10 token usage); the last
  chunk carries `stop_reason` (1 end of turn, 3 tool use requested);
- a request is one exchange: `message` plus request `nodes` (type 0 `text_node` = the prompt,
  type 1 `tool_result_node` = a tool's result), with the earlier exchanges in `chat_history`
  (`request_message`, `request_nodes`, `response_nodes`); the tools it offers are
  `tool_definitions` `[{name, description, input_schema_json}]` (the schema as a JSON string);
- the rest (session events, metrics, error reports, blob sync, settings) only needs an empty
  success.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from tools.agentlab.dialect import Dialect, shape_call
from tools.agentlab.script import Pause, Reply, Script, Text, Thinking, Tool, chunks

Json = dict[str, Any]

MODEL = "fake-model"

# Endpoints answered with an empty success (a JSON object the CLI can read as "nothing").
_QUIET: dict[str, Json] = {
    "report-error": {},
    "report-status": {},
    "record-session-events": {},
    "record-request-events": {},
    "record-user-events": {},
    "client-metrics": {},
    "chat-feedback": {},
    "completion-feedback": {},
    "find-missing": {"unknown_memory_names": [], "nonindexed_blob_names": []},
    "batch-upload": {"blob_names": []},
    "checkpoint-blobs": {"new_checkpoint_id": "fake-checkpoint"},
    "subscription-info": {},
    "get-credit-info": {},
    "notifications": {"notifications": []},
    "notifications/read": {"notifications": []},
    "settings/get-mcp-tenant-configs": {"configs": []},
    "settings/get-mcp-user-configs": {"configs": []},
    "settings/get-tenant-tool-permissions": {},
    "agents/list-remote-tools": {"tools": []},
    "agents/check-tool-safety": {"is_safe": True},
    "remote-agents/list-stream": {},
    "get-implicit-external-sources": {"sources": []},
    "search-external-sources": {"sources": []},
    "token": {"access_token": "fake-token"},
    "indexed-commits/register-blobset": {},
}


def endpoint(path: str) -> str:
    """The endpoint name of a request path (`/chat-stream?x` -> `chat-stream`)."""
    return path.split("?", 1)[0].strip("/")


def route(path: str) -> str | None:
    """The fake server's route for an Augment path, or None when it is not one."""
    name = endpoint(path)
    if name in ("chat-stream", "prompt-enhancer"):
        return "augment_stream"
    if name == "get-models":
        return "augment_models"
    if name in _QUIET:
        return "augment"
    return None


def quiet_answer(path: str) -> Json:
    return dict(_QUIET.get(endpoint(path), {}))


def models_answer() -> Json:
    return {
        "default_model": MODEL,
        "models": [
            {
                "name": MODEL,
                "suggested_prefix_char_count": 4000,
                "suggested_suffix_char_count": 4000,
            }
        ],
        # The question tool (`ask-user`), plan mode and hooks are behind server-side flags: a
        # tenant without `enable_hooks` runs no hook of the settings file at all.
        "feature_flags": {
            "ide_enable_ask_user_tool": True,
            "cli_enable_plan_mode": True,
            "enable_hooks": True,
        },
        "user_tier": "PROFESSIONAL_TIER",
        "user": {"id": "lab-user", "email": "lab@example.invalid"},
    }


def offered(body: Json) -> dict[str, Json]:
    """name -> argument schema of the tools the request offers (`input_schema_json` is a JSON
    string; a broken one counts as a schema without properties)."""
    out: dict[str, Json] = {}
    for tool in body.get("tool_definitions") or []:
        if not isinstance(tool, dict) or not tool.get("name"):
            continue
        raw = tool.get("input_schema_json") or "{}"
        try:
            schema = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            schema = {}
        out[str(tool["name"])] = schema if isinstance(schema, dict) else {}
    return out


def _texts(nodes: Any) -> list[str]:
    return [
        str((n.get("text_node") or {}).get("content") or "")
        for n in nodes or []
        if isinstance(n, dict) and n.get("type") == 0
    ]


def _has_result(nodes: Any) -> bool:
    return any(isinstance(n, dict) and n.get("type") == 1 for n in nodes or [])


def position(body: Json, script: Script) -> tuple[str, int]:
    """The prompt and how many tool rounds followed it, from the earlier exchanges and this one.
    An exchange that carries tool results is a round; one with text is a prompt unless it is
    unscripted text after a scripted prompt (as for the chat agents: notes are not prompts)."""
    exchanges: list[tuple[str, bool]] = []
    for ex in body.get("chat_history") or []:
        if not isinstance(ex, dict):
            continue
        text = "\n".join(_texts(ex.get("request_nodes"))) or str(ex.get("request_message") or "")
        exchanges.append((text, _has_result(ex.get("request_nodes"))))
    nodes = body.get("nodes")
    text = "\n".join(_texts(nodes)) or str(body.get("message") or "")
    exchanges.append((text, _has_result(nodes)))
    prompt, index = "", 0
    for text, result in exchanges:
        if result:
            index += 1
        elif text.strip() and (script.has_turn(text) or not script.has_turn(prompt)):
            prompt, index = text, 0
    return prompt, index


def is_side_request(body: Json) -> bool:
    """A request without tools (a title, a summary, the prompt enhancer): never the turn."""
    return not body.get("tool_definitions")


def stream(
    reply: Reply, tools: dict[str, Json], dialect: Dialect, abspath: Any
) -> Iterator[tuple[float, Json]]:
    """(seconds to wait, chunk) pairs of one answer, in order; the last one ends the turn."""
    node_id = 0
    used_tool = False

    def node(kind: int, **fields: Any) -> Json:
        nonlocal node_id
        node_id += 1
        return {"id": node_id, "type": kind, "content": "", **fields}

    for step in reply:
        if isinstance(step, Pause):
            yield step.seconds, {"text": "", "nodes": []}
        elif isinstance(step, Text):
            for piece in chunks(step.text, step.chunk):
                yield step.delay, {"text": piece, "nodes": [node(0, content=piece)]}
        elif isinstance(step, Thinking):
            # The CLI draws each thinking node's summary as a row of its own (`~ summary`): the
            # thinking streams as time (empty chunks), then its summary comes as one node.
            for _piece in chunks(step.text, step.chunk):
                yield step.delay, {"text": "", "nodes": []}
            thinking = {"summary": step.text, "content": step.text}
            yield 0.0, {"text": "", "nodes": [node(8, thinking=thinking)]}
        elif isinstance(step, Tool):
            neutral = dict(step.args)
            if "path" in neutral:
                neutral["path"] = abspath(str(neutral["path"]))
            shaped = shape_call(step.kind, neutral, tools, dialect)
            if shaped is None:
                note = f"(no {step.kind} tool here)"
                yield 0.05, {"text": note, "nodes": [node(0, content=note)]}
                continue
            name, args = shaped
            used_tool = True
            use = {
                "tool_use_id": "toolu_" + uuid.uuid4().hex[:24],
                "tool_name": name,
                "input_json": json.dumps(args),
            }
            yield 0.1, {"text": "", "nodes": [node(5, tool_use=use)]}
    usage = {"input_tokens": 50, "output_tokens": 40}
    yield (
        0.0,
        {
            "text": "",
            "nodes": [node(10, token_usage=usage)],
            "stop_reason": 3 if used_tool else 1,
        },
    )
