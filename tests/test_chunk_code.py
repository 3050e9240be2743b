"""Chunking per language on small fixtures we wrote: definitions found, line ranges exact.

The fixtures are in tests/fixtures/code/. Expected ranges were checked by hand against the
files: each definition starts at its leading comment / doc comment / decorator / attribute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ctxmill.index.chunk_code as cc

FIX = Path(__file__).parent / "fixtures" / "code"

# (start, end, kind, symbol) with tiny-neighbour merging off (MIN_CHARS = 0)
EXPECTED = {
    "sample.py": [(1, 2, "code", None), (5, 9, "function", "load_config"), (12, 17, "class", "Store")],
    "sample.js": [(1, 1, "code", None), (3, 7, "function", "parseUser"), (9, 16, "class", "UserStore"),
                  (18, 20, "function", "formatUser")],
    "sample.ts": [(1, 5, "interface", "User"), (7, 7, "type", "UserId"), (9, 11, "function", "findUser"),
                  (13, 18, "class", "Registry"), (20, 20, "enum", "Color")],
    "sample.tsx": [(1, 1, "code", None), (3, 3, "type", "Props"), (5, 8, "function", "Header"),
                   (10, 12, "function", "Footer")],
    "sample.go": [(1, 3, "code", None), (5, 8, "struct", "Store"), (10, 13, "method", "Store.Get"),
                  (15, 18, "function", "NewStore")],
    "sample.rs": [(1, 1, "code", None), (3, 7, "struct", "Store"), (9, 18, "impl", "Store"),
                  (20, 22, "function", "parse_line")],
    "Sample.java": [(1, 3, "code", None), (5, 17, "class", "UserRepository"), (19, 21, "interface", "Named")],
    "sample.c": [(1, 1, "code", None), (3, 6, "struct", "point"), (8, 12, "function", "add"),
                 (14, 17, "function", "print_point")],
    "sample.cpp": [(1, 1, "code", None), (5, 10, "class", "Shape"), (12, 14, "function", "square"),
                   (16, 16, "code", None), (18, 21, "function", "max_of")],
    "sample.cs": [(1, 1, "code", None), (5, 14, "class", "Greeter"), (16, 19, "interface", "IClock")],
    "sample.rb": [(1, 1, "code", None), (3, 12, "class", "Account"), (14, 18, "module", "Util")],
    "sample.php": [(1, 3, "code", None), (5, 9, "function", "format_price"), (11, 19, "class", "Cart")],
    "sample.kt": [(1, 3, "code", None), (5, 10, "class", "Point"), (12, 16, "function", "distance"),
                  (18, 20, "object", "Registry")],
    "sample.swift": [(1, 1, "code", None), (3, 10, "class", "Counter"), (12, 15, "struct", "Point"),
                     (17, 20, "function", "distance"), (22, 24, "interface", "Shape")],
    "sample.scala": [(1, 3, "code", None), (5, 8, "trait", "Shape"), (10, 12, "class", "Circle"),
                     (14, 17, "object", "Geometry")],
    "sample.lua": [(1, 1, "code", None), (3, 6, "function", "add"), (8, 11, "function", "M.greet"),
                   (13, 13, "code", None)],
    "sample.sh": [(1, 2, "code", None), (4, 8, "function", "usage"), (10, 12, "function", "build"),
                  (14, 14, "code", None)],
    "sample.ex": [(1, 12, "module", "Shop.Cart")],
    "sample.hs": [(1, 5, "code", None), (6, 6, "type", "Shape"), (8, 9, "function", "area"),
                  (10, 10, "function", "area"), (11, 11, "function", "area"), (13, 14, "class", "Describe")],
    "sample.zig": [(1, 1, "code", None), (3, 7, "struct", "Point"), (9, 12, "function", "add"),
                   (14, 16, "function", "main")],
    "sample.md": [(1, 3, "document", "Guide"), (5, 12, "document", "Guide > Install"),
                  (14, 16, "document", "Guide > Usage"), (18, 20, "document", "Guide > Usage > Advanced")],
}


def chunks_of(name: str):
    data = (FIX / name).read_bytes()
    return cc.chunk_file(name, data, data.decode())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_and_exact_lines(name, monkeypatch):
    monkeypatch.setattr(cc, "MIN_CHARS", 0)
    chunks = chunks_of(name)
    assert [(c.start_line, c.end_line, c.kind, c.symbol) for c in chunks] == EXPECTED[name]
    lines = (FIX / name).read_text().split("\n")
    for c in chunks:  # text is exactly those lines
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])
        assert c.path == name


def test_every_required_language_has_a_grammar():
    required = {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp",
                "ruby", "php", "kotlin", "swift", "scala", "lua", "bash", "elixir", "haskell", "zig"}
    assert required <= set(cc.LANGS)
    for lang in required:
        assert cc.get_parser(lang).parse(b"x").root_node is not None
    covered = {cc.language_for(n) for n in EXPECTED}
    assert required | {"markdown"} == covered


def test_tiny_neighbours_of_one_kind_are_merged():
    by_range = {(c.start_line, c.end_line): c for c in chunks_of("sample.sh")}
    merged = by_range[(4, 12)]
    assert merged.kind == "function" and merged.symbol == "usage, build"
    hs = {(c.start_line, c.end_line): c for c in chunks_of("sample.hs")}
    assert hs[(8, 11)].symbol == "area"  # signature and equations of one function
    # A definition never merges with a code chunk.
    assert [(c.start_line, c.end_line) for c in chunks_of("sample.py")] == [(1, 2), (5, 9), (12, 17)]


def test_large_class_split_at_members_with_signature_context(monkeypatch):
    monkeypatch.setattr(cc, "MAX_CHARS", 60)
    monkeypatch.setattr(cc, "MIN_CHARS", 0)
    got = [(c.start_line, c.end_line, c.kind, c.symbol, c.context) for c in chunks_of("sample.rs")]
    assert (9, 9, "impl", "Store", "") in got
    assert (10, 12, "method", "Store.new", "impl Store {") in got
    assert (14, 17, "method", "Store.get", "impl Store {") in got  # doc comment kept
    py = [(c.start_line, c.end_line, c.kind, c.symbol, c.context) for c in chunks_of("sample.py")]
    assert (12, 14, "class", "Store", "") in py  # decorator, signature and docstring
    assert (16, 17, "method", "Store.get", "class Store:") in py
    cs = [(c.start_line, c.end_line, c.kind, c.symbol, c.context) for c in chunks_of("sample.cs")]
    assert (10, 13, "method", "Greeter.Greet", "public class Greeter") in cs


def test_long_function_split_at_statements_keeps_signature():
    body = "".join(f"    value_{i} = compute_something_long({i}, 'padding padding padding')\n" for i in range(120))
    src = f"def big(x):\n    '''Doc.'''\n{body}    return x\n"
    chunks = cc.chunk_file("big.py", src.encode(), src)
    assert len(chunks) > 2
    assert all(c.symbol == "big" and c.kind == "function" for c in chunks)
    assert chunks[0].start_line == 1 and chunks[0].context == ""
    assert all(c.context == "def big(x):" for c in chunks[1:])
    assert chunks[-1].end_line == 123
    # Parts tile the function without overlap, each within the size limit.
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start_line == a.end_line + 1
    assert all(len(c.text) <= cc.MAX_CHARS for c in chunks)


def test_line_window_fallback_and_minified():
    text = "".join(f"line {i}\n" for i in range(1, 151))
    chunks = cc.chunk_file("notes.txt", text.encode(), text)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 60), (61, 120), (121, 150)]
    assert {c.kind for c in chunks} == {"text"}
    minified = "var a=1;" * 40_000  # 320 KB on one line
    chunks = cc.chunk_file("app.min.js", minified.encode(), minified)
    assert len(chunks) > 10 and all(c.start_line == c.end_line == 1 for c in chunks)
    assert "".join(c.text for c in chunks) == minified


def test_markdown_headings_ignore_fences_and_setext(monkeypatch):
    monkeypatch.setattr(cc, "MIN_CHARS", 0)
    md = "Title\n=====\n\nintro\n\n```\n# not a heading\n```\n\nSub\n---\n\ntext\n"
    got = [(c.start_line, c.end_line, c.symbol) for c in cc.chunk_markdown("a.md", md)]
    assert got == [(1, 8, "Title"), (10, 13, "Title > Sub")]


def test_syntax_errors_still_chunk(monkeypatch):
    monkeypatch.setattr(cc, "MIN_CHARS", 0)
    src = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass K:\n    x = 1\n"
    chunks = cc.chunk_file("bad.py", src.encode(), src)
    assert chunks and chunks[0].symbol == "ok"
    assert max(c.end_line for c in chunks) == 8


def test_comment_above_a_split_module_member_documents_the_member(monkeypatch):
    # Ruby parses the comment above a module's first class as a child of the module node,
    # outside its body: it belongs to the class chunk, not to the module's header.
    monkeypatch.setattr(cc, "MAX_CHARS", 80)
    src = ("module Rack\n  # Builder turns a config.ru into an application.\n  # It is a DSL.\n  class Builder\n"
           "    def initialize(app)\n      @app = app\n      @use = []\n    end\n\n    def call(env)\n"
           "      @app.call(env)\n    end\n  end\nend\n")
    got = [(c.start_line, c.end_line, c.kind, c.symbol) for c in cc.chunk_file("builder.rb", src.encode(), src)]
    assert got[0] == (1, 1, "module", "Rack")
    assert (2, 4, "class", "Rack.Builder") in got


def test_go_method_is_named_with_its_receiver_type():
    src = ("package chi\n\n// Use appends a middleware.\nfunc (mx *Mux) Use(middlewares ...func()) {\n"
           "\tmx.middlewares = append(mx.middlewares, middlewares...)\n\tmx.count += len(middlewares)\n}\n\n"
           "func (t Tree[K, V]) Lookup(key K) (V, bool) {\n\tv, ok := t.m[key]\n\treturn v, ok && t.ready\n}\n")
    got = {c.symbol for c in cc.chunk_file("mux.go", src.encode(), src)}
    assert any("Mux.Use" in (s or "") for s in got) and any("Tree.Lookup" in (s or "") for s in got)


def test_module_that_only_wraps_one_type_is_that_types_chunk():
    # rack's files are `module Rack; class ETag ... end; end`: the chunk is the class Rack.ETag
    src = ("require 'digest'\n\nmodule Rack\n  module Auth\n    # Sets the etag header.\n    class ETag\n"
           "      def call(env)\n        @app.call(env)\n      end\n    end\n  end\nend\n")
    got = [(c.start_line, c.end_line, c.kind, c.symbol) for c in cc.chunk_file("etag.rb", src.encode(), src)]
    assert (3, 12, "class", "Rack.Auth.ETag") in got
    # two definitions inside: the module keeps its own name
    two = src.replace("    end\n  end\nend\n", "    end\n    VERSION = 1\n    def self.x; end\n  end\nend\n")
    got = [(c.kind, c.symbol) for c in cc.chunk_file("etag.rb", two.encode(), two)]
    assert ("module", "Rack.Auth") in got and not any(s == "Rack.Auth.ETag" for _k, s in got)
