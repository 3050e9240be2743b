"""The MCP server end to end, driven by the official SDK's own client.

Over stdio (a real `python -m ctxmill.cli mcp --root FIXTURE` subprocess) and over streamable
HTTP (a real `ctxmill serve` on 127.0.0.1 with MCP mounted at /mcp): list tools, search an
indexed fixture repo, read lines, sync after an edit and see the change, compile a document,
refuse paths outside the roots, and never let a secret out.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from sample_code import CACHE_PY

GH = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"
AWS = "AKIA" + "Q3EGRK7B5UZXHM2P"

CONFIG_PY = f'''"""Service credentials (a fixture: made-up secrets)."""

GITHUB_TOKEN = "{GH}"
AWS_ACCESS_KEY_ID = "{AWS}"


def github_headers():
    return {{"Authorization": "token " + GITHUB_TOKEN}}
'''

NOTES_MD = f"""# Cache design notes

## 1 Goals

The cache keeps hot records in memory and evicts the least recently used record when full.
Deployment uses the key {AWS} for the metrics bucket.

## 2 Design

An ordered dictionary gives constant-time moves to the end and pops from the front.
"""

ADDED = '''

def frobnicate_widgets(widgets):
    """Sort widgets by weight, heaviest first."""
    return sorted(widgets, key=lambda w: w.weight, reverse=True)
'''

TOOLS = {"search", "read", "sync", "status", "references", "find_related", "next_edits", "compile_document", "outline",
         "citations"}


def _index_ready() -> bool:
    try:
        from ctxmill import index

        return callable(getattr(index, "sync_index", None)) and callable(getattr(index, "search", None))
    except Exception:
        return False


def _compiler_ready() -> bool:
    try:
        import importlib

        importlib.import_module("ctxmill.render.markdown")
        return True
    except Exception:
        return False


@pytest.fixture
def fixture_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "cache.py").write_text(CACHE_PY)
    (root / "config.py").write_text(CONFIG_PY)
    (root / "docs" / "notes.md").write_text(NOTES_MD)
    (tmp_path / "outside.txt").write_text("not yours\n")
    (root / "escape.txt").symlink_to(tmp_path / "outside.txt")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("CTXMILL_LLM", "OPENAI"))}
    e["CTXMILL_INDEX_DIR"] = str(tmp_path / "index")
    e["CTXMILL_DOCS_DIR"] = str(tmp_path / "docs-out")
    e["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return e


def data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


async def scenario(client, root: Path) -> list[str]:
    """The same checks over any transport; returns every text the server sent back."""
    seen: list[str] = []

    async def call(name, args):
        r = await client.call_tool(name, args)
        seen.append(json.dumps(r.structured_content) + " ".join(getattr(c, "text", "") for c in r.content))
        return r

    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == TOOLS
    for name in ("search", "read", "outline", "citations"):
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.idempotent_hint is True
    for name in ("sync", "compile_document"):
        assert tools[name].annotations.read_only_hint is False
        assert tools[name].annotations.destructive_hint is False
    assert all(t.annotations.open_world_hint is False for t in tools.values())
    assert all(t.output_schema for t in tools.values())  # typed, structured results

    # read: exact lines, confined to the root
    r = data(await call("read", {"path": "cache.py", "start_line": 19, "end_line": 23}))
    assert r["text"].splitlines() == CACHE_PY.splitlines()[18:23]
    assert (r["start_line"], r["end_line"], r["total_lines"]) == (19, 23, len(CACHE_PY.splitlines()))
    r = data(await call("read", {"path": "config.py"}))
    assert GH not in r["text"] and "[REDACTED:github-token]" in r["text"] and r["redactions"] == 2
    for bad in ("../outside.txt", str(root.parent / "outside.txt"), "escape.txt", "/etc/passwd",
                "docs/../../outside.txt"):
        assert "outside the allowed roots" in error_text(await call("read", {"path": bad}))
    assert "no such file" in error_text(await call("read", {"path": "missing.py"}))
    assert "not one of the allowed roots" in error_text(await call("sync", {"root": "/"}))

    if _index_ready():
        s = data(await call("sync", {}))
        assert s["files_scanned"] >= 3 and s["chunks_total"] > 0
        hits = data(await call("search", {"query": "evict least recently used cache", "k": 5}))["hits"]
        assert hits and hits[0]["path"] == "cache.py"
        h = hits[0]
        lines = CACHE_PY.splitlines()[h["start_line"] - 1:h["end_line"]]
        assert "popitem" in "\n".join(lines)
        hits = data(await call("search", {"query": "GITHUB_TOKEN github headers", "k": 5}))["hits"]
        assert any(x["path"] == "config.py" for x in hits)
        hits = data(await call("search", {"query": "cache", "path": "docs/", "k": 5}))["hits"]
        assert all(x["path"].startswith("docs/") for x in hits)

        # sync after an edit and see the change
        with open(root / "cache.py", "a") as fh:
            fh.write(ADDED)
        s = data(await call("sync", {}))
        assert s["files_changed"] == 1
        hits = data(await call("search", {"query": "frobnicate_widgets", "k": 3}))["hits"]
        assert hits[0]["path"] == "cache.py"
        assert "frobnicate_widgets" in hits[0]["text"]
        start = len(CACHE_PY.splitlines()) + 2
        assert hits[0]["start_line"] <= start + 1 <= hits[0]["end_line"]

    if _compiler_ready():
        c = data(await call("compile_document", {"path": "docs/notes.md"}))
        assert c["pages"] >= 1 and "document.md" in c["files"] and c["sections"] >= 2
        md = data(await call("read", {"path": c["files"]["document.md"]}))
        assert "least recently used" in md["text"] and AWS not in md["text"]
        o = data(await call("outline", {"path": "docs/notes.md"}))
        titles = [s["title"] for s in o["sections"]]
        assert titles[-2].endswith("Goals") and titles[-1].endswith("Design")
        cit = data(await call("citations", {"path": "docs/notes.md"}))
        assert cit["references"] == [] and cit["mentions_total"] == 0
        assert "not a document" in error_text(await call("compile_document", {"path": "cache.py"}))
        assert "outside the allowed roots" in error_text(
            await call("compile_document", {"path": "../outside.txt"}))

    text = "\n".join(seen)
    assert GH not in text and AWS not in text
    return seen


def test_stdio_end_to_end(fixture_repo, env):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, env=env, cwd=str(fixture_repo.parent),
                                   args=["-m", "ctxmill.cli", "mcp", "--root", str(fixture_repo)])

    async def main():
        async with Client(params, read_timeout_seconds=120) as client:
            await scenario(client, fixture_repo)

    asyncio.run(main())


def test_stdio_stdout_is_protocol_only(fixture_repo, env):
    """Raw JSON-RPC over a pipe: every line the server prints is a JSON-RPC message."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "read", "arguments": {"path": "cache.py", "start_line": 1, "end_line": 3}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "read", "arguments": {"path": "/etc/passwd"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "ctxmill.cli", "mcp", "--root", str(fixture_repo)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    replies = []
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
            if "id" in m:  # wait for its answer: every stdout line must be JSON-RPC
                while True:
                    line = proc.stdout.readline()
                    assert line, proc.stderr.read()[-2000:]
                    reply = json.loads(line)  # raises if anything but JSON reached stdout
                    replies.append(reply)
                    if reply.get("id") == m["id"]:
                        break
        proc.stdin.close()
        rest = proc.stdout.read()
        assert rest.strip() == ""
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[2]["result"]["isError"] is False
    assert by_id[3]["result"]["isError"] is True  # refused as a tool error, server still alive
    assert "error" in by_id[4] or by_id[4]["result"]["isError"] is True
    assert proc.returncode == 0


def test_mcp_refuses_a_missing_root(tmp_path, env):
    proc = subprocess.run([sys.executable, "-m", "ctxmill.cli", "mcp", "--root", str(tmp_path / "nope")],
                          capture_output=True, text=True, env=env, timeout=60, input="")
    assert proc.returncode == 3 and "not a folder" in proc.stderr and proc.stdout == ""


@pytest.fixture
def served(fixture_repo, env):
    """`ctxmill serve --index FIXTURE --port 0` on 127.0.0.1: yields its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "ctxmill.cli", "serve", "--index", str(fixture_repo),
                             "--port", "0", "--host", "127.0.0.1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(fixture_repo.parent))
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            proc.kill()
            pytest.fail(f"serve did not start: {line!r} {proc.stderr.read()[-2000:]}")
        base = f"http://127.0.0.1:{m.group(1)}"
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err = proc.stderr.read()
        if "Traceback" in err:  # a tool crash inside the server: show it with the failure
            sys.stderr.write(err[-4000:])


def test_http_end_to_end(served, fixture_repo):
    from mcp import Client

    async def main():
        async with Client(served + "/mcp", read_timeout_seconds=120) as client:
            await scenario(client, fixture_repo)

    asyncio.run(main())


def test_http_validates_origin_and_host(served):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    ok = httpx.post(served + "/mcp/", json=init, headers=headers, timeout=10)
    assert ok.status_code == 200
    no_slash = httpx.post(served + "/mcp", json=init, headers=headers, timeout=10)  # the URL the docs give
    assert no_slash.status_code == 200 and "serverInfo" in no_slash.text
    evil = httpx.post(served + "/mcp/", json=init, headers={**headers, "Origin": "http://evil.example"}, timeout=10)
    assert evil.status_code == 403
    rebound = httpx.post(served + "/mcp/", json=init, headers={**headers, "Host": "evil.example"}, timeout=10)
    # `ctxmill serve` refuses a foreign Host before the request reaches the MCP app (400 from
    # its TrustedHost check); the MCP app's own check (421) guards it when mounted elsewhere.
    assert rebound.status_code == 400
    assert "host" in rebound.text.lower()


def test_stdio_compiles_the_sample_paper(corpus_dir, tmp_path, env):
    """The real paper from ../shared: compile_document, outline and citations over stdio."""
    import shutil

    from mcp import Client, StdioServerParameters

    root = tmp_path / "papers"
    root.mkdir()
    shutil.copyfile(corpus_dir / "paper.pdf", root / "dive.pdf")
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-m", "ctxmill.cli", "mcp", "--root", str(root)])

    async def main():
        async with Client(params, read_timeout_seconds=300) as client:
            c = data(await client.call_tool("compile_document", {"path": "dive.pdf"}))
            assert c["pages"] == 46 and c["references"] >= 100 and c["chunks"] > 50
            assert {"document.md", "chunks.jsonl", "references.json", "qa.json", "metrics.json"} <= set(c["files"])
            assert all(Path(p).is_file() for p in c["files"].values())
            head = data(await client.call_tool("read", {"path": c["files"]["document.md"], "end_line": 5}))
            assert head["text"].startswith("# ")
            o = data(await client.call_tool("outline", {"path": "dive.pdf"}))
            assert len(o["sections"]) > 20 and o["title"] == c["title"]
            cit = data(await client.call_tool("citations", {"path": "dive.pdf", "limit": 20}))
            assert cit["references_total"] == c["references"] and cit["mentions_total"] > 100
            from ctxmill.tokens import count_tokens

            biggest = data(await client.call_tool("citations", {"path": "dive.pdf", "limit": 200}))
            assert count_tokens(json.dumps(biggest, separators=(",", ":"))) < 12_500  # within the result budget
            assert biggest["truncated"] and biggest["next_offset"] < 200
            assert len(cit["references"]) == len(cit["mentions"]) == 20
            assert cit["truncated"] is True and cit["next_offset"] == 20
            # paging through gives every reference once
            seen, offset = [], 0
            while offset is not None:
                page = data(await client.call_tool("citations", {"path": "dive.pdf", "limit": 50, "offset": offset}))
                seen += [r["id"] for r in page["references"]]
                offset = page["next_offset"]
            assert len(seen) == len(set(seen)) == c["references"]
            summary = data(await client.call_tool("citations", {"path": "dive.pdf", "summary": True}))
            assert summary["references"] == [] and len(summary["most_cited"]) == 10
            top = summary["most_cited"][0]
            assert top["cited"] == max(r["cited"] for r in cit["references"] + summary["most_cited"])
            one = data(await client.call_tool("citations", {"path": "dive.pdf", "reference_id": top["id"]}))
            assert one["mentions_total"] == top["cited"] and all(top["id"] in m["reference_ids"] for m in one["mentions"])

    asyncio.run(main())


def test_http_app_other_hosts_only_by_explicit_opt_in(fixture_repo, monkeypatch):
    """In process (httpx's ASGI transport): the app starts its session manager on first use."""
    from ctxmill.mcp import http_app

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    async def post(app, host):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
            return (await client.post("/", json=init, headers=headers)).status_code

    monkeypatch.delenv("CTXMILL_MCP_ALLOWED_HOSTS", raising=False)
    assert asyncio.run(post(http_app([fixture_repo]), "10.0.0.5:8000")) == 421
    assert asyncio.run(post(http_app([fixture_repo]), "127.0.0.1:8000")) == 200
    monkeypatch.setenv("CTXMILL_MCP_ALLOWED_HOSTS", "10.0.0.5")
    assert asyncio.run(post(http_app([fixture_repo]), "10.0.0.5:8000")) == 200


def test_search_sees_edits_without_a_sync_call(fixture_repo, env, monkeypatch):
    import ctxmill.mcp as mcp_mod

    monkeypatch.setenv("CTXMILL_INDEX_DIR", env["CTXMILL_INDEX_DIR"])
    tools = mcp_mod.Tools([fixture_repo])
    assert tools.search("evict least recently used").hits[0].path == "cache.py"
    with open(fixture_repo / "cache.py", "a") as fh:
        fh.write(ADDED)
    # within FRESH_SECONDS the index is trusted as it is...
    assert all("frobnicate_widgets" not in h.text for h in tools.search("frobnicate_widgets", k=3).hits)
    # ...after it, the next search syncs first
    monkeypatch.setattr(mcp_mod, "FRESH_SECONDS", 0.0)
    hit = tools.search("frobnicate_widgets", k=3).hits[0]
    assert hit.path == "cache.py" and "frobnicate_widgets" in hit.text
