"""Ranking evidence tuned on the 18-repository dev set (docs/search.md, "Across languages"),
checked here on hand-made candidates: each test is a situation the dev set showed, in words a
user would type."""

from __future__ import annotations

from dataclasses import replace

from ctxmill.index.rank import DEFAULT_WEIGHTS, rerank


def hit(path, start, end, text, *, symbol=None, kind="function", score=0.5):
    return {"path": path, "start_line": start, "end_line": end, "text": text, "symbol": symbol, "kind": kind,
            "score": score}


def url_package():
    # Go's net/url: every candidate path says "url"; one file is named so
    named = hit("net/url/url.go", 1, 40, "// Package url parses URLs\npackage url\n\ntype URL struct {\n}",
                symbol="URL", kind="struct", score=0.45)
    escape = hit("net/url/escape.go", 10, 60, "func QueryEscape(s string) string {\n\treturn encodeComponent(s, modeQuery)\n}",
                 symbol="QueryEscape", score=0.2)
    others = [hit(f"net/url/{name}.go", 10, 30, f"func {name.title()}(u *URL) string {{}}", symbol=name.title(),
                  score=0.3) for name in ("parse", "resolve", "userinfo", "values", "path")]
    return [named, escape, *others]


def test_a_file_name_word_that_every_candidate_path_holds_says_little():
    hits = url_package()
    q = "how url query strings are encoded"
    assert rerank(q, hits)[0]["path"] == "net/url/escape.go"
    # without the discount, the file named after the package's common word comes first
    assert rerank(q, hits, weights=replace(DEFAULT_WEIGHTS, name_idf=0.0))[0]["path"] == "net/url/url.go"


def test_helpers_find_the_utils_class():
    utils = hit("lang3/StringUtils.java", 100, 140, "public static boolean isBlank(final CharSequence cs) {}",
                symbol="StringUtils.isBlank", kind="method", score=0.3)
    strings = hit("lang3/Strings.java", 25, 32, "public abstract class Strings {\n  // string comparisons\n}",
                  symbol="Strings", kind="class", score=0.45)
    assert rerank("null-safe string helpers", [strings, utils])[0]["path"] == "lang3/StringUtils.java"
    assert rerank("string utilities", [strings, utils])[0]["path"] == "lang3/StringUtils.java"


def test_the_central_file_bonus_does_not_count_the_file_name_once_per_chunk():
    # A file's other matching chunks lend it weight ("how does X work" is about the file where
    # most of it lives), but by their own evidence: what the file's name says is the same for
    # all its chunks and would otherwise be counted once per chunk, so that any big file
    # named like the query won.
    def best_score(path, n):
        chunks = [hit(path, i * 20 + 1, i * 20 + 15, f"def step_{i}(route):\n    return route.params[{i}]",
                      symbol=f"step_{i}", score=0.3) for i in range(n)]
        return rerank("how route parameters are converted", chunks)[0]["score"]

    named_by_query = [best_score("app/converters.py", n) - best_score("app/misc.py", n) for n in (1, 4)]
    assert named_by_query[0] > 0.5
    # (what is left is the path's share of each chunk's coverage; the file-name terms counted
    # once per other chunk made it 0.35)
    assert named_by_query[1] - named_by_query[0] < 0.1


def test_declaration_files_step_back_for_questions_about_behaviour():
    from ctxmill.index.chunk_code import chunk_file

    meta_src = ("---@meta\n\n---@class lspconfig.settings.tsserver\n---Configure the TypeScript server\n"
                "---@field format boolean\nlocal settings = {}\n")
    config_src = ("return {\n  default_config = {\n    cmd = { 'typescript-language-server', '--stdio' },\n"
                  "    filetypes = { 'typescript' },\n  },\n}\n")

    def hits_of(path, src, score):
        return [hit(path, c.start_line, c.end_line, c.text, symbol=c.symbol, kind=c.kind, score=score)
                | {"context": c.context} for c in chunk_file(path, src.encode(), src)]

    meta = hits_of("lua/types/lsp/ts_ls.lua", meta_src, 0.8)
    config = hits_of("lua/configs/ts_ls.lua", config_src, 0.5)
    assert all(h["context"].startswith("---@meta") for h in meta) and not config[0]["context"]
    q = "how the typescript language server is configured"
    assert rerank(q, meta + config)[0]["path"] == "lua/configs/ts_ls.lua"
    # a question about the declarations themselves still finds them
    assert rerank("typescript server settings type annotations", meta + config)[0]["path"] == "lua/types/lsp/ts_ls.lua"
    stub = hit("src/client.d.ts", 1, 20, "export declare function connect(url: string): Client;", symbol="connect",
               score=0.8)
    impl = hit("src/client.ts", 1, 40, "export function connect(url: string): Client {\n  return open(url)\n}",
               symbol="connect", score=0.5)
    assert rerank("how does the client connect", [stub, impl])[0]["path"] == "src/client.ts"


def test_the_words_before_the_preposition_name_the_topic():
    # "MIME type detection from file extensions" is about MIME types: mime.rb, not files.rb
    mime = hit("lib/rack/mime.rb", 4, 16, "module Mime\n  def mime_type(ext, fallback = 'application/octet-stream')",
               symbol="Rack.Mime", kind="module", score=1.0)
    files = hit("lib/rack/files.rb", 212, 215, "def mime_type(path, default_mime)\n  Mime.mime_type(::File.extname(path))",
                symbol="Rack.Files.mime_type", kind="method", score=0.45)
    q = "MIME type detection from file extensions"
    assert rerank(q, [files, mime])[0]["path"] == "lib/rack/mime.rb"
    assert rerank(q, [files, mime], weights=replace(DEFAULT_WEIGHTS, qualifier=1.0))[0]["path"] == "lib/rack/files.rb"
    # "how to" is an infinitive, not a qualifier: everything after it is the topic
    from ctxmill.index.rank import _qualifier_words

    assert _qualifier_words("how to serialize models to JSON", {"serializ", "model", "json"}, 0.7) == {"json": 0.7}
