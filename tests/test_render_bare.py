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


def _old_build_graph(doc) -> dict:
    """render/graph.build_graph as it was at 65e613f (one dict per node and edge)."""
    from collections import Counter

    from ctxmill.model import BlockKind

    doc_id = "document"
    nodes = [{"id": doc_id, "kind": "document", "label": doc.metadata.title or doc.stream.path or "document"}]
    edges: list[dict] = []
    known = {doc_id}
    for s in doc.sections:
        label = f"{s.number} {s.title}" if s.number else s.title
        nodes.append({"id": s.id, "kind": "section", "label": label, "level": s.level, "page": s.page_start})
        known.add(s.id)
    for s in doc.sections:
        parent = s.parent_id if s.parent_id in known else doc_id
        edges.append({"source": parent, "target": s.id, "kind": "contains"})
    for b in doc.blocks:
        if b.kind in (BlockKind.FIGURE, BlockKind.TABLE):
            kind = "figure" if b.kind is BlockKind.FIGURE else "table"
            caption = b.attrs.get("caption") or ""
            label = f"{kind.title()} {b.number}" if b.number else kind.title()
            nodes.append({"id": b.id, "kind": kind, "label": label, "caption": caption[:200], "page": b.page})
            known.add(b.id)
            edges.append({"source": b.section_id if b.section_id in known else doc_id, "target": b.id,
                          "kind": "contains"})
    for r in doc.references:
        label = ", ".join(r.authors[:1]) + (f" {r.year}" if r.year else "")
        nodes.append({"id": r.id, "kind": "reference", "label": label.strip() or r.raw[:40], "title": r.title or ""})
        known.add(r.id)
        edges.append({"source": doc_id, "target": r.id, "kind": "contains"})
    cites = Counter((m.section_id if m.section_id in known else doc_id, rid)
                    for m in doc.mentions for rid in m.reference_ids)
    for (src, dst), n in cites.items():
        if dst in known:
            edges.append({"source": src, "target": dst, "kind": "cites", "weight": n})
    refers = Counter((x.section_id if x.section_id in known else doc_id, x.target_id)
                     for x in doc.crossrefs if x.target_id)
    for (src, dst), n in refers.items():
        if dst in known:
            edges.append({"source": src, "target": dst, "kind": "refers_to", "weight": n})
    return {"nodes": nodes, "edges": edges}


def _graph_doc(seed: int, n: int = 120):
    from ctxmill.model import Block, BlockKind, CrossRef, Mention, Section

    rnd = random.Random(seed)
    doc = Document(references=_refs(seed, n))
    doc.metadata.title = rnd.choice(["", "A <title> & more"])
    doc.sections = [Section(id=f"s{i}", level=1 + i % 2, title=rnd.choice(["Intro", "R&D <x>", "“q”"]),
                            page_start=i + 1, page_end=i + 1, number=rnd.choice([None, str(i)]),
                            parent_id=rnd.choice([None, "s0", "zz"])) for i in range(4)]
    doc.blocks = [Block(kind=rnd.choice([BlockKind.FIGURE, BlockKind.TABLE, BlockKind.PARAGRAPH]), text="x", page=1,
                        id=f"b{i}", number=rnd.choice([None, "2"]), section_id=rnd.choice([None, "s1"]),
                        attrs={"caption": "Cap & <b>"}) for i in range(5)]
    ids = [r.id for r in doc.references]
    doc.mentions = [Mention(text="[1]", reference_ids=rnd.sample(ids, 2), section_id=rnd.choice(["s1", None, "s9"]),
                            page=1) for _ in range(20)]
    doc.crossrefs = [CrossRef(text="Fig. 2", kind="figure", target_id=rnd.choice([None, "b1", "s2", "nope"]),
                              section_id="s0", page=1) for _ in range(6)]
    for r in doc.references[::7]:  # (labels and titles from the fields, markup in them)
        r.authors, r.year, r.title = ["Smith & <Jones>"], "2020", "A <b> title"
    return doc


def test_graph_files_same_text(tmp_path):
    """graph.json and graph.graphml as jsonfmt and graphml() write the graph of one dict per node
    and edge, in the order build_graph had at 65e613f (references' rows written from templates)."""
    for seed in range(6):
        doc = _graph_doc(seed)
        old = _old_build_graph(doc)
        assert graph.build_graph(doc) == old
        graph.write(doc, tmp_path, None)
        assert (tmp_path / "graph.json").read_text() == json.dumps(old, indent=2, ensure_ascii=False) + "\n"
        assert (tmp_path / "graph.graphml").read_text() == graph.graphml(old)
    doc = _graph_doc(1)
    doc.references[3].title = type("S", (str,), {})("a str subclass")  # (jsonfmt leaves it to json.dumps)
    graph.write(doc, tmp_path, None)
    assert (tmp_path / "graph.json").read_text() == json.dumps(_old_build_graph(doc), indent=2,
                                                               ensure_ascii=False) + "\n"
