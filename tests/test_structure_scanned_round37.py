"""Round 37 (benchmarks/results/round37_tScan2_rule.md): the structure of papers read by OCR. One
false numbered line (a plot's labels read as "4 ...", a title page's list) must not reject every
numbered heading after it; a lone "1.1" opens section 1 when the chapter's own line was lost; a
rule drawn around a chapter's opening lines is no figure; bylines whose marks and separators OCR
read as punctuation still part into names."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile import front, layout
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import Line, Page, Span
from ctxmill.sources import load_source

BODY = ("Running text of the section, long enough to read as the body of a paper and not as a "
        "title or a name, which goes on for a line or two and then some more.")


def _compile(tmp_path, heads: list[str]):
    """One heading (12 pt bold) and six lines of body text (10 pt) each, two to a page."""
    pages, rows, y = [], [], 72
    for k, head in enumerate(heads):
        rows.append((head, 72, y, 12, "Helvetica-Bold"))
        rows += [(BODY[:88], 72, y + 20 + 12 * j, 10, "Times-Roman") for j in range(6)]
        y += 110
        if k % 2 == 1:
            pages.append(rows)
            rows, y = [], 72
    if rows:
        pages.append(rows)
    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    doc = compile_stream(stream, CompileOptions(fast=True))
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def test_one_false_numbered_line_does_not_reject_every_heading_after_it(tmp_path):
    # "4 Axis Label Values" (a plot's text read as a line) passes the sequence check after 2.1;
    # read one by one, it made 2.2, 2.3, 3, 3.1 and 4 fail it
    heads = _compile(tmp_path, ["1 Introduction", "2 Methods", "2.1 Setup", "4 Axis Label Values", "2.2 Data",
                                "2.3 Models", "3 Results", "3.1 Main Findings", "4 Conclusion"])
    assert "### 2.2 Data" in heads and "## 3 Results" in heads and "## 4 Conclusion" in heads, heads
    assert not any("Axis Label" in h for h in heads), heads


def test_a_sequence_read_one_by_one_stays_as_it_was(tmp_path):
    heads = _compile(tmp_path, ["1 Introduction", "2 Methods", "2.1 Setup", "3 Results", "4 Conclusion"])
    assert heads == ["## 1 Introduction", "## 2 Methods", "### 2.1 Setup", "## 3 Results", "## 4 Conclusion"]


def test_a_lone_first_subsection_opens_its_section(tmp_path):
    # the chapter's "1 Background" was lost (on a scan: read into a figure); its subsections stay
    heads = _compile(tmp_path, ["1.1 Order Theory", "1.2 Lattices", "2 Semantics", "2.1 Syntax"])
    assert heads[:2] == ["### 1.1 Order Theory", "### 1.2 Lattices"], heads
    assert "## 2 Semantics" in heads


def test_a_contents_list_before_the_body_does_not_take_its_numbers(tmp_path):
    # a title page's numbered list and a contents page whose leaders OCR read as letters, then the body
    heads = _compile(tmp_path, ["1 Reviewer Jane Roe", "2 Reviewer John Doe", "3 Preliminary Studies eee",
                                "3.1 Labyrinth Benchmark eee", "4 Compiler Passes eee", "1 Introduction",
                                "1.1 Motivation", "1.2 Goals", "2 Background", "2.1 Memory", "2.2 Threads",
                                "3 Preliminary Studies", "3.1 Labyrinth Benchmark", "3.2 Loops", "4 Compiler Passes"])
    for h in ("## 1 Introduction", "### 1.2 Goals", "### 2.2 Threads", "### 3.2 Loops", "## 4 Compiler Passes"):
        assert h in heads, (h, heads)
    assert not any(h.endswith("eee") for h in heads), heads


def _line(text: str, x0: float, top: float, size: float, width: float) -> Line:
    span = Span(text=text, bbox=(x0, top, x0 + width, top + size), size=size, font="Sans")
    return Line(text=text, bbox=span.bbox, spans=[span])


def test_a_rule_around_a_chapter_opening_is_no_figure():
    # fncychap's opening: "CHAPTER 1" over "BACKGROUND", two rules around them, seen as a drawing
    frame = (77.0, 152.0, 519.0, 205.0)
    lines = [_line("CHAPTER 1", 86, 144, 14.7, 76), _line("BACKGROUND", 410, 187, 14.7, 100),
             _line(BODY[:90], 86, 285, 10.0, 424)]
    assert layout.drop_text_frames([frame], lines, 10.0, 424, ocr=True) == []
    assert layout.drop_text_frames([frame], lines, 10.0, 424) == [frame]  # a text layer's drawing: left to the figure tests
    # a plot's box with labels in body type, and a tall drawing with one large label, stay figures
    plot = (77.0, 300.0, 519.0, 400.0)
    labels = [_line("Accuracy", 90, 320, 10.0, 40), _line("Epoch", 300, 390, 10.0, 30)]
    assert layout.drop_text_frames([plot], labels, 10.0, 424, ocr=True) == [plot]
    tall = (77.0, 300.0, 400.0, 500.0)
    assert layout.drop_text_frames([tall], [_line("Encoder", 150, 390, 14.7, 60)], 10.0, 424, ocr=True) == [tall]


def _byline(text: str) -> list[str]:
    body = [_line(BODY[:60], x, 300 + 12 * k, 10.0, 240) for k in range(8) for x in (36, 336)]
    tp = front.read(Page(number=1, lines=[_line("Optimisation of Overparametrized Sum-Product Networks", 80, 90,
                                                17.0, 450), _line(text, 80, 130, 11.0, 420)] + body,
                         width=612, height=792), {}, 10.0)
    return [n for n, _ in tp.authors]


def test_bylines_whose_marks_ocr_read_as_punctuation():
    assert _byline("Martin Trapp* Robert Peharz> Franz Pernkopf~") == ["Martin Trapp", "Robert Peharz",
                                                                        "Franz Pernkopf"]
    assert _byline("Sven Buder, Tobias Buck,2°@ Melissa Ness,!@ and Stephanie Monty®”") == [
        "Sven Buder", "Tobias Buck", "Melissa Ness", "Stephanie Monty"]


def test_a_byline_whose_separator_ocr_read_as_a_hyphen_or_a_stop():
    assert _byline("Michael R. Shirts - Christoph Klein - Jason M. Swails") == [
        "Michael R. Shirts", "Christoph Klein", "Jason M. Swails"]
    assert _byline("Michael R. Shirts . Christoph Klein") == ["Michael R. Shirts", "Christoph Klein"]
    # a hyphen inside a name is no separator
    assert _byline("Jean-Pierre Dupont, Anne-Marie Roe") == ["Jean-Pierre Dupont", "Anne-Marie Roe"]
