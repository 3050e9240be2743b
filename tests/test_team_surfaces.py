"""Every surface over the team store, against the real server of tests/conftest.py's
``team_server``: the MCP server's tools, the web page's /api/search, the agent's search tool,
and the project settings as the third source of the store's URL (issue 25)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("psycopg", reason="the 'team' extra is not installed")

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "ctxmill"
CTXMILL = [sys.executable, "-c", "from ctxmill.entry import main; main()"]  # the `ctxmill` command
QUERY = "recompute Merkle folder nodes above changed paths"


@pytest.fixture()
def team(tmp_path, monkeypatch, team_server):
    """A team key, this test's own local state and repository name, CTXMILL_STORE unset;
    returns (url, a copy of ctxmill's index/ folder to search)."""
    monkeypatch.setenv("CTXMILL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CTXMILL_TEAM_KEY", "test-team-key-0123456789abcdef")
    monkeypatch.setenv("CTXMILL_STORE_REPO", f"surfaces-{tmp_path.name}")
    monkeypatch.delenv("CTXMILL_STORE", raising=False)
    root = tmp_path / "proj"
    shutil.copytree(SRC / "index", root / "index", ignore=shutil.ignore_patterns("__pycache__"))
    return team_server["url"], root


def _no_local_index(root: Path) -> bool:
    from ctxmill.locations import default_db_path

    return not default_db_path(root).exists()


def _rows(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM ctx_files").fetchone()[0]


def test_mcp_tools_sync_and_search_the_team_store(team, monkeypatch):
    import ctxmill.mcp as mcp_mod

    url, root = team
    monkeypatch.setenv("CTXMILL_STORE", url)
    tools = mcp_mod.Tools([root])
    hits = tools.search(QUERY, k=5).hits  # the first search syncs the root into the store
    assert hits[0].path == "index/merkle.py"
    assert hits[0].text.split("\n")[0] == (root / "index/merkle.py").read_text().split("\n")[hits[0].start_line - 1]
    assert _no_local_index(root)
    # an edit reaches the store through the tool's own freshness sync
    with open(root / "index" / "merkle.py", "a") as fh:
        fh.write("\n\ndef frobnicate_team_widgets(tree):\n    return tree\n")
    monkeypatch.setattr(mcp_mod, "FRESH_SECONDS", 0.0)
    hit = tools.search("frobnicate_team_widgets", k=3).hits[0]
    assert hit.path == "index/merkle.py" and "frobnicate_team_widgets" in hit.text
    assert _no_local_index(root)


def test_web_search_tab_reads_the_team_store(team, monkeypatch):
    from starlette.testclient import TestClient

    from ctxmill.index import sync_index
    from ctxmill.web.app import create_app

    url, root = team
    monkeypatch.setenv("CTXMILL_STORE", url)
    sync_index(root)
    with TestClient(create_app(root, mount_mcp=False), base_url="http://127.0.0.1") as c:
        body = c.get("/api/search", params={"q": QUERY, "k": 5}).json()
        assert body["hits"][0]["path"] == "index/merkle.py"
        assert "def " in body["hits"][0]["text"]
        only = c.get("/api/search", params={"q": QUERY, "path": "index/store"}).json()["hits"]
        assert only and all(h["path"].startswith("index/store") for h in only)
    assert _no_local_index(root)


def test_agent_search_tool_uses_the_team_store(team, monkeypatch):
    from ctxmill.agent.tools import Tools

    url, root = team
    monkeypatch.setenv("CTXMILL_STORE", url)
    before = _rows(url)
    out = Tools(root).call("search", {"query": QUERY, "k": 3}).content
    assert out.startswith("index/merkle.py:")
    assert _rows(url) > before  # the agent's sync went into the store
    assert _no_local_index(root)


def test_project_settings_name_the_store_and_never_a_password(team, monkeypatch):
    url, root = team
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    settings = root / ".ctxmill" / "settings.toml"
    settings.parent.mkdir()
    no_password = url.split("://", 1)[0] + "://" + url.split("://", 1)[1].split(":", 1)[0] + "@" + url.split("@", 1)[1]
    password = url.split("://", 1)[1].split(":", 1)[1].split("@", 1)[0]
    settings.write_text(f'[permissions]\nallow = ["run(pytest*)"]\n\n[team]\nstore = "{no_password}"\n')
    env["PGPASSWORD"] = password  # the password from the environment, as libpq reads it
    done = subprocess.run([*CTXMILL, "index", str(root), "--json"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files_changed"] > 10  # uploaded (vectors are shared by content)
    got = subprocess.run([*CTXMILL, "search", QUERY, "--root", str(root), "--json", "-k", "3"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)[0]["path"] == "index/merkle.py"
    assert _no_local_index(root)  # both went to the team store, not the local index

    # a URL with a password in the shared settings file: refused, one line, the password not shown
    settings.write_text(f'[team]\nstore = "{url}"\n')
    bad = subprocess.run([*CTXMILL, "search", QUERY, "--root", str(root)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 3 and bad.stderr.count("\n") == 1, bad.stderr
    assert "must not hold a password" in bad.stderr and password not in bad.stderr
    # --db still means the local index; CTXMILL_STORE and --store win over the settings
    from ctxmill.team.settings import store_url

    monkeypatch.setenv("CTXMILL_STORE", "postgresql://elsewhere/db")
    assert store_url(None, root) == "postgresql://elsewhere/db"
    assert store_url("postgresql://given/db", root) == "postgresql://given/db"


def test_search_command_goes_through_the_warm_server(team, tmp_path):
    """`ctxmill search --store URL` is answered by the user's background server (which keeps
    the store's connection pool, embedder and caches warm), with the in-process command's bytes;
    a caller whose key settings differ from the server's is answered in-process."""
    from ctxmill import server
    from ctxmill.index import sync_index

    url, root = team
    sync_index(root, store=url)
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1", CTXMILL_SERVER_IDLE="120")
    args = ["search", QUERY, "--root", str(root), "--store", url, "--json", "-k", "5"]
    alone = subprocess.run([*CTXMILL, *args], env=dict(env, CTXMILL_SERVER="0"), capture_output=True, text=True,
                           timeout=300)
    assert alone.returncode == 0, alone.stderr
    try:
        for _ in range(2):  # the first starts the server
            got = subprocess.run([*CTXMILL, *args], env=env, capture_output=True, text=True, timeout=300)
            assert got.returncode == 0, got.stderr
            assert got.stdout == alone.stdout
        old = dict(os.environ)
        os.environ.update(XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1")
        try:
            from ctxmill.team.settings import REQUEST_ENV

            same = {k: os.environ.get(k) for k in REQUEST_ENV}
            reply = server.call("team_search", start=False, root=str(root), store=url, query=QUERY, k=5, env=same)
            assert reply["pid"] != os.getpid() and reply["hits"][0]["path"] == "index/merkle.py"
            other = server.call("team_search", start=False, root=str(root), store=url, query=QUERY, k=5,
                                env=dict(same, CTXMILL_TEAM_KEY="another-key-0123456789abcdef"))
            assert other.get("unknown") and "hits" not in other
        finally:
            os.environ.clear()
            os.environ.update(old)
    finally:
        subprocess.run([*CTXMILL, "server", "stop"], env=env, capture_output=True, text=True, timeout=60)


def test_index_command_goes_through_the_warm_server(team, tmp_path):
    """`ctxmill index ROOT --store URL` of a known (repository, branch) is synced by the user's
    background server (no imports, no new connection in the command), printing what the
    in-process command prints; a second machine's first sync of a tree the store holds goes
    there too, and a first build (neither this machine nor the store knows it) runs in-process."""
    from ctxmill import server
    from ctxmill.index import sync_index

    url, root = team
    sync_index(root, store=url)  # the first machine's first build
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1", CTXMILL_SERVER_IDLE="120")
    args = ["index", str(root), "--store", url, "--json"]
    alone = subprocess.run([*CTXMILL, *args], env=dict(env, CTXMILL_SERVER="0"), capture_output=True, text=True,
                           timeout=300)
    assert alone.returncode == 0, alone.stderr

    def counts(out: str) -> tuple:
        d = json.loads(out)
        return d["files_scanned"], d["files_changed"], d["chunks_total"], d["chunks_embedded"], sorted(d)

    old = dict(os.environ)
    try:
        for _ in range(2):  # the first starts the server
            got = subprocess.run([*CTXMILL, *args], env=env, capture_output=True, text=True, timeout=300)
            assert got.returncode == 0, got.stderr
            assert counts(got.stdout) == counts(alone.stdout)
        text = subprocess.run([*CTXMILL, "index", str(root), "--store", url], env=env, capture_output=True,
                              text=True, timeout=300)
        assert re.fullmatch(r"\d+ files scanned, 0 changed, 0 deleted; \d+ chunks, 0 embedded in [0-9.]+s\n",
                            text.stdout), text.stdout
        # a second machine: another copy, the server already holds its tree
        other = tmp_path / "second" / root.name
        shutil.copytree(root, other)
        second = subprocess.run([*CTXMILL, "index", str(other), "--store", url, "--json"], env=env,
                                capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr
        d = json.loads(second.stdout)
        assert d["chunks_embedded"] == 0 and d["files_changed"] == 0
        os.environ.update(XDG_RUNTIME_DIR=str(run), CTXMILL_SERVER="1")
        ops = [r["op"] for r in server.call("timings", start=False)["timings"]]
        assert ops.count("team_sync") == 4, ops  # all four were synced by the server
        # other key settings than the server's: the command syncs in-process
        from ctxmill.team.settings import REQUEST_ENV

        same = {k: os.environ.get(k) for k in REQUEST_ENV}
        other_key = server.call("team_sync", start=False, root=str(root), store=url,
                                env=dict(same, CTXMILL_TEAM_KEY="another-key-0123456789abcdef"))
        assert other_key.get("unknown") and "report" not in other_key
        # a first build (no record here, nothing on the server) is left to the command: its progress bar
        from ctxmill.team.pgstore import sync_known

        os.environ["CTXMILL_STORE_REPO"] = f"never-synced-{tmp_path.name}"
        before = _rows(url)
        assert sync_known(url, str(root)) is None
        assert _rows(url) == before
    finally:
        os.environ.clear()
        os.environ.update(old)
        subprocess.run([*CTXMILL, "server", "stop"], env=env, capture_output=True, text=True, timeout=60)
