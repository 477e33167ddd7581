"""Check the fake server without any agent: one conversation per protocol, with the turn
position worked out from the conversation (prompt -> tool call -> tool result -> answer).

Run: python -m tools.agentlab selftest (a few seconds; no tmux, no agents, no network)."""

from __future__ import annotations

import json
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from tools.agentlab.fakeserver import FakeModelServer
from tools.agentlab.script import Script, Text, Tool, Turn

Json = dict[str, Any]

SCRIPT = Script(
    [
        Turn(
            "clean",
            [
                [Text("Removing.", delay=0.0), Tool("bash", {"command": "rm -rf build"})],
                [Text("Done.", delay=0.0)],
            ],
        )
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
            return 0 if all(_cases(server.url)) else 1
        finally:
            server.stop()


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
    # Chat completions: the shell command comes back as a fenced block.
    _, ev = _post(
        url + "/v1/chat/completions",
        {"stream": True, "messages": [{"role": "user", "content": "please clean up"}]},
    )
    text = "".join(c["delta"].get("content") or "" for e in ev for c in e.get("choices", []))
    results.append(_check("chat", "```bash\nrm -rf build\n```" in text, repr(text[:60])))
    return results
