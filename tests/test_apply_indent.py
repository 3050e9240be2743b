"""Indentation of new lines: as the model wrote them, or shifted by the sketch's one offset."""

from __future__ import annotations

from ctxmill.apply import apply_sketch

LIB = """class Shelf {
  constructor() {
    this.books = [];
  }

  add(book) {
    this.books.push(book);
    return this;
  }

  count() {
    return this.books.length;
  }
}
"""


def test_whole_file_sketch_is_copied_as_written():
    # No markers, same first and last line: the sketch is the new file, indentation and all.
    sketch = LIB.replace("  add(book) {\n", "  // adds one book\n  add(book) {\n").replace(
        "    this.books.push(book);\n", "    this.books.push(book);\n    // keep the chain going\n")
    r = apply_sketch(LIB, sketch, path="shelf.js")
    assert r.applied, r.reason
    assert r.result == sketch


def test_uniformly_dedented_sketch_is_shifted_by_its_one_offset():
    # The model left out the class and wrote its methods at column 0: every line of the
    # sketch sits 2 columns left of the file, so the new method moves right by 2, body and all.
    sketch = ("// ... existing code ...\nadd(book) {\n  this.books.push(book);\n  return this;\n}\n\n"
              "remove(book) {\n  this.books = this.books.filter(\n    (b) => b !== book);\n  return this;\n}\n\n"
              "// ... existing code ...\n")
    r = apply_sketch(LIB, sketch, path="shelf.js")
    assert r.applied, r.reason
    assert ("  remove(book) {\n    this.books = this.books.filter(\n      (b) => b !== book);\n"
            "    return this;\n  }\n\n  count() {") in r.result


def test_odd_relative_indent_of_a_continuation_line_is_kept():
    # An aligned continuation (5 columns, not a multiple of the file's 2) is the model's own
    # layout: copied as written, not snapped to the file's indent step.
    sketch = ("  // ... existing code ...\n  count() {\n    return this.books.length +\n"
              "           0;\n  }\n}\n")
    r = apply_sketch(LIB, sketch, path="shelf.js")
    assert r.applied, r.reason
    assert "    return this.books.length +\n           0;\n  }\n}\n" in r.result


PY = """def build(items):
    out = []
    for item in items:
        out.append(item)
    return out


def main():
    print(build([1, 2]))
"""


def test_sketch_at_twice_the_files_indent_is_scaled_by_what_matched_lines_show():
    # The sketch doubles every indent (8 for 4). Its own most common step is the +2 of its
    # aligned continuation lines, which says nothing; matched lines at two depths show 1:2.
    sketch = ("# ... existing code ...\n        for item in items:\n                out.append(item)\n"
              "        total = add(out,\n          1)\n        other = add(out,\n          2)\n"
              "        return out\n# ... existing code ...\n")
    r = apply_sketch(PY, sketch, path="b.py")
    assert r.applied, r.reason
    assert r.result == PY.replace(
        "    return out\n", "    total = add(out,\n     1)\n    other = add(out,\n     2)\n    return out\n")
