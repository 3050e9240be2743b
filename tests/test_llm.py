"""The OpenAI-compatible client against a loopback server that speaks the real protocol."""

from __future__ import annotations

import pytest

from ctxmill.llm import LLMClient, LLMConfig, LLMError, normalize_base_url
from llm_loopback import Loopback

SECRET = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"
KEY = "sk-test-" + "0123456789abcdef0123456789abcdef"


def make(loop: Loopback, **kw) -> LLMClient:
    waits: list[float] = []
    kw.setdefault("timeout", 1.0)
    kw.setdefault("backoff", 0.01)
    client = LLMClient(LLMConfig(url=loop.url, api_key=KEY, **kw), sleep=waits.append)
    client.waits = waits  # type: ignore[attr-defined]
    return client


def test_streamed_answer_with_usage_and_speed():
    with Loopback() as loop, make(loop) as client:
        pieces: list[str] = []
        c = client.chat([{"role": "user", "content": "[1] a.py:1-3\nx = 1"}], on_text=pieces.append)
        assert c.text.startswith("According to the retrieved code") and "[1]" in c.text
        assert len(pieces) > 3 and "".join(pieces) == c.text  # it really streamed
        assert c.model == "loopback-1"  # asked /models because no model was configured
        assert c.completion_tokens == len(c.text.split()) and not c.estimated
        u = client.usage.to_dict()
        assert u["calls"] == 1 and u["completion_tokens"] == c.completion_tokens
        assert u["prompt_tokens"] > 0 and u["seconds"] > 0 and u["tokens_per_second"] > 0
        body = loop.chat_bodies()[0]
        assert body["stream"] is True and body["max_tokens"] == 8192
        assert loop.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"


def test_max_tokens_per_call_is_the_option_and_range_checked():
    with Loopback() as loop, make(loop, model="m", max_tokens=40960) as client:
        client.chat([{"role": "user", "content": "hi"}])
        assert loop.chat_bodies()[0]["max_tokens"] == 40960
    with pytest.raises(LLMError):
        LLMConfig(url="http://127.0.0.1:1/v1", max_tokens=100000)


def test_non_streaming_server_is_understood():
    with Loopback(default="json") as loop, make(loop, model="m") as client:
        c = client.chat([{"role": "user", "content": "[1] a.py:1-3"}])
        assert "[1]" in c.text and c.completion_tokens == 12 and c.prompt_tokens == 50


def test_429_retry_after_is_honoured_then_succeeds():
    with Loopback() as loop, make(loop, model="m") as client:
        loop.script = ["429", "500"]
        c = client.chat([{"role": "user", "content": "hi"}])
        assert c.text
        assert client.waits[0] == 1.0  # Retry-After: 1
        assert 0 < client.waits[1] < 1.0  # exponential backoff for the 500
        assert client.usage.retries == 2 and client.usage.calls == 1
        assert len(loop.chat_bodies()) == 3


def test_persistent_500_gives_up_with_a_reason():
    with Loopback(default="500") as loop, make(loop, model="m", retries=2) as client:
        with pytest.raises(LLMError) as err:
            client.chat([{"role": "user", "content": "hi"}])
        assert "HTTP 500" in str(err.value) and "upstream exploded" in str(err.value)
        assert "3 attempts" in str(err.value)
        assert len(loop.chat_bodies()) == 3 and client.usage.failures == 1


def test_401_is_not_retried_and_the_key_never_appears_in_errors():
    with Loopback(default="401") as loop, make(loop, model="m") as client:
        with pytest.raises(LLMError) as err:
            client.chat([{"role": "user", "content": "hi"}])
        assert "401" in str(err.value) and KEY not in str(err.value)
        assert len(loop.chat_bodies()) == 1
        assert KEY not in repr(client.config)


def test_timeout_before_and_during_the_answer():
    with Loopback(default="hang", hang_seconds=2.0) as loop, make(loop, model="m", timeout=0.3, retries=3) as client:
        with pytest.raises(LLMError, match="timed out"):
            client.chat([{"role": "user", "content": "hi"}])
        assert len(loop.chat_bodies()) == 2  # a timeout is retried once, not `retries` times
    with Loopback(default="stall", hang_seconds=2.0) as loop, make(loop, model="m", timeout=0.3) as client:
        with pytest.raises(LLMError, match="timed out mid-answer"):
            client.chat([{"role": "user", "content": "hi"}])


def test_malformed_stream_is_an_error_not_a_crash():
    with Loopback(default="malformed") as loop, make(loop, model="m") as client:
        with pytest.raises(LLMError, match="malformed JSON"):
            client.chat([{"role": "user", "content": "hi"}])


def test_unreachable_endpoint():
    client = LLMClient(LLMConfig(url="http://127.0.0.1:9/v1", model="m", retries=1, backoff=0.01))
    with pytest.raises(LLMError, match="cannot reach"):
        client.chat([{"role": "user", "content": "hi"}])


def test_secrets_never_reach_the_request_body():
    with Loopback() as loop, make(loop, model="m") as client:
        client.chat([{"role": "user", "content": f"token = '{SECRET}'\nwhat is this?"}])
        client.embed([f"GITHUB_TOKEN={SECRET}", "plain text"], model="e")
        raw = "".join(r.get("raw", "") for r in loop.requests)
        assert SECRET not in raw and "[REDACTED:github-token]" in raw
        assert all(SECRET not in t for t in loop.embedded) and len(loop.embedded) == 2
        assert {f.rule for f in client.redactions} == {"github-token"} and len(client.redactions) == 2


def test_config_resolution_order():
    env = {"OPENAI_BASE_URL": "https://api.example.com/v1", "OPENAI_API_KEY": "k1",
           "CTXMILL_LLM_URL": "http://127.0.0.1:8000", "CTXMILL_LLM_MODEL": "qwen"}
    c = LLMConfig.resolve(env=env)
    assert c.url == "http://127.0.0.1:8000/v1" and c.model == "qwen" and c.api_key == "k1"
    c = LLMConfig.resolve(url="http://h:1/v1/chat/completions", model="x", env=env)
    assert c.url == "http://h:1/v1" and c.model == "x"
    assert LLMConfig.resolve(env={}) is None
    assert normalize_base_url("localhost:11434") == "http://localhost:11434/v1"
    with pytest.raises(LLMError):
        normalize_base_url("https://user:secret@api.example.com/v1")


def test_a_server_without_stream_usage_is_asked_again_and_tokens_estimated():
    with Loopback(default="strict") as loop, make(loop, model="m") as client:
        c = client.chat([{"role": "user", "content": "[1] a.py:1-3"}])
        assert "[1]" in c.text and c.estimated and c.completion_tokens > 0
        bodies = loop.chat_bodies()
        assert len(bodies) == 2 and "stream_options" in bodies[0] and "stream_options" not in bodies[1]
        u = client.usage.to_dict()
        assert u["calls"] == 1 and u["estimated"] is True and "failures" not in u
