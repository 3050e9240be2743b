"""A loopback OpenAI-compatible server for tests: real HTTP on 127.0.0.1, real SSE framing.

Each request to /v1/chat/completions takes the next scripted behaviour from ``script`` (or
``default`` when the script is empty): "sse" streams an answer in small chunks with a final
usage event, "json" answers without streaming, "429"/"500"/"401" fail (429 with Retry-After),
"hang" sends nothing for longer than any client timeout in the tests, "stall" sends headers and
one chunk then stalls, "malformed" streams invalid JSON, "strict" refuses ``stream_options``
(as older servers do) and streams without usage. Every request body is recorded.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from _loopback_server import JSONHandler, LoopbackServer


def cite_first_sources(body: dict[str, Any]) -> str:
    """A deterministic 'model': answer from the numbered sources in the prompt, citing them."""
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    numbers = re.findall(r"^\[(\d+)\] ", prompt, flags=re.M)
    if not numbers:
        return "I found no sources to answer from."
    cited = " ".join(f"[{n}]" for n in numbers[:2])
    return f"According to the retrieved code, the answer is in these places {cited}."


class Loopback(LoopbackServer):
    def __init__(self, default: str = "sse", answer=cite_first_sources, hang_seconds: float = 3.0):
        self.script: list[str] = []
        self.default = default
        self.answer = answer
        self.hang_seconds = hang_seconds
        self.requests: list[dict[str, Any]] = []  # {path, headers, body}
        self.embedded: list[str] = []
        super().__init__()

    def chat_bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    def _handler(self):
        loop = self

        class Handler(JSONHandler):
            def do_GET(self):
                loop.requests.append({"path": self.path, "headers": dict(self.headers), "body": None})
                if self.path == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "loopback-1", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw)
                loop.requests.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                      "raw": raw.decode()})
                if self.path == "/v1/embeddings":
                    texts = body["input"]
                    loop.embedded.extend(texts)
                    self._json(200, {"data": [{"index": i, "embedding": [float(len(t)), 1.0]}
                                              for i, t in enumerate(texts)],
                                     "usage": {"prompt_tokens": sum(len(t) // 4 for t in texts)}})
                    return
                if self.path != "/v1/chat/completions":
                    self._json(404, {"error": {"message": "not found"}})
                    return
                mode = loop.script.pop(0) if loop.script else loop.default
                text = loop.answer(body)
                if mode == "429":
                    self._json(429, {"error": {"message": "rate limited"}}, {"Retry-After": "1"})
                elif mode == "500":
                    self._json(500, {"error": {"message": "upstream exploded"}})
                elif mode == "strict" and "stream_options" in body:
                    self._json(400, {"error": {"message": "Unrecognized request argument supplied: stream_options"}})
                elif mode == "401":
                    self._json(401, {"error": {"message": "invalid api key"}})
                elif mode == "hang":
                    time.sleep(loop.hang_seconds)
                    self._json(500, {"error": {"message": "too late"}})
                elif mode == "json":
                    self._json(200, {"id": "c1", "object": "chat.completion", "model": body["model"],
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": text}}],
                                     "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}})
                else:
                    self._stream(mode, body, text)

            def _stream(self, mode: str, body: dict[str, Any], text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()

                def event(obj) -> None:
                    payload = obj if isinstance(obj, str) else json.dumps(obj)
                    self.wfile.write(f"data: {payload}\n\n".encode())
                    self.wfile.flush()

                base = {"id": "c1", "object": "chat.completion.chunk", "model": body["model"]}
                self.wfile.write(b": keep-alive\n\n")
                event({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
                if mode == "malformed":
                    event('{"choices": [{"delta": {"content": "half')
                    return
                words = re.findall(r"\S+\s*", text)
                for i, w in enumerate(words):
                    event({**base, "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}]})
                    if mode == "stall" and i == 0:
                        time.sleep(loop.hang_seconds)
                        return
                    time.sleep(0.002)
                event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                prompt_chars = sum(len(str(m.get("content", ""))) for m in body["messages"])
                if body.get("stream_options", {}).get("include_usage"):
                    event({**base, "choices": [], "usage": {"prompt_tokens": prompt_chars // 4,
                                                            "completion_tokens": len(words),
                                                            "total_tokens": prompt_chars // 4 + len(words)}})
                event("[DONE]")
                self.close_connection = True

        return Handler
