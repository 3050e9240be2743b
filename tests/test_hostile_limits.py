"""Limits are checked up front and refused with exit 3 and the limit's name (issue 26).

Each case goes through the real command; nothing may be written when it is refused.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill import limits
from ctxmill.errors import InputRefused

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _compile(path: Path, out: Path):
    return subprocess.run([str(CTXMILL), "compile", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name,data,limit", [
    ("long.txt", b"x" * (limits.MAX_LINE_CHARS + 10), "MAX_LINE_CHARS"),
    # a line longer than any file name: the batch reader once stat()ed it as a path (exit 1)
    ("long.md", b"Intro.\n\n" + b"word " * (limits.MAX_LINE_CHARS // 5 + 10), "MAX_LINE_CHARS"),
    ("lines.txt", b"a\n" * (limits.MAX_TEXT_LINES + 5), "MAX_TEXT_LINES"),
])
def test_text_over_a_limit_is_refused_with_its_name(tmp_path, name, data, limit):
    f = tmp_path / name
    f.write_bytes(data)
    r = _compile(f, tmp_path / "out")
    assert r.returncode == 3, r.stderr[-500:]
    assert limit in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_text_file_over_the_byte_limit_is_refused_from_its_size(tmp_path):
    f = tmp_path / "huge.txt"
    with open(f, "wb") as fh:  # sparse: the size is checked before a byte is read
        fh.truncate(limits.MAX_TEXT_BYTES + 1)
    r = _compile(f, tmp_path / "out")
    assert r.returncode == 3 and "MAX_TEXT_BYTES" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_long_line_just_under_the_limit_compiles(tmp_path):
    f = tmp_path / "ok.txt"
    f.write_bytes(b"A title\n\n" + b"word " * (200_000 // 5))
    r = _compile(f, tmp_path / "out")
    assert r.returncode == 0, r.stderr[-500:]
    assert (tmp_path / "out" / "document.md").read_text().count("word") == 40_000


def test_a_text_line_with_a_nul_is_refused_not_a_crash(tmp_path):
    f = tmp_path / "nul.txt"  # .txt is also a batch list: the line is not a file name
    f.write_bytes(b"hello\x00world and some more words\n")
    r = _compile(f, tmp_path / "out")
    assert r.returncode == 3, r.stderr[-500:]


def test_check_text_lines_names_the_line():
    with pytest.raises(InputRefused, match=r"line 3 is .* over MAX_LINE_CHARS"):
        limits.check_text_lines("a\nb\n" + "x" * (limits.MAX_LINE_CHARS + 1), "t")
    limits.check_text_lines("a\n" * 1000 + "x" * limits.MAX_LINE_CHARS, "t")  # at the limit: fine


def test_apply_refuses_a_file_over_the_limit_before_reading_it(tmp_path):
    f = tmp_path / "big.py"
    with open(f, "wb") as fh:
        fh.truncate(limits.APPLY_MAX_BYTES + 1)
    sketch = tmp_path / "s.py"
    sketch.write_text("x = 1\n")
    r = subprocess.run([str(CTXMILL), "apply", str(f), str(sketch), "--write"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and "APPLY_MAX_BYTES" in r.stderr
    assert f.stat().st_size == limits.APPLY_MAX_BYTES + 1


def test_the_limits_page_names_every_limit():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "limits.md").read_text()
    # the limits are the public upper-case names (a private compiled pattern is not one)
    names = [n for n in dir(limits) if n.isupper() and not n.startswith("_")]
    assert names and all(n in doc for n in names), [n for n in names if n not in doc]


def test_a_txt_of_prose_with_long_lines_compiles(tmp_path):
    # .txt is also a batch list (one file name a line): a 500-character line was stat()ed as a
    # name and every such .txt exited 1 with 'File name too long'
    f = tmp_path / "prose.txt"
    f.write_text(("The cache keeps recently used keys in memory and evicts the coldest ones. " * 7 + "\n\n") * 20)
    r = _compile(f, tmp_path / "out")
    assert r.returncode == 0, r.stderr[-500:]
    assert (tmp_path / "out" / "document.md").read_text().count("coldest") == 140
