"""Searches keep things between queries (an open connection, the vector matrix, each file's
naming terms); none of it may outlive a change to the index, whoever made it."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill.index import search, sync_index
from ctxmill.index.rank import FileNames, file_terms, head_doc, stem
from ctxmill.index.store import Store

SRC = Path(__file__).resolve().parents[1] / "src" / "ctxmill"
search_mod = importlib.import_module("ctxmill.index.search")


def _paths(hits) -> set[str]:
    return {h.path for h in hits}


def _sync_elsewhere(root: Path, db: Path, embedder: str = "hash-256") -> None:
    """A sync by another process, as `ctxmill index` run in a terminal next to a server."""
    env = {**os.environ, "CTXMILL_EMBEDDER": embedder}
    out = subprocess.run([sys.executable, "-m", "ctxmill.cli", "index", str(root), "--db", str(db), "-q"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr


WORDS = ("account balance deposit ledger invoice refund payment currency rate tax vat price order cart "
         "shipping parcel route graph vertex edge polygon circle square area perimeter angle vector matrix "
         "token parser lexer grammar cache entry eviction queue worker thread lock retry backoff timeout").split()
QUERIES = ("circle area", "convert currency", "retry with backoff after a timeout", "parse tokens")


def _repo(tmp_path: Path, seed: int = 0) -> Path:
    """Forty small modules with overlapping vocabulary, so lexical and vector ranks both matter."""
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    n = len(WORDS)
    for i in range(40):
        a, b, c, d = (WORDS[(seed + i * k) % n] for k in (1, 3, 7, 11))
        (root / f"m{i:02d}_{a}.py").write_text(
            f'"""{a.capitalize()} and {b} helpers."""\n\n\n'
            f'def {a}_{b}({c}, {d}):\n    """Combine the {c} with the {d}."""\n    return {c} + {d}\n\n\n'
            f"class {b.capitalize()}{c.capitalize()}:\n    def {d}(self):\n        return self.{a}\n")
    (root / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 3.14 * self.r ** 2\n")
    (root / "money.py").write_text("def convert_currency(amount, rate):\n    return amount * rate\n")
    return root


def _fresh(query: str, root: Path, db: Path) -> list[tuple]:
    """What a new process finds: the reference for every cached search in this one."""
    out = subprocess.run([sys.executable, "-m", "ctxmill.cli", "search", query, "--root", str(root),
                          "--db", str(db), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [(h["path"], h["start_line"], h["score"]) for h in json.loads(out.stdout)]


def _here(query: str, root: Path, db: Path) -> list[tuple]:
    return [(h.path, h.start_line, round(float(h.score), 6)) for h in search(query, root, db_path=db)]


def _same_as_a_new_process(root: Path, db: Path) -> None:
    for q in QUERIES:
        assert _here(q, root, db) == _fresh(q, root, db), q


@pytest.mark.parametrize("where", ["this process", "another process"])
def test_search_sees_a_resync(tmp_path, where):
    root, db = _repo(tmp_path), tmp_path / "i.db"
    sync_index(root, db_path=db, embedder="hash-256")
    for q in QUERIES:
        search(q, root, db_path=db)  # every cache warm
    assert "money.py" in _paths(search("convert currency", root, db_path=db))
    (root / "money.py").unlink()
    (root / "sun.py").write_text('def sundial_shadow(hour):\n    """Length of the gnomon shadow."""\n    return hour * 0.2\n')
    if where == "this process":
        sync_index(root, db_path=db, embedder="hash-256")
    else:
        _sync_elsewhere(root, db)
    assert search("sundial shadow", root, db_path=db)[0].path == "sun.py"
    assert "money.py" not in _paths(search("convert currency", root, db_path=db))
    _same_as_a_new_process(root, db)


def test_a_rebuilt_index_of_the_same_shape_is_not_mistaken_for_the_old_one(tmp_path):
    # Same files, chunk count and sync number: only the database's identity tells them apart.
    root, db = _repo(tmp_path), tmp_path / "i.db"
    sync_index(root, db_path=db, embedder="hash-256")
    for q in QUERIES:
        search(q, root, db_path=db)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    (root / "shapes.py").write_text("class Rhombus:\n    def diagonal(self):\n        return self.side * 1.414\n")
    sync_index(root, db_path=db, embedder="static")  # the same vector ids, other vectors
    hits = search("rhombus diagonal", root, db_path=db)
    assert hits[0].path == "shapes.py" and "Rhombus" in hits[0].text
    _same_as_a_new_process(root, db)


def test_search_follows_an_embedder_change_made_elsewhere(tmp_path):
    """hash-256 and static both have 256 dims: a reader that kept the old embedder's name
    would embed queries with it and compare them with the new vectors."""
    root, db = _repo(tmp_path), tmp_path / "i.db"
    sync_index(root, db_path=db, embedder="hash-256")
    for q in QUERIES:
        search(q, root, db_path=db)
    _sync_elsewhere(root, db, embedder="static")
    with Store(db, create=False) as st:
        assert st.embedder_name.startswith("static")
    _same_as_a_new_process(root, db)


def test_file_names_match_exactly_what_file_terms_hold():
    """FileNames.matching skips names that cannot hold a query word; on real files and words
    (including -ies plurals and words spanning snake_case parts) it must agree with the set."""
    words = {"entries", "entry", "websocket", "socket", "web", "parsers", "ids", "id", "x", "ab", "y",
             "categories", "http", "server", "read", "readers", "embedding", "vectors", "sync", "syncing"}
    checked = 0
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        symbols = re.findall(r"(?:def|class)\s+([A-Za-z_]\w*)", text)
        symbols.append("get_categories.web_socket$handler")
        rel = str(path.relative_to(SRC.parent))
        terms = file_terms(rel, symbols, head_doc(text[:3000]))
        names = FileNames(rel, symbols, head_doc(text[:3000]))
        own = sorted(terms)[::7]  # some of the file's own terms, and words it lacks
        for qstems in ({stem(w) for w in words}, set(own), set(own[:3]) | {"zzz"}, set()):
            assert names.matching(qstems) == terms & qstems, (rel, qstems)
            checked += 1
    assert checked > 100
    assert FileNames("a.py", ["get_entries"]).matching({stem("entries")}) == {"entry"}
    assert FileNames("a.py", ["web_socket"]).matching({"websocket"}) == {"websocket"}
    assert FileNames("", []).matching({"x"}) == frozenset()


def test_identifier_splitting_is_unchanged():
    """split_identifier runs one findall over the whole name; it must split exactly as splitting
    at underscores first did, on every identifier of the standard library and odd cases."""
    import sysconfig

    from ctxmill.index.textsplit import _CAMEL, split_identifier

    def reference(name: str) -> list[str]:
        out: list[str] = []
        for part in name.split("_"):
            if part:
                out.extend(m.group(0).lower() for m in _CAMEL.finditer(part))
        return out

    names = {"HTTPServer", "getHTTPHeader_v2", "a$b", "_x__Y", "ABc_De", "AB_Cd", "x1Y2z", "__init__", "$", "_",
             "ÄbC_é", "HTML5Parser", "ALL_CAPS_NAME", "snake__case_", "A_B", "a_B_c"}
    lib = Path(sysconfig.get_paths()["stdlib"])
    for p in sorted(lib.glob("*.py"))[:60]:
        names.update(re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", p.read_text(errors="replace")))
    assert len(names) > 5000
    for name in names:
        assert split_identifier(name) == reference(name), name


def test_ranker_caches_stay_bounded(monkeypatch):
    """The ranker's memo caches are unbounded lru_caches (cheap for the garbage collector):
    each query's rerank empties those that reached their limit."""
    from ctxmill.index import rank

    rank.stem.cache_clear()
    for w in ("alphas", "betas", "gammas"):
        rank.stem(w)
    assert rank.stem.cache_info().currsize == 3
    monkeypatch.setattr(rank, "_MEMOS", [(rank.stem, 3)])
    rank.rerank("parse tokens", [{"path": "a.py", "start_line": 1, "end_line": 2, "text": "x", "score": 0.5}])
    misses = rank.stem.cache_info().misses
    rank.stem("alphas")  # emptied by the rerank: computed again
    assert rank.stem.cache_info().misses == misses + 1
