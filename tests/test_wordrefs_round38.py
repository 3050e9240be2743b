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


def test_entries_bookmarked_as_headings_under_the_list_are_entries():
    # a LibreOffice bibliography index exported with a bookmark per entry: every entry came from the
    # outline as a heading under the list's head (and a sub-head of the list stays one)
    from ctxmill.model import Block

    def entry_head(n, name):
        text = f"{n}. {name} A.B. A long title of the work number {n} on things // Journal of Things. 20{10 + n}. P. 1–9."
        return Block(kind=BlockKind.HEADING, text=text, page=2, level=4, attrs={"_title": text},
                     bbox=(72.0, 100.0 + 40 * n, 520.0, 130.0 + 40 * n))
    blocks = [_heading("Conclusion"), _pdf_block([(72, "We conclude.")], y=80),
              _heading("References", page=2), _heading("Printed works", level=3, page=2)] \
        + [entry_head(n, name) for n, name in enumerate(["Writer", "Author", "Maker", "Smith"], 1)]
    doc = _compile_bib(blocks, pages=2)
    assert [r.year for r in doc.references] == ["2011", "2012", "2013", "2014"]
    assert [b.text for b in doc.blocks if b.kind is BlockKind.HEADING] == ["Conclusion", "References", "Printed works"]


def test_a_box_read_before_the_appendix_head_above_it_is_no_entry():
    # a word processor's text box under "APPENDIX A" is read first on its page, before the heading:
    # the list ran on into the box's definitions
    entries = [_pdf_block([(72, f"Writer{k}, A. (20{10 + k}). A title of paper {k}. Journal of Things, {k}, 1–9.")],
                          y=100 + 30 * k) for k in range(4)]
    box = [_pdf_block([(74, "trust(a, b): the local trust measure of transactions agent a had with b")], page=2, y=390),
           _pdf_block([(74, "sat(a, b): the number of satisfactory transactions agent a had with b")], page=2, y=416)]
    appendix = _heading("APPENDIX A – FORMULAS", page=2)
    appendix.bbox = (72.0, 77.0, 340.0, 88.0)
    doc = _compile_bib([_heading("References")] + entries + box + [appendix], pages=2)
    assert [r.year for r in doc.references] == ["2010", "2011", "2012", "2013"]


def test_a_journal_line_inside_a_one_paragraph_entry_does_not_start_an_entry():
    # one paragraph an entry, no indent, set apart by space: a line "Journal ... 2010;4(3):1-9." after a
    # title line ending in a period is the entry's tail, not an entry
    from ctxmill.compile.references import _Ln, segment

    rows = [["Writer, A.B. A first title of a long paper on the stationary states.",
             "Journal of Physical Things 2010;4(3):413-422."],
            ["Author, C. and Maker, D. A second paper on the mixtures of reacting gases in a", "vessel. Physics 2011;2:1-9."],
            ["Smith, E., et al. A third paper. Chemistry 2012;5:10-19."],
            ["Jones, F. A fourth paper on gases.", "Annals of Things 2013;7(1):20-29."]]
    lines = [_Ln(t, 72.0, 1, 0, k, j == 0) for k, r in enumerate(rows) for j, t in enumerate(r)]
    assert [len(g) for g in segment(lines)] == [2, 2, 1, 2]


def test_a_structured_abstract_is_read_under_its_label():
    # "Abstract" over unnumbered heads Background / Methods / Results / Conclusions, a paragraph each;
    # the body's own "Background" after them is no part of it
    from ctxmill.compile.metadata import _abstract_blocks
    from ctxmill.model import Block

    def para(text, page=1):
        return Block(kind=BlockKind.PARAGRAPH, text=text, page=page)

    blocks = [Block(kind=BlockKind.PARAGRAPH, text="A review of things", page=1, attrs={"title": True}),
              para("Abstract")]
    for name in ("Background", "Materials and methods", "Results", "Conclusions"):
        blocks += [_heading(name, level=3), para(f"The {name.lower()} of the study, told in a sentence or two here.")]
    blocks += [_heading("Background", level=2, page=3), para("The body opens here.", page=3)]
    parts, empty = _abstract_blocks(blocks, 10)
    assert [p.text.split()[1] for p in parts] == ["background", "materials", "results", "conclusions"]
    assert not empty


def test_a_name_before_an_affiliation_in_parentheses_cut_by_the_line_end(tmp_path):
    # "..., Laura Goulier (Institute for" over "Geoinformatics, University of ...)": the third name was dropped
    from test_unseen4_round37 import _body_page, _compile

    title_page = [("Publishing research: a review of the tools", 90, 150, 20.7),
                  ("Authors: Jane Roewright* (jr@example.org), Karl Doeberg, Lena Smithfield (Institute for", 72, 220, 11),
                  ("Geoinformatics, University of Somewhere, Somewhere, Germany)", 72, 234, 11),
                  ("*Corresponding author", 72, 262, 11)]
    doc = _compile(tmp_path, [title_page, _body_page(), _body_page()])
    assert [a.name for a in doc.metadata.authors] == ["Jane Roewright", "Karl Doeberg", "Lena Smithfield"]
