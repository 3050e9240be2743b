"""benchmarks/floats_truth.py and benchmarks/floats.py: caption and equation truth read from LaTeX, and its scoring.

LaTeX written here checks what the figures / captions / display-math measure rests on: float captions in order with
their numbers as LaTeX prints them (starred floats, \\captionof in a minipage, subfigure captions counted under
their float, \\caption[short]{long} printing the long one, per-chapter numbers, appendix letters), and numbered
display equations (align rows, \\nonumber / \\notag, starred environments, \\tag, subequations, \\numberwithin).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import floats  # noqa: E402
import floats_truth  # noqa: E402

ARTICLE = r"""
\documentclass{article}
\newcommand{\model}{DeepNet}
\begin{document}
\section{Intro}
\begin{figure}[t]
  \centering
  \begin{subfigure}{0.4\linewidth}\includegraphics{a}\caption{Left part}\end{subfigure}
  \begin{subfigure}{0.4\linewidth}\includegraphics{b}\caption{Right part}\end{subfigure}
  \caption[Short]{Accuracy of \model{} on the test set, see Table~\ref{tab:x}.}\label{fig:a}
\end{figure}
\begin{table*}
  \caption{Results for $\alpha = 0.5$ and \textbf{all} runs}
  \begin{tabular}{cc} a & b \\ \end{tabular}
\end{table*}
\begin{minipage}{0.5\linewidth}\captionof{figure}{A plot in a minipage}\end{minipage}
\begin{figure*}\includegraphics{c}\caption{Wide figure}\end{figure*}
\begin{equation} a = b \label{eq:1} \end{equation}
\begin{equation*} c = d \end{equation*}
\begin{align}
  x &= 1 \\
  y &= 2 \nonumber \\
  z &= 3 \notag \\
  w &= 4
\end{align}
\begin{align*} p &= q \\ r &= s \tag{$\star$} \\ t &= u \tag{A1} \end{align*}
\begin{subequations}
\begin{align} f &= g \\ h &= i \end{align}
\end{subequations}
\begin{gather} k = l \end{gather}
\[ m = n \]
\begin{multline} o = \\ p \end{multline}
\appendix
\section{Extra}
\begin{figure}\caption{In the appendix}\end{figure}
\end{document}
"""

REPORT = r"""
\documentclass{report}
\begin{document}
\chapter{One}
\begin{figure}\caption{First}\end{figure}
\begin{equation} a = b \end{equation}
\begin{equation} \text{proved} \tag*{\qed} \end{equation}
\chapter*{Unnumbered}
\chapter{Two}
\begin{table}\caption{Second}\end{table}
\begin{figure}\caption{Third}\end{figure}
\begin{equation} c = d \end{equation}
\begin{equation} e = f \end{equation}
\end{document}
"""


def test_article_captions_in_order_with_their_numbers():
    t = floats_truth.derive(ARTICLE)
    got = [(f["kind"], f["number"], f["caption"]) for f in t["floats"]]
    assert got == [
        ("figure", "1", "Accuracy of DeepNet on the test set, see Table ."),
        ("table", "1", "Results for α = 0.5 and all runs"),
        ("figure", "2", "A plot in a minipage"),
        ("figure", "3", "Wide figure"),
        ("figure", "4", "In the appendix"),
    ]
    # subfigure captions count under their float, never as floats of their own
    assert t["floats"][0]["subcaptions"] == ["Left part", "Right part"]


def test_article_equation_numbers_as_latex_prints_them():
    t = floats_truth.derive(ARTICLE)
    assert [e["number"] for e in t["equations"]] == ["1", "2", "3", "⋆", "A1", "4a", "4b", "5", "6"]
    assert t["equations"][0]["latex"] == "a = b"
    assert t["equations"][2]["latex"] == "w &= 4"
    assert t["equations"][-1]["latex"] == r"o = \\ p"  # multline: one number for all its lines


def test_chapter_classes_number_within_chapters():
    t = floats_truth.derive(REPORT)
    assert [(f["kind"], f["number"]) for f in t["floats"]] == [("figure", "1.1"), ("table", "2.1"), ("figure", "2.1")]
    assert [e["number"] for e in t["equations"]] == ["1.1", "2.1", "2.2"]


def test_numberwithin_section_and_appendix_letters():
    tex = ARTICLE.replace(r"\begin{document}", r"\numberwithin{equation}{section}" "\n" r"\begin{document}")
    tex = tex.replace(r"\section{Extra}", r"\section{Extra}\begin{equation} z = 0 \end{equation}")
    t = floats_truth.derive(tex)
    nums = [e["number"] for e in t["equations"]]
    assert nums[:2] == ["1.1", "1.2"] and nums[-1] == "A.1"
    assert "1.4a" in nums and "1.4b" in nums


def test_shorthand_environments_and_trailing_row():
    tex = (r"\newcommand{\be}{\begin{equation}}\newcommand{\ee}{\end{equation}}"
           r"\begin{document}\be x = 1 \ee" "\n" r"\begin{align} a &= b \nonumber \\ \end{align}\end{document}")
    # amsmath numbers the empty row after a last \\ (the PDF prints "(2)" on a line of its own)
    assert [e["number"] for e in floats_truth.derive(tex)["equations"]] == ["1", "2"]


def test_scoring_matches_captions_and_numbers(tmp_path):
    truth = floats_truth.derive(ARTICLE)
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "fig-1.png").write_bytes(b"\x89PNG")
    md = "\n\n".join([
        "# Title",
        "![Figure 1: Accuracy of DeepNet on the test set, see Table 1.](figures/fig-1.png)",
        "**Table 1:** Results for α = 0.5 and all runs",
        "A plot in a minipage",  # the caption's text, but not written as a caption
        "![Figure 3: Something else entirely](figures/fig-9.png)",
        "w = 4 (3)",
        "$$\nt = u \\tag{A1}\n$$",
    ]) + "\n"
    (tmp_path / "document.md").write_text(md)
    s = floats.score(tmp_path, truth)
    c = s["captions"]
    assert (c["truth"], c["ours"], c["hits"]) == (5, 3, 2)
    assert c["recall"] == 0.4 and c["precision"] == round(2 / 3, 3)
    assert c["loose_recall"] == 0.6  # the minipage's caption is in a paragraph
    assert c["kind_ok"] == 2 and c["number_ok"] == 2
    assert s["figures_with_image"] == {"truth": 4, "hits": 1, "recall": 0.25}  # fig-9.png was never written
    e = s["equations"]
    assert e["display_hits"] == 1 and e["number_hits"] == 2  # A1 as a block; (3) at a line's end
    assert e["text_f1"] == 1.0  # "w &= 4" against "w = 4", "t &= u" against "t = u"


def test_zero_argument_macros_and_escapes_print_as_text():
    tex = (r"\newcommand\tool[0]{Midas\xspace}\begin{document}"
           r"\begin{figure}\caption{Pages in \tool: error (Rank 1, \%)}\end{figure}\end{document}")
    assert floats_truth.derive(tex)["floats"][0]["caption"] == "Pages in Midas : error (Rank 1, %)"


def test_numberwithin_subsection():
    tex = (r"\numberwithin{equation}{subsection}\begin{document}\section{A}\subsection{B}\subsection{C}"
           r"\begin{equation} x \end{equation}\begin{equation} y \end{equation}\section{D}\subsection{E}"
           r"\begin{equation} z \end{equation}\end{document}")
    assert [e["number"] for e in floats_truth.derive(tex)["equations"]] == ["1.2.1", "1.2.2", "2.1.1"]


def test_algorithm_captions_and_margin_figures():
    tex = (r"\begin{document}\begin{figure}\begin{algorithm}\caption{Steps}\end{algorithm}\end{figure}"
           r"\begin{marginfigure}\caption{In the margin}\end{marginfigure}"
           r"\iffalse\begin{figure}\caption{Never printed}\end{figure}\fi"
           r"\begin{figure}\caption{Main}\end{figure}\end{document}")
    assert [(f["number"], f["caption"]) for f in floats_truth.derive(tex)["floats"]] == [("1", "In the margin"), ("2", "Main")]
