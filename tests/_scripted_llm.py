"""A scripted model behind a loopback OpenAI-compatible server (real HTTP on 127.0.0.1).

It speaks the protocol the agent uses: POST /v1/chat/completions with ``stream: true`` gets
server-sent events -- text in small pieces, ``tool_calls`` whose arguments arrive split over
several deltas (as real servers send them), a final usage event -- and GET /v1/models lists one
model. What it answers is a script: a list of steps, each

* ``{"say": "text"}`` -- a final answer,
* ``{"call": [("tool", {args}), ...]}`` -- tool calls,
* or a function ``(messages) -> step`` that looks at the conversation so far.

A request without ``tools`` (the agent's summary request when compacting) is answered with a
summary and does not use a step. ``native=False`` plays a model without tool calls: a request
with ``tools`` is refused (400) and calls are sent as the documented JSON text instead.
Shared by tests/test_agent*.py and benchmarks/agent_tasks.py.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from _loopback_server import JSONHandler, LoopbackServer

Step = dict | Callable[[list[dict]], dict]


def last_tool_result(messages: list[dict]) -> str:
    for m in reversed(messages):
        if m.get("role") == "tool":
            return m.get("content") or ""
    return ""


class ScriptedLLM(LoopbackServer):
    def __init__(self, steps: list[Step] | None = None, *, native: bool = True, delay: float = 0.0) -> None:
        self.steps: list[Step] = list(steps or [])
        self.native = native
        self.delay = delay  # seconds per request: a model's think time, for kill tests
        self.requests: list[dict[str, Any]] = []
        self.raw_sizes: list[int] = []
        self.used = 0
        self._lock = threading.Lock()
        super().__init__()

    def play(self, steps: list[Step]) -> None:
        with self._lock:
            self.steps, self.used = list(steps), 0
            self.requests.clear()
            self.raw_sizes.clear()

    def next_step(self, messages: list[dict]) -> dict:
        with self._lock:
            if self.used >= len(self.steps):
                return {"say": "The script is over."}
            step = self.steps[self.used]
            self.used += 1
        return step(messages) if callable(step) else step

    def _handler(self):
        model = self

        class Handler(JSONHandler):
            def do_GET(self):
                self._json(200, {"object": "list", "data": [{"id": "scripted-1", "object": "model"}]})

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw)
                if not self.path.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                if body.get("tools") and not model.native:
                    self._json(400, {"error": {"message": "this model does not support tools"}})
                    return
                with model._lock:
                    model.requests.append(body)
                    model.raw_sizes.append(len(raw))
                if model.delay:
                    time.sleep(model.delay)
                if not body.get("tools") and model.native or body["messages"][0]["content"].startswith(
                        "You summarise"):
                    step = {"say": "Earlier turns: " + " / ".join(
                        (m.get("content") or "")[:60].replace("\n", " ") for m in body["messages"][1:])[:400]}
                else:
                    step = model.next_step(body["messages"])
                self._stream(body, step, len(raw))

            def _stream(self, body: dict, step: dict, size: int) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                base = {"id": "s1", "object": "chat.completion.chunk", "model": body["model"]}

                def event(obj) -> None:
                    self.wfile.write(f"data: {obj if isinstance(obj, str) else json.dumps(obj)}\n\n".encode())

                event({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
                text = step.get("say", "")
                calls = step.get("call") or []
                if calls and not model.native:  # the JSON fallback: one call as text
                    name, args = calls[0]
                    text, calls = json.dumps({"tool": name, "arguments": args}), []
                for i in range(0, len(text), 12):
                    event({**base, "choices": [{"index": 0, "delta": {"content": text[i:i + 12]}}]})
                for n, (name, args) in enumerate(calls):
                    payload = json.dumps(args)
                    event({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                        {"index": n, "id": f"tc_{time.time_ns()}_{n}", "type": "function",
                         "function": {"name": name, "arguments": ""}}]}}]})
                    for i in range(0, len(payload), 16):  # arguments arrive in pieces
                        event({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                            {"index": n, "function": {"arguments": payload[i:i + 16]}}]}}]})
                finish = "tool_calls" if calls else "stop"
                event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                if (body.get("stream_options") or {}).get("include_usage"):
                    event({**base, "choices": [], "usage": {"prompt_tokens": size // 4,
                                                            "completion_tokens": 1 + len(text) // 4 + 20 * len(calls)}})
                event("[DONE]")
                self.wfile.flush()
                self.close_connection = True

        return Handler
