"""The write path's shortcuts give exactly what the plain code gives.

* ``sync._expand`` (the FTS identifier parts) returns the same parts as ``terms.expand``;
* a file with a secret is redacted in the index (chunks cross to the writer as tuples now).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from ctxmill.index import sync as sync_mod
from ctxmill.index import sync_index
from ctxmill.index.store import Store
from ctxmill.index.terms import expand

SRC = Path(__file__).resolve().parents[1] / "src" / "ctxmill"


def test_expand_matches_terms_expand_on_every_short_token():
    tokens = ["".join(p) for n in range(1, 6) for p in itertools.product("aA1_", repeat=n)]
    tokens += ["getHTTPResponse_code", "x86_64", "__init__", "HTTPServer", "parseUserRecord", "ABC1d", "_A1b"]
    for tok in tokens:
        for text in (tok, f"x.{tok}(y)", f"{tok} {tok.upper()} {tok.lower()}"):
            assert set(sync_mod._expand(text).split()) == set(expand(text).split()), text
    # called twice: the second call answers from the caches, and must agree too
    code = (SRC / "index" / "sync.py").read_text()
    assert set(sync_mod._expand(code).split()) == set(expand(code).split())
    assert set(sync_mod._expand(code).split()) == set(expand(code).split())


def test_secret_in_a_file_is_redacted_in_the_index(tmp_path):
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    (tmp_path / "cfg.py").write_text(f"def creds():\n    aws_key = '{key}'\n    return aws_key\n")
    (tmp_path / "plain.py").write_text("def add(a, b):\n    return a + b\n")
    db = tmp_path / "i.db"
    sync_index(tmp_path, db_path=db)
    with Store(db) as st:
        texts = [r[0] for r in st.conn.execute("SELECT text FROM chunks")]
    assert texts and not any(key in t for t in texts)
    assert any("[REDACTED:" in t for t in texts)
    assert any("return a + b" in t for t in texts)
