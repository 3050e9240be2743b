"""Next-edit imports written as valid code where the file's import form has to change (issue 18):
a Go file's one ``import "x"`` line becomes an ``import ( ... )`` block in gofmt's order."""

from __future__ import annotations

from ctxmill.apply.next_edit import suggest as _suggest


def suggest(root, patch, **kw):
    kw.setdefault("learned", False)  # the propagators' own ranking, as test_next_edit_propagators.py
    return [s for s in _suggest(root, patch, **kw) if s.reason.startswith("import")]


def _patch(path, old, new, start):
    rem = "".join(f"-{x}\n" for x in old)
    add = "".join(f"+{x}\n" for x in new)
    return f"--- a/{path}\n+++ b/{path}\n@@ -{start},{len(old)} +{start},{len(new)} @@\n{rem}{add}"


MAIN = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n'


def test_a_go_files_one_import_line_becomes_a_block(tmp_path):
    (tmp_path / "main.go").write_text(MAIN.replace('fmt.Println("hi")', 'fmt.Println(strings.ToUpper("hi"))'))
    got = suggest(tmp_path, _patch("main.go", ['\tfmt.Println("hi")'], ['\tfmt.Println(strings.ToUpper("hi"))'], 6))
    # it was a bare `"strings"` line inserted beside `import "fmt"`: not Go
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (3, 3, 'import (\n\t"fmt"\n\t"strings"\n)\n')]


def test_two_names_make_one_block_and_other_paths_follow_the_standard_library(tmp_path):
    text = MAIN.replace('import "fmt"', 'import "github.com/acme/log"').replace(
        'fmt.Println("hi")', 'log.Print(strings.ToUpper(os.Args[0]))')
    (tmp_path / "main.go").write_text(text)
    got = suggest(tmp_path, _patch("main.go", ['\tlog.Print("hi")'], ["\tlog.Print(strings.ToUpper(os.Args[0]))"], 6))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (3, 3, 'import (\n\t"os"\n\t"strings"\n\n\t"github.com/acme/log"\n)\n')]
    # a tree whose blocks mix the two kinds in one group gets them mixed, sorted by path
    (tmp_path / "other.go").write_text('package main\n\nimport (\n\t"fmt"\n\t"github.com/acme/log"\n)\n')
    got = suggest(tmp_path, _patch("main.go", ['\tlog.Print("hi")'], ["\tlog.Print(strings.ToUpper(os.Args[0]))"], 6))
    assert [s.replacement for s in got] == ['import (\n\t"github.com/acme/log"\n\t"os"\n\t"strings"\n)\n']


def test_beside_several_go_import_lines_the_new_one_is_an_import_line_too(tmp_path):
    text = MAIN.replace('import "fmt"', 'import "fmt"\nimport "os"').replace('fmt.Println("hi")', "fmt.Println(time.Now())")
    (tmp_path / "main.go").write_text(text)
    got = suggest(tmp_path, _patch("main.go", ['\tfmt.Println("hi")'], ["\tfmt.Println(time.Now())"], 7))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, 'import "time"\n')]


def test_a_go_import_line_from_another_file_joins_a_block_without_its_keyword(tmp_path):
    (tmp_path / "util.go").write_text('package main\n\nimport "bytes"\n\nvar b bytes.Buffer\n')
    text = MAIN.replace('import "fmt"', 'import (\n\t"fmt"\n\t"os"\n)').replace(
        'fmt.Println("hi")', 'fmt.Println(os.Args, bytes.ToUpper(nil))')
    (tmp_path / "main.go").write_text(text)
    got = suggest(tmp_path, _patch("main.go", ['\tfmt.Println("hi")'], ["\tfmt.Println(os.Args, bytes.ToUpper(nil))"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, '\t"bytes"\n')]


def test_a_named_import_joins_the_files_line_for_the_same_module(tmp_path):
    (tmp_path / "a.test.ts").write_text('import { expect, test } from "vitest";\n\ntest("a", () => expect(1).toBe(1));\n')
    text = 'import { test } from "vitest";\n\ntest("b", () => {\n  expect(2).toBe(2);\n});\n'
    (tmp_path / "b.test.ts").write_text(text)
    got = suggest(tmp_path, _patch("b.test.ts", ["  foo();"], ["  expect(2).toBe(2);"], 4))
    # it was a second `import { expect } from "vitest"` line above the first
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (1, 1, 'import { expect, test } from "vitest";\n')]
    # a default import beside the braces, no spaces in them: kept as written
    (tmp_path / "a.js").write_text("import fetch, {Headers, Response} from 'node-fetch';\n\nnew Response(fetch);\n")
    (tmp_path / "b.js").write_text("import fetch, {Headers} from 'node-fetch';\n\nconst r = new Response(fetch, Headers);\n")
    got = suggest(tmp_path, _patch("b.js", ["const r = 1;"], ["const r = new Response(fetch, Headers);"], 3))
    assert [(s.start_line, s.replacement) for s in got] == [(1, "import fetch, {Headers, Response} from 'node-fetch';\n")]


def test_a_name_a_module_of_the_tree_exports_is_imported_from_its_relative_path(tmp_path):
    (tmp_path / "src" / "core").mkdir(parents=True)
    (tmp_path / "src" / "core" / "util.ts").write_text(
        "export function assignProp() {}\nexport function isPlainObject(x: unknown) {\n  return !!x;\n}\n")
    (tmp_path / "src" / "core" / "private.ts").write_text("function isPlainObject() {}\n")  # not exported
    text = 'import { assignProp } from "./core/util.js";\nimport { z } from "./z.js";\n\nconst ok = isPlainObject(z);\n'
    (tmp_path / "src" / "schema.ts").write_text(text)
    got = suggest(tmp_path, _patch("src/schema.ts", ["const ok = z;"], ["const ok = isPlainObject(z);"], 4))
    # the module's line takes it; the file writes `.js` for its TypeScript modules, as ESM wants
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (1, 1, 'import { assignProp, isPlainObject } from "./core/util.js";\n')]
    (tmp_path / "src" / "schema.ts").write_text(text.replace('import { assignProp } from "./core/util.js";\n', ""))
    got = suggest(tmp_path, _patch("src/schema.ts", ["const ok = z;"], ["const ok = isPlainObject(z);"], 3))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(1, 0, 'import { isPlainObject } from "./core/util.js";\n')]


# starlette/responses.py (encode/starlette 4acf1d1ca3): `from __future__ import annotations`
# heads the file; the standard library's block is the one below it
STARLETTE = ("from __future__ import annotations\n\nimport hashlib\nimport os\nimport stat\nimport typing\n"
             "from email.utils import formatdate\n\nimport anyio\n\nfrom starlette.background import BackgroundTask\n\n\n"
             "def f(path: str) -> int:\n    return os.stat(path).st_size\n")


def test_a_python_import_goes_into_the_standard_librarys_block_not_after_from_future(tmp_path):
    text = STARLETTE.replace("    return os.stat(path).st_size", "    return sys.getsizeof(path)")
    (tmp_path / "responses.py").write_text(text)
    got = suggest(tmp_path, _patch("responses.py", ["    return os.stat(path).st_size"],
                                   ["    return sys.getsizeof(path)"], 15))
    # it was line 2, between `from __future__ import annotations` and the blank line under it
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(6, 5, "import sys\n")]


def test_a_from_future_line_written_into_the_block_stays_part_of_it(tmp_path):
    # (a guard for the rule above: no blank line after `from __future__ import division`, the
    # block is `from __future__`, json, os, unittest, in no isort order: the new line at its end)
    text = ("from __future__ import division\nimport json\nimport os\nimport unittest\n\nimport requests\n\n\n"
            "def test_pickle():\n    pickle.dumps(requests.Session())\n")
    (tmp_path / "test_requests.py").write_text(text)
    got = suggest(tmp_path, _patch("test_requests.py", ["    pass"], ["    pickle.dumps(requests.Session())"], 10))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import pickle\n")]


def test_a_python_standard_library_import_in_a_mixed_block_goes_after_the_last_of_its_kind(tmp_path):
    # jinja/debugger.py (pallets/jinja 116b91c07a): one block, the standard library first, unsorted
    text = ("import os\nimport sys\nfrom jinja import Environment\nfrom jinja.parser import Parser\n"
            "from jinja.lexer import Lexer\n\n\ndef t():\n    gc.collect()\n")
    (tmp_path / "debugger.py").write_text(text)
    got = suggest(tmp_path, _patch("debugger.py", ["    pass"], ["    gc.collect()"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(3, 2, "import gc\n")]


def test_a_first_standard_library_import_is_a_block_of_its_own_where_the_file_keeps_blocks_apart(tmp_path):
    text = ("import anyio\n\nfrom starlette.routing import Route\nfrom starlette.testclient import TestClient\n\n"
            "TestClientFactory = Callable[..., TestClient]\n")
    (tmp_path / "test_app.py").write_text(text)
    got = suggest(tmp_path, _patch("test_app.py", ["x = 1"], ["TestClientFactory = Callable[..., TestClient]"], 6))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(1, 0, "from typing import Callable\n\n")]
    # one block only: the file does not keep them apart, the line joins it at its head, the
    # standard library first (as jinja's `import sys` above `import six`)
    (tmp_path / "test_app.py").write_text(text.replace("import anyio\n\n", "import anyio\n"))
    got = suggest(tmp_path, _patch("test_app.py", ["x = 1"], ["TestClientFactory = Callable[..., TestClient]"], 5))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(1, 0, "from typing import Callable\n")]


def test_a_java_import_goes_into_the_block_of_its_package_family(tmp_path):
    # gson's TypeAdapters.java (google/gson 47cc34548d): a java.* block above a com.google.* block
    text = ("package com.google.gson.internal.bind;\n\nimport java.io.IOException;\nimport java.util.Calendar;\n"
            "import java.util.Date;\n\nimport com.google.gson.Gson;\nimport com.google.gson.TypeAdapter;\n\n"
            "final class TypeAdapters {\n  Object c = Currency.getInstance(\"EUR\");\n}\n")
    (tmp_path / "TypeAdapters.java").write_text(text)
    got = suggest(tmp_path, _patch("TypeAdapters.java", ["  Object c = null;"],
                                   ["  Object c = Currency.getInstance(\"EUR\");"], 11))
    # it was line 9, after the last com.google line (which sorts before java.util)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import java.util.Currency;\n")]


def test_a_rust_use_goes_into_the_run_of_its_crate_and_a_lent_name_is_no_binding(tmp_path):
    # hyper's examples/client.rs (hyperium/hyper 4fd8a6a9dc): `io` in `&mut io::stdout()` was taken
    # for a name the edit binds (`mut io`), and the line went after `use hyper::Client;`
    text = ("extern crate hyper;\n\nuse std::env;\n\nuse hyper::Client;\n\nfn main() {\n"
            "    let mut res = Client::new().get(env::args().nth(1).unwrap());\n"
            "    io::copy(&mut res, &mut io::stdout()).unwrap();\n}\n")
    (tmp_path / "client.rs").write_text(text)
    got = suggest(tmp_path, _patch("client.rs", ["    // TODO: copy"], ["    io::copy(&mut res, &mut io::stdout()).unwrap();"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, "use std::io;\n")]


def test_a_rust_item_joins_the_crates_nested_tree_and_follows_the_files_core_or_std(tmp_path):
    # tracing-subscriber's filter/env/mod.rs (tokio-rs/tracing 263a154e92): one nested tree for std
    text = ("use std::{collections::HashMap, env, error::Error, fmt, str::FromStr};\n\n"
            "pub struct EnvFilter {\n    scope: RefCell<Vec<u8>>,\n}\n")
    (tmp_path / "mod.rs").write_text(text)
    got = suggest(tmp_path, _patch("mod.rs", ["    scope: Vec<u8>,"], ["    scope: RefCell<Vec<u8>>,"], 4))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (1, 1, "use std::{cell::RefCell, collections::HashMap, env, error::Error, fmt, str::FromStr};\n")]
    # a no_std-minded file (tracing-core's spin mutex, df9666bdeb) names core: `core::hint`, on a line
    # of its own beside `use core::fmt;` (not `use core::{fmt, hint};`)
    text = ("use core::cell::UnsafeCell;\nuse core::fmt;\nuse core::ops::{Deref, DerefMut};\n\n"
            "fn relax() {\n    hint::spin_loop();\n}\n")
    (tmp_path / "mod.rs").write_text(text)
    got = suggest(tmp_path, _patch("mod.rs", ["    spin_loop_hint();"], ["    hint::spin_loop();"], 6))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(3, 2, "use core::hint;\n")]


def test_a_name_joins_a_python_from_line_where_its_authors_put_it(tmp_path):
    # starlette's responses.py (69ed26a859): `URL, MutableHeaders` is isort's order by type
    # (CONSTANTS, Classes, functions), Headers goes between them
    text = "from starlette.datastructures import URL, MutableHeaders\n\n\ndef f():\n    return Headers()\n"
    files = {"staticfiles.py": text, "starlette/datastructures.py": "class Headers:\n    pass\n"}
    got = suggest(tmp_path, _patch("staticfiles.py", ["    return None"], ["    return Headers()"], 5), files=files)
    assert [s.replacement for s in got] == ["from starlette.datastructures import URL, Headers, MutableHeaders\n"]
    # jinja's debug.py (pallets/jinja 1c5315a0b3): a one-name line takes the new name after it...
    files = {"debug.py": "from types import TracebackType\n\n\ndef f(code):\n    return CodeType(code)\n"}
    got = suggest(tmp_path, _patch("debug.py", ["    return code"], ["    return CodeType(code)"], 5), files=files)
    assert [s.replacement for s in got] == ["from types import TracebackType, CodeType\n"]
    # ... and a line in no order too, but beside a name that shares its first word (`check_call`)
    files = {"build.py": "from subprocess import call, check_call, Popen, PIPE, STDOUT\n\n\n"
                         "def f():\n    return check_output('git log', shell=True)\n"}
    got = suggest(tmp_path, _patch("build.py", ["    return None"], ["    return check_output('git log', shell=True)"], 5),
                  files=files)
    assert [s.replacement for s in got] == ["from subprocess import call, check_call, check_output, Popen, PIPE, STDOUT\n"]
    # starlette 1e406655fe: `quote` beside `quote_plus`
    files = {"responses.py": "from urllib.parse import quote_plus\n\n\ndef f(x):\n    return quote(x)\n"}
    got = suggest(tmp_path, _patch("responses.py", ["    return x"], ["    return quote(x)"], 5), files=files)
    assert [s.replacement for s in got] == ["from urllib.parse import quote, quote_plus\n"]


def test_python_standard_library_guesses_skip_builtins_and_module_style_names_and_join_one_module(tmp_path):
    # click's termui (pallets/click 2e8354a825): `enumerate` is a builtin, `from threading import
    # enumerate` was proposed; `system` of the file's own helper got `from os import system`
    files = {"termui.py": "import sys\n\n\ndef f(items):\n    for i, x in enumerate(items):\n        system(x)\n"}
    got = suggest(tmp_path, _patch("termui.py", ["    pass"], ["    for i, x in enumerate(items):", "        system(x)"], 5),
                  files=files)
    assert got == []
    # starlette's test (0e4da0aea2): names of one module the edit needs are one line
    files = {"test_app.py": "import pytest\n\n\ndef app(scope: Any) -> Callable:\n    pass\n"}
    got = suggest(tmp_path, _patch("test_app.py", ["def app(scope):"], ["def app(scope: Any) -> Callable:"], 4), files=files)
    # (above `import pytest`: the file's one block holds no standard-library line)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(1, 0, "from typing import Any, Callable\n")]


def test_an_elixir_alias_comes_from_its_suffix_family_and_goes_after_it_not_into_a_moduledoc(tmp_path):
    # ecto's query.ex (elixir-ecto/ecto 6083370976): `PreloadBuilder` beside the file's
    # `alias Ecto.Query.HavingBuilder` / `JoinBuilder`; the first block of import lines is an
    # example inside the @moduledoc
    text = ('defmodule Ecto.Query do\n  @moduledoc """\n  Examples:\n\n      import Ecto.Query\n\n  """\n\n'
            "  alias Ecto.Query.JoinBuilder\n  alias Ecto.Query.HavingBuilder\n  alias Ecto.Query.Util\n\n"
            "  def preload(query, expr) do\n    PreloadBuilder.build(query, expr)\n  end\nend\n")
    files = {"lib/ecto/query.ex": text}
    got = suggest(tmp_path, _patch("lib/ecto/query.ex", ["    query"], ["    PreloadBuilder.build(query, expr)"], 14),
                  files=files)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(11, 10, "  alias Ecto.Query.PreloadBuilder\n")]
    # one name of the family is no family: nothing proposed
    files = {"lib/ecto/query.ex": text.replace("  alias Ecto.Query.JoinBuilder\n", "")}
    got = suggest(tmp_path, _patch("lib/ecto/query.ex", ["    query"], ["    PreloadBuilder.build(query, expr)"], 13),
                  files=files)
    assert got == []


def test_a_bare_go_name_is_the_packages_own_never_an_import(tmp_path):
    # echo (labstack/echo d6127fe316): `echoHandlerFuncWrapper` used bare became the import path
    # "github.com/labstack/echoHandlerFuncWrapper/v4" beside "github.com/labstack/echo/v4"
    text = ('package middleware\n\nimport (\n\t"fmt"\n\n\t"github.com/labstack/echo/v4"\n)\n\n'
            "func Wrap(h echo.HandlerFunc) echo.HandlerFunc {\n\tfmt.Println()\n"
            "\treturn echoHandlerFuncWrapper(h, http.StatusOK)\n}\n")
    got = suggest(tmp_path, _patch("mw.go", ["\treturn h"], ["\treturn echoHandlerFuncWrapper(h, http.StatusOK)"], 11),
                  files={"mw.go": text})
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, '\t"net/http"\n')]


def test_a_module_named_only_in_prose_or_after_a_dot_still_needs_its_import(tmp_path):
    # jinja's filters.py: `choice(seq)` -> `random.choice(seq)` beside `from random import choice`,
    # a docstring's "a random item", and werkzeug's "we're" in a docstring: none of them is a
    # binding of the module `random` (or `re`), so the edit's new use needs `import random`
    text = ('import math\nfrom random import choice\n\n\ndef do_random(env, seq):\n'
            '    """Return a random item, re-read: we\'re\n    sure of the\n    random.\n    """\n'
            '    return random.choice(seq) or re.sub("a", "b", env.re)\n')
    (tmp_path / "filters.py").write_text(text)
    got = suggest(tmp_path, _patch("filters.py", ["    return choice(seq) or env.re"],
                                   ['    return random.choice(seq) or re.sub("a", "b", env.re)'], 10))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(2, 1, "import random\nimport re\n")]


def test_a_module_the_edit_names_only_in_its_own_docstring_is_no_new_name(tmp_path):
    # click's test: the new test's docstring says ``io.UnsupportedOperation``; the code needs
    # only `faulthandler`
    text = ('import os\n\n\ndef test_enable(runner):\n    """``faulthandler.enable()`` must not raise\n'
            '    ``io.UnsupportedOperation: fileno``.\n    """\n    faulthandler.enable()\n')
    (tmp_path / "test_t.py").write_text(text)
    patch = ("--- a/test_t.py\n+++ b/test_t.py\n@@ -3,0 +4,5 @@\n+def test_enable(runner):\n"
             '+    """``faulthandler.enable()`` must not raise\n+    ``io.UnsupportedOperation: fileno``.\n'
             '+    """\n+    faulthandler.enable()\n')
    got = suggest(tmp_path, patch)
    assert [s.replacement for s in got] == ["import faulthandler\n"]


def test_a_standard_library_name_comes_from_the_one_module_that_gives_it(tmp_path):
    # starlette: `ContextVar(...)` in a file that imports neither contextvars nor anything from
    # it; jinja: `chain(...)` (itertools has no __all__: its own names count)
    text = "import typing\n\n\nctxvar = ContextVar('ctxvar')\n\n\ndef pairs(a, b):\n    return chain(a, b)\n"
    (tmp_path / "t.py").write_text(text)
    got = suggest(tmp_path, _patch("t.py", ["ctxvar = None"], ["ctxvar = ContextVar('ctxvar')"], 4))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(2, 1, "from contextvars import ContextVar\n")]
    got = suggest(tmp_path, _patch("t.py", ["    return a + b"], ["    return chain(a, b)"], 8))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(2, 1, "from itertools import chain\n")]


def test_a_jdk_class_and_a_kotlin_library_name_are_imported_by_their_package(tmp_path):
    # jsoup: `Proxy.NO_PROXY` in a file that imports java.io and java.util; okio: `KClass<*>` in a
    # Kotlin file, which has kotlin.* without an import but not kotlin.reflect
    (tmp_path / "Conn.java").write_text("package a;\n\nimport java.io.IOException;\nimport java.util.List;\n\n"
                                        "class Conn {\n  Object p = Proxy.NO_PROXY;\n}\n")
    got = suggest(tmp_path, _patch("Conn.java", ["  Object p = null;"], ["  Object p = Proxy.NO_PROXY;"], 7))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, "import java.net.Proxy;\n")]
    (tmp_path / "Tags.kt").write_text("package okio\n\nimport okio.Buffer\n\nval extras = mutableMapOf<KClass<*>, Any>()\n")
    got = suggest(tmp_path, _patch("Tags.kt", ["val extras = mutableMapOf<String, Any>()"],
                                   ["val extras = mutableMapOf<KClass<*>, Any>()"], 5))
    # (kotlin.* after the file's other imports: test_a_kotlin_import_follows_the_default_layout...)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, "import kotlin.reflect.KClass\n")]


def test_a_rust_standard_error_type_is_used_from_its_module(tmp_path):
    # serde: `Utf8Error` in a match arm of a file that imports other std items one a line
    (tmp_path / "de.rs").write_text("use std::fmt;\nuse std::sync::Arc;\n\nfn f(e: Utf8Error) -> fmt::Result {\n    Ok(())\n}\n")
    got = suggest(tmp_path, _patch("de.rs", ["fn f(e: ()) -> fmt::Result {"], ["fn f(e: Utf8Error) -> fmt::Result {"], 4))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(2, 1, "use std::str::Utf8Error;\n")]


def test_a_first_party_import_joins_its_packages_block_not_the_first_third_party_one(tmp_path):
    # starlette's tests: `import pytest` (third party), a blank line, then the `from starlette.*`
    # block: `from starlette.middleware import Middleware` goes there, in its sorted place
    (tmp_path / "other.py").write_text("from starlette.middleware import Middleware\n")
    text = ("import os\n\nimport pytest\n\nfrom starlette.applications import Starlette\n"
            "from starlette.exceptions import HTTPException\nfrom starlette.routing import Route\n\n\n"
            "app = Starlette(middleware=[Middleware(HTTPException)])\n")
    (tmp_path / "test_app.py").write_text(text)
    got = suggest(tmp_path, _patch("test_app.py", ["app = Starlette()"],
                                   ["app = Starlette(middleware=[Middleware(HTTPException)])"], 10))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (7, 6, "from starlette.middleware import Middleware\n")]


def test_a_go_file_without_imports_gets_its_first_below_the_package_clause(tmp_path):
    # echo's router.go imported nothing until `strings.Contains(...)`: `import "strings"` after
    # `package echo` and its blank line, a blank line under it; two packages make one block
    (tmp_path / "router.go").write_text("package echo\n\nfunc f(n string) bool {\n\treturn strings.Contains(n, \"x\")\n}\n")
    got = suggest(tmp_path, _patch("router.go", ["\treturn false"], ['\treturn strings.Contains(n, "x")'], 4))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(3, 2, 'import "strings"\n\n')]
    (tmp_path / "router.go").write_text("package echo\n\nfunc f(n string) bool {\n\treturn strings.Contains(os.Args[0], n)\n}\n")
    got = suggest(tmp_path, _patch("router.go", ["\treturn false"], ["\treturn strings.Contains(os.Args[0], n)"], 4))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(3, 2, 'import (\n\t"os"\n\t"strings"\n)\n\n')]


HTTPX_MODELS = ("import http\nimport typing\nfrom urllib.parse import urlsplit\n\nfrom .decoders import (\n"
                "    ACCEPT_ENCODING,\n    SUPPORTED_DECODERS,\n    Decoder,\n)\n"
                "from .exceptions import ResponseClosed, StreamConsumed\n\n\n"
                "class Client:\n    def __init__(self):\n        self.ssl = SSLConfig()\n")


def test_a_python_import_sorts_beside_one_written_over_several_lines(tmp_path):
    # encode/httpx (a training case): `from .config import SSLConfig` belongs above the wrapped
    # `from .decoders import (` ... `)` (isort's order), where the commit put it; read without
    # that statement the block began at `from .exceptions`, and the line went below `.decoders`
    (tmp_path / "models.py").write_text(HTTPX_MODELS)
    (tmp_path / "config.py").write_text("class SSLConfig:\n    pass\n")
    patch = _patch("models.py", ["        self.ssl = None"], ["        self.ssl = SSLConfig()"], 15)
    got = suggest(tmp_path, patch)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "from .config import SSLConfig\n")]
    # a module sorting after the wrapped statement goes below its closing line, not inside it
    (tmp_path / "models.py").write_text(HTTPX_MODELS.replace("from .exceptions import ResponseClosed, StreamConsumed\n", ""))
    (tmp_path / "exceptions.py").write_text("class StreamConsumed(Exception):\n    pass\n")
    patch = _patch("models.py", ["        self.ssl = None"], ["        self.ssl = StreamConsumed()"], 14)
    (tmp_path / "models.py").write_text((tmp_path / "models.py").read_text().replace("SSLConfig()", "StreamConsumed()"))
    got = suggest(tmp_path, patch)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(10, 9, "from .exceptions import StreamConsumed\n")]


KOA_TEST = ("\n'use strict';\n\nconst request = require('supertest');\nconst assert = require('assert');\n"
            "const Koa = require('../..');\n\ndescribe('ctx.flushHeaders()', () => {\n"
            "  it('should flush headers first', done => {\n    const PassThrough = require('stream').PassThrough;\n"
            "    const app = new Koa();\n    app.listen(function(err){\n      http.request({ port: 1 }).end();\n"
            "    });\n  });\n});\n")


def test_a_require_inside_a_function_is_no_place_for_the_files_next_require(tmp_path):
    # koajs/koa (a training case): the edit added a test whose function requires `stream` and
    # calls `http.request`; `const http = require('http');` belongs to the file's own requires at
    # the top (after `const Koa`, where the commit put it), not after the test's local require
    (tmp_path / "flush.js").write_text(KOA_TEST)
    (tmp_path / "other.js").write_text("const http = require('http');\n")
    patch = _patch("flush.js", ["      done();"], ["      http.request({ port: 1 }).end();"], 13)
    got = suggest(tmp_path, patch)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(7, 6, "const http = require('http');\n")]


def test_an_import_in_a_kotlin_string_is_no_import_of_the_file(tmp_path):
    # square/moshi (a training case): a test holds Kotlin sources in raw strings, each with its
    # own `import com.squareup.moshi.JsonClass` (indented text): the file's imports are its own
    src = ("package com.squareup.moshi.kotlin\n\nimport org.junit.Rule\nimport org.junit.Test\n\n"
           "class ProcessorTest {\n  @Test fun privateConstructor() {\n    val result = compile(\"\"\"\n"
           "          import com.squareup.moshi.JsonClass\n          class A\n          \"\"\")\n"
           "    val k = KClass::class\n  }\n}\n")
    (tmp_path / "ProcessorTest.kt").write_text(src)
    (tmp_path / "Other.kt").write_text("package x\n\nimport kotlin.reflect.KClass\n")
    patch = _patch("ProcessorTest.kt", ["    val k = 1"], ["    val k = KClass::class"], 12)
    got = suggest(tmp_path, patch)
    # (below the file's own org.junit lines, as moshi's files put kotlin.* last)
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import kotlin.reflect.KClass\n")]


def test_a_standard_library_import_heads_a_block_that_holds_none(tmp_path):
    # jinja2/exceptions.py (pallets/jinja e29c84ccc0): the file's one block is six's; `import sys`
    # went above `import six`, the standard library first (it was put after `from six.moves`)
    text = ('"""\n    jinja2.exceptions\n"""\nimport six\nfrom six.moves import map\n\n\n'
            "def f(message):\n    return message\n")
    (tmp_path / "exceptions.py").write_text(text.replace("return message", "return sys.getdefaultencoding()"))
    got = suggest(tmp_path, _patch("exceptions.py", ["    return message"], ["    return sys.getdefaultencoding()"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, "import sys\n")]


def test_an_import_line_ends_the_import_lines_of_a_block_unsorted_by_module_but_kept_by_kind(tmp_path):
    # werkzeug/routing.py (pallets/werkzeug af68f12355): `import re` above three `from` lines in no
    # order of modules; `import posixpath` went after `import re` (it was put after `from itertools`)
    text = ('"""\n    werkzeug.routing\n"""\nimport re\nfrom pprint import pformat\nfrom urlparse import urljoin\n'
            "from itertools import izip\n\nfrom werkzeug.urls import url_encode, url_quote\n\n\n"
            "def join(a, b):\n    return a + b\n")
    (tmp_path / "routing.py").write_text(text.replace("return a + b", "return posixpath.join(a, b)"))
    got = suggest(tmp_path, _patch("routing.py", ["    return a + b"], ["    return posixpath.join(a, b)"], 13))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import posixpath\n")]


def test_a_key_named_like_a_module_asks_for_no_import(tmp_path):
    # hono's context.test.ts (honojs/hono 0d06c44b9e): `setCookie(c, 'foo2', 'bar2', { path: '/' })`;
    # the key `path` asked for `var path = require('path')` in a file of ES imports
    text = ("import { Context } from './context'\n\ndescribe('Context', () => {\n  it('keeps cookies', () => {\n"
            "    setCookie(c, 'foo2', 'bar2', { path: '/' })\n  })\n})\n")
    (tmp_path / "context.test.ts").write_text(text)
    got = suggest(tmp_path, _patch("context.test.ts", ["    c.res = res"], ["    setCookie(c, 'foo2', 'bar2', { path: '/' })"], 5))
    assert [s.replacement for s in got if "path" in s.replacement] == []
    # the same name used otherwise in the line still counts
    (tmp_path / "context.test.ts").write_text(text.replace("'foo2'", "path.join('a')"))
    got = suggest(tmp_path, _patch("context.test.ts", ["    c.res = res"],
                                   ["    setCookie(c, path.join('a'), 'bar2', { path: '/' })"], 5))
    assert [s.replacement for s in got if "path" in s.replacement] == ["var path = require('path')\n"]


def test_a_kotlin_import_follows_the_default_layout_java_and_kotlin_last(tmp_path):
    # okio's PipeKotlinTest.kt (square/okio 49b0e56d5e): `java.io.IOException` went below
    # `org.junit.Test` (ktlint's and IntelliJ's layout: java.*, javax.*, kotlin.* last), not above okio
    text = ("package okio\n\nimport okio.Buffer\nimport org.junit.Test\n\nclass PipeKotlinTest {\n"
            "  @Test fun t() {\n    throw IOException(\"boom\")\n  }\n}\n")
    (tmp_path / "PipeKotlinTest.kt").write_text(text)
    got = suggest(tmp_path, _patch("PipeKotlinTest.kt", ["    Buffer()"], ["    throw IOException(\"boom\")"], 8))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import java.io.IOException\n")]
    # a file whose own lines are in plain lexicographic order keeps it
    (tmp_path / "PipeKotlinTest.kt").write_text(text.replace("import okio.Buffer\n", "import java.io.File\nimport okio.Buffer\n"))
    got = suggest(tmp_path, _patch("PipeKotlinTest.kt", ["    Buffer()"], ["    throw IOException(\"boom\")"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(4, 3, "import java.io.IOException\n")]


def test_a_new_name_of_a_new_names_family_comes_from_the_same_package(tmp_path):
    # jsoup 76b391e367: a test starts to use `Parser` and `StreamParser`; another file imports
    # `org.jsoup.parser.Parser`, nothing in the tree says where `StreamParser` lives (the commit
    # adds its class): the commit adds both lines, one after the other, under `Document`
    (tmp_path / "SelectorTest.java").write_text(
        "package org.jsoup.select;\n\nimport org.jsoup.parser.Parser;\n\nclass SelectorTest {\n"
        "    Parser p = Parser.htmlParser();\n}\n")
    (tmp_path / "SelectorIT.java").write_text(
        "package org.jsoup.select;\n\nimport org.jsoup.Jsoup;\nimport org.jsoup.nodes.Document;\n"
        "import org.junit.jupiter.api.Test;\n\npublic class SelectorIT {\n    @Test\n    public void streams() {\n"
        "        StreamParser streamer = new StreamParser(Parser.htmlParser());\n    }\n}\n")
    got = suggest(tmp_path, _patch("SelectorIT.java", ["    public void streams() {"],
                                   ["    public void streams() {",
                                    "        StreamParser streamer = new StreamParser(Parser.htmlParser());"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (5, 4, "import org.jsoup.parser.Parser;\nimport org.jsoup.parser.StreamParser;\n")]
    # a name whose last word no other new name ends with (`Streamer`) gets no line
    (tmp_path / "SelectorIT.java").write_text((tmp_path / "SelectorIT.java").read_text().replace(
        "StreamParser streamer = new StreamParser(", "Streamer streamer = new Streamer("))
    got = suggest(tmp_path, _patch("SelectorIT.java", ["    public void streams() {"],
                                   ["    public void streams() {",
                                    "        Streamer streamer = new Streamer(Parser.htmlParser());"], 9))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [(5, 4, "import org.jsoup.parser.Parser;\n")]


def test_a_file_of_one_name_per_from_line_gets_one_more_line_in_its_name_order(tmp_path):
    # werkzeug 7ab3823fb6 and click 27b3ee2633: test files written one name per line (isort's
    # force_single_line), in name order, letter case aside; the commit adds a line, it merges none
    (tmp_path / "other.py").write_text("from werkzeug.test import Request\nfrom werkzeug.test import TestResponse\n")
    head = ("import pytest\n\nfrom werkzeug.test import Client\nfrom werkzeug.test import create_environ\n"
            "from werkzeug.test import EnvironBuilder\nfrom werkzeug.test import stream_encode_multipart\n"
            "from werkzeug.utils import redirect\n\n\ndef test_response():\n")
    (tmp_path / "test_test.py").write_text(head + "    response = Request()\n")
    got = suggest(tmp_path, _patch("test_test.py", ["    pass"], ["    response = Request()"], 11))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (6, 5, "from werkzeug.test import Request\n")]
    (tmp_path / "test_test.py").write_text(head + "    response = TestResponse()\n")
    got = suggest(tmp_path, _patch("test_test.py", ["    pass"], ["    response = TestResponse()"], 11))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (7, 6, "from werkzeug.test import TestResponse\n")]
    # one line of the module (or lines of several names): the name joins it, as before
    head = head.replace("from werkzeug.test import create_environ\n", "").replace(
        "from werkzeug.test import EnvironBuilder\n", "").replace("from werkzeug.test import stream_encode_multipart\n", "")
    (tmp_path / "test_test.py").write_text(head + "    response = Request()\n")
    got = suggest(tmp_path, _patch("test_test.py", ["    pass"], ["    response = Request()"], 8))
    assert [(s.start_line, s.end_line, s.replacement) for s in got] == [
        (3, 3, "from werkzeug.test import Client, Request\n")]
