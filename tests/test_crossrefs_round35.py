"""Round 35: a float numbered in roman numerals (IEEE's "TABLE II", "Fig. IV") is the target of
the text's "Table II"; algorithm and listing floats are counted apart from pictures."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs
from test_tables_round35 import floats_page  # (one page of floats for the float tests)

ROMAN = """# Sensing Skins for a Robot Arm

## I. Introduction

Table I lists the prototypes. Table II compares the sensing layouts of the systems, and Fig. IV
shows the arm; Tables I and II are read together.

Table I: The prototypes built.

| Prototype | Layers |
|---|---|
| Textile | 3 |
| Printed | 2 |

Table II: Comparison of the sensing systems.

| System | Taxels |
|---|---|
| A | 12 |
| B | 40 |

Figure IV: The arm with its sleeve drawn from the mesh.

## II. Method

We read Table II again in Section II and in Section II-B, and Part II of this series follows.
"""

ARABIC = """# Caches Under Load

## 1 Introduction

In Figure I show the trace; Figure 1 holds the cache and Table II of the companion report is not
in this paper.

Figure 1: The cache.

## 2 Method

We repeat the setup.
"""


def _compile_text(text: str, tmp_path: Path) -> Path:
    src = tmp_path / "paper.md"
    src.write_text(text)
    options = CompileOptions()
    doc = compile_document(src, options)
    write_outputs(doc, tmp_path / "out", options)
    return tmp_path / "out"


def _crossrefs(out: Path) -> tuple[list[dict], list[dict]]:
    cit = json.loads((out / "citations.json").read_text())
    return cit["crossrefs"], [u for u in cit["unresolved"] if u["kind"] == "crossref"]


def test_roman_table_and_figure_callouts_link_to_their_floats(tmp_path):
    out = _compile_text(ROMAN, tmp_path)
    labels = {n["id"]: n["label"] for n in json.loads((out / "graph.json").read_text())["nodes"]
              if n["kind"] in ("figure", "table")}
    assert sorted(labels.values()) == ["Figure IV", "Table I", "Table II"], labels
    xrefs, unresolved = _crossrefs(out)
    linked = [(x["text"], labels.get(x["target_id"])) for x in xrefs if x["kind"] in ("figure", "table")]
    assert linked == [("Table I", "Table I"), ("Table II", "Table II"), ("Fig. IV", "Figure IV"),
                      ("Tables I", "Table I"), ("Tables II", "Table II"), ("Table II", "Table II")], linked
    # the section heading's own "II" and "Part II" are no float callouts; nothing dangles
    assert not unresolved, unresolved
    # a roman section number is left alone: "Section II-B" is no callout of a "Section B"
    assert not [x for x in xrefs if x["text"] == "Section B"], xrefs
    # and graph.json's refers_to edges reach the tables
    edges = json.loads((out / "graph.json").read_text())["edges"]
    assert {e["target"] for e in edges if e["kind"] == "refers_to"} >= set(labels), edges


def test_a_roman_word_after_figure_is_no_callout_where_floats_are_numbered_in_figures(tmp_path):
    out = _compile_text(ARABIC, tmp_path)
    xrefs, unresolved = _crossrefs(out)
    assert [x["text"] for x in xrefs if x["kind"] in ("figure", "table")] == ["Figure 1"], xrefs
    # "Figure I show" (the pronoun) and another report's "Table II" are neither linked nor dangling
    assert not unresolved, unresolved


def test_metrics_count_algorithms_and_listings_apart_from_figures(tmp_path):
    out = floats_page(tmp_path, "Algorithm 1 and Listing 1 are shown above, and Figure 1 below holds a drawing.",
                      figure=True)
    counts = json.loads((out / "metrics.json").read_text())["counts"]
    assert (counts["figures"], counts["algorithms"], counts["listings"]) == (1, 1, 1), counts
