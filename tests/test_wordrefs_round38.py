"""Round 38 (tWord2): bibliography titles in the languages babel names (word-processor theses use the
same words), a weak English "Citations", and a deck's bibliography section over a frame of another name.
Synthetic inputs only."""
from __future__ import annotations

import pytest

from ctxmill.compile.references import is_bibliography_title
from ctxmill.model import BlockKind
from test_references import _compile_bib, _heading, _pdf_block


@pytest.mark.parametrize("title", ["KAYNAKLAR", "Kaynakça", "4 Hivatkozások", "Irodalomjegyzék", "Daftar Pustaka",
                                   "Tài liệu tham khảo", "Viitteet", "Referanser", "LITERATÚRA", "Kaynaklar II"])
def test_babel_bibliography_names_are_titles(title):
    assert is_bibliography_title(title)


@pytest.mark.parametrize("text", ["Reference", "Tài liệu", "Kaynak kodu ve veri seti", "Citation counts"])
def test_words_near_a_title_are_no_titles(text):
    # Czech's "Reference" is English's singular (a manual's reference part); Vietnamese's bare "Tài liệu"
    # means documents
    assert not is_bibliography_title(text)


def _entries(n=4, labelled=False):
    return [_pdf_block([(72, (f"[{k}] " if labelled else "")
                         + f"Yazar{k}, A. and Writer, B. A title of paper {k}. Journal of Things, {k}:1–9, 20{10 + k}.")],
                       y=140 + 30 * k) for k in range(1, n + 1)]


@pytest.mark.parametrize("title", ["KAYNAKLAR", "7 Hivatkozások", "Irodalomjegyzék"])
def test_an_author_year_list_under_a_babel_title_is_read(title):
    body = [_heading("Giriş"), _pdf_block([(72, "Bu çalışmada yöntemler incelenmiştir (Yazar1, 2011).")], y=80)]
    doc = _compile_bib(body + [_heading(title)] + _entries())
    assert [r.year for r in doc.references] == ["2011", "2012", "2013", "2014"]


def test_a_citations_heading_opens_a_list_only_over_entries():
    # English "Citations" names a list (a white paper's "7 Citations") and also a section on citing
    entries = _compile_bib([_heading("1 Intro"), _heading("7 Citations")] + _entries(labelled=True))
    assert len(entries.references) == 4
    prose = [_pdf_block([(72, "Cite every work you use with its author and year, and list it at the end.")], y=140),
             _pdf_block([(72, "A second paragraph of the guide on how citing works in this class.")], y=170)]
    guide = _compile_bib([_heading("1 Intro"), _heading("2 Citations")] + prose + [_heading("3 Figures")])
    assert guide.references == []
    assert guide.blocks[1].kind is BlockKind.HEADING and not guide.blocks[1].attrs.get("bibliography")


def test_a_bibliography_section_over_its_list_head_of_another_name_stays_a_section():
    # a deck's head bar names the section "KAYNAKÇA"; the frame under it is titled "Kaynaklar I"
    body = [_heading("Sonuç", level=2, page=1), _pdf_block([(72, "Sonuçlar özetlenmiştir.")], y=80)]
    section = _heading("KAYNAKÇA", level=2, page=2)
    head = _heading("Kaynaklar I", level=3, page=2)
    entries = [_pdf_block(b.attrs["_line_texts"] and [(72, b.text)], page=2, y=b.bbox[1]) for b in _entries(2)]
    doc = _compile_bib(body + [section, head] + entries, pages=2)
    assert section.kind is BlockKind.HEADING
    assert head.attrs.get("bibliography")
    assert len(doc.references) == 2
