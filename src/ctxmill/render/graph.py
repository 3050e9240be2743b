"""references.json, citations.json, graph.json and graph.graphml -- read from the model only.

The graph has nodes for the document, its sections, references, figures (an "Algorithm 1:" or
"Listing 2:" float is a figure node with ``float``: ``algorithm`` / ``listing``) and tables, and
typed edges: ``contains`` (document -> section -> subsection / figure / table, document ->
reference), ``cites`` (section -> reference, ``weight`` = number of callouts) and
``refers_to`` (section -> section / figure / table, ``weight`` = number of cross-references;
footnotes are no graph nodes, their cross-references stay in citations.json).
"""

from __future__ import annotations

import re
from collections import Counter
from html import escape as _html_escape
from operator import attrgetter
from pathlib import Path

from ctxmill.compile.figures import float_label
from ctxmill.compile.options import CompileOptions
from ctxmill.model import BlockKind, Document, Reference
from ctxmill.render import jsonfmt, textfile
from ctxmill.render.bare import is_bare

# The labeller's fields (compile/refparse), after the contract's keys; people as objects
_FIELDS = ("people", "editors", "container", "collection", "volume", "issue", "pages", "publisher",
           "location", "edition", "isbn", "note", "type", "confidence", "doubtful")


def references_json(doc: Document) -> list[dict]:
    return [_reference_dict(r) for r in doc.references]


def _reference_dict(r) -> dict:
    return {"id": r.id, "raw": r.raw, "authors": r.authors, "year": r.year, "title": r.title, "venue": r.venue,
            "doi": r.doi, "url": r.url, "arxiv_id": r.arxiv_id, "page": r.page,
            **{k: getattr(r, k) for k in _FIELDS}}


def _bare_template() -> tuple[str, str, str, str]:
    """references.json's text of a bare entry (render.bare) in four pieces, to go around its id,
    raw text and page: cut from what jsonfmt writes for such an entry, so it cannot differ."""
    marks = ("\x00id", "\x00raw", "\x00page")
    proto = Reference(id=marks[0], raw=marks[1])
    d = _reference_dict(proto)
    d["page"] = marks[2]
    text = jsonfmt._value(d, "  ", "  ")
    pieces = []
    for m in marks:
        head, text = text.split(jsonfmt.encode_basestring(m), 1)
        pieces.append(head)
    return pieces[0], pieces[1], pieces[2], text


_BARE: tuple[str, str, str, str] | None = None


def references_text(doc: Document) -> str:
    """``jsonfmt.dumps(references_json(doc), indent=2)``: a bare entry (every one past
    MAX_PARSED_REFERENCES) from a template, the others as their dict."""
    return textfile.text(_references_segments(doc))


def _references_segments(doc: Document) -> list[textfile.Segment]:
    """:func:`references_text` as segments: its entries' texts, not joined."""
    global _BARE
    if not doc.references:
        return ["[]"]
    if _BARE is None:
        _BARE = _bare_template()
    a, b, c, d = _BARE
    enc = jsonfmt.encode_basestring
    out = []
    add = out.append
    for r in doc.references:
        if is_bare(r):
            add(a + enc(r.id) + b + enc(r.raw) + c + ("null" if r.page is None else int.__repr__(r.page)) + d)
        else:
            add(jsonfmt._value(_reference_dict(r), "  ", "  "))
    return ["[\n  ", (out, ",\n  "), "\n]"]


def citations_json(doc: Document) -> dict:
    return {
        "mentions": [
            {"text": m.text, "reference_ids": m.reference_ids, "section_id": m.section_id, "chunk_id": m.chunk_id,
             "page": m.page, "char_span": list(m.char_span) if m.char_span else None}
            for m in doc.mentions
        ],
        "crossrefs": [
            {"text": x.text, "kind": x.kind, "target_id": x.target_id, "section_id": x.section_id, "page": x.page}
            for x in doc.crossrefs
        ],
        "unresolved": [
            {"text": u.text, "kind": u.kind, "reason": u.reason, "page": u.page, "section_id": u.section_id}
            for u in doc.unresolved
        ],
    }


_MENTION_KEYS = ("text", "reference_ids", "section_id", "chunk_id", "page", "char_span")
_CROSSREF_KEYS = ("text", "kind", "target_id", "section_id", "page")
_UNRESOLVED_KEYS = ("text", "kind", "reason", "page", "section_id")


def citations_text(doc: Document) -> str:
    """``jsonfmt.dumps(citations_json(doc), indent=2)``, each list written from its rows (no
    dict per item)."""
    return textfile.text(_citations_segments(doc))


def _citations_segments(doc: Document) -> list[textfile.Segment]:
    """:func:`citations_text` as segments: the rows' texts, not joined, from one list per key
    (a column read from the items by one ``map``: no tuple a row)."""
    ms, xs, us = doc.mentions, doc.crossrefs, doc.unresolved
    return [
        '{\n  "mentions": ', *jsonfmt.columns_segments(_MENTION_KEYS, [
            *[_column(ms, k) for k in _MENTION_KEYS[:-1]],
            [list(m.char_span) if m.char_span else None for m in ms]], "  ", "  "),  # (char_span last)
        ',\n  "crossrefs": ', *jsonfmt.columns_segments(_CROSSREF_KEYS, [
            _column(xs, k) for k in _CROSSREF_KEYS], "  ", "  "),
        ',\n  "unresolved": ', *jsonfmt.columns_segments(_UNRESOLVED_KEYS, [
            _column(us, k) for k in _UNRESOLVED_KEYS], "  ", "  "),
        "\n}",
    ]


def _column(items: list, name: str) -> list:
    return list(map(attrgetter(name), items))


def _parts(doc: Document) -> tuple[list[dict], list[tuple], list[dict], list[dict]]:
    """The graph in four runs: the nodes before the references', one (id, label, title) row per
    reference (its node and its ``contains`` edge from the document), the edges before theirs,
    the edges after. A long list's 16,666 references are written from their rows by
    :func:`write` without a dict each."""
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
            # an "Algorithm 1:" / "Listing 2:" float is a figure block with attrs["float"]: its node
            # stays a figure node (the contract's kinds) that carries the float's kind and label
            word = float_label(b.attrs) if b.kind is BlockKind.FIGURE else "Table"
            label = f"{word} {b.number}" if b.number else word
            node = {"id": b.id, "kind": kind, "label": label, "caption": caption[:200], "page": b.page}
            if kind == "figure" and b.attrs.get("float"):
                node["float"] = b.attrs["float"]
            nodes.append(node)
            known.add(b.id)
            edges.append({"source": b.section_id if b.section_id in known else doc_id, "target": b.id,
                          "kind": "contains"})
    rows = []
    for r in doc.references:
        label = ", ".join(r.authors[:1]) + (f" {r.year}" if r.year else "")
        rows.append((r.id, label.strip() or r.raw[:40], r.title or ""))
        known.add(r.id)
    tail: list[dict] = []
    cites = Counter((m.section_id if m.section_id in known else doc_id, rid)
                    for m in doc.mentions for rid in m.reference_ids)
    for (src, dst), n in cites.items():
        if dst in known:
            tail.append({"source": src, "target": dst, "kind": "cites", "weight": n})
    refers = Counter((x.section_id if x.section_id in known else doc_id, x.target_id)
                     for x in doc.crossrefs if x.target_id)
    for (src, dst), n in refers.items():
        if dst in known:
            tail.append({"source": src, "target": dst, "kind": "refers_to", "weight": n})
    return nodes, rows, edges, tail


def _ref_node(row: tuple) -> dict:
    return {"id": row[0], "kind": "reference", "label": row[1], "title": row[2]}


def _ref_edge(row: tuple) -> dict:
    return {"source": "document", "target": row[0], "kind": "contains"}


def build_graph(doc: Document) -> dict:
    nodes, rows, edges, tail = _parts(doc)
    return {"nodes": nodes + [_ref_node(r) for r in rows], "edges": edges + [_ref_edge(r) for r in rows] + tail}


def _cut(text: str, marks: tuple[str, ...]) -> tuple[str, ...]:
    """``text`` cut around the JSON text of each of ``marks``, in order."""
    pieces = []
    for m in marks:
        head, text = text.split(jsonfmt.encode_basestring(m), 1)
        pieces.append(head)
    return (*pieces, text)


_ROW_JSON: tuple[tuple[str, ...], tuple[str, ...]] | None = None


def _graph_segments(nodes: list[dict], rows: list[tuple], edges: list[dict], tail: list[dict]) -> list[textfile.Segment]:
    """``jsonfmt.dumps(build_graph(doc), indent=2)`` from :func:`_parts`, as textfile segments (the
    nodes' and edges' texts, not joined): a reference's node and edge from templates cut from
    jsonfmt's own text (ids, labels and titles that are plain str)."""
    global _ROW_JSON
    if _ROW_JSON is None:
        marks = ("\x00id", "\x00label", "\x00title")
        _ROW_JSON = (_cut(jsonfmt._value(_ref_node(marks), "  ", "    "), marks),
                     _cut(jsonfmt._value(_ref_edge(marks), "  ", "    "), marks[:1]))
    (n0, n1, n2, n3), (e0, e1) = _ROW_JSON
    enc = jsonfmt.encode_basestring
    node_texts = [jsonfmt._value(n, "  ", "    ") for n in nodes]
    edge_texts = [jsonfmt._value(e, "  ", "    ") for e in edges]
    for row in rows:
        rid, label, title = row
        if type(rid) is str and type(label) is str and type(title) is str:
            rid = enc(rid)
            node_texts.append(n0 + rid + n1 + enc(label) + n2 + enc(title) + n3)
            edge_texts.append(e0 + rid + e1)
        else:
            node_texts.append(jsonfmt._value(_ref_node(row), "  ", "    "))
            edge_texts.append(jsonfmt._value(_ref_edge(row), "  ", "    "))
    edge_texts.extend(jsonfmt._value(e, "  ", "    ") for e in tail)

    def run(texts: list[str]) -> list[textfile.Segment]:
        return ["[\n    ", (texts, ",\n    "), "\n  ]"] if texts else ["[]"]

    return ['{\n  "nodes": ', *run(node_texts), ',\n  "edges": ', *run(edge_texts), "\n}"]


# xml.sax.saxutils' escape and quoteattr, same output: importing saxutils imports urllib.request,
# http.client and email (~40 ms of every compile command's start)
def escape(text: str) -> str:
    # (asked only of text holding a character it changes: ids and kinds hold none)
    return _html_escape(text, quote=False) if _MARKUP_CHARS.search(text) else text


_MARKUP_CHARS = re.compile(r"[&<>]")
_ATTR_CHARS = re.compile("[&<>\"\n\r\t]")
_ATTR_WS = str.maketrans({"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def quoteattr(text: str) -> str:
    if not _ATTR_CHARS.search(text):  # (ids: nothing to escape or translate)
        return f'"{text}"'
    text = escape(text).translate(_ATTR_WS)
    if '"' not in text:
        return f'"{text}"'
    return "'" + text + "'" if "'" not in text else '"' + text.replace('"', "&quot;") + '"'


def _graphml_head() -> list[str]:
    keys = [("label", "node", "string"), ("kind", "node", "string"), ("float", "node", "string"),
            ("page", "node", "int"), ("ekind", "edge", "string"), ("weight", "edge", "int")]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">']
    for name, dom, typ in keys:
        attr = "kind" if name == "ekind" else name
        out.append(f'  <key id="{name}" for="{dom}" attr.name="{attr}" attr.type="{typ}"/>')
    out.append('  <graph id="document" edgedefault="directed">')
    return out


# (each node's and edge's lines as one string: 16,666 references are 33,000 nodes and edges)
def _node_xml(n: dict) -> str:
    page = n.get("page")
    return (f"    <node id={quoteattr(n['id'])}>\n"
            f'      <data key="label">{escape(str(n.get("label", "")))}</data>\n'
            f'      <data key="kind">{escape(n["kind"])}</data>\n'
            + (f'      <data key="float">{escape(n["float"])}</data>\n' if n.get("float") else "")
            + (f'      <data key="page">{int(page)}</data>\n' if page is not None else "")
            + "    </node>")


def _edge_xml(i: int, e: dict) -> str:
    return (f"    <edge id=\"e{i}\" source={quoteattr(e['source'])} target={quoteattr(e['target'])}>\n"
            f'      <data key="ekind">{escape(e["kind"])}</data>\n'
            f'      <data key="weight">{int(e.get("weight", 1))}</data>\n'
            "    </edge>")


def graphml(graph: dict) -> str:
    out = _graphml_head()
    out.extend(map(_node_xml, graph["nodes"]))
    out.extend(_edge_xml(i, e) for i, e in enumerate(graph["edges"]))
    out.append("  </graph>")
    out.append("</graphml>")
    out.append("")  # (the final newline: "\n".join(out) + "\n" without a second copy)
    return "\n".join(out)


def _graphml(nodes: list[dict], rows: list[tuple], edges: list[dict], tail: list[dict]) -> str:
    """``graphml(build_graph(doc))`` from :func:`_parts`, a reference's node and edge written
    from its row (what _node_xml and _edge_xml write for its dicts: no page, weight 1)."""
    return textfile.text(_graphml_segments(nodes, rows, edges, tail))


def _graphml_segments(nodes: list[dict], rows: list[tuple], edges: list[dict], tail: list[dict]) -> list[textfile.Segment]:
    """:func:`_graphml` as segments: its lines, not joined."""
    out = _graphml_head()
    out.extend(map(_node_xml, nodes))
    for rid, label, _ in rows:
        out.append(f"    <node id={quoteattr(rid)}>\n"
                   f'      <data key="label">{escape(str(label))}</data>\n'
                   '      <data key="kind">reference</data>\n'
                   "    </node>")
    out.extend(_edge_xml(i, e) for i, e in enumerate(edges))
    doc_attr = quoteattr("document")
    for i, (rid, _, _) in enumerate(rows, start=len(edges)):
        out.append(f"    <edge id=\"e{i}\" source={doc_attr} target={quoteattr(rid)}>\n"
                   '      <data key="ekind">contains</data>\n'
                   '      <data key="weight">1</data>\n'
                   "    </edge>")
    out.extend(_edge_xml(i, e) for i, e in enumerate(tail, start=len(edges) + len(rows)))
    out.append("  </graph>")
    out.append("</graphml>")
    out.append("")
    return [(out, "\n")]


def write(doc: Document, folder, options: CompileOptions) -> list[str]:
    folder = Path(folder)
    # (each file written from its pieces, with its final line break: textfile)
    try:
        segments = _references_segments(doc)
    except jsonfmt._Other:  # a value jsonfmt leaves to the standard library: its text and errors
        segments = [jsonfmt.dumps(references_json(doc), indent=2)]
    textfile.write(folder / "references.json", [*segments, "\n"])
    try:
        segments = _citations_segments(doc)
    except jsonfmt._Other:  # a value jsonfmt leaves to the standard library: its text and errors
        segments = [jsonfmt.dumps(citations_json(doc), indent=2)]
    textfile.write(folder / "citations.json", [*segments, "\n"])
    parts = _parts(doc)
    try:
        segments = _graph_segments(*parts)
    except jsonfmt._Other:  # a value jsonfmt leaves to the standard library: its text and errors
        segments = [jsonfmt.dumps(build_graph(doc), indent=2)]
    textfile.write(folder / "graph.json", [*segments, "\n"])
    textfile.write(folder / "graph.graphml", _graphml_segments(*parts))
    return ["references.json", "citations.json", "graph.json", "graph.graphml"]
