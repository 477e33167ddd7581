"""Check the fake server without any agent: one conversation per protocol, with the turn
position worked out from the conversation (prompt -> tool call -> tool result -> answer), and
the tool-call shapes of the chat-completions agents, each from the tool list (names, argument
properties, required ones) that agent's real request carried (measured 2026-12 against the
versions install.sh pins).

Run: python -m tools.agentlab selftest (a few seconds; no tmux, no agents, no network)."""

from __future__ import annotations

import json
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from tools.agentlab.dialect import Dialect, ToolShape
from tools.agentlab.fakeserver import FakeModelServer
from tools.agentlab.script import Script, Text, Tool, Turn

Json = dict[str, Any]

SCRIPT = Script(
    [
        Turn(
            "clean",
            [
                [
                    Text("Removing.", delay=0.0),
                    Tool("bash", {"command": "rm -rf build", "description": "Remove build"}),
                ],
                [Text("Done.", delay=0.0)],
            ],
        ),
        Turn(
            "tidy",
            [
                [Tool("edit", {"path": "app.py", "old": "a = 1", "new": "a = 2"})],
                [Tool("write", {"path": "NOTES.md", "content": "notes"})],
                [Text("Edited.", delay=0.0)],
            ],
        ),
    ]
)


def _post(url: str, body: Json) -> tuple[str, list[Json]]:
    """POST; return the content type and, for SSE, the decoded `data:` payloads."""
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        kind = resp.headers.get("Content-Type", "")
        raw = resp.read().decode()
    if "event-stream" not in kind:
        return kind, [json.loads(raw)]
    events = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
    return kind, [json.loads(e) for e in events if e != "[DONE]"]


def _check(name: str, ok: bool, detail: str) -> bool:
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
    return ok


def run() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        server = FakeModelServer(SCRIPT, Path(tmp), Path(tmp) / "log.jsonl").start()
        try:
            results = _cases(server.url)
            server.dialect = Dialect(tools_in_text=True)
            results += _aider_cases(server.url)
            server.dialect = Dialect()
            results += _chat_cases(server.url, Path(tmp))
            results += _anthropic_other_agent(server.url)
            server.dialect = Dialect(
                tools={"bash": ToolShape("run", lambda a: {"argv": ["sh", "-c", a["command"]]})}
            )
            results += _forced_shape(server.url)
            server.dialect = Dialect()
            results += _augment_cases(server.url)
            return 0 if all(results) else 1
        finally:
            server.stop()


def _ndjson(url: str, body: Json) -> list[Json]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return [json.loads(line) for line in resp.read().decode().splitlines() if line]


def _augment_cases(url: str) -> list[bool]:
    """Augment's API (Auggie): get-models, then a turn over chat-stream (NDJSON): the prompt
    in the request nodes -> a tool use node of the offered tool; the tool result in the next
    exchange, the first one in chat_history -> text and stop_reason 1."""
    results = []
    _, models = _post(url + "/get-models", {})
    results.append(
        _check("augment get-models", models[0].get("default_model") == "fake-model", "model")
    )
    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    tools = [{"name": "launch-process", "input_schema_json": json.dumps(schema)}]
    prompt = {"id": 1, "type": 0, "text_node": {"content": "please clean up"}}
    lines = _ndjson(url + "/chat-stream", {"tool_definitions": tools, "nodes": [prompt]})
    uses = [n["tool_use"] for ln in lines for n in ln.get("nodes", []) if n.get("type") == 5]
    ok = len(uses) == 1 and uses[0]["tool_name"] == "launch-process"
    ok = ok and json.loads(uses[0]["input_json"]) == {"command": "rm -rf build"}
    results.append(_check("augment step 0", ok and lines[-1].get("stop_reason") == 3, str(uses)))
    exchange = {
        "request_message": "please clean up",
        "request_nodes": [prompt],
        "response_nodes": [{"id": 1, "type": 5, "tool_use": uses[0] if uses else {}}],
    }
    result = {"id": 1, "type": 1, "tool_result_node": {"tool_use_id": "t", "content": "ok"}}
    lines = _ndjson(
        url + "/chat-stream",
        {"tool_definitions": tools, "chat_history": [exchange], "nodes": [result]},
    )
    text = "".join(ln.get("text", "") for ln in lines)
    ok = text == "Done." and lines[-1].get("stop_reason") == 1
    results.append(_check("augment step 1", ok, repr(text)))
    _, quiet = _post(url + "/record-session-events", {"events": []})
    results.append(_check("augment reports", quiet == [{}], str(quiet)))
    return results


def _cases(url: str) -> list[bool]:
    results = []
    tools = [{"name": "Bash", "input_schema": {}}]
    # Anthropic: prompt -> tool_use; tool_result -> text.
    _, ev = _post(
        url + "/v1/messages?beta=true",
        {
            "stream": True,
            "tools": tools,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "<system-reminder>x"},
                        {"type": "text", "text": "please clean up"},
                    ],
                }
            ],
        },
    )
    names = [e["content_block"].get("name") for e in ev if e.get("type") == "content_block_start"]
    results.append(_check("anthropic step 0", "Bash" in names, f"blocks {names}"))
    _, ev = _post(
        url + "/v1/messages",
        {
            "stream": True,
            "tools": tools,
            "messages": [
                {"role": "user", "content": "please clean up"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
                },
            ],
        },
    )
    text = "".join(e["delta"].get("text", "") for e in ev if e.get("type") == "content_block_delta")
    results.append(_check("anthropic step 1", text == "Done.", repr(text)))
    # OpenAI Responses: prompt -> function_call (shell tool chosen from what is offered).
    _, ev = _post(
        url + "/v1/responses",
        {
            "stream": True,
            "tools": [{"type": "function", "name": "exec_command"}],
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "please clean up"}],
                }
            ],
        },
    )
    items = [e["item"] for e in ev if e.get("type") == "response.output_item.done"]
    calls = [i.get("name") for i in items if i.get("type") == "function_call"]
    results.append(_check("responses step 0", calls == ["exec_command"], f"calls {calls}"))
    # Gemini: prompt -> functionCall; JSON-schema side question -> JSON.
    _, ev = _post(
        url + "/v1beta/models/m:streamGenerateContent?alt=sse",
        {
            "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
            "contents": [{"role": "user", "parts": [{"text": "please clean up"}]}],
        },
    )
    parts = [p for e in ev for p in e["candidates"][0]["content"]["parts"]]
    fc = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
    results.append(_check("gemini step 0", fc == ["run_shell_command"], f"calls {fc}"))
    _, ev = _post(
        url + "/v1beta/models/m:generateContent",
        {
            "generationConfig": {
                "responseJsonSchema": {
                    "type": "object",
                    "properties": {
                        "next_speaker": {"type": "string"},
                        "reasoning": {"type": "string"},
                    },
                }
            },
            "contents": [{"role": "user", "parts": [{"text": "who speaks next?"}]}],
        },
    )
    answer = json.loads(ev[0]["candidates"][0]["content"]["parts"][0]["text"])
    results.append(_check("gemini json", answer.get("next_speaker") == "user", str(answer)))
    return results


def _aider_cases(url: str) -> list[bool]:
    """aider (Dialect(tools_in_text=True)): no tools; the command is a fenced block."""
    _, ev = _post(
        url + "/v1/chat/completions",
        {"stream": True, "messages": [{"role": "user", "content": "please clean up"}]},
    )
    text = "".join(c["delta"].get("content") or "" for e in ev for c in e.get("choices", []))
    return [_check("chat aider", "```bash\nrm -rf build\n```" in text, repr(text[:60]))]


# -- chat completions with tool calls ------------------------------------------------------------


def _fn(name: str, props: dict[str, Json], required: list[str]) -> Json:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


S: Json = {"type": "string"}
N: Json = {"type": "number"}
B: Json = {"type": "boolean"}


def _arr(items: Json) -> Json:
    return {"type": "array", "items": items}


def _obj(props: dict[str, Json], required: list[str]) -> Json:
    return {"type": "object", "properties": props, "required": required}


# The shell tool of each agent as its request declares it, and the arguments the server must
# send back: name and argument shape differ per agent, and an agent rejects a call that lacks
# a required argument (Droid without its risk fields shows no prompt at all).
SHELL_TOOLS: list[tuple[str, Json, str, Json]] = [
    (
        "opencode",
        _fn("bash", {"command": S, "timeout": N, "workdir": S}, ["command"]),
        "bash",
        {"command": "rm -rf build"},
    ),
    (
        "kilo/copilot",
        _fn("bash", {"command": S, "description": S, "mode": {"enum": ["sync", "async"]}},
            ["command", "description"]),
        "bash",
        {"command": "rm -rf build", "description": "Remove build"},
    ),
    (
        "qwen",
        _fn("run_shell_command", {"command": S, "is_background": B, "description": S,
                                  "directory": S}, ["command"]),
        "run_shell_command",
        {"command": "rm -rf build", "description": "Remove build"},
    ),
    (
        "cline",
        _fn("run_commands", {"commands": _arr(S)}, ["commands"]),
        "run_commands",
        {"commands": ["rm -rf build"]},
    ),
    (
        "droid",
        _fn("Execute", {"summary": S, "command": S, "timeout": N, "riskLevelReason": S,
                        "riskLevel": {"type": "string", "enum": ["low", "medium", "high"]},
                        "fireAndForget": B},
            ["summary", "command", "riskLevelReason", "riskLevel"]),
        "Execute",
        {"summary": "Remove build", "command": "rm -rf build", "riskLevelReason": "Remove build",
         "riskLevel": "low"},
    ),
    (
        "vibe",
        _fn("bash", {"command": S, "timeout_seconds": {"type": "integer"}}, ["command"]),
        "bash",
        {"command": "rm -rf build"},
    ),
    (
        "kimi",
        _fn("Shell", {"command": S, "timeout": {"type": "integer"}, "run_in_background": B},
            ["command"]),
        "Shell",
        {"command": "rm -rf build"},
    ),
]  # fmt: skip

# Edit and new-file tools whose arguments nest (Pi, Kimi) or share one tool (Cline).
EDIT_TOOLS: list[tuple[str, list[Json], tuple[str, Json], tuple[str, Json]]] = [
    (
        "opencode",
        [_fn("edit", {"filePath": S, "oldString": S, "newString": S, "replaceAll": B},
             ["filePath", "oldString", "newString"]),
         _fn("write", {"content": S, "filePath": S}, ["content", "filePath"])],
        ("edit", {"filePath": "<proj>/app.py", "oldString": "a = 1", "newString": "a = 2"}),
        ("write", {"content": "notes", "filePath": "<proj>/NOTES.md"}),
    ),
    (
        "pi",
        [_fn("edit", {"path": S, "edits": _arr(_obj({"oldText": S, "newText": S},
                                                    ["oldText", "newText"]))}, ["path", "edits"]),
         _fn("write", {"path": S, "content": S}, ["path", "content"])],
        ("edit", {"path": "<proj>/app.py", "edits": [{"oldText": "a = 1", "newText": "a = 2"}]}),
        ("write", {"path": "<proj>/NOTES.md", "content": "notes"}),
    ),
    (
        "kimi",
        [_fn("StrReplaceFile", {"path": S, "edit": {"anyOf": [
            _obj({"old": S, "new": S, "replace_all": B}, ["old", "new"]),
            _arr({"$ref": "#/$defs/Edit"})]}}, ["path", "edit"]),
         _fn("WriteFile", {"path": S, "content": S, "mode": {"enum": ["overwrite", "append"]}},
             ["path", "content"])],
        ("StrReplaceFile", {"path": "<proj>/app.py", "edit": {"old": "a = 1", "new": "a = 2"}}),
        ("WriteFile", {"path": "<proj>/NOTES.md", "content": "notes"}),
    ),
    (
        "cline",
        [_fn("editor", {"path": S, "old_text": {"anyOf": [S, {"type": "null"}]}, "new_text": S,
                        "insert_line": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
             ["path", "new_text"])],
        ("editor", {"path": "<proj>/app.py", "old_text": "a = 1", "new_text": "a = 2"}),
        ("editor", {"path": "<proj>/NOTES.md", "new_text": "notes"}),
    ),
    (
        "copilot",
        [_fn("edit", {"path": S, "old_str": S, "new_str": S}, ["path"]),
         _fn("create", {"path": S, "file_text": S}, ["path", "file_text"])],
        ("edit", {"path": "<proj>/app.py", "old_str": "a = 1", "new_str": "a = 2"}),
        ("create", {"path": "<proj>/NOTES.md", "file_text": "notes"}),
    ),
]  # fmt: skip


def _chat(url: str, body: Json) -> tuple[str, list[tuple[str, Json]], str | None]:
    """POST a chat completions request; the answer text, the tool calls (name, arguments)
    assembled from the stream's pieces, and the finish reason."""
    _, ev = _post(url + "/v1/chat/completions", body)
    if not body.get("stream"):
        msg = ev[0]["choices"][0]["message"]
        calls = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in msg.get("tool_calls") or []
        ]
        return msg.get("content") or "", calls, ev[0]["choices"][0]["finish_reason"]
    text, finish = "", None
    parts: dict[int, Json] = {}
    for e in ev:
        for c in e.get("choices", []):
            d = c.get("delta") or {}
            text += d.get("content") or ""
            for tc in d.get("tool_calls") or []:
                slot = parts.setdefault(tc["index"], {"name": "", "arguments": ""})
                fn = tc.get("function") or {}
                slot["name"] += fn.get("name") or ""
                slot["arguments"] += fn.get("arguments") or ""
            finish = c.get("finish_reason") or finish
    calls = [(p["name"], json.loads(p["arguments"])) for _, p in sorted(parts.items())]
    return text, calls, finish


def _user(text: str) -> Json:
    return {"role": "user", "content": text}


def _tool_round(name: str) -> list[Json]:
    """An assistant message calling `name` and the tool's result."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]


def _chat_cases(url: str, proj: Path) -> list[bool]:
    results = []
    bash_tool = SHELL_TOOLS[0][1]
    # A side request (no tools: OpenCode's title, Droid's session name) gets a canned text and
    # leaves the turn alone: the next request with tools still gets step 0.
    text, calls, _ = _chat(url, {"stream": True, "messages": [_user("please clean up")]})
    results.append(_check("chat side request", not calls and text == "Working on the task", text))
    schema = {"type": "object", "properties": {"title": S}, "required": ["title"]}
    text, calls, _ = _chat(
        url,
        {
            "messages": [_user("please clean up")],
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
        },
    )
    results.append(_check("chat json side request", "title" in json.loads(text), text))
    for agent, tool, name, want in SHELL_TOOLS:
        body = {"stream": True, "tools": [tool], "messages": [_user("please clean up")]}
        text, calls, finish = _chat(url, body)
        ok = calls == [(name, want)] and finish == "tool_calls" and text == "Removing."
        results.append(_check(f"chat shell {agent}", ok, f"{calls} {finish} {text!r}"))
    # Step 1 answers the tool result, also when the agent adds a note of its own as a user
    # message after it (taken for a prompt, it would replay the tool call forever).
    messages = [_user("please clean up"), *_tool_round("bash")]
    text, calls, finish = _chat(url, {"stream": True, "tools": [bash_tool], "messages": messages})
    results.append(_check("chat step 1", text == "Done." and not calls, f"{text!r} {finish}"))
    messages.append(_user("<note>the command finished</note>"))
    text, calls, _ = _chat(url, {"stream": True, "tools": [bash_tool], "messages": messages})
    results.append(_check("chat step 1 after an agent note", text == "Done.", repr(text)))
    # One JSON answer when the request does not stream.
    _, calls, finish = _chat(url, {"tools": [bash_tool], "messages": [_user("please clean up")]})
    results.append(_check("chat no stream", calls[:1] == [("bash", {"command": "rm -rf build"})]
                          and finish == "tool_calls", str(calls)))  # fmt: skip
    for agent, tools, edit, write in EDIT_TOOLS:
        got = []
        for rounds in (0, 1):
            messages = [_user("tidy the code")]
            for _ in range(rounds):
                messages += _tool_round(edit[0])
            _, calls, _ = _chat(url, {"stream": True, "tools": tools, "messages": messages})
            got += calls
        expected = [_with_proj(edit, proj), _with_proj(write, proj)]
        results.append(_check(f"chat edit+write {agent}", got == expected, str(got)))
    return results


def _with_proj(call: tuple[str, Json], proj: Path) -> tuple[str, Json]:
    text = json.dumps(call[1]).replace("<proj>", str(proj))
    return call[0], json.loads(text)


def _anthropic_other_agent(url: str) -> list[bool]:
    """Copilot on the Messages API: its own tool names, not Claude Code's."""
    tools = [{"name": "bash", "input_schema": _obj({"command": S, "description": S}, ["command"])}]
    body = {"stream": True, "tools": tools, "messages": [_user("please clean up")]}
    _, ev = _post(url + "/v1/messages", body)
    names = [e["content_block"].get("name") for e in ev if e.get("type") == "content_block_start"]
    return [_check("anthropic, another agent's tools", names == [None, "bash"], str(names))]


def _forced_shape(url: str) -> list[bool]:
    """A tool shape the adapter's dialect fixes wins over the tools of the request."""
    body = {"stream": True, "tools": [SHELL_TOOLS[0][1]], "messages": [_user("please clean up")]}
    _, calls, _ = _chat(url, body)
    want = [("run", {"argv": ["sh", "-c", "rm -rf build"]})]
    return [_check("chat dialect override", calls == want, str(calls))]
