"""The MCP server and the web page search the background server's warm index when one runs
(one copy of the vectors, one watcher), and work in-process as before when none does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from sample_code import CACHE_PY
from test_web_support import serve

pytest.importorskip("watchfiles")
CTXMILL = Path(sys.executable).with_name("ctxmill")


@pytest.fixture
def env(tmp_path):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    e = {"XDG_RUNTIME_DIR": str(run), "CTXMILL_INDEX_DIR": str(tmp_path / "index"), "CTXMILL_SERVER": "1",
         "CTXMILL_SERVER_IDLE": "120"}
    yield e
    ctx(e, "server", "stop")


@pytest.fixture
def repo(tmp_path, env):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cache.py").write_text(CACHE_PY)
    assert ctx(env, "index", str(root), "-q").returncode == 0
    return root


def ctx(env, *args):
    return subprocess.run([str(CTXMILL), *args], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=120)


def served_roots(env) -> list[str]:
    st = json.loads(ctx(env, "server", "status", "--json").stdout)
    return [r["root"] for r in st.get("roots", [])]


def test_mcp_search_uses_the_running_server_and_falls_back_without_it(repo, env, monkeypatch):
    import ctxmill.mcp as mcp_mod

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tools = mcp_mod.Tools([repo])
    alone = tools.search("evict least recently used", k=3)  # no server: in-process, as before
    assert alone.hits[0].path == "cache.py" and served_roots(env) == []
    assert ctx(env, "server", "start").returncode == 0
    fresh_tools = mcp_mod.Tools([repo])
    shared = fresh_tools.search("evict least recently used", k=3)
    assert served_roots(env) == [str(repo.resolve())]  # the server answered (and watches the root now)
    assert not fresh_tools._synced  # no stat walk of its own: the server's watcher keeps the index fresh
    assert [(h.path, h.start_line, h.text) for h in shared.hits] == [(h.path, h.start_line, h.text)
                                                                     for h in alone.hits]
    # an edit is found without any sync call and without waiting out FRESH_SECONDS
    monkeypatch.setattr(mcp_mod, "FRESH_SECONDS", 3600.0)
    (repo / "billing.py").write_text("def compute_invoice_total(lines):\n    return sum(l.amount for l in lines)\n")
    deadline, hits = time.monotonic() + 30, []
    while time.monotonic() < deadline and not hits:
        hits = [h for h in fresh_tools.search("compute invoice total", k=2).hits if h.path == "billing.py"]
    assert hits and hits[0].symbol == "compute_invoice_total"


def test_web_search_uses_the_running_server(repo, env):
    assert ctx(env, "server", "start").returncode == 0
    with serve("--index", str(repo), env=env) as url, httpx.Client(base_url=url, timeout=60) as c:
        body = c.get("/api/search", params={"q": "least recently used", "k": 3}).json()
        assert body["hits"][0]["path"] == "cache.py"
        assert served_roots(env) == [str(repo.resolve())]
        ctx(env, "server", "stop")
        again = c.get("/api/search", params={"q": "least recently used", "k": 3}).json()  # in-process now
        assert again["hits"] == body["hits"]  # the same hits, field for field
