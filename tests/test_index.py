"""The index: sync counts, what reaches the embedder, renames, deletes, bad input, search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ctxmill.index.sync as sync_mod
from ctxmill.errors import InputRefused
from ctxmill.index import index_status, search, sync_index
from ctxmill.index.embedders import HashEmbedder
from ctxmill.index.store import Store

PY_A = '''"""Accounts."""


def open_account(owner_name, deposit):
    """Open an account for owner_name with a first deposit."""
    account = {"owner": owner_name, "balance": deposit}
    return account


def close_account(account):
    """Close it and return the balance."""
    balance = account["balance"]
    account["balance"] = 0
    return balance
'''

PY_B = '''class RateLimiter:
    """Token bucket rate limiter."""

    def __init__(self, rate_per_second):
        self.rate_per_second = rate_per_second
        self.tokens = rate_per_second

    def try_acquire(self):
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
'''

GO = '''package geo

// HaversineDistance returns the great-circle distance in kilometres.
func HaversineDistance(lat1, lon1, lat2, lon2 float64) float64 {
	return 6371 * centralAngle(lat1, lon1, lat2, lon2)
}
'''


class CountingEmbedder(HashEmbedder):
    """The hash embedder, remembering every text it was asked to embed."""

    def __init__(self):
        super().__init__(256)
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def make_tree(root: Path) -> Path:
    (root / "bank").mkdir(parents=True)
    (root / "bank" / "accounts.py").write_text(PY_A)
    (root / "net").mkdir()
    (root / "net" / "limiter.py").write_text(PY_B)
    (root / "geo.go").write_text(GO)
    (root / "README.md").write_text("# Demo\n\nA demo repository for the index tests.\n")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "repo")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "index.db"


def chunk_rows(db: Path, path: str | None = None):
    with Store(db) as s:
        q = "SELECT path, start_line, end_line, kind, symbol, text FROM chunks"
        return s.conn.execute(q + (" WHERE path=?" if path else "") + " ORDER BY path, start_line",
                              (path,) if path else ()).fetchall()


def test_first_sync_counts_and_noop(tree, db):
    emb = CountingEmbedder()
    r = sync_index(tree, db_path=db, embedder=emb)
    d = r.to_dict()
    assert set(d) == {"files_scanned", "files_changed", "files_deleted", "chunks_total", "chunks_embedded", "seconds",
                      "warnings"}
    assert (d["files_scanned"], d["files_changed"], d["files_deleted"]) == (4, 4, 0)
    assert d["chunks_total"] == len(chunk_rows(db)) > 4
    assert d["chunks_embedded"] == len(emb.seen) == len(set(emb.seen))
    emb.seen.clear()
    r2 = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert (r2["files_changed"], r2["files_deleted"], r2["chunks_embedded"]) == (0, 0, 0)
    assert r2["chunks_total"] == d["chunks_total"]
    assert emb.seen == []
    (tree / "geo.go").unlink()
    (tree / "net" / "limiter.py").write_text(PY_B.replace("def try_acquire", "def acquire_now"))
    r3 = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert r3["chunks_total"] == len(chunk_rows(db)) < d["chunks_total"]  # kept without recounting


def test_only_changed_chunk_contents_reach_the_embedder(tree, db):
    emb = CountingEmbedder()
    sync_index(tree, db_path=db, embedder=emb)
    emb.seen.clear()
    p = tree / "bank" / "accounts.py"
    p.write_text(PY_A.replace("return balance", "return balance  # closed"))
    r = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert r["files_changed"] == 1
    assert r["chunks_embedded"] == 1 and len(emb.seen) == 1
    assert "def close_account" in emb.seen[0] and "# closed" in emb.seen[0]


def test_touch_without_change_reads_but_embeds_nothing(tree, db):
    emb = CountingEmbedder()
    sync_index(tree, db_path=db, embedder=emb)
    emb.seen.clear()
    p = tree / "geo.go"
    os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))
    r = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert (r["files_changed"], r["chunks_embedded"]) == (0, 0)
    with Store(db) as s:  # the stat was refreshed, so the next sync does not even read it
        assert s.file_rows()["geo.go"][1] == p.stat().st_mtime_ns


def test_rename_and_revert_cost_no_embedding(tree, db):
    emb = CountingEmbedder()
    sync_index(tree, db_path=db, embedder=emb)
    emb.seen.clear()
    (tree / "net" / "limiter.py").rename(tree / "net" / "bucket.py")
    r = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert (r["files_changed"], r["files_deleted"], r["chunks_embedded"]) == (1, 1, 0)
    assert chunk_rows(db, "net/limiter.py") == []
    assert chunk_rows(db, "net/bucket.py")
    # A change and its revert: the revert finds its vectors still there.
    p = tree / "geo.go"
    p.write_text(GO.replace("6371", "6371.0"))
    assert sync_index(tree, db_path=db, embedder=emb).chunks_embedded == 1
    p.write_text(GO)
    r = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert (r["files_changed"], r["chunks_embedded"]) == (1, 0)


def test_deleted_files_lose_chunks_and_search_hits(tree, db):
    sync_index(tree, db_path=db)
    assert any(h.path == "net/limiter.py" for h in search("RateLimiter", tree, db_path=db))
    (tree / "net" / "limiter.py").unlink()
    r = sync_index(tree, db_path=db).to_dict()
    assert r["files_deleted"] == 1
    assert chunk_rows(db, "net/limiter.py") == []
    assert all(h.path != "net/limiter.py" for h in search("RateLimiter token bucket", tree, db_path=db))
    with Store(db) as s:
        assert s.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == len(chunk_rows(db))
        assert "net/limiter.py" not in s.file_rows()
        # the folder node of an emptied folder is gone from the Merkle tree
        assert s.conn.execute("SELECT count(*) FROM nodes WHERE path='net'").fetchone()[0] == 0


def test_search_hits_contract_and_path_prefix(tree, db):
    sync_index(tree, db_path=db)
    hits = search("haversine distance", tree, db_path=db, k=3)
    top = hits[0].to_dict()
    assert top["path"] == "geo.go" and top["symbol"] == "HaversineDistance"
    assert (top["start_line"], top["end_line"]) == (3, 6)
    assert top["text"].startswith("// HaversineDistance")
    assert set(top) == {"path", "start_line", "end_line", "score", "kind", "symbol", "text"}
    # identifier-aware: snake_case query words find the camelCase definition and vice versa
    assert search("haversineDistance", tree, db_path=db, k=1)[0].path == "geo.go"
    assert search("try acquire", tree, db_path=db, k=1)[0].symbol.endswith("RateLimiter")
    only_bank = search("account balance", tree, db_path=db, path_prefix="bank/", k=10)
    assert only_bank and all(h.path.startswith("bank/") for h in only_bank)
    assert search("account balance", tree, db_path=db, path_prefix="nothing/here") == []


def test_merkle_root_is_content_addressed(tmp_path):
    a = make_tree(tmp_path / "a")
    b = make_tree(tmp_path / "b")
    ra = sync_index(a, db_path=tmp_path / "a.db").merkle_root
    rb = sync_index(b, db_path=tmp_path / "b.db").merkle_root
    assert ra == rb and len(ra) == 32
    (b / "net" / "limiter.py").write_text(PY_B + "\n# changed\n")
    rb2 = sync_index(b, db_path=tmp_path / "b.db").merkle_root
    assert rb2 != ra
    from ctxmill.index.merkle import changed_folders

    with Store(tmp_path / "a.db") as sa, Store(tmp_path / "b.db") as sb:
        other = dict(sb.conn.execute("SELECT path, hash FROM nodes"))
        assert changed_folders(sa.conn, other) == ["", "net"]  # bank/ is never visited


def test_embedder_change_reembeds_everything(tree, db):
    r1 = sync_index(tree, db_path=db, embedder=HashEmbedder(256))
    r2 = sync_index(tree, db_path=db, embedder=HashEmbedder(128))
    assert r2.files_changed == 0
    assert r2.chunks_embedded == r1.chunks_embedded > 0
    assert index_status(tree, db_path=db)["embedder"] == {"name": "hash-128", "dim": 128}
    assert search("RateLimiter", tree, db_path=db, embedder=HashEmbedder(128))


# ----------------------------------------------------------------------------- bad input


def test_invalid_utf8_is_indexed_with_a_warning(tree, db):
    (tree / "latin1.py").write_bytes(b"# caf\xe9\ndef brew_coffee():\n    return 'caf\xe9'\n")
    r = sync_index(tree, db_path=db)
    assert "latin1.py: invalid UTF-8, undecodable bytes replaced" in r.warnings
    rows = chunk_rows(db, "latin1.py")
    assert rows and "\ufffd" in rows[0][5] and rows[0][4] == "brew_coffee"


def test_unreadable_and_vanishing_files_do_not_stop_the_sync(tree, db, monkeypatch):
    sync_index(tree, db_path=db)
    (tree / "new_a.py").write_text("def alpha():\n    return 1\n")
    (tree / "new_b.py").write_text("def beta():\n    return 2\n")
    (tree / "geo.go").write_text(GO + "\n// edited\n")
    real_read = sync_mod._read

    def flaky(path):
        if path.endswith("new_a.py"):
            raise PermissionError(13, "Permission denied")
        if path.endswith("geo.go"):
            raise FileNotFoundError(2, "No such file")
        return real_read(path)

    monkeypatch.setattr(sync_mod, "_read", flaky)
    r = sync_index(tree, db_path=db)
    assert "new_a.py: unreadable (Permission denied)" in r.warnings
    assert chunk_rows(db, "new_b.py")  # the rest went on
    assert chunk_rows(db, "geo.go")  # nothing lost: the old chunks stay until it can be read
    monkeypatch.setattr(sync_mod, "_read", real_read)
    r = sync_index(tree, db_path=db)
    assert r.files_changed == 2  # retried: new_a.py and geo.go
    assert "// edited" in chunk_rows(db, "geo.go")[-1][5]


def test_binary_huge_and_minified_files(tree, db):
    (tree / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 10)
    big = tree / "bundle.min.js"
    with open(big, "wb") as fh:  # 50 MB of minified JavaScript
        chunk = b"var a=function(b){return b+1};" * 1000
        for _ in range(50_000_000 // len(chunk) + 1):
            fh.write(chunk)
    (tree / "small.min.js").write_text("var x=function(y){return y*2};" * 5000)  # 150 KB, one line
    r = sync_index(tree, db_path=db)
    assert ("bundle.min.js", f"too large ({big.stat().st_size} bytes > 1000000)") in r.skipped
    assert chunk_rows(db, "logo.png") == []
    with Store(db) as s:
        assert s.file_rows()["logo.png"][4] == "binary"
    small = chunk_rows(db, "small.min.js")
    assert len(small) > 10 and all(row[1] == row[2] == 1 for row in small)
    assert sync_index(tree, db_path=db).files_changed == 0  # binary files are not re-read


def test_symlink_loops_do_not_hang(tree, db):
    (tree / "bank" / "loop").symlink_to(tree)
    (tree / "net" / "again").symlink_to(tree / "net")
    r = sync_index(tree, db_path=db)
    assert r.files_scanned == 4


def test_newer_schema_is_refused_and_kept(tree, db):
    sync_index(tree, db_path=db)
    assert search("RateLimiter", tree, db_path=db)  # leaves a cached reader open
    with Store(db) as s:
        s.set_meta("schema_version", "99")
    before = db.read_bytes()
    with pytest.raises(InputRefused, match="schema version 99 is newer"):
        sync_index(tree, db_path=db)
    with pytest.raises(InputRefused, match="schema version 99 is newer"):
        search("x", tree, db_path=db)
    assert db.read_bytes() == before
    out = subprocess.run([sys.executable, "-m", "ctxmill.cli", "index", str(tree), "--db", str(db)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3 and "newer than this ctxmill supports" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_garbage_database_is_refused(tree, tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputRefused, match="not a ctxmill index"):
        sync_index(tree, db_path=bad)


def test_not_a_folder_and_not_indexed(tmp_path):
    with pytest.raises(InputRefused, match="not a folder"):
        sync_index(tmp_path / "missing", db_path=tmp_path / "x.db")
    with pytest.raises(InputRefused, match="not indexed yet"):
        search("x", tmp_path, db_path=tmp_path / "none.db")


# ----------------------------------------------------------------------------- CLI and location


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "ctxmill.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_cli_index_search_status(tree, tmp_path):
    env = {"CTXMILL_INDEX_DIR": str(tmp_path / "cache")}
    out = run_cli("index", str(tree), "--json", env=env)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)
    assert counts["files_scanned"] == 4 and counts["files_changed"] == 4
    assert out.stderr == ""  # no progress bar when stderr is not a terminal
    dbs = list((tmp_path / "cache").glob("repo-*.db"))
    assert len(dbs) == 1  # under CTXMILL_INDEX_DIR, named after the folder
    out = run_cli("search", "rate limiter", "--root", str(tree), "--json", "-k", "2", env=env)
    hits = json.loads(out.stdout)
    assert out.returncode == 0 and len(hits) == 2 and hits[0]["path"] == "net/limiter.py"
    out = run_cli("search", "rate limiter", "--root", str(tree), "--path", "bank", "--json", env=env)
    assert all(h["path"].startswith("bank") for h in json.loads(out.stdout))
    out = run_cli("status", str(tree), env=env)
    assert out.returncode == 0 and "4 files" in out.stdout and "static:ctxmill-code-256" in out.stdout
    out = run_cli("status", str(tree), "--json", env=env)
    st = json.loads(out.stdout)
    assert st["files"] == 4 and st["complete"] is True
    out = run_cli("search", "x", "--root", str(tmp_path / "elsewhere"), env=env)
    assert out.returncode == 3 and "not indexed yet" in out.stderr


def test_default_db_path_under_user_cache(tmp_path, monkeypatch):
    from ctxmill.index import default_db_path

    monkeypatch.delenv("CTXMILL_INDEX_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    p = default_db_path(tmp_path / "proj")
    assert p.parent == tmp_path / "xdg" / "ctxmill" / "index" and p.name.startswith("proj-")
    monkeypatch.setenv("CTXMILL_INDEX_DIR", str(tmp_path / "elsewhere"))
    assert default_db_path(tmp_path / "proj").parent == tmp_path / "elsewhere"


def test_vectors_are_unit_rows_keyed_by_content(tree, db):
    (tree / "copy.go").write_text(GO)  # identical content: embedded once
    emb = CountingEmbedder()
    sync_index(tree, db_path=db, embedder=emb)
    assert len(emb.seen) == len(set(emb.seen))
    with Store(db) as s:
        n_hashes = s.conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
        assert s.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == n_hashes
    vecs = emb.embed(emb.seen[:3])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_unused_vectors_are_dropped_after_the_grace_period(tree, db, monkeypatch):
    import ctxmill.index.store as store_mod

    monkeypatch.setattr(store_mod, "VECTOR_GRACE_SYNCS", 2)
    sync_index(tree, db_path=db)
    with Store(db) as s:
        old = {h for (h,) in s.conn.execute("SELECT hash FROM chunks WHERE path='geo.go'")}
    (tree / "geo.go").write_text(GO.replace("6371", "6371.0"))
    sync_index(tree, db_path=db)
    for i in range(3):  # unrelated changes keep syncs coming
        (tree / f"extra_{i}.py").write_text(f"def extra_{i}():\n    return {i}\n")
        sync_index(tree, db_path=db)
    with Store(db) as s:
        have = {h for (h,) in s.conn.execute("SELECT hash FROM vectors")}
        live = {h for (h,) in s.conn.execute("SELECT hash FROM chunks")}
    assert not (old - live) & have  # the replaced chunk's vector is gone
    assert live <= have


def test_near_universal_terms_are_recorded_and_skipped(tmp_path):
    root = tmp_path / "many"
    for i in range(220):  # 5 chunks a file: over the 1,000 chunks where pruning starts
        d = root / f"p{i // 50}"
        d.mkdir(parents=True, exist_ok=True)
        funcs = "\n\n".join(
            f"def step_{i}_{j}(value):\n    '''Apply the step to the value.'''\n    result = value + {j}\n"
            f"    result = result * {i}\n    return result\n" for j in range(5))
        (d / f"m{i}.py").write_text(funcs + ("\n\ndef rare_widget_factory():\n    return 1\n" if i == 7 else ""))
    db = tmp_path / "i.db"
    sync_index(root, db_path=db)
    import importlib

    search_mod = importlib.import_module("ctxmill.index.search")
    with Store(db) as s:
        common = search_mod._common_terms(s)
        assert {"value", "result", "return", "the"} <= common and "widget" not in common
        assert search_mod._prune_common(s, ["the", "value", "widget"]) == ["widget"]
        assert search_mod._prune_common(s, ["the", "value"]) == ["the", "value"]  # nothing rarer left
        from ctxmill.index.terms import query_terms

        (top,) = search_mod.lexical(s, query_terms("the value of the rare widget"), None, 1)
        assert s.conn.execute("SELECT symbol FROM chunks WHERE id=?", (top,)).fetchone()[0] == "rare_widget_factory"
    assert any(h.symbol == "rare_widget_factory" for h in search("rare widget", root, db_path=db, k=3))


def test_stat_cache_deltas_stay_equal_to_the_file_rows(tree, db):
    def rows_and_cache():
        with Store(db) as s:
            rows = {r[0]: (r[1], r[2], r[3]) for r in s.conn.execute("SELECT path, size, mtime_ns, inode FROM files")}
            return rows, s.stat_cache(), s.get_meta("statcache_delta")

    sync_index(tree, db_path=db)
    (tree / "geo.go").write_text(GO + "\n// one\n")
    sync_index(tree, db_path=db)
    rows, cache, delta = rows_and_cache()
    assert cache == rows and delta  # a small change went to the delta only
    (tree / "README.md").unlink()
    (tree / "new.py").write_text("def new():\n    return 1\n")
    r = sync_index(tree, db_path=db)
    assert (r.files_changed, r.files_deleted) == (1, 1)
    rows, cache, _ = rows_and_cache()
    assert cache == rows and "README.md" not in cache
    for i in range(600):  # many changes: the whole cache is rewritten and the delta dropped
        (tree / f"gen_{i}.txt").write_text(f"line {i}\n")
    sync_index(tree, db_path=db)
    rows, cache, delta = rows_and_cache()
    assert cache == rows and delta is None
    assert sync_index(tree, db_path=db).files_changed == 0


def test_resync_with_the_forked_walk_sees_edits_deletes_and_new_files(tree, db, monkeypatch):
    import ctxmill.sources.repo as repo

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    for i in range(6):  # a few folders to share among the children
        (tree / f"pkg{i}").mkdir()
        (tree / f"pkg{i}" / f"mod{i}.py").write_text(f"def handler_{i}(request):\n    return {i}\n")
    emb = CountingEmbedder()
    first = sync_index(tree, db_path=db, embedder=emb).to_dict()
    forks = []
    real_fork = os.fork

    def counting_fork():
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(sync_mod, "FORKED_WALK_MIN_FILES", 1)
    monkeypatch.setattr(repo, "_can_fork", lambda: True)
    monkeypatch.setattr(repo.os, "fork", counting_fork)
    emb.seen.clear()
    noop = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert forks and (noop["files_changed"], noop["files_deleted"], noop["chunks_embedded"]) == (0, 0, 0)
    assert noop["files_scanned"] == first["files_scanned"]
    (tree / "pkg2" / "mod2.py").write_text("def handler_2(request):\n    return 'two'\n")
    (tree / "pkg4" / "mod4.py").unlink()
    (tree / "pkg5" / "extra.py").write_text("def brand_new_handler():\n    return None\n")
    r = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert (r["files_changed"], r["files_deleted"], r["chunks_embedded"]) == (2, 1, 2)
    assert chunk_rows(db, "pkg4/mod4.py") == []
    assert any("brand_new_handler" in t for t in emb.seen) and any("'two'" in t for t in emb.seen)


def test_an_index_from_another_chunker_version_is_rechunked_once(tree, db):
    """After an upgrade that changes chunking, unchanged files get the new chunks on the next
    sync (their vectors are reused by content), and the sync after that is a no-op."""
    emb = CountingEmbedder()
    first = sync_index(tree, db_path=db, embedder=emb).to_dict()
    fresh = chunk_rows(db)
    with Store(db) as s:  # as an older ctxmill left it: other chunk boundaries, no version mark
        with s.transaction():
            s.conn.execute("UPDATE chunks SET start_line = start_line + 100 WHERE path = 'geo.go'")
            s.conn.execute("DELETE FROM meta WHERE key = 'chunker_version'")
    (tree / "geo.go").touch()
    os.utime(tree / "net" / "limiter.py")
    emb.seen.clear()
    again = sync_index(tree, db_path=db, embedder=emb).to_dict()
    assert again["files_changed"] == first["files_scanned"]  # every file read and chunked again
    assert again["chunks_embedded"] == 0 and emb.seen == []  # same contents: no new vectors
    assert chunk_rows(db) == fresh
    assert sync_index(tree, db_path=db, embedder=emb).to_dict()["files_changed"] == 0
