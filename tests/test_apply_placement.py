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
