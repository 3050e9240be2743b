"""The MCP server driven by a client nobody here wrote: the MCP Inspector CLI from npm.

The Inspector (pinned: @modelcontextprotocol/inspector-cli 0.15.0, MIT) is installed once into
a cache folder outside the clone; the test skips when Node or npm is missing or the registry
cannot be reached. Over stdio it lists the tools; over streamable HTTP (`ctxmill serve`) it
calls every tool, the oversized cases of issue 19 included, and each result must be within the
budget and validate against the tool's own output schema.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill.mcp import RESULT_MAX_CHARS
from test_web_support import serve

INSPECTOR = "@modelcontextprotocol/inspector-cli@0.15.0"
TOOLS = {"search", "read", "sync", "status", "references", "find_related", "next_edits",
         "compile_document", "outline", "citations"}


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("Node.js / npm not installed")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ctxmill-tests" / "inspector-cli-0.15.0"
    script = cache / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
    if not script.exists():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            proc = subprocess.run([npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund",
                                   "--loglevel=error", INSPECTOR], capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            pytest.skip("npm install of the MCP Inspector timed out (no registry?)")
        if proc.returncode != 0 or not script.exists():
            pytest.skip(f"could not install {INSPECTOR}: {proc.stderr.strip()[-300:]}")
    return [node, str(script)]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("inspected") / "repo"
    (root / "web").mkdir(parents=True)
    (root / "shapes.py").write_text(
        'def area(width, height):\n    """Area of a rectangle."""\n    return width * height\n\n\n'
        "def total(rects):\n    return sum(area(w, h) for w, h in rects)\n")
    (root / "web" / "bundle.min.js").write_text(";".join(f"var v{i}=function(a){{return a*{i}}}" for i in range(12_000)))
    (root / "data.csv").write_text("\n".join(f"{i},name {i},{'x' * 180},{i * 3.5}" for i in range(3000)) + "\n")
    refs = "".join(f"[{i}] A. Writer{i} and B. Reader. A study of caching, part {i}. In Proc. Systems, 20{i % 25:02d}.\n"
                   for i in range(1, 121))
    body = "".join(f"## {i} Part {i}\n\nCaching at level {i} follows [{i}] and [{i + 1}].\n\n" for i in range(1, 60))
    (root / "notes.md").write_text("# Notes on caching\n\n" + body + "## References\n\n" + refs)
    return root


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("inspector-env")
    return dict(os.environ, CTXMILL_INDEX_DIR=str(tmp / "index"), CTXMILL_DOCS_DIR=str(tmp / "docs"),
                CTXMILL_SERVER="0")


def run_inspector(cmd: list[str], target: list[str], *args: str, env: dict) -> dict:
    proc = subprocess.run([*cmd, *target, *args], capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0 or proc.stdout.strip().startswith("{"), proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_stdio_lists_every_tool_described(inspector, repo, env):
    target = [sys.executable, "-m", "ctxmill.cli", "mcp", "--root", str(repo)]
    listed = run_inspector(inspector, target, "--method", "tools/list", env=env)
    tools = {t["name"]: t for t in listed["tools"]}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t["description"] and t.get("outputSchema"), t["name"]
        for name, prop in t["inputSchema"]["properties"].items():
            assert prop.get("description"), (t["name"], name)
    got = run_inspector(inspector, target, "--method", "tools/call", "--tool-name", "search",
                        "--tool-arg", "query=rectangle area", "k=3", env=env)
    assert not got.get("isError"), got
    assert got["structuredContent"]["hits"][0]["path"] == "shapes.py"


@pytest.fixture(scope="module")
def served(repo, env):
    overlay = {k: v for k, v in env.items() if k.startswith("CTXMILL_")}  # serve() adds them to os.environ
    with serve("--index", str(repo), env=overlay) as url:
        yield url + "/mcp"


DIFF = """--- a/shapes.py
+++ b/shapes.py
@@ -1,3 +1,3 @@
-def area(width, height):
+def rect_area(width, height):
     \"\"\"Area of a rectangle.\"\"\"
     return width * height
"""

# every tool, with the oversized cases of issue 19: a 300 KB line, a 3,000-line CSV, 120
# references, search at the largest k
CALLS = [
    ("sync", {}),
    ("status", {}),
    ("search", {"query": "var function return", "k": "50"}),
    ("read", {"path": "web/bundle.min.js"}),
    ("read", {"path": "data.csv"}),
    ("references", {"symbol": "area"}),
    ("find_related", {"path": "shapes.py", "line": "1"}),
    ("compile_document", {"path": "notes.md"}),
    ("outline", {"path": "notes.md"}),
    ("citations", {"path": "notes.md", "limit": "200"}),
]


def test_http_every_tool_within_budget_and_schema(inspector, served, repo, env):
    import jsonschema

    listed = run_inspector(inspector, [served], "--transport", "http", "--method", "tools/list", env=env)
    schemas = {t["name"]: t["outputSchema"] for t in listed["tools"]}
    called = set()
    for name, arguments in CALLS:
        args = [f"{k}={v}" for k, v in arguments.items()]
        got = run_inspector(inspector, [served], "--transport", "http", "--method", "tools/call",
                            "--tool-name", name, *(["--tool-arg", *args] if args else []), env=env)
        assert not got.get("isError"), (name, got["content"][0]["text"][:500])
        text = got["content"][0]["text"]
        assert len(text) <= RESULT_MAX_CHARS, (name, arguments, len(text))
        jsonschema.validate(got["structuredContent"], schemas[name])
        assert json.loads(text) == got["structuredContent"]  # the text copy is the same result
        called.add(name)
        if name == "read" and "bundle" in arguments["path"]:
            assert got["structuredContent"]["truncated"] and got["structuredContent"]["next_start_column"]
        if name == "citations":
            sc = got["structuredContent"]
            assert sc["truncated"] or len(sc["references"]) == 120
    # next_edit takes a diff: written to the file the diff is about, as an editor would leave it
    (repo / "shapes.py").write_text((repo / "shapes.py").read_text().replace("def area(", "def rect_area("))
    got = run_inspector(inspector, [served], "--transport", "http", "--method", "tools/call", "--tool-name",
                        "next_edits", "--tool-arg", f"diff={DIFF}", env=env)
    assert not got.get("isError"), got["content"][0]["text"][:500]
    jsonschema.validate(got["structuredContent"], schemas["next_edits"])
    assert any("rect_area" in s["replacement"] for s in got["structuredContent"]["suggestions"])
    assert called | {"next_edits"} == TOOLS


def test_http_bad_arguments_come_back_as_one_plain_sentence(inspector, served, env):
    got = run_inspector(inspector, [served], "--transport", "http", "--method", "tools/call", "--tool-name",
                        "search", "--tool-arg", "query=cache", "k=-1", env=env)
    assert got["isError"]
    text = got["content"][0]["text"]
    assert text == "search: `k` must be a whole number from 1 to 50, not -1."
    got = run_inspector(inspector, [served], "--transport", "http", "--method", "tools/call", "--tool-name",
                        "read", env=env)
    assert got["isError"] and "`path` is required" in got["content"][0]["text"]
    assert "pydantic" not in got["content"][0]["text"]
