"""Amp's own server (ampcode.com), as the Amp CLI speaks to it: just enough to run the real CLI
offline against the lab's fake server. Amp talks to nothing else: no OpenAI or Anthropic route,
and the agent loop itself runs on the server (a "thread actor"); the CLI draws the thread and
runs the tools the server hands it. So this module plays that actor, from the fake model's
script. fakeserver.py routes the paths below here; AMP_URL points the CLI at the fake server.

What the CLI sends and expects (read from its requests in the lab, and from the validators in
the JavaScript bundled in the binary of @ampcode/cli-linux-x64 0.0.1790142911):

- `POST /api/internal?<method>` with `{"method", "params"}`, answered `{"ok": true, "result"}`:
  `getUserInfo` (the user), `listAgentModes`, `loadPlugins`, `loadSkills`, `notices` (a list:
  null breaks the start screen's drawing), `splashDispatch`, ... (null results are fine);
- `POST /api/user-actor-credentials` -> `{userId, wsToken, poolName}` and a WebSocket to
  `/actors/gateway/userActor/connect` (Rivet's actor protocol, BARE-encoded: thread lists and
  drafts; not served here, the CLI retries it in the background and works without it);
- `POST /api/thread-actors` -> `{threadId: "T-<uuid>", wsToken, ownerUserId, threadVersion,
  poolName}` when the first prompt is sent, then a WebSocket to
  `/actors/gateway/threadActor/websocket/?rvt-key=<threadId>...`: JSON-RPC 2.0, each server
  message a notification whose `method` is its type. The CLI sends `executor_connect` (answered
  by the notification `executor_connected`), `client_append_user_msg` (a prompt), `client_cancel`
  (Esc), `executor_tool_lease_ack`, `executor_tool_result`, snapshots of its environment, tools
  (`executor_tools_register`: `shell_command`, `edit_file`, `create_file`, `Read`, ...) and
  skills, and the text `ping` (answered `pong`, else it reconnects); every request gets a result.
  The server sends `agent_state` (`working`, `streaming`, `tool_use`, `running_tools`, `idle`),
  `message_added` (user and assistant messages: ids `M-` + 22 letters or digits), `delta` (the
  assistant message streaming, whole-content snapshots), `tool_lease` (run this tool call:
  `TU-` ids), `executor_tool_result_ack`, `cancelled`.
- Permissions are the CLI's own (`amp.permissions` in its settings file): the approval dialog is
  drawn by the client before it runs the tool, without asking the server.
"""

from __future__ import annotations

import json
import queue
import random
import string
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.agentlab.dialect import Dialect, shape_call
from tools.agentlab.script import Pause, Reply, Script, Text, Thinking, Tool, chunks
from tools.agentlab.websocket import WebSocket

Json = dict[str, Any]

USER_ID = "lab-user"
POOL = "lab-pool"

_INTERNAL: dict[str, Any] = {
    "getUserInfo": {
        "id": USER_ID,
        "email": "lab@example.invalid",
        "username": "lab",
        "features": [],
        "team": None,
    },
    "listAgentModes": [],
    "loadPlugins": [],
    "loadSkills": [],
    "notices": [],
}


# Amp's API paths (no other agent's: an OpenAI-style base URL may also start with /api/).
_API = ("/api/internal", "/api/thread-actors", "/api/user-actor-credentials", "/api/telemetry")


def route(path: str) -> str | None:
    """The fake server's route for an Amp path (no query), or None when it is not one."""
    if path.startswith("/actors/gateway/threadActor/websocket"):
        return "amp_thread"
    if path.startswith("/actors/gateway/"):
        return "amp_actor"  # the user actor: not served
    if path in _API or path.startswith("/api/thread-actors/"):
        return "amp"
    return None


def http_answer(path: str, thread_id: str) -> tuple[int, Json]:
    """(status, JSON body) for a plain Amp API call."""
    bare, _, query = path.partition("?")
    if bare == "/api/internal":
        return 200, {"ok": True, "result": _INTERNAL.get(query)}
    if bare == "/api/thread-actors":
        return 200, {
            "threadId": thread_id,
            "wsToken": "lab-thread-token",
            "ownerUserId": USER_ID,
            "threadVersion": 0,
            "poolName": POOL,
            "usesThreadActors": True,
            "capability": "execute",
        }
    if bare == "/api/user-actor-credentials":
        return 200, {"userId": USER_ID, "wsToken": "lab-user-token", "poolName": POOL}
    if bare == "/api/telemetry":
        return 200, {}
    return 404, {"error": f"no route for {bare}"}


def new_thread_id() -> str:
    return f"T-{uuid.uuid4()}"


def _rid(prefix: str) -> str:
    alphabet = string.ascii_letters + string.digits
    return prefix + "".join(random.choice(alphabet) for _ in range(22))


def prompt_text(content: Any) -> str:
    return "\n".join(
        str(b.get("text") or "")
        for b in content or []
        if isinstance(b, dict) and b.get("type") == "text"
    )


@dataclass
class _Turn:
    """One prompt being answered: which tool round it is at, and how it ends."""

    prompt: str
    cancel: threading.Event = field(default_factory=threading.Event)
    results: queue.Queue[Json] = field(default_factory=queue.Queue)


class ThreadActor:
    """One WebSocket of the CLI to its thread: answers its JSON-RPC, plays the script's replies
    (each in a thread of its own, so the socket keeps being read: tool results, Esc)."""

    def __init__(
        self,
        ws: WebSocket,
        thread_id: str,
        script: Script,
        dialect: Dialect,
        abspath: Callable[[str], str],
        log: Callable[[Json], None],
        busy: Callable[[int], None],
    ) -> None:
        self.ws = ws
        self.thread_id = thread_id
        self.script = script
        self.dialect = dialect
        self.abspath = abspath
        self.log = log
        self.busy = busy  # +1 when a turn starts, -1 when it ends (the server's inflight count)
        self.seq = 0
        self.tools: dict[str, Json] = {}
        # The CLI registers its tools only after the first prompt is sent: a reply waits for them.
        self.tools_ready = threading.Event()
        self.turn: _Turn | None = None
        self.prompt = ""  # the last scripted prompt: unscripted text after it is not a prompt

    # -- the socket ----------------------------------------------------------------------------
    def run(self) -> None:
        while True:
            raw = self.ws.recv()
            if raw is None:
                break
            if raw == "ping":
                self.ws.send("pong")
                continue
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue
            method = str(msg.get("method") or "")
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            self.log({"amp": "in", "method": method, "summary": _summary(method, params)})
            if "id" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
            self._on(method, params)
        if self.turn is not None:
            self.turn.cancel.set()

    def _send(self, obj: Json) -> None:
        self.ws.send(json.dumps(obj))

    def note(self, kind: str, **params: Any) -> None:
        self.log({"amp": "out", "method": kind, "summary": _summary(kind, params)})
        self._send({"jsonrpc": "2.0", "method": kind, "params": params})

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def message(self, role: str, content: list[Json], mid: str, **extra: Any) -> None:
        msg = {"threadId": self.thread_id, "role": role, "content": content, "messageId": mid}
        self.note("message_added", message={**msg, **extra}, seq=self.next_seq())

    # -- what the CLI sends ----------------------------------------------------------------------
    def _on(self, method: str, p: Json) -> None:
        if method == "executor_connect":
            self.note(
                "executor_connected",
                executorId=str(p.get("clientId") or "lab-executor"),
                registeredToolCount=len(self.tools),
                guidanceInventory=[],
            )
            if self.turn is None:
                self.note("agent_state", state="idle")
        elif method == "executor_tools_register":
            for tool in p.get("tools") or []:
                if isinstance(tool, dict) and tool.get("name"):
                    schema = tool.get("inputSchema")
                    self.tools[str(tool["name"])] = schema if isinstance(schema, dict) else {}
        elif method == "executor_tools_bootstrap_complete":
            self.tools_ready.set()
        elif method == "client_append_user_msg":
            self._start(p)
        elif method == "client_cancel":
            if self.turn is not None:
                self.turn.cancel.set()
        elif method == "executor_tool_result":
            self.note("executor_tool_result_ack", toolCallId=p.get("toolCallId"))
            if self.turn is not None:
                self.turn.results.put(p)

    def _start(self, p: Json) -> None:
        mid = str(p.get("messageId") or _rid("M-"))
        content = p.get("content") if isinstance(p.get("content"), list) else []
        self.message("user", content, mid)
        text = prompt_text(content)
        if self.script.has_turn(text) or not self.script.has_turn(self.prompt):
            self.prompt = text
        if self.turn is not None:
            self.turn.cancel.set()
        turn = _Turn(self.prompt)
        self.turn = turn
        self.note("agent_state", state="working", messageId=mid)
        threading.Thread(target=self._play, args=(turn,), daemon=True).start()

    # -- the model's side ------------------------------------------------------------------------
    def _play(self, turn: _Turn) -> None:
        self.busy(1)
        try:
            self.tools_ready.wait(15)
            index = 0
            while not turn.cancel.is_set():
                reply = self.script.reply_for(turn.prompt, index)
                self.log({"route": "amp", "reply": [repr(s)[:80] for s in reply]})
                calls = self._answer(reply, turn)
                if turn.cancel.is_set():
                    break
                if not calls:
                    self.note("agent_state", state="idle")
                    return
                results = self._run_tools(calls, turn)
                if results is None:
                    break
                if any(rejected(r) for r in results):
                    # as a model told "no" would: a short answer, no further tool round
                    self._answer(self.script.fallback, turn)
                    break
                index += 1
            if self.turn is turn:
                self.note("agent_state", state="idle")
        finally:
            self.busy(-1)

    def _answer(self, reply: Reply, turn: _Turn) -> list[tuple[str, str, Json]]:
        """Streams one assistant message; returns its tool calls (id, name, args)."""
        mid = _rid("M-")
        blocks: list[Json] = []
        calls: list[tuple[str, str, Json]] = []

        def delta(state: str) -> None:
            self.note(
                "delta",
                messageId=mid,
                role="assistant",
                blocks=blocks,
                # the blocks from this index on are replaced (the CLI adds the index to each)
                blockIndex=0,
                contentMode="snapshot",
                state=state,
            )

        self.note("agent_state", state="streaming", messageId=mid)
        delta("start")
        for step in reply:
            if turn.cancel.is_set():
                break
            if isinstance(step, Pause):
                turn.cancel.wait(step.seconds)
            elif isinstance(step, Text | Thinking):
                kind = "text" if isinstance(step, Text) else "thinking"
                block: Json = {"type": kind, kind: ""}
                blocks.append(block)
                for piece in chunks(step.text, step.chunk):
                    if turn.cancel.wait(step.delay):
                        break
                    block[kind] += piece
                    delta("generating")
                if kind == "thinking":
                    block["signature"] = "lab"
            elif isinstance(step, Tool):
                neutral = dict(step.args)
                if "path" in neutral:
                    neutral["path"] = self.abspath(str(neutral["path"]))
                shaped = shape_call(step.kind, neutral, self.tools, self.dialect)
                if shaped is None:
                    blocks.append({"type": "text", "text": f"(no {step.kind} tool here)"})
                    continue
                name, args = shaped
                call_id = _rid("TU-")
                use = {"type": "tool_use", "id": call_id, "name": name, "complete": True}
                blocks.append({**use, "input": args})
                calls.append((call_id, name, args))
                delta("tool_use")
                time.sleep(0.1)
        state = "cancelled" if turn.cancel.is_set() else "complete"
        self.message("assistant", blocks, mid, state={"type": state})
        if turn.cancel.is_set():
            self.note("cancelled", seq=self.next_seq(), messageId=mid)
            calls = []
        return calls

    def _run_tools(self, calls: list[tuple[str, str, Json]], turn: _Turn) -> list[Json] | None:
        """Leases each call to the CLI and waits for its result; the results, or None when the
        turn was cancelled meanwhile or a call failed to run."""
        mid = _rid("M-")
        self.note("agent_state", state="running_tools", messageId=mid)
        results: list[Json] = []
        for call_id, name, args in calls:
            self.note("tool_lease", toolCallId=call_id, toolName=name, args=args, messageId=mid)
            while not turn.cancel.is_set():
                try:
                    got = turn.results.get(timeout=0.2)
                except queue.Empty:
                    continue
                if got.get("toolCallId") == call_id:
                    results.append(got)
                    break
        if turn.cancel.is_set():
            return None
        content = [
            {"type": "tool_result", "toolUseID": r["toolCallId"], "run": r.get("run") or {}}
            for r in results
        ]
        self.message("user", content, _rid("M-"))
        ok = all((r.get("run") or {}).get("status") == "done" for r in results)
        return results if ok else None


def rejected(result: Json) -> bool:
    """A call the person rejected at the CLI's dialog: it comes back `done`, its result the
    rejection ("Tool rejected by plugin: <their feedback>")."""
    out = (result.get("run") or {}).get("result")
    return isinstance(out, str) and out.startswith("Tool rejected")


def _summary(method: str, params: Json) -> Json:
    """A small record of one JSON-RPC message for the request log."""
    out: Json = {}
    for key in ("state", "toolCallId", "toolName", "messageId", "clientId"):
        if key in params:
            out[key] = params[key]
    if method == "client_append_user_msg":
        out["text"] = prompt_text(params.get("content"))[:120]
    if method == "executor_tool_result":
        out["run"] = str(params.get("run"))[:200]
    if method == "executor_tools_register":
        out["tools"] = [t.get("name") for t in params.get("tools") or [] if isinstance(t, dict)]
    if method == "message_added":
        msg = params.get("message") or {}
        out["role"] = msg.get("role")
        out["blocks"] = [b.get("type") for b in msg.get("content") or []]
    return out
