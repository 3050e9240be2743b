"""Raw OCR text from any engine (issue 14): each engine's dialect becomes clean Markdown with
its structure kept. Snippets below are written for these tests in each engine's format (not
copied from any output); the corpus tests at the end use ../shared/corpus/ocr and skip cleanly
without it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.errors import InputRefused
from ctxmill.sources.engines import sniff_engine

OPTS = CompileOptions(chunks=False)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from ocr_text import leftover  # noqa: E402 -- the benchmark's own definition of leftover markup


def compile_text(text: str, name: str = "paste.md", **kw):
    return compile_document(text.encode(), CompileOptions(chunks=False, **kw), name=name)


def headings(md: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#{1,6}) (.+)$", md, re.M)]


# ------------------------------------------------------------------ per engine

MINERU = """# Rainfall and Runoff in Small Catchments

Ann Smitha,b,*, Bob Jonesb,c  aDepartment of Hydrology, Example University, Sometown bRiver Institute, Othertown cWater Research Centre, Thirdtown

# Abstract

We look at rain.

# 1. Introduction

Runoff $Q$ depends on rain $P$ as in $$Q = kP$$ and more.

![](images/0a1b2c3d4e5f60718293a4b5c6d7e8f9.jpg)

Fig. 1. Runoff against rain.

# 1.1. Earlier studies

Some text.

# References

Adams, J., 1990. First paper on runoff. Journal of Water 1, 1-10.
Baker, K., 1995. Second paper on rain. Journal of Water 5, 11-20.
Clark, L., 2001. Third paper on both. Hydrology Letters 9, 21-30.
"""


def test_mineru_flat_headings_get_levels_and_glued_affiliations_become_markers():
    doc = compile_text(MINERU)
    assert doc.metadata.source["engine"] == "mineru"
    assert headings(doc.markdown) == [(1, "Rainfall and Runoff in Small Catchments"), (2, "Abstract"),
                                       (2, "1 Introduction"), (3, "1.1 Earlier studies"), (2, "References")]
    assert doc.metadata.title == "Rainfall and Runoff in Small Catchments"
    assert [(a.name, len(a.affiliations)) for a in doc.metadata.authors] == [("Ann Smith", 2), ("Bob Jones", 2)]
    assert "Runoff $Q$ depends on rain $P$ as in" in doc.markdown
    assert len(doc.references) == 3  # one entry a line, not one paragraph
    assert not leftover(doc.markdown)


MARKER = """# A Network for Counting Things

# Abstract

*We count things.*

# 1. Introduction

Counting matters [\\[2\\]](#page-5-1), as shown in [\\[1,](#page-5-0) [3\\]](#page-5-2) and Section [2.1.](#page-2-0)

# 2. Method

### <span id="page-2-0"></span>2.1. Dilated Convolutions

Text<br>more text.

#### 2.1.1 Kernels

Text.

# References

- <span id="page-5-0"></span>[1] A. Author. One paper. In *Conf*, 2015.
- <span id="page-5-1"></span>[2] B. Author. Two paper. In *Conf*, 2016.
- <span id="page-5-2"></span>[3] C. Author. Three paper. In *Conf*, 2017.
"""


def test_marker_anchors_and_internal_links_go_text_stays():
    doc = compile_text(MARKER)
    md = doc.markdown
    assert doc.metadata.source["engine"] == "marker"
    assert "<span" not in md and "(#page-" not in md and "\\[" not in md
    assert "Counting matters [2], as shown in [1, 3] and Section 2.1." in md
    assert headings(md)[3:] == [(2, "2 Method"), (3, "2.1 Dilated Convolutions"), (4, "2.1.1 Kernels"),
                                (2, "References")]
    assert len(doc.references) == 3
    assert not leftover(md)


DOCLING = """## Parsing Tables with Transformers

Jane Roe, Max Poe Example Lab

## Abstract

Tables &amp; figures, a &lt; b.

## 1. Introduction

Text.

<!-- image -->

Figure 1: A table picture.

## a. Example of a label:

## 2. Method

## 2.1. Encoder

| Model | Score |
| - | - |
| Ours | 9 |

## References

- [1] A. Author. One paper on tables. In CVPR, 2020.
- [2] B. Author. Two paper on tables. In ICCV, 2021.
"""


def test_docling_flat_headings_entities_and_images():
    doc = compile_text(DOCLING)
    md = doc.markdown
    assert doc.metadata.source["engine"] == "docling"
    assert headings(md) == [(1, "Parsing Tables with Transformers"), (2, "Abstract"), (2, "1 Introduction"),
                            (2, "2 Method"), (3, "2.1 Encoder"), (2, "References")]
    assert "Tables & figures, a < b." in md and "&amp;" not in md
    assert "**Figure 1:** A table picture." in md
    assert "| Model | Score |\n|---|---|\n| Ours | 9 |" in md
    assert len(doc.references) == 2
    assert not leftover(md)


NOUGAT = r"""# Games with Many Players

Alice Example

Bob Example

Carol Example

###### Abstract

We play games \(x^{2}\) and more.

## 1 Introduction

As shown \(^{1}\) before,
\[f(x)=x^{2}\tag{3}\]

\begin{table}
\begin{tabular}{l c c} \hline Model & \multicolumn{2}{c}{Score} \\ & A & \begin{tabular}{c} B \\ best \\ \end{tabular} \\ \hline Ours & 1 & 2 \\ \hline \end{tabular}
\end{table}
Table 1: Scores of the models.

Footnote 1: A footnote text.

[MISSING_PAGE_EMPTY:3]

### Related Games

Text.

## References

* [1] A. Author. One paper about games. _Journal_, 2019.
* [2] B. Author. Two paper about games. _Journal_, 2020.
"""


def test_nougat_math_latex_tables_and_missing_page():
    doc = compile_text(NOUGAT, name="doc.mmd")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "nougat"
    assert [a.name for a in doc.metadata.authors] == ["Alice Example", "Bob Example", "Carol Example"]
    assert "$$\nf(x)=x^{2}\\tag{3}\n$$" in md  # display math with its equation number
    assert "| Model | Score |   |\n|---|---|---|\n|   | A | B best |\n| Ours | 1 | 2 |" in md
    assert "[^1]: A footnote text." in md
    assert (3, "Related Games") in headings(md)  # unnumbered, one level below "1 Introduction"
    assert doc.stream.missing_pages == [3]
    assert any("page 3 is missing" in c.message for c in doc.qa.checks)
    assert len(doc.references) == 2
    assert not leftover(md)


MISTRAL = """```bibtex
@article{x2020,
  title={Models of Perception},
  author={Ann Lee and Bo Chen},
  year={2020},
}
```

---

#### Page 1

# Models of Perception

Ann Lee ${ }^{1,2}$ Bo Chen ${ }^{2}$<br>${ }^{1}$ School of Informatics, University of Edinburgh, UK<br>${ }^{2}$ Department of Psychology, New York University, USA

#### Abstract

We model.

## 1 Motivation

Text with a note ${ }^{3}$ here \\& there.

---

#### Page 2

# 2 Observer model

### 2.1 Sensation

> **Image description.** A diagram with boxes.

# Models of Perception - Backmatter

# References

[1] Lee, A. (2010) A paper. J Vis 1, 1-2.
"""


def test_mistral_page_markers_superscripts_and_mixed_levels():
    doc = compile_text(MISTRAL)
    md = doc.markdown
    assert doc.metadata.source["engine"] == "mistral"
    assert doc.pages == 2 and "Page 1" not in md and "bibtex" not in md
    assert headings(md) == [(1, "Models of Perception"), (2, "Abstract"), (2, "1 Motivation"),
                            (2, "2 Observer model"), (3, "2.1 Sensation"), (2, "References")]
    assert [(a.name, len(a.affiliations)) for a in doc.metadata.authors] == [("Ann Lee", 2), ("Bo Chen", 1)]
    assert "a note³ here & there." in md  # a superscript without a footnote stays a superscript
    assert not leftover(md)


def test_a_heading_repeating_the_title_is_listed_in_removed_json_not_lost():
    # paper2llm's '# <title> - Backmatter' part heading is no section: it leaves document.md, and
    # its words are listed with their page and reason (round32_ocr_rule.md W1), none lost
    doc = compile_text(MISTRAL)
    assert "Backmatter" not in doc.markdown
    listed = [(r["page"], r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")]
    assert (2, "repeated-title", "Models of Perception - Backmatter") in listed
    assert doc.attrs["conservation"]["words_lost"] == 0


PADDLE = """# Optical Compression of Contexts

Ann Wei, Bo Sun

## Abstract

We compress $ 10\\times $ text.

<div style="text-align: center;"><img src="imgs/img_in_chart_box_1_2_3_4.jpg" alt="Image" width="36%" /></div>

<div style="text-align: center;">Figure 1: Compression on a benchmark.</div>

### 1. Introduction

We use the prompt "<image>\\n<|grounding|>Convert the document." here.

<div style="text-align: center;"><html><body><table border=1 style='margin: auto;'><tr><td rowspan="2">Model</td><td colspan="2">Tokens</td></tr><tr><td>100</td><td>200</td></tr><tr><td>Ours</td><td>97%</td><td>98%</td></tr></table></body></html></div>

# Macro news and views

#### 1.1. Encoders

### 2. Method

Text.

## References

[1] A. Author. One paper. 2020.
"""


def test_paddleocr_vl_html_tables_images_and_figure_text():
    doc = compile_text(PADDLE)
    md = doc.markdown
    assert doc.metadata.source["engine"] == "paddleocr-vl"
    assert "We compress $10\\times$ text." in md
    assert "**Figure 1:** Compression on a benchmark." in md
    assert "| Model | Tokens |   |\n|---|---|---|\n|   | 100 | 200 |\n| Ours | 97% | 98% |" in md
    assert "`<image>\\n<|grounding|>Convert`" in md  # a prompt quoted by the paper: kept, as code
    # the '#' line inside the figure is text; numbered headings get their depth from the number
    assert headings(md) == [(1, "Optical Compression of Contexts"), (2, "Abstract"), (2, "1 Introduction"),
                            (3, "1.1 Encoders"), (2, "2 Method"), (2, "References")]
    assert not leftover(md)


DEEPSEEK = """<|ref|>title<|/ref|><|det|>[[100, 40, 900, 90]]<|/det|>
Seeing Text at Scale

<|ref|>text<|/ref|><|det|>[[120, 100, 880, 130]]<|/det|>
Ann Wei, Bo Sun

<|ref|>sub_title<|/ref|><|det|>[[100, 150, 400, 170]]<|/det|>
1 Introduction

<|ref|>text<|/ref|><|det|>[[100, 180, 900, 400]]<|/det|>
Reading pages with a model.

<|ref|>image<|/ref|><|det|>[[100, 420, 900, 700]]<|/det|>

<|ref|>image_caption<|/ref|><|det|>[[100, 710, 900, 740]]<|/det|>
Figure 1: The model reads a page.

<|ref|>page_number<|/ref|><|det|>[[480, 960, 520, 980]]<|/det|>
1
<--- Page Split --->
<|ref|>sub_title<|/ref|><|det|>[[100, 40, 400, 60]]<|/det|>
1.1 Setup

<|ref|>text<|/ref|><|det|>[[100, 80, 900, 300]]<|/det|>
More text on page two.
"""


def test_deepseek_grounding_labels_are_structure_hints_and_boxes_go():
    doc = compile_text(DEEPSEEK, name="page.mmd")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "deepseek-ocr"
    assert doc.pages == 2
    assert doc.metadata.title == "Seeing Text at Scale"
    assert headings(md) == [(1, "Seeing Text at Scale"), (2, "1 Introduction"), (3, "1.1 Setup")]
    assert "**Figure 1:** The model reads a page." in md
    assert "<|" not in md and "[[" not in md and "Page Split" not in md
    assert not leftover(md)


def test_what_the_reader_leaves_out_is_listed_in_removed_json_not_lost():
    # a labelled page header, a page number and the page marker never reach the pages: their words
    # are counted as in and removed, each with its page and reason (the brief: nothing lost in silence)
    text = ("<|ref|>header<|/ref|><|det|>[[100, 10, 600, 30]]<|/det|>\nIBM Research Rueschlikon Switzerland\n\n"
            + DEEPSEEK)
    doc = compile_text(text, name="page.mmd")
    assert "Rueschlikon" not in doc.markdown
    listed = [(r["page"], r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")]
    assert listed == [(1, "page-header", "IBM Research Rueschlikon Switzerland"), (1, "page-number", "1"),
                      (2, "page-marker", "<--- Page Split --->")]
    cons = doc.attrs["conservation"]
    assert cons["words_lost"] == 0 and cons["share"] == 1.0
    assert [p["removed"] for p in cons["pages"]] == [{"page-header": 4, "page-number": 1}, {"page-marker": 2}]


TESSERACT = """Reading Old Maps with Modern Tools

Jane Doe and Richard Roe
Example University

Abstract

We study how old maps can be read with modern
optical character recognition tools, and what
goes wrong on faded paper.

1 Introduction

Old maps are hard to read. Their labels are small,
curved and often faded, and the paper is yellow.

1
\f2 Method

We scan each map at 400 dpi and run the OCR en-
gine twice, once per orientation.

References

[1] A. Author. Reading books. Journal of Text, 2001.
[2] B. Author. Reading maps. Journal of Maps, 2005.

2
"""


def test_plain_wrapped_text_gets_paragraphs_headings_and_pages():
    doc = compile_text(TESSERACT, name="scan.txt")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "text"
    assert doc.pages == 2
    assert headings(md) == [(1, "Reading Old Maps with Modern Tools"), (2, "Abstract"), (2, "1 Introduction"),
                            (2, "2 Method"), (2, "References")]
    assert "run the OCR engine twice, once per orientation." in md  # lines re-flowed, hyphen repaired
    assert not re.search(r"^\d$", md, re.M)  # printed page numbers gone
    assert len(doc.references) == 2


MATHPIX = r"""\title{
Sparse Attention for Long Documents
}

\begin{abstract}
We make attention sparse.
\end{abstract}

\section{Introduction}

Attention costs \(O(n^{2})\) time, see
\[
A = \operatorname{softmax}(QK^{T})
\]

\subsection*{Prior work}

\begin{itemize}
\item Local windows.
\item Global tokens.
\end{itemize}
"""


def test_latex_environments_outside_math():
    text = ("\\title{A Short Note on Sorting}\n\n\\section{1 Introduction}\n\nWe sort.\n\n\\begin{figure}\n\\centering\n"
            "\\includegraphics[width=0.5\\textwidth]{fig1.png}\n\\caption{Figure 1: Sorted numbers.}\n\\end{figure}\n\n"
            "\\begin{equation}\nx_{i} \\leq x_{i+1}\n\\end{equation}\n\n\\begin{theorem}\nEvery list can be sorted.\n"
            "\\end{theorem}\n\n$$\n\\begin{aligned} a &= b \\end{aligned}\n$$\n")
    md = compile_text(text, name="note.mmd").markdown
    assert "**Figure 1:** Sorted numbers." in md and "$$\nx_{i} \\leq x_{i+1}\n$$" in md
    assert "Every list can be sorted." in md and "\\begin{aligned}" in md  # math keeps its environments
    assert not leftover(md)


def test_mathpix_markdown_of_got_ocr():
    doc = compile_text(MATHPIX, name="page.mmd")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "mathpix"
    assert headings(md) == [(1, "Sparse Attention for Long Documents"), (2, "Abstract"), (2, "Introduction"),
                            (3, "Prior work")]
    assert "$$\nA = \\operatorname{softmax}(QK^{T})\n$$" in md and "- Local windows." in md
    assert not leftover(md)


AZURE = """<!-- PageHeader="Journal of Examples" -->

# Counting Birds from Drones

Ann Lee, Bo Chen

<figure>

![](figures/1)

12 birds

<figcaption>

Figure 1: A flock seen from above.

</figcaption>

</figure>

## 1 Introduction

Birds move :selected: fast.

<!-- PageNumber="1" -->
<!-- PageBreak -->

## 2 Method

<table>
<tr><th>Site</th><th>Birds</th></tr>
<tr><td>A</td><td>12</td></tr>
</table>
"""


def test_azure_document_intelligence_markdown():
    doc = compile_text(AZURE)
    md = doc.markdown
    assert doc.metadata.source["engine"] == "azure-di"
    assert doc.pages == 2
    assert "**Figure 1:** A flock seen from above." in md and "12 birds" not in md
    assert "| Site | Birds |\n|---|---|\n| A | 12 |" in md
    assert "Journal of Examples" not in md and "Birds move fast." in md
    assert not leftover(md)


def test_deepseek_grounded_ocr_mode_keeps_the_text_in_its_refs():
    text = ("<|ref|>Reading maps<|/ref|><|det|>[[[0, 0, 500, 50]]]<|/det|> "
            "<|ref|>is hard.<|/ref|><|det|>[[[0, 60, 500, 90]]]<|/det|>\n\n"
            "<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>Body text here.\n")
    doc = compile_text(text, engine="deepseek-ocr")
    assert "Reading maps is hard." in doc.markdown and "Body text here." in doc.markdown
    assert "<|" not in doc.markdown and "[[" not in doc.markdown


def test_flattened_author_blocks_become_authors_with_affiliations():
    acm = ("## Layouts of Many Documents\n\nAnna Berg Example Research Zurich, Switzerland abe@example.org "
           "Carl Dahl Example Research\n\nZurich, Switzerland cda@example.org\n\n<!-- image -->\n\n"
           "Figure 1: Pages.\n\n## ABSTRACT\n\nText.\n")
    doc = compile_text(acm)
    assert [(a.name, a.affiliations) for a in doc.metadata.authors] == [
        ("Anna Berg", ["Example Research Zurich, Switzerland"]), ("Carl Dahl", ["Example Research Zurich, Switzerland"])]
    glued = "## Tables Read by Machines\n\nAnn Lee, Bo Chen, Cy Park Example University\n\n## Abstract\n\nText.\n"
    doc = compile_text(glued, engine="docling")
    assert [a.name for a in doc.metadata.authors] == ["Ann Lee", "Bo Chen", "Cy Park"]
    assert "Example University" in doc.markdown


def test_an_affiliation_written_once_for_two_authors_lists_its_repeat():
    # "Name Institution email" after each author: the institution is written once with a mark for
    # both, and the second copy is listed in removed.json (round32_ocr_rule.md W2), no word lost
    acm = ("## Layouts of Many Documents\n\nAnna Berg Example Research Zurich, Switzerland abe@example.org "
           "Carl Dahl Example Research Zurich, Switzerland cda@example.org\n\n<!-- image -->\n\n"
           "Figure 1: Pages.\n\n## ABSTRACT\n\nText.\n")
    doc = compile_text(acm)
    assert [a.name for a in doc.metadata.authors] == ["Anna Berg", "Carl Dahl"]
    assert doc.markdown.count("Example Research Zurich, Switzerland") == 1
    listed = [(r["page"], r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")]
    assert listed == [(1, "repeated-affiliation", "Example Research Zurich, Switzerland")]
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_bullet_bibliography_numbers_lost_items_only_when_the_count_adds_up():
    refs = "\n".join([
        "* [1] A. Alpha. One paper. Journal, 2001.", "* [2] B. Beta. Two paper. Journal, 2002.",
        "* Gamma et al. [2003] C. Gamma. Three paper. Journal, 2003.",
        "* Delta and Eps [2004] D. Delta and E. Eps. Four paper. Journal, 2004.",
        "* [5] F. Phi. Five paper. Journal, 2005.", "* [6] G. Chi. Six paper. Journal, 2006."])
    doc = compile_text(f"# A Paper With References\n\n## 1 Introduction\n\nText.\n\n## References\n\n{refs}\n",
                       engine="nougat")
    assert len(doc.references) == 6
    assert "[3] C. Gamma. Three paper." in doc.markdown  # Nougat's invented "Gamma et al. [2003]" label goes
    # one lost item too few for the gap: nothing is numbered, nothing invented
    doc = compile_text(f"# A Paper With References\n\n## 1 Introduction\n\nText.\n\n## References\n\n"
                       f"{refs.replace('[5]', '[6]').replace('* [6] G.', '* [7] G.')}\n", engine="nougat")
    assert "[3] C. Gamma" not in doc.markdown


def test_endnote_style_references():
    text = ("# Notes on a Method\n\n## 1 Introduction\n\nAs shown before ${ }^{1}$ and later ${ }^{2}$.\n\n"
            "## References\n\n${ }^{1}$ A. Alpha, One paper, Journal 1 (2001) 1-2.\n"
            "${ }^{2}$ B. Beta, Two paper, Journal 2 (2002) 3-4.\n")
    doc = compile_text(text, engine="mistral")
    assert [r.raw[:12] for r in doc.references] == ["[1] A. Alpha", "[2] B. Beta,"]
    assert not leftover(doc.markdown)


def test_a_section_heading_written_as_text_fills_its_numbering_gap():
    body = "Large models trained on open data do well on many benchmarks, as the tables below show."
    text = (f"# Models Trained on Open Data\n\n## 1 Introduction\n\n{body}\n\nApproach\n\nOur approach is simple.\n\n"
            f"### Pre-training Data\n\nText.\n\n## 3 Main results\n\nShort line\n\n{body}\n\n## 5 Bias\n\nText.\n")
    md = compile_text(text, name="doc.mmd").markdown
    assert headings(md)[1:4] == [(2, "1 Introduction"), (2, "Approach"), (3, "Pre-training Data")]
    assert "Short line" not in [t for _, t in headings(md)]  # right under "3 Main results": no section 4 heading


def test_partial_input_invents_no_title():
    text = ("the proof continues here, since $x \\in R$ holds.\n\n"
            "2.1.3 Data mixing for later stages\n\n"
            "We mix data (Smith et al., 2023) as shown.\n\n"
            "| A | B |\n|---|---|\n| 1 | 2 |\n")
    doc = compile_text(text)
    assert doc.metadata.title == ""
    assert headings(doc.markdown) == [(4, "2.1.3 Data mixing for later stages")]


@pytest.mark.parametrize("marker", ["<--- Page Split --->", "#### Page 2", "── PAGE 2 / 2 ──", "\f",
                                    "<!-- PageBreak -->", "{1}------------------------------------------------"])
def test_page_markers_of_every_style_split_pages(marker):
    text = f"# A Paper About Pages\n\n<!-- image -->\n\nFirst page text.\n{marker}\nSecond page text.\n"
    doc = compile_text(text, engine="docling")
    assert doc.pages == 2
    assert "Second page text." in doc.markdown and not leftover(doc.markdown)


def test_sniffing_and_override():
    assert sniff_engine("# T\n\nSome *markdown* notes.\n") is None  # a user's Markdown stays as it is
    assert sniff_engine("x", "notes.mmd") == "nougat"
    assert sniff_engine("── PAGE 2 / 4 ──\ntext\n") == "plain"
    assert sniff_engine("## A\n\ntext\n\n## B\n\n## C\n") is None  # sections at ## alone: no paper, no engine
    assert sniff_engine("## A Study\n\ntext\n\n## Abstract\n\n## 1 Introduction\n") == "docling"
    # --from wins over sniffing: MinerU's dialect read as docling still has its headings
    doc = compile_text(MINERU, engine="docling")
    assert doc.metadata.source["engine"] == "docling"
    with pytest.raises(ValueError):
        CompileOptions(engine="tesseract-9000")


def test_cli_from_option(tmp_path):
    src = tmp_path / "paper.md"
    src.write_text(DOCLING)
    ctxmill = Path(sys.executable).with_name("ctxmill")
    out = tmp_path / "out"
    proc = subprocess.run([str(ctxmill), "compile", str(src), "-o", str(out), "--from", "marker", "--fast"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "metadata.json").read_text())["source"]["engine"] == "marker"
    bad = subprocess.run([str(ctxmill), "compile", str(src), "--from", "nope"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "nope" in bad.stderr


def test_empty_engine_output_is_refused():
    with pytest.raises(InputRefused):
        compile_text("   \n\n", engine="nougat")
    with pytest.raises(InputRefused) as exc:  # nothing but page markers and grounding boxes
        compile_text("<--- Page Split --->\n<|ref|>image<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>\n<--- Page Split --->\n")
    assert "no text" in str(exc.value) and "\n" not in str(exc.value)


# ------------------------------------------------------------------ corpus (../shared/corpus/ocr)


@pytest.fixture(scope="module")
def ocr_corpus(shared_dir):
    root = shared_dir / "corpus" / "ocr"
    if not root.is_dir():
        pytest.skip("../shared/corpus/ocr is not present")
    return root


def _compile_dir(d: Path):
    src = next(p for p in d.glob("source.*") if p.suffix != ".json")
    return compile_document(src, OPTS, name=str(src))


@pytest.mark.parametrize("slug,engine", [
    ("mineru-flow-duration-afforestation", "mineru"), ("marker-multicolcnn", "marker"),
    ("docling-tableformer", "docling"), ("nougat-llama", "nougat"),
    ("mistral-paper2llm-identifiability", "mistral"), ("paddleocrvl-deepseek-ocr-paper", "paddleocr-vl"),
])
def test_corpus_engine_outputs_compile_clean(ocr_corpus, slug, engine):
    truth = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "ocr_truth"
                        / f"{slug}.json").read_text())
    doc = _compile_dir(ocr_corpus / slug)
    assert doc.metadata.source["engine"] == engine
    assert not leftover(doc.markdown)
    norm = lambda s: re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()  # noqa: E731
    assert norm(doc.metadata.title) == norm(truth["title"])
    ours = {norm(re.sub(r"^[\dA-Z.]+\s+(?=\S)", "", t)) for _, t in headings(doc.markdown)}
    want = [norm(re.sub(r"^[\dIVX.]+\s+", "", s["title"])) for s in truth["sections"]]
    assert sum(w in ours for w in want) >= 0.9 * len(want)
    assert abs(len(doc.references) - truth["n_references"]) <= 0.1 * truth["n_references"]


def test_corpus_partial_pages_have_no_title(ocr_corpus):
    for slug in ("olmocr-math-2503-04086", "olmocr-olmo2-pg4"):
        doc = _compile_dir(ocr_corpus / slug)
        assert doc.metadata.title == "", slug
        assert not leftover(doc.markdown)


# layout engines that label each block (round 31's held-out set: dots.ocr JSON, Chandra OCR HTML)
DOTS = ('[{"bbox": [20, 400, 60, 1100], "category": "Page-header", "text": "arXiv:2401.00001v1 [cs.CL] 1 Jan 2024"}, '
        '{"bbox": [200, 160, 1000, 240], "category": "Title", "text": "# Counting Words\\nin Old Letters"}, '
        '{"bbox": [200, 260, 1000, 290], "category": "Text", "text": "Ann Smith, Bob Jones"}, '
        '{"bbox": [100, 500, 230, 520], "category": "Section-header", "text": "## 1 Introduction"}, '
        '{"bbox": [100, 530, 600, 900], "category": "Text", "text": "Letters hold many words."}, '
        '{"bbox": [100, 910, 600, 1000], "category": "Picture"}, '
        '{"bbox": [100, 1010, 600, 1040], "category": "Caption", "text": "**Figure 1:** A letter."}, '
        '{"bbox": [100, 1050, 600, 1080], "category": "List-item", "text": "* **Ink:** faded."}, '
        '{"bbox": [100, 1100, 230, 1120], "category": "Section-header", "text": "## 2 Method"}, '
        '{"bbox": [100, 1130, 600, 1200], "category": "Text", "text": "We count them by hand."}')  # not closed
CHANDRA = """<div data-bbox="300 110 780 125" data-label="Page-Header">Counting Words in Old Letters 3</div>
<div data-bbox="215 140 787 190" data-label="Text">
<p>the words of each letter, as <a href="#">4</a> did before.</p>
</div>
<div data-bbox="215 200 520 220" data-label="Section-Header">
<h3>2.1 Sampling the Letters</h3>
</div>
<div data-bbox="215 230 788 320" data-label="Text">
<p>We took <i>every tenth</i> letter, see <a href="https://example.org/letters">the archive</a>.</p>
</div>
<div data-bbox="215 330 788 360" data-label="Caption"><p><b>Table 1.</b> Letters per year.</p></div>
<div data-bbox="225 370 770 500" data-label="Table">
<table border="1"><thead><tr><th>Year</th><th>Letters</th></tr></thead><tbody><tr><td>1850</td><td>12</td></tr></tbody></table>
</div>
<div data-bbox="215 510 520 530" data-label="Section-Header"><h3>2.2 Reading Them</h3></div>
<div data-bbox="215 540 788 600" data-label="List-Group"><ul><li>first the date</li><li>then the text</li></ul></div>
"""


def test_dots_ocr_json_blocks_are_read_as_labelled_blocks():
    assert sniff_engine(DOTS, "page.json") == "dots-ocr"
    doc = compile_text(DOTS, name="page.json")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "dots-ocr"
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert headings(md) == [(1, "Counting Words in Old Letters"), (2, "1 Introduction"), (2, "2 Method")]
    assert "**Figure 1:** A letter." in md and "We count them by hand." in md  # the unclosed list's last block
    # the page header is left out and listed (as DeepSeek-OCR's); the compile still reads it as arXiv's stamp
    assert doc.metadata.arxiv_id == "2401.00001v1"
    assert [r["reason"] for r in doc.attrs["removed"]] == ["page-header"]
    assert "arXiv:2401.00001v1" not in md
    assert [a.name for a in doc.metadata.authors] == ["Ann Smith", "Bob Jones"]
    assert '"bbox"' not in md and '"category"' not in md
    assert not leftover(md)


def test_chandra_html_blocks_become_markdown():
    assert sniff_engine(CHANDRA, "page.html") == "chandra"
    doc = compile_text(CHANDRA, name="page.html")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "chandra"
    assert [t for _, t in headings(md)] == ["2.1 Sampling the Letters", "2.2 Reading Them"]
    assert "as 4 did before." in md and "[the archive](https://example.org/letters)" in md
    assert "| Year | Letters |" in md and "**Table 1.** Letters per year." in md
    assert "- first the date" in md and "- then the text" in md
    # the running head is left out, listed in removed.json with its page
    assert "Counting Words in Old Letters 3" not in md
    assert [(r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")] == [
        ("page-header", "Counting Words in Old Letters 3")]
    assert not leftover(md)


DOCTAGS = """<doctag><page_header><loc_15><loc_130><loc_30><loc_350>arXiv:2402.00002v1 [cs.DL] 2 Feb 2024</page_header>
<section_header_level_1><loc_100><loc_70><loc_400><loc_90>Counting Words in Old Letters</section_header_level_1>
<text><loc_110><loc_100><loc_390><loc_110>Ann Smith and Bob Jones</text>
<section_header_level_1><loc_40><loc_150><loc_200><loc_160>1 Introduction</section_header_level_1>
<text><loc_40><loc_170><loc_460><loc_230>Letters hold many words.</text>
<picture><loc_40><loc_240><loc_460><loc_300><caption><loc_40><loc_305><loc_460><loc_315>Figure 1. A letter.</caption></picture>
<page_break>
<section_header_level_1><loc_40><loc_40><loc_200><loc_50>2 Method</section_header_level_1>
<otsl><loc_40><loc_60><loc_460><loc_120><ched>Year<ched>Letters<nl><fcel>1850<fcel>12<nl><caption><loc_40><loc_125><loc_460><loc_135>Table 1. Letters per year.</caption></otsl>
<unordered_list><list_item><loc_40><loc_140><loc_460><loc_150>first the date</list_item>
<list_item><loc_40><loc_150><loc_460><loc_160>then the text</list_item>
</unordered_list>
<page_footer><loc_240><loc_480><loc_260><loc_490>2</page_footer>
</doctag>"""

MINERU_JSON = json.dumps([
    {"type": "text", "text": "Counting Words in Old Letters", "text_level": 1, "page_idx": 0},
    {"type": "text", "text": "Ann Smith and Bob Jones", "page_idx": 0},
    {"type": "discarded", "text": "Preprint. Under review.", "page_idx": 0},
    {"type": "text", "text": "Introduction", "text_level": 1, "page_idx": 0},
    {"type": "text", "text": "Letters hold many words.", "page_idx": 0},
    {"type": "image", "img_path": "images/0a1b.jpg", "image_caption": ["Figure 1: A letter."], "page_idx": 0},
    {"type": "text", "text": "Method", "text_level": 1, "page_idx": 1},
    {"type": "table", "img_path": "images/2c3d.jpg", "table_caption": ["Table 1: Letters per year."],
     "table_body": "<table><tr><td>Year</td><td>Letters</td></tr><tr><td>1850</td><td>12</td></tr></table>",
     "page_idx": 1},
    {"type": "equation", "text": "$$\nn = 12\n$$", "text_format": "latex", "page_idx": 1},
], indent=4)


def _marker_block(page: int, kind: str, k: int, html: str, children=None) -> dict:
    return {"id": f"/page/{page}/{kind}/{k}", "block_type": kind, "html": html, "polygon": [[0.0, 0.0]],
            "bbox": [0.0, 0.0, 1.0, 1.0], "children": children, "section_hierarchy": {}, "images": {}}


MARKER_JSON = json.dumps({"children": [
    _marker_block(0, "Page", 9, "<content-ref src='/page/0/SectionHeader/0'></content-ref>", [
        _marker_block(0, "PageHeader", 8, "<p>Journal of Letters 12</p>"),
        _marker_block(0, "SectionHeader", 0, "<h1>Counting Words in Old Letters</h1>"),
        _marker_block(0, "Text", 1, '<p block-type="Text">Ann Smith and Bob Jones</p>'),
        _marker_block(0, "SectionHeader", 2, "<h2>1 Introduction</h2>"),
        _marker_block(0, "Text", 3, '<p block-type="Text">Letters hold <i>many</i> words.</p>'),
        _marker_block(0, "ListGroup", 4, "<content-ref src='/page/0/ListItem/5'></content-ref>", [
            _marker_block(0, "ListItem", 5, "<li>first the date</li>"),
            _marker_block(0, "ListItem", 6, "<li>then the text</li>")])]),
    _marker_block(1, "Page", 9, "<content-ref src='/page/1/SectionHeader/0'></content-ref>", [
        _marker_block(1, "SectionHeader", 0, "<h2>2 Method</h2>"),
        _marker_block(1, "Table", 1, "<table><tr><th>Year</th><th>Letters</th></tr><tr><td>1850</td><td>12</td>"
                                     "</tr></table>", [_marker_block(1, "TableCell", 2, "<th>Year</th>")])])],
    "block_type": "Document"}, indent=2)


@pytest.mark.parametrize("text,name,engine", [(DOCTAGS, "page.doctags.txt", "doctags"),
                                              (MINERU_JSON, "paper_content_list.json", "mineru-json"),
                                              (MARKER_JSON, "paper.json", "marker-json")])
def test_labelled_blocks_of_doctags_mineru_and_marker_json(text, name, engine):
    # three more syntaxes of one block and its label each (round32_ocr_rule.md F1): read as
    # dots.ocr's and Chandra's are, the page header or MinerU's discarded block left out and listed
    assert sniff_engine(text, name) == engine
    doc = compile_text(text, name=name)
    md = doc.markdown
    assert doc.metadata.source["engine"] == engine
    assert doc.metadata.title == "Counting Words in Old Letters"
    # (MinerU's content list of this paper has no section numbers)
    assert [(n, re.sub(r"^\d\.? ", "", t)) for n, t in headings(md)] == [
        (1, "Counting Words in Old Letters"), (2, "Introduction"), (2, "Method")]
    assert doc.pages == 2
    assert "Letters hold" in md and "| Year | Letters |" in md and "| 1850 | 12 |" in md
    dropped = [(r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")]
    assert dropped and all(reason in ("page-header", "page-footer", "engine-discarded") for reason, _ in dropped)
    assert doc.attrs["conservation"]["words_lost"] == 0
    assert '"block_type"' not in md and '"page_idx"' not in md and "<loc_" not in md
    assert not leftover(md)


def test_a_rule_inside_a_chandra_block_leaves_no_tag():
    # Chandra closes a section's last paragraph with <hr/> (round32_ocr_rule.md C): a rule, no word
    page = ('<div data-bbox="115 118 833 152" data-label="Text"><p>Typewriters came first.</p><hr/></div>'
            '<div data-bbox="115 167 544 187" data-label="Section-Header"><h3>Word Processors</h3></div>'
            '<div data-bbox="115 202 852 269" data-label="Text"><p>Then came the screen.</p></div>')
    md = compile_text(page, name="page.html").markdown
    assert "Typewriters came first." in md and "Then came the screen." in md
    assert "<hr" not in md and not leftover(md)


@pytest.mark.timeout(60)
def test_unclosed_doctags_and_deep_marker_json_neither_hang_nor_crash():
    # hostile input that sniffs as DocTags or marker's JSON: an opening tag never closed was
    # searched to the end of the text once per tag (1 MB of them: minutes; the time limit is a
    # safety net against that hang, not a speed assertion), and a block tree nested deeper than
    # the JSON parser's stack raised RecursionError (exit 1) instead of a refusal
    from ctxmill.sources import engines

    blocks = engines._doctags_blocks("<doctag>" + "<text><loc_1>x " * 70_000 + "<caption>kept</caption>")
    # (the unclosed elements' words are kept as text, not dropped: round32_fuzz_rule.md F4)
    assert blocks == [("text", " ".join(["x"] * 70_000)), ("caption", "kept")]
    deep = '{"children": [{"id": "/page/0/Page/1", "block_type": "Page", "html": "", "children": [' * 5000
    assert sniff_engine(deep, "deep.json") == "marker-json"
    with pytest.raises(InputRefused):
        compile_text(deep, name="deep.json")


def _hocr_par(k: int, *lines: str) -> str:
    spans = "".join(f"<span class='ocr_line' id='line_{k}_{i}' title='bbox 0 {i} 9 {i + 1}'>"
                    + " ".join(f"<span class='ocrx_word' title='bbox 0 0 1 1; x_wconf {40 if w == '|' else 95}'>{w}</span>"
                               for w in line.split()) + "</span>\n" for i, line in enumerate(lines))
    return f"<p class='ocr_par' id='par_{k}' title='bbox 0 0 9 9'>{spans}</p>"


HOCR = ("<?xml version='1.0' encoding='UTF-8'?>\n<html xmlns='http://www.w3.org/1999/xhtml'><head><title></title>"
        "<meta name='ocr-system' content='tesseract 5.3.0' /></head><body>"
        "<div class='ocr_page' id='page_1' title='image \"p1.png\"; bbox 0 0 2480 3508; ppageno 0'>"
        + _hocr_par(1, "2 Reading Old Letters") + _hocr_par(2, "We read each letter twice, once by", "hand and once | by machine.")
        + "</div><div class='ocr_page' id='page_2' title='bbox 0 0 2480 3508; ppageno 1'>"
        + _hocr_par(3, "3 Results") + _hocr_par(4, "The machine read &amp; counted", "most words.") + "</div></body></html>")


def test_hocr_paragraphs_and_pages_are_read_with_every_word():
    # Tesseract's hOCR given as a text input (round32_ocr_rule.md F2): one paragraph per ocr_par,
    # one page per ocr_page, no tag left, and no word dropped for its confidence
    assert sniff_engine(HOCR, "scan.hocr") == "hocr"
    doc = compile_text(HOCR, name="scan.hocr")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "hocr" and doc.pages == 2
    assert [t for _, t in headings(md)] == ["2 Reading Old Letters", "3 Results"]
    assert "We read each letter twice, once by hand and once | by machine." in md
    assert "The machine read & counted most words." in md
    assert "ocrx_word" not in md and not leftover(md)
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_content_list_with_odd_field_types_is_read_not_crashed():
    # a MinerU content list whose text_level is no number or whose captions are no list (hand-made
    # or damaged) made int() or iteration raise: the compile exited 1 (round32_ocr_rule.md H3)
    odd = json.dumps([{"type": "text", "text": "Counting Words in Old Letters", "text_level": 1, "page_idx": 0},
                      {"type": "text", "text": "Introduction", "text_level": "x", "page_idx": 0},
                      {"type": "image", "image_caption": 5, "page_idx": 0},
                      {"type": "text", "text": "Letters hold many words.", "page_idx": 0}])
    doc = compile_text(odd, name="odd_content_list.json")
    assert doc.metadata.source["engine"] == "mineru-json"
    assert "Introduction" in doc.markdown and "Letters hold many words." in doc.markdown


@pytest.mark.timeout(30)
def test_hocr_of_unclosed_elements_does_not_hang():
    # every start tag searched the stack of open elements for a paragraph, and every piece of
    # text searched it for an hOCR element: 2 MB of unclosed lines took 46 s (the time limit is a
    # safety net against that, not a speed assertion); the words are still read, one block a line
    from ctxmill.sources import engines

    blocks = engines._hocr_blocks("<div class='ocr_page'>" + "<span class='ocr_line'><span class='ocrx_word'>x" * 60_000)
    assert len(blocks) == 60_000 and blocks[0] == ("text", "x")


def test_one_block_per_author_becomes_authors_with_affiliations():
    # marker: each author a heading, an e-mail line under it; Mistral: "Name<br>Department<br>University<br>email"
    marker = ("# Sparse Experts at Scale\n\n### Ann Smith∗\n\nann@example.org\n\n### Bob Jones∗\n\nbob@example.org\n\n"
              "#### Carl Doe\n\ncarl@example.org Example Labs, Sometown, CA 94043, USA\n\n### Abstract\n\nWe scale.\n\n"
              "### 1. Introduction\n\nText.\n")
    doc = compile_text(marker, name="paper.md", engine="marker")
    assert [a.name for a in doc.metadata.authors] == ["Ann Smith", "Bob Jones", "Carl Doe"]
    assert [t for _, t in headings(doc.markdown)] == ["Sparse Experts at Scale", "Abstract", "1 Introduction"]
    mistral = ("#### Page 1\n\n# Memory in Small Brains\n\n"
               "Ann Smith\\*<br>Department of Biology<br>University of Sometown<br>ann@some.edu\n\n"
               "Bob Jones<br>Department of Physics<br>University of Othertown<br>bob@other.edu\n\n"
               "Carl Doe<br>Department of Biology<br>University of Sometown<br>carl@some.edu\n\n"
               "#### Abstract\n\nWe remember.\n\n## 1 Introduction\n\nText.\n")
    doc = compile_text(mistral, name="paper.md", engine="mistral")
    authors = doc.metadata.authors
    assert [a.name for a in authors] == ["Ann Smith", "Bob Jones", "Carl Doe"]
    assert authors[1].affiliations == ["Department of Physics, University of Othertown"]
    # one affiliation line per author as printed: the third author's words are not merged away
    assert doc.markdown.count("Department of Biology, University of Sometown") == 2
    # docling on an LNCS paper: ORCID ids after the names, the last name on a line of its own
    docling = ("## Tables as Tokens\n\nAnn Smith [0000 -0002 -3723 -6960] , Bob Jones [0000 -0002 -9468 -0822] , "
               "[0000 -0001 -8513 -3491]\n\nand Carl Doe\n\nExample Research\n\n{ann,bob,carl}@example.org\n\n"
               "## 1 Introduction\n\nText.\n\n## 2 Method\n\nMore.\n\n## References\n\n1. A. B.: A title. 2020\n")
    doc = compile_text(docling, name="paper.md", engine="docling")
    assert [a.name for a in doc.metadata.authors] == ["Ann Smith", "Bob Jones", "Carl Doe"]
    assert "0000-0002-3723-6960" in doc.markdown and "[0000" not in doc.markdown  # the ids stay, as text


def test_a_content_list_bibliography_glued_to_its_title_is_a_heading_and_one_entry_each():
    # MinerU's content list writes "References" as the first word of its first entries' block
    # (no text_level) and runs author-year entries together with a blank: the compile found no
    # bibliography (round32_ocr_rule.md tO2)
    blocks = [{"type": "text", "text": "Counting Words in Old Letters", "text_level": 1, "page_idx": 0},
              {"type": "text", "text": "Introduction", "text_level": 1, "page_idx": 0},
              {"type": "text", "text": "Letters hold many words (Smith 2004; Le 2025).", "page_idx": 0},
              {"type": "text", "text": "References Smith, A. 2004. Old Letters. In Journal of Letters, 32: D267–D270. "
                                       "Chen, Q.; Li, X.; and Wang, M. 2023. Counting Words. In Proceedings of "
                                       "Words, 7053–7060. Le, D.-H. 2025. Letters Again. Scientific Reports, 15(3).",
               "page_idx": 1},
              {"type": "text", "text": "Mishra, R.; and Shridevi, S. 2024. Words in Graphs. In Letters, 14(1): 25449. "
                                       "Read, J. 2011. Chains of Letters. In Machine learning, 85(3): 333–359.",
               "page_idx": 1}]
    doc = compile_text(json.dumps(blocks), name="paper_content_list.json")
    assert doc.metadata.source["engine"] == "mineru-json"
    assert (2, "References") in headings(doc.markdown)
    assert [r.raw.split(",")[0] for r in doc.references] == ["Smith", "Chen", "Le", "Mishra", "Read"]


def _element(kind: str, text: str, page: int, **meta) -> dict:
    return {"type": kind, "element_id": f"{page}{kind}{len(text)}", "text": text,
            "metadata": {"filetype": "application/pdf", "languages": ["eng"], "page_number": page, **meta}}


UNSTRUCTURED_JSON = json.dumps([
    _element("NarrativeText", "Journal of Letters 12 (2024) 1-3", 1),
    _element("Title", "Counting Words in Old Letters", 1),
    _element("NarrativeText", "Ann Smith and Bob Jones", 1),
    _element("Title", "1 Introduction", 1),
    _element("NarrativeText", "Letters hold many words.", 1),
    _element("Image", "Dear Sir yours truly", 1),
    _element("FigureCaption", "Figure 1: A letter.", 1),
    _element("ListItem", "Journal of Letters 12 (2024) 1-3", 2),
    _element("Title", "2 Method", 2),
    _element("Table", "Year Letters 1850 12 Total", 2,
             text_as_html="<table><tr><td>Year</td><td>Letters</td></tr><tr><td>1850</td><td>12</td></tr></table>"),
    _element("ListItem", "first the date", 2),
    _element("Header", "Journal of Letters 12 (2024) 1-3", 3),
    _element("Title", "References", 3),
    _element("ListItem", "[1] A. Adams, Old letters, Journal of Letters 1 (1990) 1-10.", 3),
    _element("ListItem", "[2] B. Baker, New letters, Journal of Letters 5 (1995) 11-20.", 3),
    _element("UncategorizedText", "3", 3),
], indent=2)


def test_unstructured_element_json_is_read_by_its_types_and_drops_nothing_in_silence():
    # Unstructured's element JSON (round33_ocr_rule.md U): a Title is a heading (relevel finds the
    # title), a running head on three pages (typed NarrativeText, ListItem, Header) and the page's
    # own number are left out and listed, a picture's OCR'd words and a table's flat text beside
    # its HTML reading listed too, one page per page_number
    assert sniff_engine(UNSTRUCTURED_JSON, "paper.pdf.json") == "unstructured-json"
    doc = compile_text(UNSTRUCTURED_JSON, name="paper.pdf.json")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "unstructured-json"
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert [t for _, t in headings(md)] == ["Counting Words in Old Letters", "1 Introduction", "2 Method", "References"]
    assert doc.pages == 3
    assert "| 1850 | 12 |" in md and "Letters hold many words." in md and "Journal of Letters 12" not in md
    assert len(doc.references) == 2
    reasons = {r["reason"] for r in doc.attrs["removed"] if r.get("dropped")}
    assert {"page-header", "figure-text", "table-text"} <= reasons
    assert doc.attrs["conservation"]["words_lost"] == 0
    assert '"element_id"' not in md and not leftover(md)
    # the chunked output: records whose text joins the elements with blank lines
    chunks = json.dumps([{"type": "CompositeElement", "element_id": "a1",
                          "text": "2 Method\n\nWe read each letter twice.\n\n3 Results\n\nMost words were read.",
                          "metadata": {"page_number": 1}}])
    assert sniff_engine(chunks, "paper.pdf.json") == "unstructured-json"
    md = compile_text(chunks, name="paper.pdf.json").markdown
    assert "We read each letter twice." in md and '"CompositeElement"' not in md and "\\n" not in md


PADDLE_JSON = json.dumps({"page_count": None, "width": 960, "height": 1280, "model_settings": {}, "parsing_res_list": [
    {"block_label": "header", "block_content": "Journal of Letters 12", "block_bbox": [68, 76, 651, 119], "block_id": 0},
    {"block_label": "doc_title", "block_content": "Counting Words in Old Letters", "block_bbox": [1, 2, 3, 4], "block_id": 1},
    {"block_label": "paragraph_title", "block_content": "## 1 Introduction", "block_bbox": [1, 2, 3, 4], "block_id": 2},
    {"block_label": "text", "block_content": "Letters hold many words.", "block_bbox": [1, 2, 3, 4], "block_id": 3},
    {"block_label": "table", "block_content": "\n<table border=1 style='margin: auto;'><tr><td style='text-align: center;'>"
     "Year</td><td>Letters</td></tr><tr><td>1850</td><td>12</td></tr></table>", "block_bbox": [1, 2, 3, 4], "block_id": 4},
    {"block_label": "figure_title", "block_content": '<div style="text-align: center;">Table 1. Letters per year.</div>\n',
     "block_bbox": [1, 2, 3, 4], "block_id": 5},
    {"block_label": "paragraph_title", "block_content": "### 2 Method", "block_bbox": [1, 2, 3, 4], "block_id": 6},
    {"block_label": "number", "block_content": "7", "block_bbox": [1, 2, 3, 4], "block_id": 7}],
    "layout_det_res": {"boxes": []}})


def test_paddleocr_vl_json_result_is_read_by_its_block_labels():
    # PaddleOCR-VL's JSON result (round33_ocr_rule.md P): its labels are the structure, its page
    # header and page number left out and listed, the table's HTML and the caption's div unwrapped
    assert sniff_engine(PADDLE_JSON, "page.json") == "paddleocr-vl-json"
    doc = compile_text(PADDLE_JSON, name="page.json")
    md = doc.markdown
    assert doc.metadata.source["engine"] == "paddleocr-vl-json"
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert [(n, t) for n, t in headings(md)] == [(1, "Counting Words in Old Letters"), (2, "1 Introduction"), (2, "2 Method")]
    assert "| 1850 | 12 |" in md and "Letters per year." in md and "Journal of Letters" not in md
    dropped = {(r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")}
    assert ("page-header", "Journal of Letters 12") in dropped
    assert doc.attrs["conservation"]["words_lost"] == 0
    assert "parsing_res_list" not in md and not leftover(md)


def test_an_environment_inside_inline_math_keeps_its_commands():
    # inline math holding an environment (MinerU: "$\begin{array} { r l } ... \end{array}$"): the
    # \begin/\end of prose environments are taken out, these were too, with no record and the
    # math left malformed (round33_ocr_rule.md W3)
    blocks = [{"type": "text", "text": "Counting Words in Old Letters", "text_level": 1, "page_idx": 0},
              {"type": "text", "text": "We predict the set $\\begin{array} { r l } { \\hat { y } } & { = } \\end{array}$ "
                                       "for each letter.", "page_idx": 0}]
    doc = compile_text(json.dumps(blocks), name="paper_content_list.json")
    assert "$\\begin{array} { r l } { \\hat { y } } & { = } \\end{array}$" in doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0


GPT4O_PAGE = """The Most Useful Equations
A short tour of three formulas

1. Euler's Identity

\\[ e^{i\\pi} + 1 = 0 \\]

Connects five constants \\((e, i, \\pi, 1, 0)\\) in one line.

2. Maxwell's Equations

\\[ \\begin{align*}
\\nabla \\cdot \\mathbf{B} &= 0 \\\\
\\nabla \\times \\mathbf{E} &= -\\frac{\\partial \\mathbf{B}}{\\partial t}
\\end{align*} \\]

Unified electricity and magnetism.
"""


def test_markdown_paragraphs_with_paren_math_are_markdown_not_ocr_lines():
    # GPT-4o / olmOCR write Markdown paragraphs with \( \) math and no "#": they were read as OCR
    # lines (one paragraph a line), which cut a display equation over several lines into raw
    # lines (round33_ocr_rule.md G); the title is the first line, the line under it text
    assert sniff_engine(GPT4O_PAGE, "page.md") == "markdown"
    doc = compile_text(GPT4O_PAGE, name="page.md")
    md = doc.markdown
    assert doc.metadata.title == "The Most Useful Equations"
    assert [t for _, t in headings(md)][1:] == ["1 Euler's Identity", "2 Maxwell's Equations"]
    assert "A short tour of three formulas" in md and "$$\n\\begin{align*}" in md
    assert not leftover(md)
    # OCR lines (no blank line between paragraphs) stay OCR lines
    assert sniff_engine(GPT4O_PAGE.replace("\n\n", "\n"), "page.md") == "plain"


# round33_ocr_rule.md O: an engine that writes plain lines prints headings as lines of their own
PLAIN_LINES = """The end of the earlier piece, which a page of a journal often carries above a new article.

RESULTS IN CONTEXT

The survey asked every clinic about the year, and this paragraph runs on long enough to be read as prose by any reader of it.

4.2 Baseline Agent Models

The agents are described below, with their scores in the table; the paragraph is long prose text, as a page carries it.

FRONT PAGE

A short title line

REFERENCES
1 Adams J. First paper. Journal 1990;1:1-10.
2 Baker K. Second paper. Journal 1995;5:11-20.
"""


def test_plain_lines_without_any_hash_heading_get_their_headings():
    md = compile_text(PLAIN_LINES).markdown
    hs = headings(md)
    assert (2, "RESULTS IN CONTEXT") in hs and (3, "4.2 Baseline Agent Models") in hs
    assert any(t == "REFERENCES" for _, t in hs)
    assert not any("FRONT PAGE" in t for _, t in hs)  # a rubric before a short line stays text
    # a text that has a "#" heading of its own is left as its author wrote it
    md2 = compile_text("# Notes\n\n" + PLAIN_LINES).markdown
    assert not any("RESULTS IN CONTEXT" in t for _, t in headings(md2))


def test_plain_headings_leave_the_lines_of_a_fenced_code_block_alone():
    from ctxmill.sources.markdown import plain_headings

    prose = "The query below selects every user whose account is still active and who logged in this year, " \
            "ordered by the date of their last visit."
    code = "```sql\n\nSELECT NAME FROM USERS\n\n" + prose + "\n```\n"
    assert plain_headings(code) == code
    # (outside the fence the same line is a heading)
    assert plain_headings("SELECT NAME FROM USERS\n\n" + prose + "\n").startswith("## SELECT NAME FROM USERS")
