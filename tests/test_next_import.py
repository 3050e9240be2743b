"""Next-edit import lines (issue 18, the import class): which names the edit needs imported."""

from __future__ import annotations

from test_next_edit_import_groups import _patch, suggest

# gson's JsonReaderTest (google/gson 0e591c2071): the edit writes a helper and calls it
TEST = ("package com.google.gson.stream;\n\nimport static org.junit.Assert.assertEquals;\n"
        "import static org.junit.Assert.assertThrows;\n\npublic class JsonReaderTest {\n  // helpers\n}\n")


def test_a_name_the_edit_declares_in_java_is_no_import(tmp_path):
    new = ["  private static void assertThrowsStackOverflow(JsonReader reader) {",
           "    MethodSpec methodSpec = build(reader, null);",
           "    assertThrowsStackOverflow(reader);",
           "    assertNull(methodSpec);",
           "  }"]
    (tmp_path / "JsonReaderTest.java").write_text(TEST.replace("  // helpers\n", "".join(x + "\n" for x in new)))
    got = suggest(tmp_path, _patch("JsonReaderTest.java", ["  // helpers"], new, 7))
    # the method and the local were taken for names to import beside their family
    # (`import static org.junit.Assert.assertThrowsStackOverflow;`); assertNull still is one
    assert [s.replacement for s in got] == ["import static org.junit.Assert.assertNull;\n"]


def test_a_js_line_from_another_folder_names_the_module_from_this_files_folder(tmp_path):
    # zod a8558a2b21: src/parser.ts's `'./helpers/util'` was proposed as it stood in src/types/
    (tmp_path / "src" / "types").mkdir(parents=True)
    (tmp_path / "src" / "parser.ts").write_text("import { util } from './helpers/util';\n\nutil.assertNever(x);\n")
    text = "import { ZodType } from './base';\n\nexport const s = new ZodType();\n"
    (tmp_path / "src" / "types" / "string.ts").write_text(text.replace("new ZodType()", "util.check(new ZodType())"))
    got = suggest(tmp_path, _patch("src/types/string.ts", ["export const s = new ZodType();"],
                                   ["export const s = util.check(new ZodType());"], 3))
    assert [s.replacement for s in got] == ["import { util } from '../helpers/util';\n"]


def test_a_js_line_beside_lines_without_semicolons_has_none(tmp_path):
    # express 0def9bb659: another file's `var path = require('path');` came with its `;`
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "view.js").write_text("var path = require('path');\n\npath.join('a');\n")
    (tmp_path / "lib" / "app.js").write_text("var express = require('..')\n\nexpress(path.join('b'))\n")
    got = suggest(tmp_path, _patch("lib/app.js", ["express()"], ["express(path.join('b'))"], 3))
    assert [s.replacement for s in got] == ["var path = require('path')\n"]


def test_a_python_module_imported_under_another_name_keeps_its_module(tmp_path):
    # click 3b16957cba: src/click/termui.py's `import typing as t` was proposed as `import t`
    (tmp_path / "termui.py").write_text("import typing as t\n\nX: t.Any = None\n")
    (tmp_path / "core.py").write_text("import os\n\nY = t.cast(int, os.sep)\n")
    got = suggest(tmp_path, _patch("core.py", ["Y = os.sep"], ["Y = t.cast(int, os.sep)"], 3))
    assert [s.replacement for s in got] == ["import typing as t\n"]
