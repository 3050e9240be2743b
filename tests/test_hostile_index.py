"""A partial failure stays partial (issue 26): one odd file name or one broken ignore rule must
not take the rest of the index down with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmill.index import search, sync_index
from ctxmill.sources.repo import fs_name, index_name, walk

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _run(*args, cwd=None):
    return subprocess.run([str(CTXMILL), *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def bad_name_tree(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "good.py").write_text("def greet_the_user():\n    return 'hi'\n")
    # b'\xff' is no UTF-8: Python hands the name over with a lone surrogate
    with open(os.path.join(os.fsencode(root), b"\xffodd.py"), "wb") as fh:
        fh.write(b"def parse_latin_invoice():\n    return 2\n")
    (root / "sub").mkdir()
    with open(os.path.join(os.fsencode(root / "sub"), b"caf\xe9.py"), "wb") as fh:
        fh.write(b"def brew_coffee_now():\n    return 3\n")
    return root


def test_a_name_that_is_not_utf8_is_indexed_with_the_rest(bad_name_tree, tmp_path):
    r = _run("index", str(bad_name_tree), "--db", str(tmp_path / "i.db"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["files_scanned"] == 3
    hits = search("parse latin invoice", bad_name_tree, db_path=tmp_path / "i.db", k=3)
    assert hits[0].path == "\\xffodd.py" and hits[0].symbol == "parse_latin_invoice"
    # the stored name leads back to the file on disk, byte for byte
    assert (bad_name_tree / fs_name(hits[0].path)).read_bytes().startswith(b"def parse_latin_invoice")
    assert search("brew coffee", bad_name_tree, db_path=tmp_path / "i.db", k=1)[0].path == "sub/caf\\xe9.py"
    assert search("greet the user", bad_name_tree, db_path=tmp_path / "i.db", k=1)[0].path == "good.py"


def test_resync_after_renaming_a_bad_name_drops_it(bad_name_tree, tmp_path):
    db = tmp_path / "i.db"
    sync_index(bad_name_tree, db_path=db)
    os.rename(os.path.join(os.fsencode(bad_name_tree), b"\xffodd.py"), bad_name_tree / "odd.py")
    r = sync_index(bad_name_tree, db_path=db)
    assert r.files_deleted == 1
    assert search("parse latin invoice", bad_name_tree, db_path=db, k=1)[0].path == "odd.py"


@pytest.mark.parametrize("bad", ["[z-a]", "\\", "trailing\\", "x[b-a]y"])
def test_an_invalid_ignore_line_is_skipped_with_a_warning_as_git_does(tmp_path, bad):
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".gitignore").write_text(f"{bad}\n*.log\n")
    (root / "app.py").write_text("x = 1\n")
    (root / "debug.log").write_text("noise\n")
    r = _run("index", str(root), "--db", str(tmp_path / "i.db"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert any("invalid ignore pattern" in w and ".gitignore" in w for w in out["warnings"]), out
    names = {f.path for f in walk(root).files}
    assert "app.py" in names and "debug.log" not in names  # the valid rule still applies
    st_ = _run("status", str(root), "--db", str(tmp_path / "i.db"))
    assert "invalid ignore pattern" in st_.stdout


@given(st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=30))
def test_index_name_round_trips_every_name(name):
    stored = index_name(name)
    stored.encode("utf-8")  # never raises: SQLite can hold it
    assert fs_name(stored) == name


@given(st.binary(min_size=1, max_size=30).filter(lambda b: b"/" not in b and b"\x00" not in b))
def test_index_name_round_trips_raw_bytes(raw):
    name = os.fsdecode(raw)
    assert os.fsencode(fs_name(index_name(name))) == raw
    assert index_name(name).encode("utf-8")
