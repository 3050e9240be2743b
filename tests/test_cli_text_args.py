"""The file arguments of `ctxmill apply` (SKETCH) and `ctxmill next-edit` (--diff PATCH): a file, or
- for stdin; a missing file is refused (exit 3, one line naming it); a sketch must be UTF-8, a
patch's stray bytes are decoded with replacement (cli._read_text_arg serves both)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ctxmill.cli import main

CODE = "def f():\n    return 1\n"
SKETCH = "def f():\n    return 2\n"
RENAME = ("--- a/shop.py\n+++ b/shop.py\n@@ -1,2 +1,2 @@\n-def total_price(items):\n+def order_total(items):\n"
          "     return sum(items)\n")
SHOP = "def order_total(items):\n    return sum(items)\n\n\ndef checkout(cart):\n    return total_price(cart)\n"


def _run(*args, stdin=None):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_sketch_from_a_file_and_from_stdin(tmp_path):
    (tmp_path / "a.py").write_text(CODE)
    (tmp_path / "s.txt").write_text(SKETCH)
    for arg, stdin in ((str(tmp_path / "s.txt"), None), ("-", SKETCH)):
        res = _run("apply", str(tmp_path / "a.py"), arg, "--json", stdin=stdin)
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["result"] == SKETCH


def test_missing_or_non_utf8_sketch_is_refused(tmp_path):
    (tmp_path / "a.py").write_text(CODE)
    res = _run("apply", str(tmp_path / "a.py"), str(tmp_path / "nope.txt"))
    assert res.exit_code == 3
    assert "nope.txt: no such sketch file" in res.output
    (tmp_path / "bad.txt").write_bytes(b"def f():\n    return '\xff'\n")
    res = _run("apply", str(tmp_path / "a.py"), str(tmp_path / "bad.txt"))
    assert res.exit_code == 3
    assert "bad.txt: sketch is not UTF-8 text" in res.output
    assert (tmp_path / "a.py").read_text() == CODE


def test_patch_from_a_file_stdin_and_with_stray_bytes(tmp_path):
    (tmp_path / "shop.py").write_text(SHOP)
    (tmp_path / "edit.diff").write_bytes(RENAME.encode() + b"\n# \xff\n")  # a byte that is not UTF-8
    for arg, stdin in ((str(tmp_path / "edit.diff"), None), ("-", RENAME)):
        res = _run("next-edit", "--root", str(tmp_path), "--diff", arg, "--json", stdin=stdin)
        assert res.exit_code == 0, res.output
        got = json.loads(res.output)["suggestions"]
        assert got and got[0]["replacement"] == "    return order_total(cart)\n"


def test_missing_patch_is_refused(tmp_path):
    res = _run("next-edit", "--root", str(tmp_path), "--diff", str(tmp_path / "none.diff"))
    assert res.exit_code == 3
    assert "none.diff: no such patch file" in res.output
