"""benchmarks/unseen_truth.py and word_truth.py: the bibliography's own title is a section where the PDF prints it
(LaTeX's \\refname / \\bibname over the list, in the document's language, or a title the source gives), and a heading
the source writes is a section whatever it is called; where the PDF prints no title (REVTeX), there is none."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import unseen_truth as U  # noqa: E402
from word_truth import derive_truth  # noqa: E402

BODY = r"""\documentclass{article}
\begin{document}
\section{Introduction}
Text \cite{a}.
\section{Results}
More.
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
"""


def titles(secs):
    return [(s["level"], s["title"]) for s in secs]


def test_the_printed_bibliography_title_is_a_section():
    printed = "Introduction\nText [1].\n2 Results\nMore.\nReferences\n[1] A. Author. A title. 2020.\n"
    assert titles(U.sections(BODY, printed)) == [(1, "Introduction"), (1, "Results"), (1, "References")]


def test_any_language_and_the_printed_form():
    printed = "Wstęp\nLITERATURA\n1. A. Autor, Tytuł.\n"
    assert titles(U.sections(BODY, printed))[-1] == (1, "LITERATURA")
    spaced = "B I B L I O G R A P H Y\n[1] A. Author.\n"  # classicthesis letter-spaces its chapter titles
    assert titles(U.sections(BODY, spaced))[-1] == (1, "BIBLIOGRAPHY")
    numbered = U.sections(BODY, "1. Introduction\n5. REFERENCES\n[1] A.\n")[-1]
    assert (numbered["title"], numbered["numbered"]) == ("REFERENCES", True)
    review = U.sections(BODY, "271\nReferences 272\n1. Barker, R.\n")  # a review copy's line number after it
    assert titles(review)[-1] == (1, "References")


def test_the_sources_own_title_is_read():
    tex = BODY.replace(r"\begin{document}", r"\renewcommand{\refname}{Works Consulted}" "\n" r"\begin{document}")
    assert titles(U.sections(tex, "Works Consulted\n[1] A.\n"))[-1] == (1, "Works Consulted")
    bl = BODY.replace(r"\bibliography{refs}", r"\printbibliography[title={Quellen}]")
    assert titles(U.sections(bl, "Quellen\nA. Autor.\n"))[-1] == (1, "Quellen")
    none = BODY.replace(r"\bibliography{refs}", r"\printbibliography[heading=none]")
    assert titles(U.sections(none, "References\nA.\n"))[-1] == (1, "Results")


def test_no_title_where_the_pdf_prints_none():
    # REVTeX's aps styles print a rule, no title, over the list; a contents line with its page number is no title
    assert titles(U.sections(BODY, "Introduction\nResults\n[1] A. Author.\n"))[-1] == (1, "Results")
    assert titles(U.sections(BODY, None))[-1] == (1, "Results")


def test_a_written_heading_is_kept_and_not_doubled():
    tex = BODY.replace(r"\bibliographystyle{plain}", r"\section*{References}")
    # the class prints no title of its own under the author's \section*{References}: one heading, not two
    assert titles(U.sections(tex, "Introduction\nResults\nReferences\n[1] A.\n")) == [
        (1, "Introduction"), (1, "Results"), (1, "References")]
    # a section about references (tufte-handout's) and the list's own title: both printed, both headings
    tex = BODY.replace(r"\section{Results}", r"\section{References}")
    assert titles(U.sections(tex, "Introduction\nReferences\nReferences are sidenotes.\nReferences\n[1] A.\n")) == [
        (1, "Introduction"), (1, "References"), (1, "References")]


def test_a_beamer_list_has_its_frame_title_only():
    deck = (r"\documentclass{beamer}" "\n" r"\begin{document}" "\n" r"\begin{frame}{Intro}x\end{frame}" "\n"
            r"\begin{frame}[allowframebreaks]{References}\bibliography{refs}\end{frame}" "\n" r"\end{document}")
    assert titles(U.sections(deck, "Intro\nReferences\nReferences\n")) == [(1, "Intro"), (1, "References")]


def test_chapters_put_the_bibliography_at_chapter_level():
    tex = BODY.replace(r"\section{Introduction}", r"\chapter{Introduction}")
    assert titles(U.sections(tex, "Introduction\nBibliography\n[1] A.\n"))[-1] == (1, "Bibliography")
    sub = tex.replace(r"\bibliography{refs}", r"\printbibliography[heading=subbibliography]")
    assert titles(U.sections(sub, "Introduction\nBibliography\n[1] A.\n"))[-1] == (2, "Bibliography")


def test_a_word_documents_bibliography_head_is_a_section():
    def p(text, level=None):
        return {"text": text, "style": "Heading 1" if level else "Normal", "level": level, "in_toc": False,
                "bibliography_field": False, "row": None}

    paras = [p("Introduction", 1), p("Body text."), p("References", 1), p("[1] A. Author, Title."), p("[2] B.")]
    truth = derive_truth(paras, {})
    assert [s["title"] for s in truth["sections"]] == ["Introduction", "References"]
    assert truth["n_references"] == 2
