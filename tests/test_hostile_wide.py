"""Issue 26, round eleven: what a wider fuzzing campaign (benchmarks/fuzz.py --kinds wide) found.
Each test fails on the code before its fix. Time limits here are safety nets against a hang, not
speed assertions (benchmarks/fuzz.py measures speed)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.apply import apply_sketch
from ctxmill.apply.lines import Text, key_of

# ---------------------------------------------------------------------------- apply


@pytest.mark.timeout(60)
def test_a_line_of_many_double_spaces_applies_in_linear_time():
    # the line keys collapsed a line's whitespace once per run of it: 20,000 double spaces on
    # one 80 KB line took 30 CPU-s, 60,000 would take minutes (seed 1311 apply: CR-only files,
    # whose CRs are such whitespace inside one line, took 1-5 s for 20-70 KB)
    line = "x = [" + "1,  " * 60_000 + "]\n"
    f = "def a():\n    return 1\n" + line + "def b():\n    return 2\n"
    res = apply_sketch(f, "def a():\n    return 3\n# ... existing code ...\n", path="a.py")
    assert res.applied, res.reason
    assert res.result == f.replace("return 1", "return 3")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab \t\r\u00a0\u2003x{}")), max_size=30), min_size=1,
                max_size=12))
def test_line_keys_are_key_of_each_line(lines):
    assert Text(lines, [False] * len(lines)).keys == [key_of(s) for s in lines]


@pytest.mark.parametrize("sketch_nl", ["\n", "\r", "\r\n"])
def test_a_file_with_classic_mac_line_endings_applies_and_keeps_them(sketch_nl):
    # lines that end in a lone CR were one line to the merge: every sketch was refused as
    # matching nothing ("it sits between two markers and no line next to it matches")
    f = "def a():\r    return 1\r\rdef b():\r    return 2\r"
    sk = "def a():\n    return 3\n# ... existing code ...\n".replace("\n", sketch_nl)
    res = apply_sketch(f, sk, path="a.py")
    assert res.applied, res.reason
    assert res.result == "def a():\r    return 3\r\rdef b():\r    return 2\r"
    assert "-    return 1\n+    return 3\n" in res.diff


def test_a_large_classic_mac_file_applies_in_linear_time():
    rnd = random.Random(3)
    lines = [f"def f{i}():\r    return {rnd.randint(0, 9)}\r\r" for i in range(3000)]
    f = "".join(lines)
    sk = "def f1500():\n    return 42\n# ... existing code ...\n"
    sk = "# ... existing code ...\n" + sk
    res = apply_sketch(f, sk, path="a.py")
    assert res.applied, res.reason
    assert "def f1500():\r    return 42\r" in res.result and "\n" not in res.result
