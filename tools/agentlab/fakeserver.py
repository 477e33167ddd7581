"""Fake model servers on 127.0.0.1 speaking just enough of four APIs to drive the real agents.

- Anthropic Messages (Claude Code; Copilot CLI with COPILOT_PROVIDER_TYPE=anthropic):
  POST /v1/messages, streaming SSE.
- OpenAI Responses (Codex CLI): POST .../responses, streaming SSE.
- Gemini (Gemini CLI): POST .../models/M:streamGenerateContent?alt=sse, :generateContent,
  :countTokens.
- OpenAI chat completions (aider, with tool calls as fenced blocks in the text; OpenCode,
  Kilo, Copilot, Pi, Cline, Qwen Code, Droid, Grok, Vibe, Kimi with `tool_calls`):
  POST .../chat/completions, streaming SSE or one JSON answer.
- Augment's own API (Auggie): POST /chat-stream (NDJSON), /get-models and the endpoints the
  CLI only reports to (augment_api.py).
- Amp's own server (Amp CLI): POST /api/..., and the thread actor's WebSocket (JSON-RPC), where
  the server runs the agent loop and hands the CLI its tool calls (amp_api.py).

Tool calls take the name and argument shape of the tool the request itself offers for that kind
(see dialect.py), unless the agent's `Dialect` fixes them. A chat request without tools is a
side request (title, summary) and gets a canned text, unless the dialect says tools are text
(aider).

One server answers all of them (the path tells them apart), scripted by a `Script`. Every request
is appended to a JSONL log so a failing scenario can be debugged from what the agent really sent.
Nothing here talks to the network beyond the loopback socket it listens on."""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tools.agentlab import amp_api, augment_api, websocket
from tools.agentlab.dialect import Dialect, offered_tools, shape_call
from tools.agentlab.script import Pause, Reply, Script, Text, Thinking, Tool, chunks, side_reply

Json = dict[str, Any]


class FakeModelServer:
    """Owns the HTTP server thread; `script`, `cwd` and `dialect` may be swapped between runs."""

    def __init__(
        self,
        script: Script,
        cwd: Path,
        log_path: Path | None = None,
        dialect: Dialect | None = None,
    ) -> None:
        self.script = script
        self.dialect = dialect or Dialect()
        self.cwd = cwd
        self.log_path = log_path
        self._lock = threading.Lock()
        # Requests still being answered. Some agents (Codex) draw no working cue while text
        # streams, so the driver also asks the server whether the model is done.
        self.inflight = 0
        self.last_done = 0.0
        # Claude Code's plan file, as its plan-mode reminder names it (`plan_file` steps).
        self.plan_file: str | None = None
        # Amp's one thread per run (the CLI creates it with its first prompt).
        self.amp_thread = amp_api.new_thread_id()
        handler = _make_handler(self)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def log(self, entry: Json) -> None:
        if self.log_path is None:
            return
        entry = {"t": round(time.time(), 3), **entry}
        with self._lock, self.log_path.open("a") as f:
            f.write(json.dumps(entry) + "\n")

    def sample(self, route: str, body: Json) -> None:
        """Keep the first full request body per route (tool schemas, system prompt) next to
        the log: what a new agent version expects is read from there."""
        if self.log_path is None or not (body.get("tools") or body.get("tool_definitions")):
            return
        path = self.log_path.with_name(f"sample-{route}.json")
        with self._lock:
            if not path.exists():
                path.write_text(json.dumps(body, indent=1))

    def quiet(self, for_seconds: float = 0.3) -> bool:
        """No request in flight, and none finished within `for_seconds`."""
        with self._lock:
            return self.inflight == 0 and time.time() - self.last_done >= for_seconds

    def abspath(self, path: str) -> str:
        return path if os.path.isabs(path) else str(self.cwd / path)

    def busy(self, delta: int) -> None:
        """A streamed answer that is not one HTTP request (Amp's, over its WebSocket) starts
        (+1) or ends (-1): `quiet` counts it as a request in flight."""
        with self._lock:
            self.inflight += delta
            if delta < 0:
                self.last_done = time.time()


class _Gone(Exception):
    """The client hung up (an interrupted turn); stop streaming quietly."""


def _make_handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the JSONL log says more; stderr would land in the driver's terminal

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            server.log({"method": "GET", "path": self.path})
            amp = amp_api.route(path)
            if amp == "amp_thread" and self.headers.get("Upgrade", "").lower() == "websocket":
                self._amp_thread()
            elif amp is not None:
                self._json({"error": {"message": f"no route for {path}"}}, status=404)
            elif path.endswith("/models"):
                self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
            else:
                self._json({"error": {"message": "not found"}}, status=404)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Json = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            with server._lock:
                server.inflight += 1
            try:
                route = _route(path)
                server.log(
                    {"method": "POST", "path": self.path, "route": route, "summary": _summary(body)}
                )
                server.sample(route, body)
                if route == "anthropic":
                    self._anthropic(body)
                elif route == "anthropic_count":
                    self._json({"input_tokens": 1000})
                elif route == "responses":
                    self._responses(body)
                elif route == "gemini_stream":
                    self._gemini(body, path, stream=True)
                elif route == "gemini":
                    self._gemini(body, path, stream=False)
                elif route == "gemini_count":
                    self._json({"totalTokens": 1000})
                elif route == "chat":
                    self._chat(body)
                elif route == "augment_stream":
                    self._augment(body)
                elif route == "augment_models":
                    self._json(augment_api.models_answer())
                elif route == "augment":
                    self._json(augment_api.quiet_answer(path))
                elif route == "amp":
                    status, answer = amp_api.http_answer(self.path, server.amp_thread)
                    self._json(answer, status=status)
                else:
                    self._json({"error": {"message": f"no route for {path}"}}, status=404)
            except (_Gone, BrokenPipeError, ConnectionResetError):
                server.log({"event": "client hung up", "path": self.path})
                self.close_connection = True
            finally:
                with server._lock:
                    server.inflight -= 1
                    server.last_done = time.time()

        # -- plumbing ------------------------------------------------------------------------
        def _json(self, obj: Json, status: int = 200) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse_start(self) -> None:
            # No Content-Length: the stream ends when the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

        def _sse(self, data: Json | str, event: str | None = None) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            frame = (f"event: {event}\n" if event else "") + f"data: {text}\n\n"
            try:
                self.wfile.write(frame.encode())
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError) as e:
                raise _Gone from e

        def _typed(self, data: Json) -> None:
            """An event whose SSE event name is its own `type` (Anthropic, Responses)."""
            self._sse(data, str(data["type"]))

        # -- Anthropic Messages ----------------------------------------------------------------
        def _block_start(self, index: int, block: Json) -> None:
            self._typed({"type": "content_block_start", "index": index, "content_block": block})

        def _block_deltas(self, index: int, deltas: list[Json], delay: float) -> None:
            """Each delta of a content block after `delay` seconds (none for 0)."""
            for delta in deltas:
                if delay:
                    time.sleep(delay)
                self._typed({"type": "content_block_delta", "index": index, "delta": delta})

        def _anthropic(self, body: Json) -> None:
            reply = _anthropic_reply(server, body)
            server.log({"route": "anthropic", "reply": [repr(s)[:80] for s in reply]})
            model = str(body.get("model", "claude-fake"))
            offered = offered_tools(body)
            if not body.get("stream"):
                self._json(_anthropic_message(server, reply, model, offered))
                return
            self._sse_start()
            msg_id = "msg_" + uuid.uuid4().hex[:24]
            self._typed(
                {
                    "type": "message_start",
                    "message": {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 50, "output_tokens": 1},
                    },
                }
            )
            has_tool = False
            for index, step in enumerate(reply):
                if isinstance(step, Pause):
                    time.sleep(step.seconds)
                    self._typed({"type": "ping"})
                    continue
                if isinstance(step, Text):
                    self._block_start(index, {"type": "text", "text": ""})
                    pieces = chunks(step.text, step.chunk)
                    deltas = [{"type": "text_delta", "text": p} for p in pieces]
                    self._block_deltas(index, deltas, step.delay)
                elif isinstance(step, Thinking):
                    self._block_start(index, {"type": "thinking", "thinking": "", "signature": ""})
                    pieces = chunks(step.text, step.chunk)
                    deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces]
                    self._block_deltas(index, deltas, step.delay)
                    signature = {
                        "type": "signature_delta",
                        "signature": "fakesig" + uuid.uuid4().hex,
                    }
                    self._block_deltas(index, [signature], 0.0)
                elif isinstance(step, Tool):
                    has_tool = True
                    name, args = _anthropic_tool(server, step, offered)
                    tool_id = "toolu_" + uuid.uuid4().hex[:24]
                    self._block_start(
                        index, {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
                    )
                    payload = json.dumps(args)
                    pieces = chunks(payload, max(1, len(payload) // 2 + 1))
                    deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
                    self._block_deltas(index, deltas, 0.05)
                self._typed({"type": "content_block_stop", "index": index})
            self._typed(
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": "tool_use" if has_tool else "end_turn",
                        "stop_sequence": None,
                    },
                    "usage": {"output_tokens": 40},
                }
            )
            self._typed({"type": "message_stop"})

        # -- OpenAI Responses (Codex) ----------------------------------------------------------
        def _responses(self, body: Json) -> None:
            reply, tools = _responses_reply(server, body)
            server.log({"route": "responses", "reply": [repr(s)[:80] for s in reply]})
            self._sse_start()
            resp_id = "resp_" + uuid.uuid4().hex[:24]
            base = {
                "id": resp_id,
                "object": "response",
                "created_at": int(time.time()),
                "status": "in_progress",
                "model": body.get("model", "gpt-fake"),
                "output": [],
            }
            self._typed({"type": "response.created", "response": base})
            out = 0
            for step in reply:
                if isinstance(step, Pause):
                    time.sleep(step.seconds)
                    continue
                if isinstance(step, Thinking):
                    item_id = "rs_" + uuid.uuid4().hex[:24]
                    self._typed(
                        {
                            "type": "response.output_item.added",
                            "output_index": out,
                            "item": {"type": "reasoning", "id": item_id, "summary": []},
                        }
                    )
                    self._item_deltas(step, "reasoning_summary_text", item_id, out, "summary_index")
                    self._typed(
                        {
                            "type": "response.output_item.done",
                            "output_index": out,
                            "item": {
                                "type": "reasoning",
                                "id": item_id,
                                "summary": [{"type": "summary_text", "text": step.text}],
                            },
                        }
                    )
                elif isinstance(step, Text):
                    item_id = "msg_" + uuid.uuid4().hex[:24]
                    self._typed(
                        {
                            "type": "response.output_item.added",
                            "output_index": out,
                            "item": {
                                "type": "message",
                                "id": item_id,
                                "role": "assistant",
                                "status": "in_progress",
                                "content": [],
                            },
                        }
                    )
                    self._typed(
                        {
                            "type": "response.content_part.added",
                            "item_id": item_id,
                            "output_index": out,
                            "content_index": 0,
                            "part": {"type": "output_text", "text": "", "annotations": []},
                        }
                    )
                    self._item_deltas(step, "output_text", item_id, out, "content_index")
                    self._typed(
                        {
                            "type": "response.output_item.done",
                            "output_index": out,
                            "item": {
                                "type": "message",
                                "id": item_id,
                                "role": "assistant",
                                "status": "completed",
                                "content": [
                                    {"type": "output_text", "text": step.text, "annotations": []}
                                ],
                            },
                        }
                    )
                elif isinstance(step, Tool):
                    item = _codex_tool(server, step, tools)
                    time.sleep(0.1)
                    self._typed(
                        {
                            "type": "response.output_item.added",
                            "output_index": out,
                            "item": {**item, "status": "in_progress"},
                        }
                    )
                    self._typed(
                        {"type": "response.output_item.done", "output_index": out, "item": item}
                    )
                out += 1
            self._typed(
                {
                    "type": "response.completed",
                    "response": {
                        **base,
                        "status": "completed",
                        "usage": {
                            "input_tokens": 50,
                            "input_tokens_details": {"cached_tokens": 0},
                            "output_tokens": 40,
                            "output_tokens_details": {"reasoning_tokens": 0},
                            "total_tokens": 90,
                        },
                    },
                }
            )

        def _item_deltas(
            self, step: Text | Thinking, kind: str, item_id: str, out: int, part: str
        ) -> None:
            """A Responses item's text in deltas (`response.<kind>.delta`), paced as the step
            says; `part` names the index of the part they belong to."""
            for piece in chunks(step.text, step.chunk):
                time.sleep(step.delay)
                self._typed(
                    {
                        "type": f"response.{kind}.delta",
                        "item_id": item_id,
                        "output_index": out,
                        part: 0,
                        "delta": piece,
                    }
                )

        # -- Gemini ------------------------------------------------------------------------------
        def _gemini(self, body: Json, path: str, stream: bool) -> None:
            model = path.rsplit("/", 1)[-1].split(":", 1)[0]
            schema = (body.get("generationConfig") or {}).get("responseJsonSchema") or (
                body.get("generationConfig") or {}
            ).get("responseSchema")
            if schema is not None:
                # Side questions (next speaker, model routing, loop checks) want JSON back.
                text = json.dumps(_fill_schema(schema))
                server.log({"route": "gemini-json", "reply": text[:200]})
                chunk = _gemini_chunk([{"text": text}], model, final=True)
                if stream:
                    self._sse_start()
                    self._sse(chunk)
                else:
                    self._json(chunk)
                return
            reply = _gemini_reply(server, body)
            server.log({"route": "gemini", "reply": [repr(s)[:80] for s in reply]})
            if not stream:
                parts = [p for step in reply for p in _gemini_parts(server, step, body)]
                self._json(_gemini_chunk(parts or [{"text": "OK."}], model, final=True))
                return
            self._sse_start()
            for step in reply:
                if isinstance(step, Pause):
                    time.sleep(step.seconds)
                    continue
                if isinstance(step, (Text, Thinking)):
                    for piece in chunks(step.text, step.chunk):
                        time.sleep(step.delay)
                        part: Json = {"text": piece}
                        if isinstance(step, Thinking):
                            part["thought"] = True
                        self._sse(_gemini_chunk([part], model, final=False))
                else:
                    time.sleep(0.1)
                    self._sse(_gemini_chunk(_gemini_parts(server, step, body), model, final=False))
            self._sse(_gemini_chunk([{"text": ""}], model, final=True))

        # -- Augment (Auggie) --------------------------------------------------------------------
        def _augment(self, body: Json) -> None:
            tools = augment_api.offered(body)
            if augment_api.is_side_request(body):
                reply = side_reply()
            else:
                prompt, index = augment_api.position(body, server.script)
                reply = server.script.reply_for(prompt, index)
            server.log({"route": "augment", "reply": [repr(s)[:80] for s in reply]})
            # NDJSON, one chunk per line; no Content-Length: the stream ends with the connection.
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for pause, chunk in augment_api.stream(reply, tools, server.dialect, server.abspath):
                time.sleep(pause)
                try:
                    self.wfile.write((json.dumps(chunk) + "\n").encode())
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError) as e:
                    raise _Gone from e

        # -- Amp's thread actor ---------------------------------------------------------------
        def _amp_thread(self) -> None:
            key = self.headers.get("Sec-WebSocket-Key", "")
            self.send_response(101)
            self.send_header("Upgrade", "websocket")
            self.send_header("Connection", "Upgrade")
            self.send_header("Sec-WebSocket-Accept", websocket.accept_key(key))
            # The client offers Rivet's subprotocols (`rivet, rivet_encoding.bare, ...`) and
            # drops a connection that takes none: take the first.
            offered = self.headers.get("Sec-WebSocket-Protocol", "")
            if offered:
                self.send_header("Sec-WebSocket-Protocol", offered.split(",")[0].strip())
            self.end_headers()
            self.wfile.flush()
            self.close_connection = True
            ws = websocket.WebSocket(self.rfile, self.wfile)
            amp_api.ThreadActor(
                ws,
                server.amp_thread,
                server.script,
                server.dialect,
                server.abspath,
                server.log,
                server.busy,
            ).run()

        # -- OpenAI chat completions (aider; most of the newer agents) --------------------------
        def _chat(self, body: Json) -> None:
            offered = offered_tools(body)
            reply = _chat_reply(server, body, offered)
            server.log({"route": "chat", "reply": [repr(s)[:80] for s in reply]})
            model = str(body.get("model", "gpt-fake"))
            cid = "chatcmpl-" + uuid.uuid4().hex[:20]
            created = int(time.time())
            calls = [_chat_call(server, s, offered) for s in reply if isinstance(s, Tool)]
            calls = [c for c in calls if c is not None]
            finish = "tool_calls" if calls else "stop"
            usage = {"prompt_tokens": 50, "completion_tokens": 40, "total_tokens": 90}
            if not body.get("stream"):
                text = "".join(
                    _chat_text(server, s, offered) for s in reply if not isinstance(s, Thinking)
                )
                message: Json = {"role": "assistant", "content": text}
                if calls:
                    message["tool_calls"] = calls
                self._json(
                    {
                        "id": cid,
                        "object": "chat.completion",
                        "created": created,
                        "model": model,
                        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                        "usage": usage,
                    }
                )
                return
            self._sse_start()

            def delta(d: Json, finish: str | None = None) -> None:
                self._sse(
                    {
                        "id": cid,
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [{"index": 0, "delta": d, "finish_reason": finish}],
                    }
                )

            delta({"role": "assistant", "content": ""})
            call_index = 0
            for step in reply:
                if isinstance(step, Pause):
                    time.sleep(step.seconds)
                    continue
                if isinstance(step, Thinking):
                    for piece in chunks(step.text, step.chunk):
                        time.sleep(step.delay)
                        delta({"reasoning_content": piece})
                    continue
                call = _chat_call(server, step, offered) if isinstance(step, Tool) else None
                if call is not None:
                    # The name first, then the arguments in two pieces, as real servers stream.
                    time.sleep(0.1)
                    head = {**call, "index": call_index, "function": {**call["function"]}}
                    args = head["function"].pop("arguments")
                    head["function"]["arguments"] = ""
                    delta({"tool_calls": [head]})
                    for piece in chunks(args, max(1, len(args) // 2 + 1)):
                        time.sleep(0.05)
                        delta(
                            {
                                "tool_calls": [
                                    {"index": call_index, "function": {"arguments": piece}}
                                ]
                            }
                        )
                    call_index += 1
                    continue
                text = step.text if isinstance(step, Text) else _chat_text(server, step, offered)
                chunk_size = step.chunk if isinstance(step, Text) else 24
                pause = step.delay if isinstance(step, Text) else 0.03
                for piece in chunks(text, chunk_size):
                    time.sleep(pause)
                    delta({"content": piece})
            delta({}, finish=finish)
            self._sse(
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
            self._sse("[DONE]")

    return Handler


# -- routing and conversation position ----------------------------------------------------------


# The route of a request by how its path ends, the first match winning.
ROUTES = (
    ("/messages/count_tokens", "anthropic_count"),
    ("/messages", "anthropic"),
    ("/responses", "responses"),
    (":streamGenerateContent", "gemini_stream"),
    (":generateContent", "gemini"),
    (":countTokens", "gemini_count"),
    ("/chat/completions", "chat"),
)


def _route(path: str) -> str:
    amp = amp_api.route(path)
    if amp is not None:
        return amp
    augment = augment_api.route(path)
    if augment is not None:
        return augment
    return next((route for end, route in ROUTES if path.endswith(end)), "unknown")


def _summary(body: Json) -> Json:
    """A small record of a request: enough to see which turn/step it was, not the whole prompt."""
    out: Json = {k: body[k] for k in ("model", "stream", "max_tokens") if k in body}
    tools = body.get("tools")
    if isinstance(tools, list):
        names: list[str] = []
        for t in tools:
            if isinstance(t, dict):
                if "functionDeclarations" in t:
                    names += [str(f.get("name")) for f in t["functionDeclarations"]]
                else:
                    names.append(
                        str(t.get("name") or (t.get("function") or {}).get("name") or t.get("type"))
                    )
        out["tools"] = names
    if isinstance(body.get("tool_definitions"), list):  # Augment
        out["tools"] = list(augment_api.offered(body))
    return out


def _is_reminder(text: str) -> bool:
    t = text.lstrip()
    return (
        t.startswith("<system-reminder>")
        or t.startswith("<environment_context>")
        or t.startswith("<user_instructions>")
        or t.startswith("# AGENTS.md")
    )


def _anthropic_position(messages: list[Json]) -> tuple[str, int]:
    prompt, index = "", 0
    for msg in messages:
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            if not _is_reminder(content):
                prompt, index = content, 0
            continue
        if not isinstance(content, list):
            continue
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            index += 1
            continue
        texts = [
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ]
        real = [t for t in texts if not _is_reminder(t)]
        if real:
            prompt, index = "\n".join(real), 0
    return prompt, index


# Plan mode (Claude Code 2.0 on) wants the plan written to a file of its own first; the path is
# only in the plan-mode reminder of the request: `…/.claude/plans/<slug>.md`.
PLAN_FILE = re.compile(r"(/[^\s`'\"()]+/plans/[\w-]+\.md)")


def _anthropic_reply(server: FakeModelServer, body: Json) -> Reply:
    if not body.get("tools"):
        return side_reply()
    _note_plan_file(server, list(body.get("messages") or []))
    prompt, index = _anthropic_position(list(body.get("messages") or []))
    return server.script.reply_for(prompt, index)


def _claude_tool(server: FakeModelServer, step: Tool) -> tuple[str, Json]:
    a = step.args
    if step.kind == "bash":
        return "Bash", {"command": a["command"], "description": a.get("description", "")}
    if step.kind == "read":
        return "Read", {"file_path": server.abspath(a["path"])}
    if step.kind == "edit":
        return "Edit", {
            "file_path": server.abspath(a["path"]),
            "old_string": a["old"],
            "new_string": a["new"],
        }
    if step.kind == "write":
        return "Write", {"file_path": server.abspath(a["path"]), "content": a["content"]}
    if step.kind == "plan":
        return "ExitPlanMode", {"plan": a["plan"]}
    if step.kind == "plan_file":
        path = server.plan_file or server.abspath("PLAN.md")
        return "Write", {"file_path": path, "content": a["plan"]}
    if step.kind == "question":
        return "AskUserQuestion", {
            "questions": [
                {
                    "question": a["question"],
                    "header": a.get("header", "Question"),
                    "multiSelect": False,
                    "options": [{"label": lab, "description": desc} for lab, desc in a["options"]],
                }
            ]
        }
    raise ValueError(f"Claude has no tool for {step.kind!r}")


def _anthropic_tool(
    server: FakeModelServer, step: Tool, offered: dict[str, Json]
) -> tuple[str, Json]:
    """Claude Code's own tool when the request offers it (or lists no tools); otherwise the
    offered tool of that kind (another agent on the Messages API: Copilot)."""
    forced = server.dialect.tools.get(step.kind)
    if forced is not None and forced.applies(offered):
        return forced.name, forced.args(_neutral(server, step))
    name, args = _claude_tool(server, step)
    if not offered or name in offered:
        return name, args
    return shape_call(step.kind, _neutral(server, step), offered, server.dialect) or (name, args)


def _anthropic_message(
    server: FakeModelServer, reply: Reply, model: str, offered: dict[str, Json]
) -> Json:
    content: list[Json] = []
    for step in reply:
        if isinstance(step, Text):
            content.append({"type": "text", "text": step.text})
        elif isinstance(step, Tool):
            name, args = _anthropic_tool(server, step, offered)
            content.append(
                {
                    "type": "tool_use",
                    "id": "toolu_" + uuid.uuid4().hex[:24],
                    "name": name,
                    "input": args,
                }
            )
    has_tool = any(c["type"] == "tool_use" for c in content)
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if has_tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 40},
    }


def _responses_position(items: list[Json]) -> tuple[str, int]:
    prompt, index = "", 0
    for item in items:
        kind = item.get("type", "message")
        if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            index += 1
        elif kind == "message" and item.get("role") == "user":
            content = item.get("content")
            texts = (
                [content]
                if isinstance(content, str)
                else [str(c.get("text", "")) for c in (content or []) if isinstance(c, dict)]
            )
            real = [t for t in texts if not _is_reminder(t)]
            if real:
                prompt, index = "\n".join(real), 0
    return prompt, index


def _tool_names(body: Json) -> dict[str, Json]:
    out: dict[str, Json] = {}
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            name = t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
            out[str(name)] = t
    return out


def _responses_reply(server: FakeModelServer, body: Json) -> tuple[Reply, dict[str, Json]]:
    tools = _tool_names(body)
    if not tools:
        return side_reply(), tools
    prompt, index = _responses_position(list(body.get("input") or []))
    return server.script.reply_for(prompt, index), tools


def _patch_for(server: FakeModelServer, step: Tool) -> str:
    """An apply_patch envelope for an edit or a new file."""
    path = step.args["path"]
    if step.kind == "write":
        body = "".join("+" + line + "\n" for line in step.args["content"].splitlines())
        return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
    old = "".join("-" + line + "\n" for line in step.args["old"].splitlines())
    new = "".join("+" + line + "\n" for line in step.args["new"].splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{old}{new}*** End Patch\n"


def _mcp_name(wanted: str, tools: dict[str, Json]) -> tuple[str, str | None]:
    """(tool name, namespace) of the offered MCP tool whose name ends with `wanted`: flat names
    (`mcp__lab__lab_note`) or a tool inside a namespace entry (`{type: namespace, tools}`)."""
    for name, spec in tools.items():
        for inner in spec.get("tools") or []:
            if isinstance(inner, dict) and str(inner.get("name", "")).endswith(wanted):
                return str(inner["name"]), name
        if name.endswith(wanted):
            return name, None
    return wanted, None


def _codex_tool(server: FakeModelServer, step: Tool, tools: dict[str, Json]) -> Json:
    call_id = "call_" + uuid.uuid4().hex[:20]
    if step.kind == "mcp":
        # A tool of an MCP server the agent was configured with (tools/agentlab/mcp_server.py).
        name, namespace = _mcp_name(str(step.args["tool"]), tools)
        item: Json = {
            "type": "function_call",
            "id": "fc_" + call_id,
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(step.args.get("args", {})),
            "status": "completed",
        }
        if namespace is not None:
            item["namespace"] = namespace
        return item
    if step.kind in ("edit", "write"):
        patch = _patch_for(server, step)
        spec = tools.get("apply_patch")
        if spec is not None and spec.get("type") == "custom":
            return {
                "type": "custom_tool_call",
                "id": "ctc_" + call_id,
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
                "status": "completed",
            }
        if spec is not None:
            return {
                "type": "function_call",
                "id": "fc_" + call_id,
                "call_id": call_id,
                "name": "apply_patch",
                "arguments": json.dumps({"input": patch}),
                "status": "completed",
            }
        # No apply_patch tool offered: codex also accepts the patch through the shell tool.
        step = Tool("bash", {"command": "apply_patch <<'EOF'\n" + patch + "EOF"})
    command = step.args["command"]
    if "shell_command" in tools:
        name, args = "shell_command", {"command": command, "workdir": str(server.cwd)}
    elif "exec_command" in tools:
        name, args = "exec_command", {"cmd": command, "workdir": str(server.cwd)}
    else:
        name, args = "shell", {"command": ["bash", "-lc", command], "workdir": str(server.cwd)}
    return {
        "type": "function_call",
        "id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(args),
        "status": "completed",
    }


def _gemini_position(contents: list[Json]) -> tuple[str, int]:
    prompt, index = "", 0
    for c in contents:
        if c.get("role") != "user":
            continue
        parts = [p for p in c.get("parts") or [] if isinstance(p, dict)]
        if any("functionResponse" in p for p in parts):
            index += 1
            continue
        texts = [str(p.get("text", "")) for p in parts if "text" in p]
        if texts:
            prompt, index = "\n".join(texts), 0
    return prompt, index


def _gemini_reply(server: FakeModelServer, body: Json) -> Reply:
    if not body.get("tools"):
        return side_reply()
    prompt, index = _gemini_position(list(body.get("contents") or []))
    return server.script.reply_for(prompt, index)


def _gemini_param(body: Json, tool: str, candidates: tuple[str, ...]) -> str:
    """The first of `candidates` that the tool declares (its parameter names change often)."""
    for t in body.get("tools") or []:
        for f in (t or {}).get("functionDeclarations") or []:
            if f.get("name") == tool:
                schema = f.get("parametersJsonSchema") or f.get("parameters") or {}
                props = schema.get("properties") or {}
                for c in candidates:
                    if c in props:
                        return c
    return candidates[0]


def _gemini_parts(server: FakeModelServer, step: Any, body: Json) -> list[Json]:
    if isinstance(step, Text):
        return [{"text": step.text}]
    if isinstance(step, Thinking):
        return [{"text": step.text, "thought": True}]
    if not isinstance(step, Tool):
        return []
    a = step.args
    if step.kind == "bash":
        call: Json = {
            "name": "run_shell_command",
            "args": {"command": a["command"], "description": a.get("description", "")},
        }
    elif step.kind == "read":
        key = _gemini_param(body, "read_file", ("file_path", "absolute_path", "path"))
        call = {"name": "read_file", "args": {key: server.abspath(a["path"])}}
    elif step.kind == "edit":
        key = _gemini_param(body, "replace", ("file_path", "absolute_path", "path"))
        call = {
            "name": "replace",
            "args": {
                key: server.abspath(a["path"]),
                "old_string": a["old"],
                "new_string": a["new"],
                "instruction": a.get("description", "edit"),
            },
        }
    elif step.kind == "write":
        key = _gemini_param(body, "write_file", ("file_path", "absolute_path", "path"))
        call = {
            "name": "write_file",
            "args": {key: server.abspath(a["path"]), "content": a["content"]},
        }
    else:
        return [{"text": f"(no {step.kind} tool here)"}]
    return [{"functionCall": call}]


def _gemini_chunk(parts: list[Json], model: str, final: bool) -> Json:
    cand: Json = {"content": {"role": "model", "parts": parts}, "index": 0}
    if final:
        cand["finishReason"] = "STOP"
    return {
        "candidates": [cand],
        "modelVersion": model,
        "usageMetadata": {
            "promptTokenCount": 50,
            "candidatesTokenCount": 40,
            "totalTokenCount": 90,
        },
    }


def _fill_schema(schema: Json) -> Any:
    """A plausible value for a JSON schema; answers that steer the agent back to the user."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    kind = str(kind or "object").lower()
    if "enum" in schema:
        enum = list(schema["enum"])
        for preferred in ("user", "flash", "false"):
            if preferred in enum:
                return preferred
        return enum[0]
    if kind == "object":
        out: Json = {}
        for key, sub in (schema.get("properties") or {}).items():
            if key == "next_speaker":
                out[key] = "user"
            elif key == "model_choice":
                out[key] = "flash"
            else:
                out[key] = _fill_schema(sub if isinstance(sub, dict) else {})
        return out
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return 0
    if kind == "boolean":
        return False
    return "ok"


def _chat_last_user(messages: list[Json]) -> str:
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return _message_text(msg)
    return ""


def _message_text(msg: Json, skip_reminders: bool = False) -> str:
    """A message's text; `skip_reminders` leaves out the parts that are reminders (Qwen Code
    0.2x sends its context reminders and the prompt as parts of one user message)."""
    content = msg.get("content")
    if isinstance(content, list):
        parts = [str(c.get("text", "")) for c in content if isinstance(c, dict)]
        if skip_reminders:
            parts = [t for t in parts if not _is_reminder(t)]
        return "\n".join(parts)
    return str(content or "")


def _chat_position(messages: list[Json], script: Script) -> tuple[str, int]:
    """The prompt and how many tool rounds followed it. A user message is a new prompt unless it
    is a reminder, or an unscripted text after a scripted prompt: some agents add user messages
    of their own between tool rounds (notes, context), and taking one of those for a prompt
    would replay the turn's first tool call forever."""
    prompt, index = "", 0
    for msg in messages:
        role = msg.get("role")
        if role == "assistant" and msg.get("tool_calls"):
            index += 1
        elif role == "user":
            text = _message_text(msg, skip_reminders=True)
            if not text.strip() or _is_reminder(text):
                continue
            if script.has_turn(text) or not script.has_turn(prompt):
                prompt, index = text, 0
    return prompt, index


def _chat_reply(server: FakeModelServer, body: Json, offered: dict[str, Json]) -> Reply:
    messages = list(body.get("messages") or [])
    if server.dialect.tools_in_text:
        # aider: no tools at all; every request is a turn, answered in one reply.
        return server.script.reply_for(_chat_last_user(messages), 0)
    if not offered or set(offered) <= server.dialect.side_tools:
        # A side request (session title, summary, compaction): never the scripted turn.
        schema = _chat_json_schema(body)
        if schema is not None:
            return [Text(json.dumps(_fill_schema(schema)), chunk=4096, delay=0.0)]
        return side_reply()
    _note_plan_file(server, messages)
    prompt, index = _chat_position(messages, server.script)
    return server.script.reply_for(prompt, index)


def _note_plan_file(server: FakeModelServer, messages: list[Json]) -> None:
    """Plan mode names the plan file in a reminder of the request (Claude Code's
    `…/.claude/plans/<slug>.md`, Kimi Code's `Plan file: <session>/agents/<id>/plans/<id>.md`):
    `plan_file` steps write there."""
    found = PLAN_FILE.search(json.dumps(messages, ensure_ascii=False))
    if found:
        server.plan_file = found.group(1)


def _chat_json_schema(body: Json) -> Json | None:
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else {"type": "object"}
    return None


def _chat_call(server: FakeModelServer, step: Any, offered: dict[str, Json]) -> Json | None:
    """A chat completions tool call for a script step, or None (no such tool: said as text)."""
    if server.dialect.tools_in_text or not isinstance(step, Tool):
        return None
    step = _plan_file_write(server, step)
    shaped = shape_call(step.kind, _neutral(server, step), offered, server.dialect)
    if shaped is None:
        return None
    name, args = shaped
    return {
        "id": "call_" + uuid.uuid4().hex[:20],
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _plan_file_write(server: FakeModelServer, step: Tool) -> Tool:
    """A `plan_file` step is the agent's own write tool, aimed at the plan file the request
    named (else PLAN.md in the project)."""
    if step.kind != "plan_file":
        return step
    path = server.plan_file or server.abspath("PLAN.md")
    return Tool("write", {"path": path, "content": step.args["plan"]})


def _neutral(server: FakeModelServer, step: Tool) -> Json:
    """The step's neutral arguments with the path made absolute (inside the project)."""
    args = dict(step.args)
    if "path" in args:
        args["path"] = server.abspath(str(args["path"]))
    return args


def _chat_text(server: FakeModelServer, step: Any, offered: dict[str, Json]) -> str:
    """Answer text of a step. aider has no tool calls: shell commands and files are fenced
    blocks in the answer; an agent that offers no tool of a kind gets a note instead."""
    if isinstance(step, Text):
        return step.text
    if isinstance(step, Tool) and not server.dialect.tools_in_text:
        step = _plan_file_write(server, step)
        if shape_call(step.kind, _neutral(server, step), offered, server.dialect) is not None:
            return ""  # sent as a tool call
        return f"(no {step.kind} tool here)"
    if isinstance(step, Tool):
        a = step.args
        if step.kind == "bash":
            return f"\n```bash\n{a['command']}\n```\n"
        if step.kind in ("write", "edit"):
            # aider's "diff" edit format: a SEARCH/REPLACE block; empty SEARCH = new file.
            old = a.get("old", "") if step.kind == "edit" else ""
            new = a.get("new", "") if step.kind == "edit" else a.get("content", "")
            return (
                f"\n{a['path']}\n```\n<<<<<<< SEARCH\n{old}{chr(10) if old else ''}"
                f"=======\n{new.rstrip(chr(10))}\n>>>>>>> REPLACE\n```\n"
            )
    return ""


def iter_log(path: Path) -> Iterator[Json]:
    if path.exists():
        for line in path.read_text().splitlines():
            yield json.loads(line)
