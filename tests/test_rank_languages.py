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


def test_reexport_stands_in_for_a_definition_outside_the_tree():
    # FromRequest is defined in another crate; extract/mod.rs re-exports it, json.rs implements it
    reexport = hit("extract/mod.rs", 20, 30, "pub use axum_core::extract::{\n    FromRef, FromRequest, Request,\n};",
                   kind="code", score=0.3)
    impl = hit("json.rs", 99, 114, "impl<T, S> FromRequest<S> for Json<T> {\n    fn from_request() {}\n}",
               symbol="FromRequest<S> for Json<T>", kind="impl", score=0.6)
    assert rerank("FromRequest", [impl, reexport])[0]["path"] == "extract/mod.rs"
    # ... but a real definition among the candidates wins over the re-export
    trait = hit("core/extract.rs", 1, 20, "pub trait FromRequest<S> {\n}", symbol="FromRequest", kind="trait",
                score=0.3)
    assert rerank("FromRequest", [impl, reexport, trait])[0]["path"] == "core/extract.rs"


def test_impl_names_the_type_not_the_trait():
    from ctxmill.index.rank import file_terms

    terms = file_terms("json.rs", ["FromRequest<S> for Json<T>", "IntoResponse for Json<T>.call"])
    assert "json" in terms and "fromrequest" not in terms and "intorespons" not in terms and "call" in terms
    impl = hit("json.rs", 1, 9, "impl<T> IntoResponse for Json<T> {}", symbol="IntoResponse for Json<T>", kind="impl",
               score=0.3)
    use = hit("handler.rs", 1, 9, "fn h() -> Json<u8> { Json(1) }", symbol="h", score=0.6)
    assert rerank("Json", [use, impl])[0]["path"] == "json.rs"


def test_qualified_lookup_wants_the_last_part_and_its_class_chunk():
    module = hit("response.rb", 10, 10, "module Rack", symbol="Rack", kind="module", score=0.5)
    body = hit("response.rb", 128, 140, "    CHUNKED = 'chunked'\n    attr_accessor :length", symbol="Rack.Response",
               kind="code", score=0.62)
    cls = hit("response.rb", 11, 23, "  # Rack::Response provides an interface\n  class Response", symbol="Rack.Response",
              kind="class", score=0.16)
    out = rerank("Rack::Response", [module, body, cls])
    assert (out[0]["start_line"], out[0]["kind"]) == (11, "class")


def test_qualified_name_inside_a_question_names_its_last_part():
    q = parse_query("how fmt::format and fmt::print format strings at runtime")
    assert not q.symbol_lookup and {"format", "print"} <= q.idents and "fmt" not in q.idents
    assert "use" in parse_query("how sub-applications are mounted with use() and path prefixes").idents
    # the definition of `format` beats a chunk that only talks about formatting strings
    talk = hit("include/fmt/base.h", 10, 30, "// Formats a string at runtime and prints it.\nvoid vprint(string_view fmt);",
               symbol="vprint", score=0.9)
    fn = hit("include/fmt/format.h", 40, 50, "template <typename... T>\nauto format(format_string<T...> fmt, T&&... args)",
             symbol="format", score=0.4)
    out = rerank("how fmt::format and fmt::print format strings at runtime", [talk, fn])
    assert out[0]["path"] == "include/fmt/format.h"


def test_recovery_meets_recoverer():
    from ctxmill.index.rank import stem

    assert stem("recovery") == stem("recoverer") == stem("recovering")
    assert stem("discovery") == stem("discovering") and stem("delivery") == stem("delivering")
    assert stem("query") == "query" and stem("every") == "every"
    logger = hit("middleware/logger.go", 1, 9, "func Logger(next http.Handler) http.Handler {}", symbol="Logger", score=0.6)
    rec = hit("middleware/recoverer.go", 1, 9, "func Recoverer(next http.Handler) http.Handler {}", symbol="Recoverer",
              score=0.4)
    assert rerank("panic recovery middleware", [logger, rec])[0]["path"] == "middleware/recoverer.go"


def test_one_letter_part_of_a_file_name_is_not_a_word():
    # C's `_t` names a type: value_t.hpp is the "value" file, fully named by "value"
    from ctxmill.index.rank import _path_features

    assert _path_features("include/detail/value_t.hpp")[2] == (_path_features("x/value.hpp")[2])
    enum = hit("include/detail/value_t.hpp", 29, 65, "enum class value_t : std::uint8_t { null, object };",
               symbol="value_t", kind="enum", score=0.3)
    other = hit("include/json.hpp", 4158, 4182, "bool is_null() const { return m_type == value_t::null; }",
                symbol="basic_json.is_null", kind="method", score=0.5)
    other2 = hit("include/value_store.hpp", 1, 9, "struct value_store { int v; };", symbol="value_store",
                 kind="struct", score=0.5)
    assert rerank("value type enum for JSON null and object", [other, other2, enum])[0]["path"] == \
        "include/detail/value_t.hpp"


def test_the_name_in_its_own_spelling_is_the_definition():
    # `EventMonitor` asks for the protocol; the property `eventMonitor` only holds one
    prop = hit("Source/Core/Request.swift", 1042, 1070, "public let eventMonitor: EventMonitor?",
               symbol="Request.eventMonitor", kind="method", score=0.6)
    proto = hit("Source/Features/EventMonitor.swift", 27, 35, "public protocol EventMonitor {}", symbol="EventMonitor",
                kind="interface", score=0.4)
    out = rerank("how request and response events are logged via EventMonitor", [prop, proto])
    assert out[0]["path"] == "Source/Features/EventMonitor.swift"


def test_leading_dollar_or_underscore_is_the_same_name():
    # zod's core `$ZodType` is the ZodType asked for; Python's `_parse` is a private parse
    use = hit("v4/classic/parse.ts", 1, 9, "export const parse = (schema: ZodType) => schema._zod.run()",
              symbol="parse", score=0.9)
    core = hit("v4/core/schemas.ts", 182, 183, "export interface $ZodType<O = unknown> {}", symbol="$ZodType",
               kind="interface", score=0.05)
    assert rerank("ZodType", [use, core])[0]["path"] == "v4/core/schemas.ts"
    private = hit("pkg/reader.py", 5, 9, "def _parse(data):\n    return data", symbol="Reader._parse", kind="method",
                  score=0.3)
    call = hit("pkg/cli.py", 1, 4, "out = _parse(sys.stdin)", symbol="main", score=0.9)
    assert rerank("_parse", [call, private])[0]["path"] == "pkg/reader.py"
