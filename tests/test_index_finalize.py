"""The indexer's per-file shortcuts give exactly what the per-chunk code gives.

* ``sync.finalize_file`` redacts only the chunks whose lines hold a redaction trigger (one scan
  of the file instead of one per chunk); its rows must equal ``finalize_chunk`` on every chunk;
* ``redact.trigger_lines`` names every line on which ``redact`` could change anything;
* ``sync._expand`` still agrees with ``terms.expand`` once its caches are full.
"""

from __future__ import annotations

import random
from pathlib import Path

from ctxmill.index import sync as sync_mod
from ctxmill.index.chunk_code import chunk_file
from ctxmill.index.sync import BODY, EXTRA, SYMBOL_FTS, finalize_chunk, finalize_file
from ctxmill.index.terms import expand
from ctxmill.redact import redact, trigger_lines

SRC = Path(__file__).resolve().parents[1] / "src" / "ctxmill"

AWS = "AKIA" + "ABCDEFGHIJKLMNOP"
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdef\nqwertyuiop\n-----END RSA " + "PRIVATE KEY-----"
SECRET_FILE = f'''"""Settings with secrets in odd places."""

import os

AWS_KEY = "{AWS}"  # a provider key


class Config:
    """Holds a password: DB_PASSWORD=s3cr3tP4ss!9 in the docstring."""

    db_password = "hunter2hunter2x9"

    def token(self, api_key="sk-{"a" * 40}"):
        return api_key

    def plain(self):
        return 1


KEY = """
{PEM}
"""


def \u212aelvin():  # KELVIN SIGN lower-cases to ASCII k
    return "\u0130stanbul sk-\u212a"
''' + "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(60)) + (
    "\nBIG = " + repr("x" * 3000 + " password='Zq8!rT5#kLm2' " + "y" * 9000) + "\n")


def _normal(rows: list[tuple]) -> list[tuple]:
    """Rows with the FTS part lists as sets: their order is set order, which FTS5 ignores."""
    out = []
    for r in rows:
        r = list(r)
        r[EXTRA] = frozenset(r[EXTRA].split())
        r[SYMBOL_FTS] = frozenset(r[SYMBOL_FTS].split())
        out.append(tuple(r))
    return out


def _check(path: str, text: str) -> list[tuple]:
    chunks = chunk_file(path, text.encode("utf-8", "surrogatepass"), text)
    fast = finalize_file(chunks, text)
    assert _normal(fast) == _normal([finalize_chunk(c) for c in chunks]), path
    return fast


def test_finalize_file_equals_finalize_chunk_on_a_file_full_of_secrets():
    rows = _check("settings.py", SECRET_FILE)
    bodies = "\n".join(r[BODY] for r in rows)
    assert AWS not in bodies and "MIIEpAIBAAKCAQEA" not in bodies and "hunter2hunter2x9" not in bodies
    assert "Zq8!rT5#kLm2" not in bodies  # inside a line cut into pieces
    assert "[REDACTED:" in bodies
    # the same file as plain text (line windows) and as Markdown (headings)
    _check("settings.txt", SECRET_FILE)
    _check("notes.md", "# Keys\n\n" + SECRET_FILE.replace('"""', "```"))


def test_finalize_file_equals_finalize_chunk_on_this_codebase():
    for path in sorted(SRC.rglob("*.py")):
        _check(str(path.relative_to(SRC)), path.read_text())


def test_redact_changes_nothing_in_lines_without_a_trigger():
    lines = SECRET_FILE.split("\n")
    hits = set(trigger_lines(SECRET_FILE))
    assert hits  # the file has triggers
    rnd = random.Random(4)
    for _ in range(300):
        a = rnd.randrange(len(lines))
        b = rnd.randrange(a, min(len(lines), a + 12))
        part = "\n".join(lines[a:b + 1])
        if not hits & set(range(a + 1, b + 2)):
            assert redact(part).text == part
    for i, line in enumerate(lines, 1):
        if redact(line).text != line:
            assert i in hits, line


def test_trigger_lines_numbers_lines_from_one():
    assert trigger_lines("") == []
    assert trigger_lines("x = 1\ny = 2\n") == []
    assert trigger_lines("a\ntoken = 1\nb\nsecret secret\n") == [2, 4]


def test_expand_agrees_with_terms_expand_past_the_cache_caps(monkeypatch):
    monkeypatch.setattr(sync_mod, "_simple_words", set())
    monkeypatch.setattr(sync_mod, "_word_parts", {})
    monkeypatch.setattr(sync_mod, "_MAX_SIMPLE", 3)
    monkeypatch.setattr(sync_mod, "_MAX_COMPOUND", 5)
    code = (SRC / "index" / "chunk_code.py").read_text()
    for _ in range(2):  # the second pass answers partly from the (capped) caches
        for piece in code.split("\n\n"):
            assert set(sync_mod._expand(piece).split()) == set(expand(piece).split())
    assert len(sync_mod._word_parts) == 5 and len(sync_mod._simple_words) == 3
