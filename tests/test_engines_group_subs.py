"""sources.engines' per-line and per-cell rewrites (issue 26, round 23, speed only): a rewrite that
keeps a group hands re a callable, not a template (Python 3.11's re gives a template back to
re._subx at every call and expands it in Python at every match), and the bold-tag rewrite is not
tried on a line whose only "b>" ends a "<sub>". Counted, not timed; the text is rewritten as before."""

from __future__ import annotations

import re

from _counting import Counted, CountedCall
from ctxmill.sources import engines

TEXT = ("# A Paper\n\n## 1 Tables\n\n\\begin{tabular}{lc}\nModel & \\textbf{\\emph{93}} \\\\\nB & 1 \\\\\n"
        "\\end{tabular}\n\nWater is H<sub>2</sub>O, see [\\[20\\]](#page-3-1) and \\[12\\].\n\nA <b>bold</b> word, "
        "<STRONG>more</Strong>.\n\n**Table 2:** The results.\n")
WANT = ("# A Paper\n\n## 1 Tables\n\n| Model | 93 |\n|---|---|\n| B | 1 |\n\nWater is H2O, see [20] and [12].\n\n"
        "A **bold** word, **more**.\n\nTable 2: The results.")


def test_rewrites_keep_their_group_without_a_template(monkeypatch):
    subx = CountedCall(re._subx)
    monkeypatch.setattr(re, "_subx", subx)
    for engine in ("text", "marker"):  # (marker: the escapes outside math too)
        assert engines.to_pages(TEXT, engine).pages == [(None, WANT)]
    assert engines.to_pages("Cost \\$5 and \\_x\\_.", "marker").pages == [(None, "Cost $5 and _x_.")]
    assert subx.calls == 0  # 20 at 60a8663


def test_bold_tags_are_not_tried_on_subscripts(monkeypatch):
    bold = Counted(engines._BOLD_TAG)
    monkeypatch.setattr(engines, "_BOLD_TAG", bold)
    # a subscript the sub rewrite leaves (a stray closing tag, one never closed): HTML soup
    lines = [f"x{i}</sub> and <SUB>y" for i in range(3)]
    assert [engines._clean_inline(s, "text") for s in lines] == ["x0</sub> and <SUB>y", "x1</sub> and <SUB>y",
                                                                 "x2</sub> and <SUB>y"]
    assert bold.calls == 0  # 3 at 60a8663 (every line holds "b>")
    assert engines._clean_inline("a <B>b</b> <strong>c</STRONG> x</b>", "text") == "a **b** **c** x**"
    assert bold.calls == 1
