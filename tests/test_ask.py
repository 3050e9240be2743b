"""`ask`: cited answers from an LLM, an extractive answer without one or when it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill.ask import ask, cited_numbers, terms
from ctxmill.llm import LLMConfig
from llm_loopback import Loopback
from sample_code import CACHE_PY

GH = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"

CONFIG_PY = f'''import os

GITHUB_TOKEN = "{GH}"


def github_headers():
    return {{"Authorization": "token " + GITHUB_TOKEN}}
'''


def hits_for(repo: Path) -> list[dict]:
    """Two real chunks of the fixture files, shaped as index hits."""
    cache = CACHE_PY.splitlines()
    config = CONFIG_PY.splitlines()
    return [
        {"path": "cache.py", "start_line": 6, "end_line": 24, "score": 0.9, "kind": "class", "symbol": "LRUCache",
         "text": "\n".join(cache[5:24])},
        {"path": "config.py", "start_line": 1, "end_line": 7, "score": 0.4, "kind": "module", "symbol": None,
         "text": "\n".join(config[0:7])},
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "cache.py").write_text(CACHE_PY)
    (tmp_path / "config.py").write_text(CONFIG_PY)
    return tmp_path


def test_extractive_answer_without_llm_cites_real_lines(repo):
    a = ask("how does the cache evict the least recently used item?", repo, hits=hits_for(repo), llm=None)
    assert a.mode == "extractive" and "no LLM configured" in a.message
    assert a.cited == [1, 2]
    src = a.sources[0]
    assert src.cite == "cache.py:6-24 (LRUCache)"
    # the best passage is the eviction code, and its line numbers point at the real file lines
    first = a.answer.split("```")[0]
    start, end = (int(x) for x in first.split("cache.py:")[1].split()[0].split("-"))
    passage = a.answer.split("```\n")[1].split("\n```")[0]
    assert passage.splitlines() == CACHE_PY.splitlines()[start - 1:end]
    assert "popitem" in passage
    assert GH not in json.dumps(a.to_dict())


def test_llm_answer_cites_the_sources_it_was_given_and_reports_usage(repo):
    with Loopback() as loop:
        a = ask("how does the cache evict?", repo, hits=hits_for(repo),
                llm=LLMConfig(url=loop.url, model="m", timeout=2))
        assert a.mode == "llm" and a.message is None
        assert a.cited == [1, 2] and "[1]" in a.answer
        assert a.llm["calls"] == 1 and a.llm["completion_tokens"] > 0 and a.llm["tokens_per_second"] > 0
        raw = loop.requests[-1]["raw"]
        assert "[1] cache.py:6-24 (LRUCache)" in json.loads(raw)["messages"][1]["content"]
        assert GH not in raw  # the secret in config.py never left for the LLM
        assert GH not in json.dumps(a.to_dict())
        assert a.to_dict()["redactions"] >= 1


@pytest.mark.parametrize("mode,reason", [("500", "HTTP 500"), ("hang", "timed out"),
                                         ("malformed", "malformed JSON"), ("401", "HTTP 401")])
def test_llm_failures_degrade_to_extractive_with_a_clear_message(repo, mode, reason):
    with Loopback(default=mode, hang_seconds=1.5) as loop:
        a = ask("how does the cache evict?", repo, hits=hits_for(repo),
                llm=LLMConfig(url=loop.url, model="m", timeout=0.3, retries=1, backoff=0.01))
    assert a.mode == "extractive"
    assert a.message.startswith("the LLM failed") and reason in a.message
    assert "showing the best passages" in a.message
    assert "[1] cache.py:" in a.answer


def test_citations_outside_the_sources_are_dropped():
    from ctxmill.ask import Source

    sources = [Source(1, "a.py", 1, 2, "f", 1.0, "x"), Source(2, "b.py", 3, 4, "f", 0.5, "y")]
    assert cited_numbers("see [2] and [7], also [1, 2]", sources) == [2, 1]
    assert "lru" in terms("LRUCache evicts") and "cache" in terms("LRUCache")
    doc = Source(3, "papers/dive.pdf", 4, 5, "document", 0.3, "text", "3 Architecture > 3.2 Loop")
    assert doc.cite == "papers/dive.pdf, pp. 4-5 (3 Architecture > 3.2 Loop)"


def _index_ready() -> bool:
    try:
        from ctxmill import index

        return hasattr(index, "sync_index") and hasattr(index, "search")
    except Exception:
        return False


@pytest.mark.skipif(not _index_ready(), reason="the code index (ctxmill.index.sync_index/search) is not built yet")
def test_cli_ask_end_to_end_over_a_real_index(repo, tmp_path_factory):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache")),
           "CTXMILL_INDEX_DIR": str(tmp_path_factory.mktemp("index"))}
    env.pop("CTXMILL_LLM_URL", None)
    env.pop("OPENAI_BASE_URL", None)
    cmd = [sys.executable, "-m", "ctxmill.cli", "ask", "LRU cache evict least recently used",
           "--root", str(repo), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    a = json.loads(out.stdout)
    assert a["mode"] == "extractive" and a["sources"]
    assert a["sources"][0]["path"] == "cache.py"
    assert GH not in out.stdout
    with Loopback() as loop:
        out = subprocess.run(cmd + ["--llm", loop.url, "--llm-model", "m"], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        a = json.loads(out.stdout)
        assert a["mode"] == "llm" and a["cited"] and a["llm"]["calls"] == 1
        cited = {a["sources"][n - 1]["path"] for n in a["cited"]}
        assert "cache.py" in cited
        assert all(GH not in r.get("raw", "") for r in loop.requests)
