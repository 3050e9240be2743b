"""The parse check: a result that no longer parses where the original did is refused.

The check parses only the top-level stretch around the edit when it can; these tests hold it
to the answer a whole-file parse gives, including where a cut would fall badly.
"""

from __future__ import annotations

import random

import pytest

from ctxmill.apply import apply_sketch
from ctxmill.apply.check import _parser, _whole_file_error, common_prefix, common_suffix, new_error

MODULE = '''"""Tools.

Usage text at column 0, after a blank line, inside the docstring.
"""
import os

if os.name == "nt":
    SEP = "\\\\"

else:
    SEP = "/"


def first(x):
    return x + 1


@staticmethod
def second(y):
    if y:
        return y
    else:
        return 0


class Box:
    def __init__(self):
        self.items = []

    def put(self, item):
        self.items.append(item)


def last():
    return os.sep
'''

JS = """const fs = require('fs')

function one (a) {
  return a + 1
}

/* a block comment
with a column-0 line
*/
function two (b) {
  if (b) {
    return b
  }
  return 0
}

module.exports = { one, two }
"""


def whole(original: str, result: str, lang: str):
    old, new = original.encode(), result.encode()
    p = common_prefix(old, new)
    return _whole_file_error(_parser(lang), old, new, p, common_suffix(old, new, p))


def needs(lang: str) -> None:
    if _parser(lang) is None:
        pytest.skip(f"no tree-sitter grammar for {lang}")


def test_clean_edit_in_one_function_passes():
    needs("python")
    assert new_error(MODULE, MODULE.replace("return x + 1", "return x + 2"), "python") is None


def test_broken_function_is_found_with_its_line():
    needs("python")
    broken = MODULE.replace("return x + 1", "return (x + 1")
    line = new_error(MODULE, broken, "python")
    assert line is not None and line == whole(MODULE, broken, "python")


def test_decorated_definition_replaced_by_a_statement_is_an_error():
    # Cutting between "@staticmethod" and "def second" would let both halves parse alone.
    needs("python")
    broken = MODULE.replace("def second(y):\n    if y:\n        return y\n    else:\n        return 0\n",
                            "second = 2\n")
    assert new_error(MODULE, broken, "python") is not None


def test_edit_that_closes_the_docstring_early_is_an_error():
    # "Usage text..." starts in column 0 after a blank line: it looks like a statement start.
    needs("python")
    broken = MODULE.replace("Usage text at column 0", '"""Usage text at column 0')
    assert new_error(MODULE, broken, "python") is not None


def test_orphaned_else_is_an_error():
    # "else:" in column 0 after a blank line continues the "if" above: not a place to cut.
    needs("python")
    broken = MODULE.replace('if os.name == "nt":\n    SEP = "\\\\"\n', 'SEP = "\\\\"\n')
    assert broken != MODULE
    assert new_error(MODULE, broken, "python") is not None
    broken = MODULE.replace("    if y:\n        return y\n", "    return y\n")
    assert new_error(MODULE, broken, "python") is not None


def test_original_that_did_not_parse_is_not_held_against_the_result():
    needs("python")
    bad = MODULE.replace("def last():", "def last(:")
    assert new_error(bad, bad.replace("return x + 1", "return x + 2"), "python") is None


def test_js_block_comment_with_column_0_line():
    needs("javascript")
    assert new_error(JS, JS.replace("return b\n", "return b * 2\n"), "javascript") is None
    broken = JS.replace("with a column-0 line", "with a column-0 line */ function (")
    assert new_error(JS, broken, "javascript") is not None


@pytest.mark.parametrize("lang,text", [("python", MODULE), ("javascript", JS)])
def test_agrees_with_the_whole_file_parse_on_line_edits(lang, text):
    # Every single-line deletion, and a seeded mix of duplications and swaps: the stretch check
    # must say "error" exactly when the whole-file check does.
    needs(lang)
    lines = text.split("\n")
    results = ["\n".join(lines[:i] + lines[i + 1:]) for i in range(len(lines))]
    rng = random.Random(5)
    for _ in range(60):
        ls = list(lines)
        i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
        if rng.random() < 0.5:
            ls.insert(i, ls[j])
        else:
            ls[i], ls[j] = ls[j], ls[i]
        results.append("\n".join(ls))
    for result in results:
        if result != text:
            assert (new_error(text, result, lang) is None) == (whole(text, result, lang) is None), result


def test_apply_refuses_a_sketch_that_breaks_a_function_far_from_the_top():
    needs("python")
    sketch = "# ... existing code ...\n    def put(self, item):\n        self.items.append(item\n# ... existing code ...\n"
    r = apply_sketch(MODULE, sketch, path="tools.py")
    assert not r.applied and "no longer parses as python" in r.reason
