"""Forwarding files (a header of #includes, an index.ts of `export * from`, a mod.rs of
`pub use`): recognised per language, their targets resolved, and placed by the ranker right
after the file they forward to - in the ranker alone and through a real index."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmill.index import facades
from ctxmill.index.chunk_code import chunk_file
from ctxmill.index.rank import facade_index, rerank
from sample_code import FMT_CORE_H, write_fmt_headers


def test_facades_are_recognised_in_each_language():
    yes = {
        ("include/fmt/core.h", "cpp"): FMT_CORE_H,
        ("inc/all.h", "c"): "#ifndef ALL_H\n#define ALL_H\n/* everything */\n#include \"a.h\"\n#include <b.h>\n#endif\n",
        ("pkg/__init__.py", "python"): '"""The package."""\nfrom .main import App as App\nfrom . import util\n'
                                       "__all__ = ('App', 'util')\n__version__ = '1.0'\n",
        ("src/index.ts", "typescript"): "// public API\nexport * from './core/api.js';\nexport { z } from \"./z\";\n",
        ("src/net/mod.rs", "rust"): "//! Networking.\nmod tcp;\n#[cfg(unix)]\npub mod unix;\npub use tcp::{TcpStream, TcpListener};\n",
        ("lib/rack.rb", "ruby"): "# frozen_string_literal: true\nmodule Rack\n  autoload :Builder, \"rack/builder\"\nend\n",
    }
    for (path, lang), text in yes.items():
        assert facades.is_facade(path, text, lang), path
    no = {
        ("include/fmt/base.h", "cpp"): '#include "x.h"\nint f();\n',
        ("inc/cfg.h", "c"): '#include "a.h"\n#define LIMIT 10\n',  # a macro with a value is code
        ("pkg/__init__.py", "python"): "from .main import App\n\ndef make():\n    return App()\n",
        ("pkg/empty/__init__.py", "python"): '"""Nothing here."""\n',
        ("src/index.ts", "typescript"): "export * from './a';\nexport const x = 1;\n",
        ("src/lib.rs", "rust"): "pub use a::B;\nfn main() {}\n",
        ("src/only_std.ts", "typescript"): "export * from 'react';\n",  # a package, not this project's file
        ("main.go", "go"): "package main\n",
    }
    for (path, lang), text in no.items():
        assert not facades.is_facade(path, text, lang), path


def test_targets_are_resolved_relative_to_the_file():
    assert facades.targets("include/fmt/core.h", FMT_CORE_H, "cpp")[0][0] == "include/fmt/base.h"
    py = facades.targets("pkg/sub/__init__.py", "from .main import A\nfrom ..util.io import r\nfrom . import x\n",
                         "python")
    assert py == [["pkg/sub/main.py", "pkg/sub/main/__init__.py"], ["pkg/util/io.py", "pkg/util/io/__init__.py"],
                  ["pkg/sub/x.py", "pkg/sub/x/__init__.py"]]
    ts = facades.targets("src/index.ts", "export * from './v4/classic/external.js';\n", "typescript")
    assert len(ts) == 1 and "src/v4/classic/external.ts" in ts[0] and "src/v4/classic/external/index.ts" not in ts[0]
    rs = facades.targets("src/net/mod.rs", "mod tcp;\npub use tcp::TcpStream;\npub use crate::io::Read;\n", "rust")
    # `mod tcp;` and `pub use tcp::...` forward to one file
    assert [g[0] for g in rs] == ["src/net/tcp.rs", "src/io.rs"] and "src/net/tcp/mod.rs" in rs[0]
    rb = facades.targets("lib/rack.rb", "require_relative 'rack/version'\nrequire 'rack/builder'\n", "ruby")
    assert rb[0] == ["lib/rack/version.rb"] and "lib/rack/builder.rb" in rb[1]


GO_COMPAT = """// Package compat keeps the old names working.
package compat

import (
	"fmt"

	"example.com/app/v2/router"
)

type Router = router.Router
type (
	Mux = router.Mux
)

var NewRouter = router.New
"""


def test_go_alias_files_forward_to_the_package_folder():
    assert facades.is_facade("compat/compat.go", GO_COMPAT, "go")
    # the folder of the package the aliases name, by every tail of its import path; not fmt
    assert facades.targets("compat/compat.go", GO_COMPAT, "go") == [
        ["example.com/app/v2/router/", "app/v2/router/", "v2/router/", "router/"]]
    assert not facades.is_facade("compat/run.go", "package compat\n\nfunc Run() { fmt.Println() }\n", "go")
    row = {"path": "compat/compat.go", "start_line": 1, "end_line": 14, "kind": "facade", "symbol": None,
           "language": "go", "text": GO_COMPAT, "context": "", "id": 3}
    mux = hit("router/mux.go", 10, 40, "type Mux struct {", symbol="Mux", kind="struct", score=0.9)
    other = hit("server/serve.go", 1, 20, "func Serve(m *Mux) {", symbol="Serve", score=0.5)
    paths = [h["path"] for h in rerank("Mux", [mux, other], facades=facade_index([row]))]
    assert paths[:2] == ["router/mux.go", "compat/compat.go"]


def test_conditional_includes_are_not_the_files_api():
    assert facades.fanout(FMT_CORE_H, "cpp", 2) == 1
    guarded = '#ifndef ALL_H\n#define ALL_H\n#include "a.h"\n#include "b.h"\n#endif\n'
    assert facades.fanout(guarded, "cpp", 2) == 2  # the include guard is not a condition
    assert facades.fanout("#pragma once\n#if X\n#include \"a.h\"\n#else\n#include \"b.h\"\n#endif\n", "cpp", 2) == 1


def test_chunker_marks_forwarding_files():
    chunks = chunk_file("include/fmt/core.h", FMT_CORE_H.encode(), FMT_CORE_H)
    assert chunks and {c.kind for c in chunks} == {"facade"}
    code = '#include "base.h"\nint answer() { return 42; }\n'
    assert "facade" not in {c.kind for c in chunk_file("include/fmt/x.h", code.encode(), code)}


def hit(path, start, end, text, *, symbol=None, kind="function", score=0.5):
    return {"path": path, "start_line": start, "end_line": end, "text": text, "symbol": symbol, "kind": kind,
            "score": score, "language": "cpp", "context": "", "id": None}


def test_facade_follows_the_file_it_forwards_to():
    core = {"path": "core.h", "start_line": 1, "end_line": 7, "kind": "facade", "symbol": None, "language": "cpp",
            "text": FMT_CORE_H, "context": "", "id": 7}
    idx = facade_index([core])
    assert [fan for fan, _row in idx["base.h"]] == [1]
    base = hit("base.h", 10, 40, "template <typename Context> class basic_format_args {", symbol="basic_format_args",
               kind="class", score=0.9)
    fmt = hit("format.h", 5, 30, "class format_error : public std::runtime_error {", symbol="format_error",
              kind="class", score=0.5)
    other = hit("args.h", 1, 20, "struct dynamic_format_arg_store {", symbol="dynamic_format_arg_store",
                kind="struct", score=0.4)
    plain = [h["path"] for h in rerank("basic_format_args", [base, fmt, other])]
    assert "core.h" not in plain
    out = rerank("basic_format_args", [base, fmt, other], facades=idx)
    paths = [h["path"] for h in out]
    assert paths[:2] == ["base.h", "core.h"], paths
    assert out[1]["kind"] == "facade" and out[1]["text"] == FMT_CORE_H and out[1]["score"] < out[0]["score"]
    # nothing forwards to args.h: a query it leads gets no facade
    alone = [h["path"] for h in rerank("dynamic_format_arg_store", [other], facades=idx)]
    assert alone == ["args.h"]


def test_a_facade_of_many_files_is_not_pushed_into_every_result():
    many = "".join(f"from .m{i} import X{i}\n" for i in range(6))
    row = {"path": "pkg/__init__.py", "start_line": 1, "end_line": 6, "kind": "facade", "symbol": None,
           "language": "python", "text": many, "context": "", "id": 1}
    idx = facade_index([row])
    top = hit("pkg/m0.py", 1, 9, "class X0:\n    pass", symbol="X0", kind="class", score=0.9)
    second = hit("pkg/other.py", 1, 9, "class X0Helper:\n    pass", symbol="X0Helper", kind="class", score=0.6)
    paths = [h["path"] for h in rerank("X0", [top, second], facades=idx)]
    assert paths.index("pkg/other.py") < paths.index("pkg/__init__.py")


def test_index_records_facades_and_search_places_them(tmp_path: Path):
    from ctxmill.index import search, sync_index
    from ctxmill.index.store import Store

    root = tmp_path / "repo"
    inc = write_fmt_headers(root)
    db = tmp_path / "index.db"
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as st:
        assert json.loads(st.get_meta("facades")) == ["include/fmt/core.h"]
    hits = search("basic_format_args", root, db_path=db, k=3)
    assert [h.path for h in hits[:2]] == ["include/fmt/base.h", "include/fmt/core.h"]
    assert hits[1].kind == "facade" and hits[1].start_line == 1

    # the file becomes code: the next sync forgets it (only the changed file is looked at)
    (inc / "core.h").write_text(FMT_CORE_H + "int deprecated_core();\n")
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as st:
        assert json.loads(st.get_meta("facades")) == []
    assert "include/fmt/core.h" not in [h.path for h in search("basic_format_args", root, db_path=db, k=3)[:2]]
    # ... and a new forwarding file is found the same way
    (inc / "all.h").write_text('#pragma once\n#include "base.h"\n#include "format.h"\n')
    sync_index(root, db_path=db, embedder="hash-256")
    with Store(db, create=False) as st:
        assert json.loads(st.get_meta("facades")) == ["include/fmt/all.h"]
