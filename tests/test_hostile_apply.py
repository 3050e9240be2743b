"""Apply on large and oversized inputs (issue 26): a sketch that repeats a large file applies,
an oversized sketch is refused up front with the limit's name."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill.apply import MAX_BYTES, apply_sketch
from ctxmill.errors import InputRefused

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _repetitive(n: int, seed: int = 2) -> str:
    # few distinct lines, repeated: the shape that made the stretch matcher quadratic
    rnd = random.Random(seed)
    words = ["x = 1", "", "    pass", "return y", "foo(bar)", "}", "{", "# comment"]
    return "".join(rnd.choice(words) + (f" {rnd.randint(0, 50)}" if rnd.random() < 0.5 else "") + "\n"
                   for _ in range(n))


@pytest.mark.timeout(120)  # a safety net against a hang, not a speed assertion (benchmarks/fuzz.py times it)
def test_a_sketch_equal_to_a_large_repetitive_file_applies_unchanged():
    text = _repetitive(200_000)
    res = apply_sketch(text, text, path="big.txt")
    assert res.applied and res.result == text and res.hunks == []


@pytest.mark.timeout(120)
def test_one_edited_line_in_a_large_repetitive_file():
    text = _repetitive(100_000)
    lines = text.splitlines(keepends=True)
    lines[50_000] = "changed_here = True\n"
    res = apply_sketch(text, "".join(lines), path="big.txt")
    assert res.applied and res.result == "".join(lines)


def test_an_oversized_sketch_is_refused_with_the_limit(tmp_path):
    f = tmp_path / "small.py"
    f.write_text("x = 1\n")
    sketch = tmp_path / "sketch.py"
    sketch.write_text("x = 2\n" * (MAX_BYTES // 6 + 10))
    r = subprocess.run([str(CTXMILL), "apply", str(f), str(sketch)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 3
    assert "too large" in r.stderr and "APPLY_MAX_BYTES" in r.stderr
    assert f.read_text() == "x = 1\n"
    with pytest.raises(InputRefused):
        apply_sketch("x = 1\n", "y\n" * (MAX_BYTES // 2 + 1))
