"""File-level evidence in the ranker: a file's names (path, definitions, leading docstring),
abbreviated file names, and the stemmer cases that made related words miss each other."""

from __future__ import annotations

from pathlib import Path

from ctxmill.index.rank import file_terms, head_doc, rerank, stem, weights_from


def hit(path, start, end, text, *, symbol=None, kind="function", score=0.5):
    return {"path": path, "start_line": start, "end_line": end, "text": text, "symbol": symbol, "kind": kind,
            "score": score}


def test_head_doc_skips_licence_and_pragmas():
    assert head_doc('"""Logic for creating models."""\n\nimport os\n') == "Logic for creating models."
    js = "/*!\n * lib\n * Copyright(c) 2014 Someone\n * MIT Licensed\n */\n\n'use strict';\n\n/**\n * Cookie parsing.\n */\nvar x"
    assert "Cookie parsing." in head_doc(js) and "Copyright" not in head_doc(js)
    assert "Session helpers" in head_doc("# Session helpers\n# kept here\nimport a\n")
    assert head_doc("import os\n") == ""


def test_file_terms_joins_identifier_parts_and_reads_definitions():
    terms = file_terms("pkg/client_ws.py", ["ClientWebSocketResponse", "ClientWebSocketResponse.close"],
                       "Client side of the WebSocket protocol.")
    assert {"client", "ws", "websocket", stem("response"), "protocol"} <= terms
    assert "the" not in terms and "of" not in terms


def test_the_file_whose_names_answer_the_question_wins():
    # both files mention requests and responses in their text; only one *defines* both
    text = "def send(self):\n    request = build()\n    response = request.send()\n    return response\n"
    web = hit("pkg/web_response.py", 10, 40, text, symbol="StreamResponse.send", score=0.6)
    client = hit("pkg/client_reqrep.py", 10, 40, text, symbol="ClientRequest.send", score=0.5)
    files = {
        "pkg/web_response.py": file_terms("pkg/web_response.py", ["StreamResponse", "StreamResponse.send"]),
        "pkg/client_reqrep.py": file_terms("pkg/client_reqrep.py", ["ClientRequest", "ClientResponse"],
                                           "HTTP client request and response objects."),
    }
    off = weights_from({"file_names": 0.0})
    assert rerank("request and response objects", [web, client], weights=off)[0]["path"] == "pkg/web_response.py"
    assert rerank("request and response objects", [web, client], files=files)[0]["path"] == "pkg/client_reqrep.py"


def test_abbreviated_file_names_match_the_full_word():
    body = "def helper(value):\n    return value\n"
    cfg = hit("pkg/config.py", 1, 9, body, symbol="helper", score=0.4)
    other = hit("pkg/settings_loader.py", 1, 9, body, symbol="helper", score=0.5)
    assert rerank("model configuration", [other, cfg])[0]["path"] == "pkg/config.py"
    assert rerank("model configuration", [other, cfg], weights=weights_from({"abbrev": 0.0}))[0]["path"] == \
        "pkg/settings_loader.py"
    utils = hit("lib/utils.js", 1, 9, "function a(x) { return x }", symbol=None, kind="code", score=0.4)
    resp = hit("lib/response.js", 1, 9, "function a(x) { return x }", symbol=None, kind="code", score=0.5)
    assert rerank("utility functions", [resp, utils])[0]["path"] == "lib/utils.js"
    # short words do not swallow long ones, and a one-letter difference is another word
    from ctxmill.index.rank import _abbrev

    assert _abbrev("config", "configuration") and _abbrev("util", "utility") and _abbrev("param", "parameters")
    assert not _abbrev("name", "namespaces") and not _abbrev("mode", "model") and not _abbrev("abc", "abcdef")


def test_stemmer_cases_that_used_to_miss():
    assert stem("alias") == stem("aliases") and stem("class") == stem("classes")
    assert stem("status") == stem("statuses") and stem("response") == stem("responses")
    assert stem("format") == stem("formatting") == stem("formatted")
    assert len({stem(w) for w in ("validate", "validated", "validating", "validation", "validator")}) == 1


def test_search_passes_file_terms_from_the_index(tmp_path: Path):
    from ctxmill.index import search, sync_index

    root = tmp_path / "repo"
    (root / "net").mkdir(parents=True)
    (root / "net" / "client_reqrep.py").write_text(
        '"""Request and response objects of the HTTP client."""\n\n'
        "class ClientRequest:\n    def send(self):\n        return 1\n\n\n"
        "class ClientResponse:\n    def read(self):\n        return 2\n")
    (root / "net" / "web_server.py").write_text(
        "class Server:\n    def handle(self, request):\n        response = make(request)\n        return response\n")
    db = tmp_path / "index.db"
    sync_index(root, db_path=db, embedder="hash-256")
    import importlib

    from ctxmill.index.store import Store

    mod = importlib.import_module("ctxmill.index.search")
    with Store(db, create=False) as st:
        terms = mod.file_terms(st, ["net/client_reqrep.py"])["net/client_reqrep.py"]
    assert {"client", "request", stem("response"), "http", "net"} <= terms
    hits = search("request and response objects", root, db_path=db, k=2)
    assert hits[0].path == "net/client_reqrep.py"


def test_older_version_folder_steps_back_unless_named():
    from ctxmill.index.rank import _superseded

    paths = {"src/v3/errors.ts", "src/v4/core/errors.ts", "api/v1/routes.py", "lib/util.ts"}
    assert _superseded(paths, "error types") == {"src/v3/errors.ts": 1.0}  # api/v1 has no newer sibling
    assert _superseded(paths, "v3 error types") == {}
    # an older copy of a module next to the current one (pkg/v1/fields.py beside pkg/fields.py)
    paths = {"pkg/v1/fields.py", "pkg/fields.py", "pkg/v1/only_here.py", "api/v1/users.py", "api/common.py"}
    assert _superseded(paths, "fields") == {"pkg/v1/fields.py": 1.0}
    old = hit("src/v3/ZodError.ts", 1, 20, "export class ZodError extends Error {}", symbol="ZodError", kind="class",
              score=0.6)
    new = hit("src/v4/core/errors.ts", 1, 20, "export class ZodError extends Error {}", symbol="ZodError",
              kind="class", score=0.4)
    assert rerank("ZodError", [old, new])[0]["path"] == "src/v4/core/errors.ts"
    assert rerank("ZodError v3", [old, new])[0]["path"] == "src/v3/ZodError.ts"
    assert rerank("ZodError", [old, new], weights=weights_from({"old_version": 0.0}))[0]["path"] == \
        "src/v3/ZodError.ts"


def test_query_words_that_spell_a_name_in_order():
    from ctxmill.index.rank import _phrases

    assert ("model", stem("validators")) in _phrases("custom field and model validators")
    assert ("field", "model") not in _phrases("custom field and model validators")  # "and" ends a run
    named = hit("pkg/alpha.py", 1, 9, "def f(value):\n    return one(value)\n", symbol="model_validator", score=0.4)
    other = hit("pkg/beta.py", 1, 9, "def f(value):\n    return two(value)\n", symbol="validate_model", score=0.4)
    out = rerank("model validators", [other, named])
    assert out[0]["path"] == "pkg/alpha.py"
    off = rerank("model validators", [other, named], weights=weights_from({"phrase_symbol": 0.0}))
    assert off[0]["score"] == off[1]["score"]  # without the phrase feature the two are a tie


def test_letters_with_digits_stay_one_word():
    from ctxmill.index.rank import parse_query

    assert "v3" in parse_query("v3 compatibility error types").words
    assert "base64" in parse_query("base64 encoding of payloads").words


def test_file_terms_follow_the_next_sync(tmp_path: Path):
    import importlib

    from ctxmill.index import sync_index
    from ctxmill.index.store import Store

    mod = importlib.import_module("ctxmill.index.search")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 3\n")
    db = tmp_path / "index.db"
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as st:
        assert "circl" in mod.file_terms(st, ["shapes.py"])["shapes.py"]
    (root / "shapes.py").write_text("class Polygon:\n    def corners(self):\n        return 4\n")
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as st:
        terms = mod.file_terms(st, ["shapes.py"])["shapes.py"]
    assert "polygon" in terms and "circl" not in terms


def test_file_named_by_the_initials_of_query_words():
    from ctxmill.index.rank import _initials

    assert "hf" in _initials("pushing models to the HuggingFace Hub")
    assert "sse" in _initials("how server-sent events are streamed")
    assert "es" not in _initials("enum schema types")  # two letters across words: too loose
    body = "def push(folder):\n    return folder\n"
    hf = hit("pkg/persistence/hf.py", 1, 9, body, symbol="push", score=0.4)
    other = hit("pkg/model.py", 1, 9, body + "\n", symbol="push", score=0.5)
    assert rerank("pushing to HuggingFace", [other, hf])[0]["path"] == "pkg/persistence/hf.py"
    off = weights_from({"acronym": 0.0})
    assert rerank("pushing to HuggingFace", [other, hf], weights=off)[0]["path"] == "pkg/model.py"
