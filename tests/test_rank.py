"""The code-aware ranker: query shape, symbol/definition evidence, paths, de-duplication,
file flooding - on hand-made candidates, and end to end on a small indexed tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmill.index.rank import DEFAULT_WEIGHTS, fuse, fuse_ids, parse_query, rerank, weights_from


def hit(path, start, end, text, *, symbol=None, kind="function", score=0.5):
    return {"path": path, "start_line": start, "end_line": end, "text": text, "symbol": symbol, "kind": kind,
            "score": score}


def test_parse_query_shapes():
    q = parse_query("ClientSession")
    assert q.symbol_lookup and "ClientSession" in q.idents
    assert q.words == ["client", "session", "clientsession"]
    q = parse_query("how does dependency injection work")
    assert not q.symbol_lookup and q.words == ["dependency", "injection"] and not q.idents
    q = parse_query("how ZodType base class parses input")
    assert q.idents == {"ZodType"} and "zod" in q.words and "parses" in q.words
    assert parse_query("field_validator").idents == {"field_validator"}
    assert parse_query("where are the tests for routing").wants_tests


def test_fuse_ids_scales_and_orders():
    fused = fuse_ids([1, 2, 3], [2, 1, 4])
    ids = [cid for cid, _ in fused]
    assert set(ids[:2]) == {1, 2} and ids[-1] in (3, 4)
    both_first = fuse_ids(["a"], ["a"])
    assert both_first == [("a", pytest.approx(1.0))]
    only_lex = dict(fuse_ids(["x"], [], weights_from({"vec": 0.0})))
    assert only_lex["x"] == pytest.approx(1.0)


def test_fuse_keeps_objects_and_sets_scores():
    a, b = hit("a.py", 1, 2, "x"), hit("b.py", 1, 2, "y")
    out = fuse([a, b], [b])
    assert [h["path"] for h in out] == ["b.py", "a.py"]
    assert all(0 < h["score"] <= 1 for h in out)


def test_definition_beats_use_for_symbol_lookup():
    use = hit("app/views.py", 10, 20, "s = ClientSession()\ns.get(url)", symbol="fetch", score=0.9)
    definition = hit("app/client.py", 1, 30, "class ClientSession:\n    '''An HTTP session.'''", symbol="ClientSession",
                     kind="class", score=0.4)
    out = rerank("ClientSession", [use, definition])
    assert out[0]["path"] == "app/client.py"


def test_definition_found_in_text_when_symbol_field_differs():
    merged = hit("lib/router.ts", 1, 40, "import x from 'y'\nexport class AnyRouter {\n}", symbol=None, kind="code",
                 score=0.3)
    other = hit("lib/other.ts", 1, 10, "const r: AnyRouter = make()", symbol="make", score=0.5)
    assert rerank("AnyRouter", [other, merged])[0]["path"] == "lib/router.ts"


def test_file_name_terms_and_central_file():
    a = hit("pkg/routing.py", 1, 10, "def add_route(path): ...", symbol="add_route", score=0.45)
    a2 = hit("pkg/routing.py", 11, 30, "def match(path): ...", symbol="match", score=0.4)
    b = hit("pkg/utils.py", 1, 10, "def route_helper(): ...", symbol="route_helper", score=0.5)
    out = rerank("how does routing work", [b, a, a2])
    assert out[0]["path"] == "pkg/routing.py"


def test_near_duplicates_removed_and_files_do_not_flood():
    flood = [hit("big.py", i * 10 + 1, i * 10 + 9, f"def f{i}(): parse(token)", symbol=f"f{i}", score=0.9 - i * 0.01)
             for i in range(8)]
    dup = hit("copy/big.py", 1, 9, "def f0():   parse(token)", symbol="f0", score=0.85)
    other = hit("parser.py", 1, 9, "def parse(token): ...", symbol="parse", score=0.5)
    out = rerank("parse token", flood + [dup, other], k=5)
    paths = [h["path"] for h in out]
    assert "copy/big.py" not in paths  # same text up to whitespace as big.py:1-9
    assert "parser.py" in paths[:2]  # not buried under eight chunks of one file
    assert len(out) == 5


def test_tests_and_prose_step_back_unless_asked():
    text = "Cache eviction: drop the least recently used entry."
    t = hit("tests/test_cache.py", 1, 9, text + " # test", symbol="evict", score=0.5)
    c = hit("lru/cache.py", 1, 9, text, symbol="evict", score=0.5)
    md = hit("lru/cache.md", 1, 9, text + " See also: LRU.", symbol="evict", kind="document", score=0.5)
    assert rerank("cache eviction", [t, md, c])[0]["path"] == "lru/cache.py"
    assert rerank("tests for cache eviction", [t, c])[0]["path"] == "tests/test_cache.py"
    assert rerank("cache eviction docs", [md, c])[0]["path"] == "lru/cache.md"


def test_stems_meet():
    from ctxmill.index.rank import stem

    assert len({stem(w) for w in ("parse", "parses", "parser", "parsing")}) == 1
    assert len({stem(w) for w in ("validate", "validator", "validation", "validators")}) == 1
    assert stem("dependencies") == stem("dependency") and stem("tests") == stem("test")


def test_rerank_works_on_dataclass_hits_and_empty():
    from ctxmill.index.search import Hit

    h = Hit("a.py", 1, 3, 0.5, "function", "load_config", "def load_config(): ...")
    out = rerank("load_config", [h])
    assert isinstance(out[0], Hit) and out[0].score > 0.5
    assert rerank("anything", []) == []


def test_weights_from_rejects_unknown():
    assert weights_from({"lex": 2.0}).lex == 2.0
    assert weights_from(None) is DEFAULT_WEIGHTS
    with pytest.raises(ValueError):
        weights_from({"nope": 1.0})


def test_end_to_end_symbol_and_question(tmp_path: Path):
    """A real index (static embedder, FTS5, sqlite-vec) of a small tree, searched through the API."""
    from ctxmill.index import search, sync_index

    root = tmp_path / "proj"
    (root / "net").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "net" / "session.py").write_text(
        "class HttpSession:\n    '''Keeps connections open and sends requests.'''\n\n"
        "    def request(self, method, url):\n        return self._pool.send(method, url)\n\n"
        "    def close(self):\n        self._pool.drain()\n")
    (root / "net" / "pool.py").write_text(
        "class ConnectionPool:\n    '''Reuses TCP connections between requests.'''\n\n"
        "    def send(self, method, url):\n        conn = self.acquire(url)\n        return conn.write(method)\n\n"
        "    def drain(self):\n        for c in self.idle:\n            c.close()\n")
    (root / "tests" / "test_session.py").write_text(
        "from net.session import HttpSession\n\ndef test_request():\n    s = HttpSession()\n    s.request('GET', '/')\n")
    (root / "README.md").write_text("# proj\n\nHttpSession and ConnectionPool, a tiny HTTP client.\n")
    db = tmp_path / "index.db"
    sync_index(root, db_path=db, embedder="static")
    hits = search("HttpSession", root, db_path=db, k=3)
    assert hits[0].path == "net/session.py" and hits[0].start_line == 1
    hits = search("how are connections reused between requests", root, db_path=db, k=3)
    assert hits[0].path == "net/pool.py"
    assert len({(h.path, h.start_line) for h in hits}) == len(hits)


def test_lexical_candidates_are_ranked_by_bm25(tmp_path: Path):
    """The FTS5 table must give real BM25 scores (a contentless table with detail=column gives
    0 for every row, which silently returns matches in insertion order)."""
    from ctxmill.index import sync_index
    from ctxmill.index.search import lexical
    from ctxmill.index.store import Store

    root = tmp_path / "t"
    root.mkdir()
    for i in range(30):
        (root / f"a{i:02d}.py").write_text(f"def filler_{i}(x):\n    return x + {i}  # retry\n")
    (root / "z_backoff.py").write_text("def backoff_delay(attempt):\n    '''Exponential backoff.'''\n"
                                       "    return backoff_base * 2 ** attempt  # backoff backoff\n")
    db = tmp_path / "i.db"
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as store:
        ids = lexical(store, ["backoff", "retry"], None, 5)
        top = store.conn.execute("SELECT path FROM chunks WHERE id=?", (ids[0],)).fetchone()[0]
    assert top == "z_backoff.py"


def test_generated_files_get_no_chunks():
    from ctxmill.index.chunk_code import chunk_file, is_generated

    cython = "/* Generated by Cython 3.1.4 */\nint __pyx_f(void) { return 0; }\n"
    assert is_generated(cython) and chunk_file("mod.c", cython.encode(), cython) == []
    assert is_generated("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
    src = "def generated_name():\n    return 'DO NOT EDIT is just a string here'\n"
    assert not is_generated(src) and chunk_file("m.py", src.encode(), src)


def test_vectors_of_another_embedder_are_not_compared(tmp_path: Path):
    """hash-256 and the static table both have 256 dims; their vectors must never meet."""
    from ctxmill.index import search, sync_index
    from ctxmill.index.embedders import get_embedder
    from ctxmill.index.search import _legs
    from ctxmill.index.store import Store

    root = tmp_path / "r"
    root.mkdir()
    (root / "a.py").write_text("def retry_with_backoff(fn):\n    '''Call fn again after a pause.'''\n")
    db = tmp_path / "i.db"
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as store:
        assert _legs(store, "retry backoff", get_embedder("hash-256"), None, 10)[1]
        assert _legs(store, "retry backoff", get_embedder("static"), None, 10)[1] == []
    assert search("retry backoff", root, db_path=db, embedder="static")[0].path == "a.py"  # lexical still works
