"""Round 37 (benchmarks/results/round37_tU4_rule.md): a Russian thesis's title page (a degree line in the
largest type, the title after a "Тема:" label, a "Выполнил студент" byline with Cyrillic initials), its
abstract label and bibliography title, a one-and-a-half-spaced body with a wide first-line indent, "Глава N"
chapter heads over a two-line title, a numbered list item after a nested list, appendices numbered from 1
again after the sections, and the authors' address cards after a bibliography.

The pages are made here with pdfium and a TrueType font that has Cyrillic glyphs (DejaVu)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Block, BlockKind

pdfium = pytest.importorskip("pypdfium2")
from _pdfgen import make_ttf_pdf  # noqa: E402

W, H = 595.0, 842.0  # A4
LEFT, RIGHT = 70.9, 524.4  # the text block's edges


def _pdf(path: Path, pages: list[list[tuple]]) -> Path:
    return make_ttf_pdf(path, pages, (W, H))


def _compile(tmp_path, pages):
    return compile_document(_pdf(tmp_path / "t.pdf", pages), CompileOptions(chunks=False))


# one and a half spacing for 14.3 pt type (the disser class's), a 31 pt first-line indent (GOST's 1.25 cm)
SIZE, PITCH, INDENT = 14.3, 25.5, 31.0
WORDS = ("Все виды имеют общую историю развития которая может быть представлена деревом и этот "
         "анализ является одним из главных инструментов биологии позволяя восстанавливать предковые "
         "геномы с высокой точностью и понимать ход эволюции").split()


def _paragraph(top: float, n_lines: int, seed: int, last: str = "конец абзаца.") -> tuple[list[tuple], float]:
    """A justified paragraph: its first line indented, full lines to the right edge, a short last line."""
    rows = []
    for k in range(n_lines - 1):
        words = WORDS[(seed + 3 * k) % 20:][:8]
        x = LEFT + INDENT if k == 0 else LEFT
        rows.append((" ".join(words), x, top + k * PITCH, SIZE, "R", RIGHT - x))
    rows.append((f"{WORDS[seed % 20]} {last}", LEFT, top + (n_lines - 1) * PITCH, SIZE))
    return rows, top + n_lines * PITCH


def _body_page(top: float = 80.0, paragraphs: int = 4) -> list[tuple]:
    rows = []
    for p in range(paragraphs):
        got, top = _paragraph(top, 4, p)
        rows += got
    return rows


def test_a_thesis_title_after_its_label_under_a_degree_line_and_a_done_by_byline(tmp_path):
    # A1, A2: "ДИССЕРТАЦИЯ / НА СОИСКАНИЕ УЧЕНОЙ СТЕПЕНИ / МАГИСТРА" in the largest type was the title, and
    # the student's "Н.М. Name" no name (initials in Latin capitals only)
    title_page = [("ДИССЕРТАЦИЯ", 215, 150, 20.7), ("НА СОИСКАНИЕ УЧЕНОЙ СТЕПЕНИ", 120, 185, 20.7),
                  ("МАГИСТРА", 235, 220, 20.7),
                  ("Тема: Восстановление деревьев видов по", 90, 290, 17.2),
                  ("данным о порядке генов в хромосомах", 110, 312, 17.2),
                  ("Выполнил студент П.С. Смирнов", 300, 420, SIZE),
                  ("Руководитель: доцент И. И. Иванов", 300, 460, SIZE),
                  ("Москва 2019", 260, 760, SIZE)]
    doc = _compile(tmp_path, [title_page, _body_page(), _body_page()])
    assert doc.metadata.title == "Восстановление деревьев видов по данным о порядке генов в хромосомах"
    assert [a.name for a in doc.metadata.authors] == ["П.С. Смирнов"]


def test_a_russian_abstract_label_and_bibliography_title(tmp_path):
    # A4, E1: "Реферат" labelled no abstract, "Литература" titled no list (its entries stayed paragraphs)
    title_page = [("Восстановление деревьев видов", 150, 200, 20.7), ("П.С. Смирнов", 250, 260, SIZE)]
    abstract = [("Реферат", 260, 80, 17.2, "B")] + _paragraph(120, 4, 1)[0]
    entries = ["1. Иванов И. И. Деревья видов и их восстановление // Биология. 2010. Т. 5. С. 1–10.",
               "2. Петров П. П. Порядок генов в хромосомах // Генетика. 2012. Т. 7. С. 11–20.",
               "3. Сидоров С. С. Перестройки геномов // Эволюция. 2014. Т. 9. С. 21–30."]
    bib = [("Литература", 240, 80, 17.2, "B")] + [(e, LEFT, 120 + 40 * k, SIZE) for k, e in enumerate(entries)]
    doc = _compile(tmp_path, [title_page, abstract, _body_page(), bib])
    assert doc.metadata.abstract.startswith(" ".join(WORDS[1:9]))
    assert len(doc.references) == 3


def test_indented_first_lines_at_one_and_a_half_spacing_stay_with_their_paragraphs(tmp_path):
    # B1: each paragraph's first line, indented 31 pt (more than 25), was a paragraph of its own
    doc = _compile(tmp_path, [_body_page(), _body_page()])
    paras = [b for b in doc.blocks if b.kind is BlockKind.PARAGRAPH]
    assert len(paras) == 8
    assert all(b.text.endswith("конец абзаца.") for b in paras)


def test_a_chapter_word_over_a_two_line_title_is_one_heading(tmp_path):
    # B2: "Глава 1" over a centred bold title of two lines (set apart by one and a half spacing) was three paragraphs
    chapter = [("Глава 1", 260, 70, 20.7), ("Обзор предметной области и", 140, 115, 20.7, "B"),
               ("постановка задачи", 200, 152, 20.7, "B"), ("1.1. Предметная область", LEFT, 200, 17.2, "B")]
    chapter += _paragraph(240, 4, 2)[0]
    chapter2 = [("Глава 2", 260, 70, 20.7), ("Алгоритмы", 230, 115, 20.7, "B"),
                ("2.1. Первый алгоритм", LEFT, 160, 17.2, "B")] + _paragraph(200, 4, 3)[0]
    doc = _compile(tmp_path, [[("Деревья видов", 200, 200, 20.7)], _body_page(), chapter, _body_page(), chapter2])
    heads = [(s.number, s.title) for s in doc.sections]
    assert ("1", "Обзор предметной области и постановка задачи") in heads
    assert ("2", "Алгоритмы") in heads
    assert ("1.1", "Предметная область") in heads


def test_a_numbered_item_after_a_nested_list_is_no_section():
    # B4: "2. ..." in body type after "1. ..." and the bullets nested under it (further right) was read as
    # section 2: the list's previous item was looked for among the three blocks right above only
    from ctxmill.compile.structure import _next_list_item

    def line(text, x0):
        return Block(BlockKind.PARAGRAPH, text, 3, attrs={"_x0": x0})

    blocks = [line("1. Point changes of single nucleotides", 88.3)]
    blocks += [line(f"∙ {w} of a nucleotide in the chain", 122.7) for w in ("Substitution", "Insertion", "Deletion")]
    blocks += [line("2. Structural changes of whole segments", 88.3)]
    assert _next_list_item(blocks, 4, "2")
    # a section after the paragraphs that follow a numbered heading is no list item
    blocks[1:4] = [line("Running text of the section, which goes on for a line or two.", 70.9)]
    assert not _next_list_item(blocks, 2, "2")


def test_appendices_numbered_from_one_again_after_the_sections(tmp_path):
    # B5: "Appendix 1." .. "3." after section 6 failed the sequence check (an arabic number steps up by 1-2)
    pages = [[("Detection of Attacks", 200, 100, 20.7)]]
    for n in range(1, 7):
        pages.append([(f"{n} Section Number {n}", LEFT, 80, 14.0, "B")] + _paragraph(120, 4, n)[0])
    for n, name in ((1, "Prompts and Attacks"), (2, "Attack Success Rates"), (3, "Mechanistic Validation")):
        pages.append([(f"Appendix {n}. {name}", 200, 80, 14.0, "B")] + _paragraph(120, 4, n)[0])
    doc = _compile(tmp_path, pages)
    heads = [(s.number, s.title) for s in doc.sections]
    assert [h for h in heads if h[0] and h[0].isdigit()] == [(str(n), f"Section Number {n}") for n in range(1, 7)] + [
        ("1", "Prompts and Attacks"), ("2", "Attack Success Rates"), ("3", "Mechanistic Validation")]


def test_address_cards_after_the_list_are_no_entries():
    # E2: the authors' cards after an author-year list (name, department, institution, country, ORCID,
    # e-mail) were read as entries, line by line
    from test_references import _compile_bib, _heading, _pdf_block

    entries = [_pdf_block([(72, f"A. Writer{k} and B. Author. A title of paper {k}. Journal of Things, {k}:1–9, 20{10 + k}.")],
                          y=100 + 20 * k) for k in range(4)]
    cards = [_pdf_block([(72, name), (72, "Department of Statistics"), (72, "University of Somewhere, 23071"),
                         (72, "Canada"), (72, f"https://orcid.org/0000-0002-1825-009{k}"), (72, f"{mail}@example.org")],
                        y=200 + 80 * k) for k, (name, mail) in enumerate((("Jane Roe", "jroe"), ("John Doe", "jdoe")))]
    doc = _compile_bib([_heading("Bibliography")] + entries + cards)
    assert [r.year for r in doc.references] == ["2010", "2011", "2012", "2013"]


def test_a_one_word_book_title_before_its_edition():
    # E3: an author-year entry's one-word title was labelled with the edition after it (no title)
    from ctxmill.compile import refparse

    got = refparse.parse("Roe, J., 2005. Nahbereichsvermessung. 3. ausgabe ed., Beispiel Verlag, Berlin.")
    assert got.get("title") == "Nahbereichsvermessung"
    assert got.get("edition") == "3. ausgabe ed."
    # a title of several words keeps its own road, and an edition alone is no title
    assert refparse.parse("Roe, J., Doe, A., 2011. Close range measurement. 2nd ed., Beispiel, Bonn.").get(
        "title") == "Close range measurement"
    assert refparse.parse("Roe, J., 2005. Beispiel Verlag, Bonn. 2nd ed.").get("title") != "2nd"
