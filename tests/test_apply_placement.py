"""Where new lines go and at what depth: follow the sketch, or refuse when it does not say."""

from __future__ import annotations

from ctxmill.apply import apply_sketch

SHOP = """class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }

  total() {
    return this.items.length;
  }

  clear() {
    this.items = [];
  }
}
"""


def test_new_method_after_a_rewritten_one_then_marker_and_class_end_is_refused():
    # add() is rewritten and a new method follows it, then "rest of the class", then "}":
    # right after add(), or at the end of the class? The sketch does not say.
    sketch = ("class Cart {\n  // ... existing code ...\n\n  add(item) {\n    if (!item) return;\n"
              "    this.items.push(item);\n  }\n\n  has(item) {\n    return this.items.includes(item);\n"
              "  }\n\n  // ... existing code ...\n}\n")
    r = apply_sketch(SHOP, sketch, path="cart.js")
    assert not r.applied
    assert "has(item)" in r.reason and "end of the block" in r.reason


def test_new_method_after_an_unchanged_one_goes_right_there():
    # add() is shown unchanged: it is there only to say where the new method goes.
    sketch = ("class Cart {\n  // ... existing code ...\n\n  add(item) {\n    this.items.push(item);\n"
              "  }\n\n  has(item) {\n    return this.items.includes(item);\n  }\n\n"
              "  // ... existing code ...\n}\n")
    r = apply_sketch(SHOP, sketch, path="cart.js")
    assert r.applied, r.reason
    assert r.result == SHOP.replace(
        "  total() {", "  has(item) {\n    return this.items.includes(item);\n  }\n\n  total() {")


def test_rewritten_method_and_new_one_without_the_class_end_follow_the_sketch():
    # No closing line after the marker: the sketch gives one place only, after add().
    sketch = ("  // ... existing code ...\n  add(item) {\n    if (!item) return;\n    this.items.push(item);\n"
              "  }\n\n  has(item) {\n    return this.items.includes(item);\n  }\n  // ... existing code ...\n")
    r = apply_sketch(SHOP, sketch, path="cart.js")
    assert r.applied, r.reason
    assert "    if (!item) return;\n    this.items.push(item);\n  }\n\n  has(item) {\n" in r.result
    assert r.result.index("has(item)") < r.result.index("total()")


MOD = """import re


def norm(text):
    return text.lower()


def words(text):
    return re.findall(r"\\w+", norm(text))
"""


def test_new_definition_after_a_marker_takes_the_files_gap():
    # One blank line after the marker is padding: the new function lands in a gap of two
    # blank lines, and the file's spacing between definitions is kept on both sides of it.
    sketch = "# ... existing code ...\n\ndef strip(text):\n    return text.strip()\n\n\ndef words(text):\n# ... existing code ...\n"
    r = apply_sketch(MOD, sketch, path="m.py")
    assert r.applied, r.reason
    assert r.result == MOD.replace("\n\ndef words", "\n\ndef strip(text):\n    return text.strip()\n\n\ndef words")


def test_gap_of_one_blank_line_stays_one():
    js = "function a() {\n  return 1;\n}\n\nfunction c() {\n  return 3;\n}\n"
    sketch = "// ... existing code ...\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n// ... existing code ...\n"
    r = apply_sketch(js, sketch, path="m.js")
    assert r.applied, r.reason
    assert r.result == js.replace("\nfunction c", "\nfunction b() {\n  return 2;\n}\n\nfunction c")


CACHED = '''from functools import lru_cache


def plain(x):
    return x + 1


@lru_cache(maxsize=64)
def squares(n):
    return n * n


@lru_cache(maxsize=64)
def cubes(n):
    return n * n * n
'''


def test_new_decorated_function_before_a_repeated_decorator_deletes_nothing():
    # "@lru_cache(maxsize=16)" over a new function is not an edit of "@lru_cache(maxsize=64)"
    # over squares(); reading it as one made the context "@lru_cache(maxsize=64)" land on
    # cubes()'s decorator and dropped squares() in between.
    sketch = ("# ... existing code ...\ndef plain(x):\n    return x + 1\n\n\n"
              "@lru_cache(maxsize=16)\ndef halves(n):\n    return n / 2\n\n\n"
              "@lru_cache(maxsize=64)\n# ... existing code ...\n")
    r = apply_sketch(CACHED, sketch, path="m.py")
    assert r.applied, r.reason
    assert r.result == CACHED.replace(
        "\n\n@lru_cache(maxsize=64)\ndef squares",
        "\n\n@lru_cache(maxsize=16)\ndef halves(n):\n    return n / 2\n\n\n@lru_cache(maxsize=64)\ndef squares", 1)


def test_an_edited_decorator_over_the_same_function_is_still_an_edit():
    sketch = ("# ... existing code ...\n@lru_cache(maxsize=128)\ndef squares(n):\n    return n * n\n"
              "# ... existing code ...\n")
    r = apply_sketch(CACHED, sketch, path="m.py")
    assert r.applied, r.reason
    assert r.result == CACHED.replace("@lru_cache(maxsize=64)\ndef squares", "@lru_cache(maxsize=128)\ndef squares")


DOC = """# Setup

Run the tool:

```
tool build
tool test
```

The engine is the old one. Install it by hand:

```
apt-get install engine
```

That is all.
"""


def test_a_bare_fence_next_to_a_marker_that_is_not_where_the_sketch_puts_it_is_refused():
    # The first line after the marker is "```": the fence before the paragraph (so the
    # paragraph is rewritten) or the one after it (so the old paragraph stays and a new one
    # comes before it)? The file has both near; keeping the old paragraph was a silent guess.
    sketch = ("<!-- ... existing code ... -->\n```\n\nThe engine is the new one, from the distribution.\n"
              "Install it by hand:\n\n```\napt-get install engine\n```\n\nThat is all.\n")
    r = apply_sketch(DOC, sketch, path="setup.md")
    assert not r.applied
    assert "```" in r.reason and "marker" in r.reason


def test_a_fence_right_where_the_sketch_puts_it_still_anchors():
    sketch = ("<!-- ... existing code ... -->\ntool test\n```\n\nThe engine is the new one. "
              "Install it by hand:\n<!-- ... existing code ... -->\n")
    r = apply_sketch(DOC, sketch, path="setup.md")
    assert r.applied, r.reason
    assert r.result == DOC.replace("The engine is the old one.", "The engine is the new one.")
