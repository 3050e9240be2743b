"""render.jsonfmt writes exactly what json.dumps(indent=N, ensure_ascii=False) writes (issue 26:
the standard library's indented writer was most of the cost of sections.json and graph.json
for a document of tens of thousands of sections)."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.render import jsonfmt

_leaves = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text() | st.sampled_from(["é", "\u2028", "\x00", "a\"b\\c", "😀", "\ud800"]))
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_json = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
                     | st.dictionaries(_keys, inner, max_size=5), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(_json, st.sampled_from([1, 2, 4]))
def test_the_same_text_as_json_dumps(obj, indent):
    assert jsonfmt.dumps(obj, indent=indent) == json.dumps(obj, indent=indent, ensure_ascii=False)


def test_other_types_are_left_to_json_dumps():
    class Num(float):
        def __repr__(self):
            return "odd"

    obj = {"a": [Num(1.5), math.inf]}
    assert jsonfmt.dumps(obj) == json.dumps(obj, indent=2, ensure_ascii=False)
    try:
        jsonfmt.dumps({"a": {1, 2}})
    except TypeError as exc:
        assert "set" in str(exc)
    else:
        raise AssertionError("a set is no JSON")
