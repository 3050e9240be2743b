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
