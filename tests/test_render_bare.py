"""Bare references (issue 26): references.json, references.csl.json and references.bib write an
entry holding only its id, raw text and page from a template; the text must be what the ordinary
road (a dict per entry through jsonfmt, bibtex.entry) writes, for bare entries and near misses."""

from __future__ import annotations

import json
import random

from ctxmill.model import Document as _Document
from ctxmill.model import PageStream, Reference
from ctxmill.render import bibtex, csl_json, graph, jsonfmt
from ctxmill.render.bare import is_bare


def Document(references=None) -> _Document:
    return _Document(stream=PageStream(pages=[], kind="markdown"), references=references or [])


def _refs(seed: int, n: int = 300) -> list[Reference]:
    rnd = random.Random(seed)
    texts = ["A. Author. A title. 2020.", "", "tab\there \"quoted\" \\ back", "ünïcode — 東京 {x} & y_z %",
             "\x00\x1f ctrl", "[12] Smith, J. 1999"]
    out = []
    for i in range(n):
        r = Reference(id=rnd.choice([f"ref-{i}", f"r{i}", "-", "a-b-c"]), raw=rnd.choice(texts) + str(i))
        r.page = rnd.choice([None, 1, 7, 0, -3, True, 2**70])
        k = rnd.random()
        if k < 0.15:  # near misses: a field that is set, or empty but not [] / None
            name, value = rnd.choice([("authors", ["A. Author"]), ("authors", ()), ("year", "2020"), ("year", ""),
                                      ("title", "T"), ("title", ""), ("people", [{"family": "Author"}]),
                                      ("confidence", 0.5), ("confidence", 0.0), ("doubtful", "low"),
                                      ("type", "article"), ("note", ""), ("arxiv_id", "1234.5678")])
            setattr(r, name, value)
        out.append(r)
    return out


def test_is_bare():
    assert is_bare(Reference(id="ref-1", raw="x"))
    assert is_bare(Reference(id="ref-1", raw="x", page=3, block_id="b1"))
    assert not is_bare(Reference(id="ref-1", raw="x", page=True))
    assert not is_bare(Reference(id="ref-1", raw="x", year=""))
    assert not is_bare(Reference(id="ref-1", raw="x", authors=()))
    assert not is_bare(Reference(id="ref-1", raw="x", confidence=0.0))


def test_references_json_same_text():
    for seed in range(8):
        doc = Document(references=_refs(seed))
        expect = json.dumps(graph.references_json(doc), indent=2, ensure_ascii=False)
        assert graph.references_text(doc) == expect
        assert jsonfmt.dumps(graph.references_json(doc), indent=2) == expect
    assert graph.references_text(Document()) == "[]"


def test_csl_json_same_text():
    for seed in range(8):
        doc = Document(references=[r for r in _refs(seed) if not (r.year == "")])  # (csl: int(year[:4]))
        assert csl_json.csl_text(doc) == json.dumps(csl_json.csl_items(doc), indent=2, ensure_ascii=False)
    assert csl_json.csl_text(Document()) == "[]"


def test_bibtex_same_text(monkeypatch):
    docs = [Document(references=_refs(seed)) for seed in range(8)]
    fast = [bibtex.bibtex(d) for d in docs]
    monkeypatch.setattr(bibtex, "is_bare", lambda ref: False)
    assert fast == [bibtex.bibtex(d) for d in docs]


def test_written_files_same_text(tmp_path):
    """Through the renderers' write: a value jsonfmt leaves to json.dumps still gets its text."""
    refs = _refs(3, 50)
    refs[5].note = type("S", (str,), {})("a note")  # (a str subclass: jsonfmt leaves it to json.dumps)
    doc = Document(references=refs)
    graph.write(doc, tmp_path, None)
    csl_json.write(doc, tmp_path, None)
    assert (tmp_path / "references.json").read_text() == json.dumps(
        graph.references_json(doc), indent=2, ensure_ascii=False) + "\n"
    assert (tmp_path / "references.csl.json").read_text() == json.dumps(
        csl_json.csl_items(doc), indent=2, ensure_ascii=False) + "\n"
