"""render.graph writes GraphML's text and attributes exactly as xml.sax.saxutils' escape and
quoteattr do (issue 26: the writer skips the escapes for text that holds nothing they change,
and a list of 16,666 references is 33,000 nodes and edges)."""

from __future__ import annotations

from xml.sax.saxutils import escape as sax_escape
from xml.sax.saxutils import quoteattr as sax_quoteattr

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.render import graph

_text = st.text(alphabet=st.sampled_from(list("ab &<>\"'\n\r\té😀")), max_size=12) | st.text(max_size=12)


@settings(max_examples=600, deadline=None)
@given(_text)
def test_escapes_are_saxutils(text):
    assert graph.quoteattr(text) == sax_quoteattr(text)
    assert graph.escape(text) == sax_escape(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_text, _text, st.none() | st.integers(0, 999)), max_size=6))
def test_graphml_nodes_and_edges(rows):
    nodes = [{"id": f"n{k}{lab}", "kind": kind, "label": lab, **({"page": p} if p is not None else {})}
             for k, (lab, kind, p) in enumerate(rows)]
    edges = [{"source": n["id"], "target": n["label"], "kind": n["kind"], **({"weight": 2} if n.get("page") else {})}
             for n in nodes]
    text = graph.graphml({"nodes": nodes, "edges": edges})
    lines = []
    for n in nodes:
        lines += [f"    <node id={sax_quoteattr(n['id'])}>", f'      <data key="label">{sax_escape(n["label"])}</data>',
                  f'      <data key="kind">{sax_escape(n["kind"])}</data>']
        if n.get("page") is not None:
            lines.append(f'      <data key="page">{n["page"]}</data>')
        lines.append("    </node>")
    for i, e in enumerate(edges):
        lines += [f'    <edge id="e{i}" source={sax_quoteattr(e["source"])} target={sax_quoteattr(e["target"])}>',
                  f'      <data key="ekind">{sax_escape(e["kind"])}</data>',
                  f'      <data key="weight">{e.get("weight", 1)}</data>', "    </edge>"]
    body = text.split('  <graph id="document" edgedefault="directed">\n', 1)[1].rsplit("  </graph>", 1)[0]
    assert body == "".join(ln + "\n" for ln in lines)
