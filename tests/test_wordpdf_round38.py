"""Round 38 (benchmarks/results/round38_tWord_rule.md): PDFs exported by word processors.

T1: a table of contents whose tab leaders are written as literal periods ('Введение........3', LaTeX's
'. . . .') is a real text layer, not garbage to be OCR'd; a symbol font's ASCII garbage stays garbage; its
title in another language is no heading, title or abstract.
W1: chapter and appendix words of other languages ('ГЛАВА 1. TITLE', 'ПРИЛОЖЕНИЕ 1') number their heads, written
as printed.
V1: a head the PDF's bookmarks name, set over a picture's box (Word's inline picture under its head), is a
heading, not the picture's label.
U1: a thesis's cover lines (the author's name, the city and year) repeated on its title and approval pages, set
like its chapter heads, are front matter, no headings.
B1: Word's and Writer's default first-line indent (1.25 cm = 35.4 pt, half an inch = 36 pt) in 11-12 pt type at
one and a half spacing keeps a paragraph's first line with the rest.

The pages are made here with pdfium and a TrueType font that has Cyrillic glyphs (DejaVu)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.sources import ocr
from ctxmill.sources import pdf as pdf_source

pdfium = pytest.importorskip("pypdfium2")
import pypdfium2.raw as c  # noqa: E402

from _pdfgen import make_ttf_pdf  # noqa: E402

W, H = 595.0, 842.0  # A4
LEFT, RIGHT = 85.0, 510.0  # the text block's edges


def _pdf(path: Path, pages: list[list[tuple]]) -> Path:
    return make_ttf_pdf(path, pages, (W, H))


def _pages(path: Path):
    return pdf_source.extract(path, CompileOptions(ocr="never")).pages


# ----------------------------------------------------------------------------- T1: dotted leaders

CONTENTS = [("ВВЕДЕНИЕ", "3"), ("ГЛАВА 1. ОБЗОР ПРЕДМЕТНОЙ ОБЛАСТИ", "5"), ("1.1 Постановка задачи", "5"),
            ("1.2 Существующие решения", "8"), ("ГЛАВА 2. РЕАЛИЗАЦИЯ", "12"), ("2.1 Архитектура", "12"),
            ("2.2 Тестирование", "17"), ("ЗАКЛЮЧЕНИЕ", "24"), ("СПИСОК ИСТОЧНИКОВ", "25"),
            ("ПРИЛОЖЕНИЕ А", "27")]


def _contents_page(leader: str) -> list[tuple]:
    """A word processor's contents page: each entry, its tab leader to the right margin, the page number."""
    rows = [("ОГЛАВЛЕНИЕ", 250.0, 80.0, 14.0, "B")]
    for k, (entry, page) in enumerate(CONTENTS):
        n = int((RIGHT - LEFT - 7.5 * len(entry)) / (3.5 * len(leader.strip()) or 3.5))
        rows.append((f"{entry}{leader * max(n, 20)}{page}", LEFT, 120.0 + 24 * k, 12.0))
    return rows


@pytest.mark.parametrize("leader", [".", " .", "\u2026"])
def test_dotted_contents_page_is_text_not_garbage(tmp_path, leader):
    (page,) = _pages(_pdf(tmp_path / "toc.pdf", [_contents_page(leader)]))
    assert page.has_text_layer
    assert ocr.text_layer_problem(page) is None


def test_symbol_font_garbage_with_rules_still_ocr(tmp_path):
    """ASCII punctuation from a font without a Unicode map, with runs of '-' among it, is still garbage."""
    junk = "\"(!'& % & \"! &( '&\"% ( )% & % !\"' * '"
    rows = [("A simple baseline", LEFT, 60.0, 14.0)]
    rows += [(junk if k % 2 else "-" * (3 + k % 4), LEFT, 100.0 + 18 * k, 11.0) for k in range(14)]
    (page,) = _pages(_pdf(tmp_path / "junk.pdf", [rows]))
    assert ocr.text_layer_problem(page) is not None
    # dots in the same garbage do not save it either
    rows2 = rows + [("." * 12, LEFT, 400.0, 11.0)]
    (page2,) = _pages(_pdf(tmp_path / "junk2.pdf", [rows2]))
    assert ocr.text_layer_problem(page2) is not None


def test_contents_page_text_survives_compile(tmp_path):
    """The compiled document keeps the contents' Cyrillic words as printed (no OCR reading of them)."""
    body = [("ВВЕДЕНИЕ", 250.0, 80.0, 14.0, "B")]
    body += [("Текст работы о сборке программного обеспечения и кэшировании результатов.", LEFT, 120.0 + 18 * k,
              12.0) for k in range(20)]
    doc = compile_document(_pdf(tmp_path / "t.pdf", [_contents_page("."), body]), CompileOptions(chunks=False))
    assert not any(p.ocr for p in doc.stream.pages)
    text = "\n".join(b.text for b in doc.blocks) + "\n".join(r["text"] for r in doc.attrs.get("removed", []))
    assert "Существующие решения" in text


def _body_page(head: str) -> list[tuple]:
    rows = [(head, 230.0, 80.0, 14.0, "B")]
    words = ("Текст работы о сборке программного обеспечения и кэшировании результатов компиляции в "
             "распределённой системе с проверкой зависимостей").split()
    for k in range(24):
        line = " ".join(words[k % 5:][:9])
        rows.append((line, LEFT, 120.0 + 18 * k, 12.0, "R", RIGHT - LEFT))
    return rows


def test_contents_title_in_another_language_is_no_heading_title_or_abstract(tmp_path):
    """'ОГЛАВЛЕНИЕ' over its entries is the contents' title: no section, no document title, and the
    entries are no abstract."""
    doc = compile_document(_pdf(tmp_path / "t.pdf", [_contents_page("."), _body_page("ВВЕДЕНИЕ")]),
                           CompileOptions(chunks=False))
    heads = [b.text for b in doc.blocks if b.kind.value == "heading"]
    assert "ОГЛАВЛЕНИЕ" not in heads
    assert "ОГЛАВЛЕНИЕ" not in (doc.metadata.title or "")
    assert "Существующие" not in (doc.metadata.abstract or "")


def test_other_language_contents_words():
    from ctxmill.compile.headings import contents_title

    for t in ("Оглавление", "СОДЕРЖАНИЕ", "Tartalomjegyzék", "SUMÁRIO", "САДРЖАЈ", "İÇİNDEKİLER", "Table des matières",
              "CONTENT", "Contents", "Списак слика"):
        assert contents_title(t), t
    for t in ("Введение", "Content analysis", "Összefoglaló", "Indices of refraction"):
        assert not contents_title(t), t


# ----------------------------------------------------------------------------- B1: 1.25 cm indents

LATIN = ("the system scales its web servers automatically under load and the measurements show how the "
         "response time of every request changes when the number of users grows over the day").split()


def _indented_paragraphs(size: float, pitch: float, indent: float, n: int) -> list[tuple]:
    rows, top = [], 90.0
    for p in range(n):
        for k in range(4):
            words = LATIN[(3 * p + 2 * k) % 12:][:10]
            x = LEFT + indent if k == 0 else LEFT
            rows.append((" ".join(words), x, top, size, "R", RIGHT - x))
            top += pitch
        rows.append((f"{LATIN[p]} ends here.", LEFT, top, size))
        top += pitch
    return rows


@pytest.mark.parametrize("size,indent", [(11.0, 35.4), (12.0, 36.0), (12.0, 37.0)])
def test_word_processor_first_line_indent_keeps_the_paragraph(tmp_path, size, indent):
    pitch = round(size * 1.72, 2)  # one and a half spacing
    doc = compile_document(_pdf(tmp_path / "b1.pdf", [_indented_paragraphs(size, pitch, indent, 6)] * 2),
                           CompileOptions(chunks=False))
    paras = [b for b in doc.blocks if b.kind.value == "paragraph"]
    assert len(paras) == 12
    assert all(b.text.endswith("ends here.") for b in paras)


# ----------------------------------------------------------------------------- W1: chapter words


def _chapter_page(head: str, subs: list[str]) -> list[tuple]:
    rows = [(head, 200.0, 80.0, 14.0, "B")]
    top = 120.0
    words = ("Система сборки выполняет компиляцию исходных файлов проекта и проверяет зависимости между "
             "модулями при каждом изменении кода").split()
    for sub in subs:
        rows.append((sub, LEFT, top, 13.0, "B"))
        top += 24
        for k in range(5):
            rows.append((" ".join(words[k % 4:][:9]), LEFT, top, 12.0, "R", RIGHT - LEFT))
            top += 18
        rows.append(("конец абзаца.", LEFT, top, 12.0))
        top += 30
    return rows


def test_chapter_and_appendix_words_in_another_script(tmp_path):
    cover = [("Разработка системы сборки", 150.0, 300.0, 20.0, "B"), ("Иванов Иван Иванович", 200.0, 360.0, 14.0),
             ("Санкт-Петербург 2018", 220.0, 760.0, 12.0)]
    pages = [cover, _chapter_page("ГЛАВА 1. ТЕОРЕТИЧЕСКИЕ СВЕДЕНИЯ", ["1.1 Задачи системы", "1.2 Требования"]),
             _chapter_page("ГЛАВА 2. РЕАЛИЗАЦИЯ", ["2.1 Архитектура", "2.2 Тестирование"]),
             _chapter_page("ПРИЛОЖЕНИЕ 1", [])]
    doc = compile_document(_pdf(tmp_path / "w1.pdf", pages), CompileOptions(chunks=False))
    heads = [(b.level, b.text) for b in doc.blocks if b.kind.value == "heading"]
    assert (2, "ГЛАВА 1. ТЕОРЕТИЧЕСКИЕ СВЕДЕНИЯ") in heads
    assert (2, "ГЛАВА 2. РЕАЛИЗАЦИЯ") in heads
    assert (3, "2.1 Архитектура") in heads
    assert (2, "ПРИЛОЖЕНИЕ 1") in heads


# ----------------------------------------------------------------------------- V1: a head over a picture


def test_bookmarked_head_over_a_picture_stays_a_heading(tmp_path):
    pytest.importorskip("PIL")
    from _pdfgen import draw_image, draw_text
    from ctxmill.compile.pipeline import compile_stream
    from ctxmill.model import OutlineEntry
    from ctxmill.sources import load_source

    text = ("The protocol rates every member of a community along the values the community has defined "
            "and keeps")
    doc = pdfium.PdfDocument.new()
    for n in range(2):
        page = doc.new_page(612, 792)
        if n == 1:  # the picture's box runs up over its head
            draw_image(doc, page, 90, 180, 520, 420, (200, 220, 240))
        draw_text(doc, page, "OVERVIEW" if n == 0 else "AN EXAMPLE", 72, 150 if n == 0 else 200, 14.0,
                  "Helvetica-Bold")
        for k in range(12):
            top = (175 if n == 0 else 440) + 13 * k
            draw_text(doc, page, text if k < 11 else "the ratings over time.", 72, top, 10.0, "Times-Roman")
        c.FPDFPage_GenerateContent(page.raw)
        page.close()
    doc.save(str(tmp_path / "v1.pdf"))
    doc.close()
    stream = load_source(tmp_path / "v1.pdf", CompileOptions())
    stream.outline = [OutlineEntry(title="Overview", level=1, page=1), OutlineEntry(title="An Example", level=2, page=2),
                      OutlineEntry(title="Results", level=1, page=2)]
    out = compile_stream(stream, CompileOptions(fast=True))
    heads = [b.text for b in out.blocks if b.kind.value == "heading"]
    assert "AN EXAMPLE" in heads
    assert not any("AN EXAMPLE" in r["text"] for r in out.attrs.get("removed", []))


# ----------------------------------------------------------------------------- U1: a cover repeated


def test_cover_lines_repeated_on_the_title_pages_are_no_headings(tmp_path):
    body = ("A rede de sensores sem fio mede a temperatura do ambiente e envia os dados para uma estação "
            "central").split()

    def chapter(head: str, sub: str) -> list[tuple]:
        rows = [(head, LEFT, 80.0, 12.0, "B"), (sub, LEFT, 110.0, 12.0, "B")]
        for k in range(14):
            rows.append((" ".join(body[k % 5:][:10]), LEFT, 135.0 + 17 * k, 11.0, "R", RIGHT - LEFT))
        rows.append(("fim do parágrafo.", LEFT, 135.0 + 17 * 14, 11.0))
        return rows

    cover = [("JOÃO CARLOS DA SILVA", 200.0, 90.0, 12.0, "B"),
             ("SENSORES SEM FIO PARA AGRICULTURA", 150.0, 380.0, 16.0, "B"),
             ("LAVRAS - MG 2010", 230.0, 760.0, 12.0, "B")]
    title_page = [("JOÃO CARLOS DA SILVA", 200.0, 90.0, 12.0, "B"),
                  ("SENSORES SEM FIO PARA AGRICULTURA", 150.0, 300.0, 14.0, "B"),
                  ("Monografia apresentada ao Colegiado do Curso de Ciência da Computação para a obtenção do título",
                   300.0, 420.0, 11.0), ("de Bacharel em Ciência da Computação.", 300.0, 436.0, 11.0),
                  ("LAVRAS - MG 2010", 230.0, 760.0, 12.0, "B")]
    pages = [cover, title_page, chapter("1 INTRODUÇÃO", "1.1 Objetivos"), chapter("2 REDES", "2.1 Sensores"),
             chapter("3 RESULTADOS", "3.1 Medidas")]
    doc = compile_document(_pdf(tmp_path / "u1.pdf", pages), CompileOptions(chunks=False))
    heads = [b.text for b in doc.blocks if b.kind.value == "heading"]
    assert "1 INTRODUÇÃO" in heads and "3.1 Medidas" in heads
    assert not any("SILVA" in h or "LAVRAS" in h for h in heads), heads
