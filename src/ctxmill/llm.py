"""One small client for OpenAI-compatible endpoints (OpenAI, Cerebras, vLLM, Ollama, llama.cpp…).

Chat completions are streamed (server-sent events) so that a long answer never hits a read
timeout as long as tokens keep coming, and so that speed can be measured. Failures that may
pass (429, 5xx, connection errors, timeouts) are retried with exponential backoff, honouring
``Retry-After``; everything else raises :class:`LLMError` with a one-line reason.

Every request body passes through :func:`ctxmill.redact.redact` first, and the API key lives
only in the Authorization header: it is never logged, never part of an error message, never
written to an output (``LLMConfig.__repr__`` masks it).

Configuration, highest first: explicit arguments (CLI flags), then ``CTXMILL_LLM_URL`` /
``CTXMILL_LLM_MODEL`` / ``CTXMILL_LLM_KEY``, then ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ctxmill.errors import CtxmillError
from ctxmill.redact import Finding, redact

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_TOKENS_RANGE = (256, 40960)  # the compile option; 8192-40960 is the useful range


class LLMError(CtxmillError):
    """The endpoint could not give an answer (after retries). The message never holds the key."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # HTTP status when the endpoint answered with an error


def normalize_base_url(url: str) -> str:
    """Accept what people paste: a bare host gets /v1, a full /chat/completions URL is trimmed.

    Credentials in the URL (user:pass@) are refused rather than silently sent or logged.
    """
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.username or parts.password:
        raise LLMError("put the API key in CTXMILL_LLM_KEY or OPENAI_API_KEY, not in the URL")
    path = parts.path.rstrip("/")
    for suffix in ("/chat/completions", "/completions", "/embeddings"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def display_url(url: str) -> str:
    """The URL without credentials or query string, safe to show in messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


@dataclass
class LLMConfig:
    url: str
    model: str | None = None  # None: ask the endpoint (/models) and take the first
    api_key: str | None = field(default=None, repr=False)
    max_tokens: int = 8192  # per call
    timeout: float = 120.0  # seconds without a byte from the server (read), per attempt
    connect_timeout: float = 10.0
    retries: int = 3  # extra attempts after the first
    backoff: float = 0.5  # first wait; doubles each retry (with jitter)
    max_wait: float = 30.0  # longest single wait, also for Retry-After
    temperature: float = 0.0

    def __post_init__(self) -> None:
        self.url = normalize_base_url(self.url)
        lo, hi = MAX_TOKENS_RANGE
        if not lo <= self.max_tokens <= hi:
            raise LLMError(f"max tokens per call must be between {lo} and {hi}, not {self.max_tokens}")

    def __repr__(self) -> str:
        key = "set" if self.api_key else "none"
        return f"LLMConfig(url={display_url(self.url)!r}, model={self.model!r}, key={key})"

    @classmethod
    def resolve(
        cls,
        url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
        env: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> LLMConfig | None:
        """Flags, then ctxmill's env vars, then OpenAI's; None when no endpoint is configured."""
        env = os.environ if env is None else env
        url = url or env.get("CTXMILL_LLM_URL") or env.get("OPENAI_BASE_URL")
        if not url:
            return None
        model = model or env.get("CTXMILL_LLM_MODEL") or env.get("OPENAI_MODEL")
        api_key = api_key or env.get("CTXMILL_LLM_KEY") or env.get("OPENAI_API_KEY")
        return cls(url=url, model=model, api_key=api_key, max_tokens=max_tokens or 8192, **kwargs)


@dataclass
class Usage:
    """What the compile writes into metrics.llm and ``ask --json`` reports."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # wall time inside successful calls (retries and waits included)
    retries: int = 0
    failures: int = 0
    estimated: bool = False  # true when an endpoint sent no usage and tokens were estimated

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds += other.seconds
        self.retries += other.retries
        self.failures += other.failures
        self.estimated = self.estimated or other.estimated

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 4),
            "tokens_per_second": round(self.tokens_per_second, 2),
        }
        if self.retries:
            out["retries"] = self.retries
        if self.failures:
            out["failures"] = self.failures
        if self.estimated:
            out["estimated"] = True
        return out


@dataclass
class Completion:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str | None = None
    estimated: bool = False
    # [{"id", "type": "function", "function": {"name", "arguments"}}] when tools were offered
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_reason(response: httpx.Response) -> str:
    """A short reason from an error response; bodies are the server's, never our request."""
    try:
        body = response.read()
        data = json.loads(body)
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message") if isinstance(err, dict) else str(err)
    except Exception:
        msg = response.text[:200] if response.is_stream_consumed or response.is_closed else ""
    msg = " ".join(str(msg or "").split())[:200]
    return f"HTTP {response.status_code}" + (f": {msg}" if msg else "")


def _estimate_tokens(text: str) -> int:
    # ~4 characters per token for English and code; used only when the server sends no usage.
    return max(1, round(len(text) / 4)) if text else 0


class LLMClient:
    """Synchronous client; one instance accumulates :class:`Usage` across calls."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.usage = Usage()
        self.redactions: list[Finding] = []  # what redaction removed from request bodies
        self._sleep = sleep
        self._lock = threading.Lock()  # usage and redactions are shared by parallel calls
        headers = {"Accept": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._http = httpx.Client(
            base_url=config.url,
            headers=headers,
            transport=transport,
            timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
        )
        self._model: str | None = config.model

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- plumbing

    def _failed(self) -> None:
        with self._lock:
            self.usage.failures += 1

    def _request(self, method: str, path: str, body: dict[str, Any] | None, stream: bool) -> httpx.Response:
        """Send with retries; return an open response with a 2xx status (caller closes it)."""
        attempt = 0
        timeouts = 0
        where = display_url(self.config.url + path)
        while True:
            wait: float | None = None
            try:
                request = self._http.build_request(method, path, json=body)
                response = self._http.send(request, stream=stream)
            except httpx.TimeoutException:
                reason = f"{where} timed out"
                timeouts += 1
                if timeouts >= 2:  # each timeout already cost the full timeout: try only once more
                    with self._lock:
                        self.usage.failures += 1
                    raise LLMError(f"{reason} (gave up after {attempt + 1} attempts)") from None
            except httpx.TransportError as exc:
                reason = f"cannot reach {where} ({type(exc).__name__})"
            else:
                if response.status_code < 300:
                    return response
                reason = f"{where}: {_error_reason(response)}"
                status = response.status_code
                retryable = status in RETRY_STATUS
                wait = _retry_after(response)
                response.close()
                if not retryable:
                    with self._lock:
                        self.usage.failures += 1
                    raise LLMError(reason, status=status)
            if attempt >= self.config.retries:
                with self._lock:
                    self.usage.failures += 1
                raise LLMError(f"{reason} (gave up after {attempt + 1} attempts)")
            backoff = self.config.backoff * (2**attempt) * (1 + random.random() * 0.25)
            self._sleep(min(self.config.max_wait, wait if wait is not None else backoff))
            attempt += 1
            with self._lock:
                self.usage.retries += 1

    def _redact_messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for m in messages:
            content = m.get("content")
            if isinstance(content, str):
                r = redact(content)
                with self._lock:
                    self.redactions.extend(r.findings)
                m = {**m, "content": r.text}
            out.append(m)
        return out

    def model(self) -> str:
        """The configured model, or the endpoint's first listed model."""
        if self._model:
            return self._model
        response = self._request("GET", "/models", None, stream=False)
        try:
            data = response.json()
            self._model = data["data"][0]["id"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{display_url(self.config.url)}/models listed no model; pass --llm-model") from None
        return self._model

    # ---------------------------------------------------------------- chat

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        on_text: Callable[[str], None] | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """One streamed chat completion; ``on_text`` receives each piece as it arrives.

        With ``tools`` (OpenAI function schemas) the model may answer with ``tool_calls``,
        streamed as pieces that are joined here (the agent, :mod:`ctxmill.agent`).
        """
        model = self.model()
        body: dict[str, Any] = {
            "model": model,
            "messages": self._redact_messages(messages),
            "max_tokens": min(max_tokens or self.config.max_tokens, self.config.max_tokens),
            "temperature": self.config.temperature if temperature is None else temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = tools
        t0 = time.perf_counter()
        try:
            response = self._request("POST", "/chat/completions", body, stream=True)
        except LLMError as exc:
            # Older servers reject the usage option of streaming; ask again without it (tokens
            # are then estimated and flagged as such).
            if exc.status not in (400, 422) or "stream_options" not in str(exc):
                raise
            body.pop("stream_options")
            with self._lock:
                self.usage.failures -= 1  # not a failure of the call, a dialect
            response = self._request("POST", "/chat/completions", body, stream=True)
        calls: list[dict[str, Any]] = []
        try:
            ctype = response.headers.get("content-type", "")
            if "text/event-stream" in ctype:
                text, usage, finish = self._read_sse(response, on_text, calls)
            else:  # a server that ignores "stream": one JSON document
                text, usage, finish = self._read_json(response, calls)
                if on_text and text:
                    on_text(text)
        except httpx.TimeoutException:
            self._failed()
            raise LLMError(f"{display_url(self.config.url)} stopped sending (timed out mid-answer)") from None
        except httpx.TransportError as exc:
            self._failed()
            raise LLMError(f"connection to {display_url(self.config.url)} broke mid-answer "
                           f"({type(exc).__name__})") from None
        except LLMError:
            self._failed()
            raise
        finally:
            response.close()
        seconds = time.perf_counter() - t0
        estimated = usage is None
        prompt_tokens = (usage or {}).get("prompt_tokens")
        completion_tokens = (usage or {}).get("completion_tokens")
        if prompt_tokens is None:
            prompt_tokens = sum(_estimate_tokens(str(m.get("content", ""))) for m in body["messages"])
            estimated = True
        if completion_tokens is None:
            completion_tokens = _estimate_tokens(text)
            estimated = True
        with self._lock:
            self.usage.calls += 1
            self.usage.prompt_tokens += int(prompt_tokens)
            self.usage.completion_tokens += int(completion_tokens)
            # Parallel calls overlap in time: tokens/s is per call summed, so it is a
            # per-stream speed, not the aggregate throughput.
            self.usage.seconds += seconds
            self.usage.estimated = self.usage.estimated or estimated
        return Completion(text=text, model=model, prompt_tokens=int(prompt_tokens),
                          completion_tokens=int(completion_tokens), seconds=seconds,
                          finish_reason=finish, estimated=estimated, tool_calls=calls)

    def complete(self, prompt: str, *, system: str | None = None, **kwargs: Any) -> str:
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": prompt}]
        return self.chat(messages, **kwargs).text

    @staticmethod
    def _events(response: httpx.Response) -> Iterator[str]:
        """The data payloads of an SSE stream (multi-line data fields joined)."""
        data: list[str] = []
        for line in response.iter_lines():
            if line == "":
                if data:
                    yield "\n".join(data)
                    data = []
                continue
            if line.startswith(":"):
                continue  # comment / keep-alive
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        if data:
            yield "\n".join(data)

    def _read_sse(self, response: httpx.Response, on_text: Callable[[str], None] | None,
                  calls: list[dict[str, Any]] | None = None):
        pieces: list[str] = []
        by_index: dict[int, dict[str, Any]] = {}  # streamed tool calls arrive in pieces per index
        usage: dict[str, Any] | None = None
        finish: str | None = None
        for payload in self._events(response):
            if payload.strip() == "[DONE]":
                break
            try:
                event = json.loads(payload)
            except ValueError:
                raise LLMError(f"{display_url(self.config.url)} sent malformed JSON in its stream") from None
            if not isinstance(event, dict):
                raise LLMError(f"{display_url(self.config.url)} sent an unexpected stream event")
            if "error" in event:
                err = event["error"]
                msg = err.get("message") if isinstance(err, dict) else str(err)
                raise LLMError(f"{display_url(self.config.url)} reported an error mid-stream: {str(msg)[:200]}")
            if event.get("usage"):
                usage = event["usage"]
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                piece = delta.get("content")
                if piece:
                    pieces.append(piece)
                    if on_text:
                        on_text(piece)
                for tc in delta.get("tool_calls") or []:
                    slot = by_index.setdefault(int(tc.get("index", len(by_index))), {
                        "id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                    if tc.get("id"):
                        slot["id"] = tc["id"]
                    fn = tc.get("function") or {}
                    slot["function"]["name"] += fn.get("name") or ""
                    slot["function"]["arguments"] += fn.get("arguments") or ""
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        if calls is not None:
            calls.extend(by_index[i] for i in sorted(by_index))
        return "".join(pieces), usage, finish

    def _read_json(self, response: httpx.Response, calls: list[dict[str, Any]] | None = None):
        try:
            data = json.loads(response.read())
            choice = data["choices"][0]
            text = (choice.get("message") or {}).get("content") or ""
            if calls is not None:
                calls.extend((choice.get("message") or {}).get("tool_calls") or [])
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise LLMError(f"{display_url(self.config.url)} sent a malformed response") from None
        return text, data.get("usage"), choice.get("finish_reason")

    # ---------------------------------------------------------------- embeddings

    def embed(self, texts: list[str], model: str | None = None) -> list[list[float]]:
        """Vectors from /embeddings, in input order; texts are redacted before they leave."""
        clean = []
        for t in texts:
            r = redact(t)
            with self._lock:
                self.redactions.extend(r.findings)
            clean.append(r.text)
        body = {"model": model or self.model(), "input": clean}
        response = self._request("POST", "/embeddings", body, stream=False)
        try:
            data = response.json()
            rows = sorted(data["data"], key=lambda d: d.get("index", 0))
            vectors = [row["embedding"] for row in rows]
        except (ValueError, KeyError, TypeError):
            raise LLMError(f"{display_url(self.config.url)} sent a malformed embeddings response") from None
        finally:
            response.close()
        if len(vectors) != len(texts):
            raise LLMError(f"{display_url(self.config.url)} returned {len(vectors)} embeddings for {len(texts)} texts")
        usage = data.get("usage") or {}
        self.usage.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        return vectors


def client_from_options(options: Any) -> LLMClient | None:
    """An LLMClient for a CompileOptions-like object (llm_url/llm_model/llm_api_key/llm_max_tokens)."""
    config = LLMConfig.resolve(
        url=getattr(options, "llm_url", None),
        model=getattr(options, "llm_model", None),
        api_key=getattr(options, "llm_api_key", None),
        max_tokens=getattr(options, "llm_max_tokens", None),
    )
    return LLMClient(config) if config else None
