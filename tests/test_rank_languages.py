"""Ranker evidence for languages beyond Python and TypeScript: module index files named by
their folder, ``::`` paths as symbol lookups (hand-made candidates)."""

from __future__ import annotations

from ctxmill.index.rank import parse_query, rerank


def hit(path, start, end, text, *, symbol=None, kind="function", score=0.5):
    return {"path": path, "start_line": start, "end_line": end, "text": text, "symbol": symbol, "kind": kind,
            "score": score}


def test_colon_path_is_a_symbol_lookup():
    q = parse_query("Rack::Builder")
    assert q.symbol_lookup and {"Rack", "Builder"} <= q.idents
    assert parse_query("fmt::format_to").symbol_lookup
    assert not parse_query("how Rack::Builder builds apps").symbol_lookup


def test_colon_path_finds_the_class_not_its_uses():
    use = hit("lib/rack/server.rb", 1, 9, "app = Rack::Builder.new { run x }", symbol="Rack.Server.start",
              kind="method", score=0.9)
    cls = hit("lib/rack/builder.rb", 36, 39, "  class Builder\n    UTF_8_BOM = 'x'", symbol="Rack.Builder", kind="class",
              score=0.4)
    assert rerank("Rack::Builder", [use, cls])[0]["path"] == "lib/rack/builder.rb"


def test_module_index_file_is_named_by_its_folder():
    # mod.rs says nothing; the folder `routing` is the module's name
    index = hit("src/routing/mod.rs", 1, 40, "pub struct Thing;\nfn make() {}", symbol="make", score=0.4)
    other = hit("src/routing/handler.rs", 1, 40, "fn call() {}", symbol="call", score=0.6)
    out = rerank("how the router nests routing trees", [other, index])
    assert out[0]["path"] == "src/routing/mod.rs"
