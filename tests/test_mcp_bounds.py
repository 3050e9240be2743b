"""MCP results that fit an agent (issue 19): every result within the budget, every parameter
described and bounded, paging that reaches everything, errors that say what to do, the new
status / references / find_related tools, and progress notifications over a real stdio client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from ctxmill.errors import InputRefused
from ctxmill.mcp import RESULT_MAX_CHARS, Tools
from ctxmill.tokens import count_tokens
from sample_code import CACHE_PY

# Claude Code refuses a tool result over 25,000 tokens by default.
AGENT_TOKEN_LIMIT = 25_000


def _size(result) -> tuple[int, int]:
    text = json.dumps(result.model_dump(), ensure_ascii=False, separators=(",", ":"))  # as the client gets it
    return len(text), count_tokens(text)


def _bounded(result) -> None:
    chars, tokens = _size(result)
    assert tokens < AGENT_TOKEN_LIMIT // 2, (chars, tokens)
    assert chars <= RESULT_MAX_CHARS, (chars, tokens)


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("CTXMILL_DOCS_DIR", str(tmp_path / "docs-out"))
    root = tmp_path / "repo"
    (root / "web").mkdir(parents=True)
    (root / "cache.py").write_text(CACHE_PY)
    (root / "use_cache.py").write_text("from cache import LRUCache\n\n\ndef warm():\n    c = LRUCache(8)\n"
                                       "    c.put('a', 1)\n    return c\n")
    # a 300 KB minified one-line script and a 3,000-line CSV: the oversized reads of the issue
    (root / "web" / "bundle.min.js").write_text(";".join(f"var v{i}=function(a){{return a*{i}}}" for i in range(12_000)))
    (root / "data.csv").write_text("\n".join(f"{i},name {i},{'x' * 180},{i * 3.5}" for i in range(3000)) + "\n")
    (root / "paper.pdf").write_bytes(b"%PDF-1.4\n%binary\n" + bytes(range(256)) * 4)
    return root


def test_a_300_kb_single_line_is_read_in_parts_that_rebuild_it(repo):
    tools = Tools([repo])
    whole = (repo / "web" / "bundle.min.js").read_text()
    parts, line, col = [], 1, 1
    for _ in range(50):
        r = tools.read("web/bundle.min.js", start_line=line, start_column=col)
        _bounded(r)
        parts.append(r.text)
        if r.next_start_line is None:
            break
        assert r.truncated and r.end_column is not None
        line, col = r.next_start_line, r.next_start_column
    assert "".join(parts) == whole and len(parts) > 5


def test_a_long_csv_is_read_in_pages_of_lines(repo):
    tools = Tools([repo])
    r = tools.read("data.csv")
    _bounded(r)
    assert r.truncated and r.end_line < 3000 and r.next_start_line == r.end_line + 1 and r.next_start_column == 1
    got, line = [], 1
    while line is not None:
        r = tools.read("data.csv", start_line=line)
        got += r.text.split("\n")
        line = r.next_start_line
    assert got == (repo / "data.csv").read_text().splitlines()


def test_errors_say_what_to_do_instead(repo):
    tools = Tools([repo])
    with pytest.raises(InputRefused, match="is a folder"):
        tools.read("web")
    with pytest.raises(InputRefused, match="compile_document"):
        tools.read("paper.pdf")
    with pytest.raises(InputRefused, match="leaves the root"):
        tools.search("cache", path="../")
    with pytest.raises(InputRefused, match="1 to 50"):
        tools.search("cache", k=0)
    with pytest.raises(InputRefused, match="1 to 200"):
        tools.citations("x.md", limit=0)


def test_references_and_related_answer_from_the_index(repo):
    tools = Tools([repo])
    refs = tools.references("LRUCache")
    assert [d.path for d in refs.definitions] == ["cache.py"]
    assert {(u.path, u.line) for u in refs.uses} >= {("use_cache.py", 1), ("use_cache.py", 5)}
    _bounded(refs)
    rel = tools.find_related("use_cache.py", 5)
    assert rel.hits and all(h.path != "use_cache.py" or h.end_line < 4 for h in rel.hits)
    assert any(h.path == "cache.py" for h in rel.hits)
    st = tools.status()
    assert st.indexed and st.files >= 3 and st.building is None


def test_search_stays_within_the_budget_at_any_k(repo):
    tools = Tools([repo])
    r = tools.search("var function return", k=50)
    _bounded(r)
    assert any(h.text_truncated for h in r.hits)


def test_a_fresh_server_reads_another_servers_compile_and_fast_keeps_the_full(repo, tmp_path):
    doc = repo / "notes.md"
    doc.write_text("# Notes on caching\n\n## 1 Goals\n\nKeep hot records in memory [1].\n\n"
                   "## References\n\n[1] A. Writer. Caching in practice. 2020.\n")
    full = Tools([repo]).compile_document("notes.md")
    fast = Tools([repo]).compile_document("notes.md", fast=True)
    assert fast.out != full.out
    assert (Path(full.out) / "chunks.jsonl").is_file() and (Path(full.out) / "references.json").is_file()
    again = Tools([repo]).read(str(Path(full.out) / "document.md"))  # a new server, nothing compiled here
    assert again.text.startswith("# Notes on caching")


def test_every_parameter_is_described_and_bounded():
    from ctxmill.mcp import build_server

    tools = asyncio.run(build_server(["."]).list_tools())
    for t in tools:
        assert t.description and not t.description.startswith(" ") and "\n    " not in t.description
        for name, prop in t.input_schema["properties"].items():
            assert prop.get("description"), (t.name, name)
    props = {t.name: t.input_schema["properties"] for t in tools}
    assert props["search"]["k"]["minimum"] == 1 and props["search"]["k"]["maximum"] == 50
    assert props["citations"]["limit"]["minimum"] == 1 and props["citations"]["offset"]["minimum"] == 0


def test_progress_notifications_over_stdio_and_schema_errors(repo, tmp_path):
    from mcp import StdioServerParameters
    from mcp.client import Client

    doc = repo / "long.md"
    doc.write_text("# A long note\n\n" + "".join(f"## {i} Part\n\nText of part {i} [1].\n\n" for i in range(1, 30))
                   + "## References\n\n[1] A. Writer. A title. 2020.\n")
    env = dict(os.environ, CTXMILL_INDEX_DIR=str(tmp_path / "index"), CTXMILL_DOCS_DIR=str(tmp_path / "docs-out"))
    params = StdioServerParameters(command=sys.executable, env=env, args=["-m", "ctxmill.cli", "mcp", "--root", str(repo)])
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async def main():
        async with Client(params, read_timeout_seconds=300) as client:
            r = await client.call_tool("compile_document", {"path": "long.md"}, progress_callback=on_progress)
            assert not r.is_error, r.content
            bad = await client.call_tool("citations", {"path": "long.md", "limit": 0})
            assert bad.is_error
            bad = await client.call_tool("search", {"query": "x", "k": -1})
            assert bad.is_error

    asyncio.run(main())
    assert len(seen) >= 3 and seen[-1][0] == seen[-1][1]
    assert all(m and m.startswith("compiled:") for _, _, m in seen)


@pytest.mark.parametrize("client", ["json", "zed", "cursor", "vscode"])
def test_print_config_gives_a_snippet_that_starts_a_working_server(repo, tmp_path, client):
    """The snippet runs from a bare environment (no venv on PATH, another working folder)."""
    import subprocess

    from mcp import StdioServerParameters
    from mcp.client import Client

    ctxmill = Path(sys.executable).with_name("ctxmill")
    env = dict(os.environ, CTXMILL_INDEX_DIR=str(tmp_path / "index"))
    out = subprocess.run([str(ctxmill), "mcp", "--print-config", client, "--root", str(repo)], env=env,
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    cfg = json.loads(out.stdout)
    server = (cfg.get("mcpServers") or cfg.get("servers") or cfg.get("context_servers"))["ctxmill"]
    assert Path(server["command"]).is_absolute()
    assert server["env"]["CTXMILL_INDEX_DIR"] == str(tmp_path / "index")
    args = [str(repo) if a == "${workspaceFolder}" else a for a in server["args"]]
    params = StdioServerParameters(command=server["command"], args=args, cwd="/",
                                   env={"PATH": "/usr/bin:/bin", **server["env"]})

    async def main():
        async with Client(params, read_timeout_seconds=120) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"search", "read", "status"} <= names
            st = await c.call_tool("status", {})
            assert not st.is_error and st.structured_content["root"] == str(repo.resolve())

    asyncio.run(main())
