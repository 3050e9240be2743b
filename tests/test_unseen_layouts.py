"""Layouts met on papers outside the development corpus (benchmarks/data/unseen_papers.json),
each rebuilt here as a small PDF with the one property that failed: an IEEE byline with society
grades, a JMLR name-and-e-mail line, a margin column beside the title (ReScience), a journal's
cover sheet before the paper (ScholarOne), right-margin line numbers (MDPI), running heads with
the page number before or after them (Springer Nature), a chapter above its own contents list
(minitoc), an outline whose first bookmark is the document's title (REVTeX), and from the second
set (2026-12-03) a bibliography labelled by bare numbers in the margin (LIPIcs), line numbers on
every fifth line (Copernicus), bare subsections under numbered sections and a "Box 1:" heading
(PLOS), a centred small-caps heading over two lines (IEEE journal), a subsection title ending in a
period (IEEE TSE), an ORCID mark (ReScience) and a date placeholder as a name (thesis), and from
the third set running heads set low on an A4 page (JSS), a bibliography without a title and with
alphabetic labels (elsarticle), a double-spaced title and names broken over byline lines (A&A
referee copy), a float on the bibliography's page (JSS) and acmart's one-author-a-line bylines
(acmsmall), and from the fourth set run-in subsections in a sans heading face (PNAS, also one
opening a line inside a block; not below real subsections, as LIPIcs's \\paragraph, nor in the
body's own family), an unnumbered subsection asking a question (PLOS), numbered affiliation
lines of a hand-set byline and a venue line after a title's full stop in a list spaced, not
indented (MBE), a title asking a question mid-way, a subject label above the title, a running head
with its page number on a two-page paper and a year opening an entry's second line (Bioinformatics
application note), a mass number before an element in the title and a byline line opening with a
bare initial "V" (IOP), and from the fifth set an affiliations footnote holding the next notes'
marks and an unmarked notice under it (ICML), a margin note on the title's baseline, italic
sub-headings and a "References" section of prose (Tufte handout), a draft's crop marks and build
stamp (Bioinformatics) and bracketed lists of integers in a report without a bibliography
(amsart), and from the sixth set a sidenote on a body line's baseline (Tufte), sections and
subsections in one face (MBE), a known title set like the subsections (Scientific Data), a section
after the abstract on the title page (PLOS), a raised digit inside a heading (ACL camera-ready), a
letter-spaced label (Elsevier CAS), run-in subsections over a sans body and a running foot under
the list (bioRxiv), numbered run-in subsubsections (IEEEtran draft and compsoc conference), and the score's count for a
paper printing no list; then affiliation keys opening their lines (CAS), initials glued as printed
(CAS), an organisation in an author block's smaller italic (IEEEtran compsoc) and running feet whose
parts change sides (bioRxiv), and from the seventh set sections and subsections set run-in with
their numbers (siamart), a labelled line of collaborators under the byline (siamart), a list
printed without a title and its entries in one block, with a float's "FIG. 2." caption among them,
and a "(Dated: ...)" line under the addresses (REVTeX PRL), and from the eighth set (2026-12-06) a
justified block spaced wider than the body (achemso's double-spaced abstract, WileyNJD's summary)
and a double-spaced caption, raised marks longer than the name before them (llncs's ORCID iDs), a
generation after a surname (achemso), a German bibliography title (KOMA-Script), caption labels in
capitals (WileyNJD, REVTeX), raised text in a caption and a known title set like the numbered
subsections (llncs's \\subsection*{Appendix}), and from the ninth set (round 26) bookmarks that all
lead to page 1 (Frontiers through pandoc), an article type in capitals over a bold title (Taylor &
Francis), a title beside a masthead in small type (SAGE), the journal's name set large over the title
(RSC), numbered run-in subsubsections in a face of their own (SAGE), a numbered list going on past the
section number (RSC), a numbered heading hung over two lines (SAGE, RSC) and a line number alone on a
page of figures (eLife), and from the tenth set (round 27) subsections told from the text by their
sans face only, two headings in a row in one type and numbered entries going on at a page's foot
(BMC bmcart). The scores on the real papers are in
benchmarks/corpus.py --papers benchmarks/.cache/unseen (the floors test, skipped without that folder)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from _front_pages import compile_pages, names
from _pdfgen import _assemble, make_pdf
from ctxmill.compile import layout
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document, compile_stream
from ctxmill.model import OutlineEntry
from ctxmill.sources import load_source
from ctxmill.sources.pdf import _without_root

REPO = Path(__file__).resolve().parents[1]
BODY = ("Running text of the introduction, long enough to read as the body of a paper and not as a "
        "title or a name, which goes on for a line or two and then some more.")


def body_lines(top: float, n: int = 6, x: float = 72, size: float = 10) -> list[tuple]:
    return [(BODY[:88], x, top + 12 * k, size, "Times-Roman") for k in range(n)]


def headings(doc):
    return [line for line in doc.markdown.splitlines() if line.startswith("#")]


def test_society_grades_after_names_are_not_names(tmp_path):
    doc = compile_pages(tmp_path, [[
        ("Using Language Processing to Detect Debt", 120, 80, 22, "Helvetica"),
        ("Everton Maldonado, Emad Shihab, Member, IEEE, and Nikolaos Tsantalis, Member, IEEE", 72, 130, 11,
         "Times-Roman"),
        ("Abstract—The metaphor of technical debt was introduced to express a trade off.", 72, 170, 9, "Times-Roman"),
        ("1 Introduction", 72, 230, 12, "Helvetica-Bold"), *body_lines(250)]])
    assert names(doc) == ["Everton Maldonado", "Emad Shihab", "Nikolaos Tsantalis"]


def test_a_name_with_its_email_on_one_line_is_a_name(tmp_path):
    # jmlr2e: the name left, the address right, the affiliation on the next line
    rows = [("Blocks and Fuel: Frameworks for Deep Learning", 110, 80, 17, "Helvetica-Bold")]
    for k, (name, mail) in enumerate([("Bart van Merrienboer", "bart@umontreal.ca"),
                                      ("Dzmitry Bahdanau", "d.bahdanau@jacobs.de")]):
        rows += [(name, 72, 130 + 34 * k, 11, "Times-Bold"), (mail, 400, 130 + 34 * k, 10, "Courier"),
                 ("Montreal Institute for Learning Algorithms, University of Montreal", 72, 144 + 34 * k, 10,
                  "Times-Roman")]
    rows += [("Abstract", 280, 220, 11, "Times-Bold"), ("1 Introduction", 72, 260, 12, "Helvetica-Bold"),
             *body_lines(280)]
    doc = compile_pages(tmp_path, [rows])
    assert names(doc) == ["Bart van Merrienboer", "Dzmitry Bahdanau"]


def test_a_margin_column_beside_the_title_is_neither_title_nor_authors(tmp_path):
    # ReScience: the journal's name level with the title's first line, the editor and the
    # reviewers under it, all in small type left of the text block
    doc = compile_pages(tmp_path, [[
        ("Reproduction / Genetics", 128, 94, 10, "Helvetica"),
        ("R E S C I E N C E C", 12, 108, 9, "Helvetica"),
        ("Reproducibility report: Identifying essential", 128, 120, 17, "Helvetica-Bold"),
        ("genes by mutagenesis", 128, 142, 17, "Helvetica-Bold"),
        ("Karl W. Broman", 128, 170, 10, "Helvetica"),
        ("Edited by", 60, 228, 8, "Helvetica"), ("Karthik Ram", 50, 238, 8, "Helvetica"),
        ("Reviewed by", 56, 258, 8, "Helvetica"), ("Leah Wang", 60, 268, 8, "Helvetica"),
        ("1 Introduction", 128, 300, 12, "Helvetica-Bold"), *body_lines(320, 8, x=128)]])
    assert doc.metadata.title == "Reproducibility report: Identifying essential genes by mutagenesis"
    assert names(doc) == ["Karl W. Broman"]


def test_a_cover_sheet_gives_the_title_and_the_paper_the_byline(tmp_path):
    title = ("Detecting Self-Admitted Technical Debt", 150, 90, 20, "Helvetica")
    doc = compile_pages(tmp_path, [
        [title, ("Journal: Transactions on Software Engineering", 72, 160, 11, "Times-Roman"),
         ("Manuscript ID TSE-2015-12-0397.R2", 72, 176, 11, "Times-Roman"),
         ("Keywords: technical debt, comments", 72, 192, 11, "Times-Roman")],
        [title, ("Everton Maldonado, Emad Shihab and Nikolaos Tsantalis", 120, 130, 11, "Times-Roman"),
         ("Abstract—The metaphor of technical debt was introduced to express a trade off.", 72, 170, 9,
          "Times-Roman"),
         ("1 Introduction", 72, 230, 12, "Helvetica-Bold"), *body_lines(250)]])
    assert doc.metadata.title == "Detecting Self-Admitted Technical Debt"
    assert names(doc) == ["Everton Maldonado", "Emad Shihab", "Nikolaos Tsantalis"]


def test_right_margin_line_numbers_set_flush_right_are_removed(tmp_path):
    # MDPI submit mode: 5 pt numbers 9 pt right of the text, "98", "99", "100" flush right
    rows = []
    for k in range(12):
        n = str(95 + k)
        rows.append((BODY[:80], 166, 100 + 12 * k, 10, "Times-Roman"))
        rows.append((n, 573 if len(n) == 2 else 570, 100 + 12 * k, 5, "Times-Roman"))
    stream = load_source(make_pdf(tmp_path / "n.pdf", [rows], size=(595, 842)), CompileOptions(fast=True))
    page = stream.pages[0]
    assert layout.strip_line_numbers(page) == 12
    assert not any(line.text.rstrip()[-2:].isdigit() for line in page.lines)


TOPICS = ["Motion", "Delays", "Kernels", "Accuracy", "Learning", "Limits"]


def test_running_heads_with_the_page_number_on_either_side_are_not_sections(tmp_path):
    head = "Learning Delays for Motion Detection in Spiking Neurons"
    pages = []
    for p in range(1, 6):  # five pages: each form of the head repeats only twice
        rows = [(f"{p} {head}" if p % 2 == 0 else f"{head} {p}", 72, 30, 10, "Times-Italic")] if p > 1 else [
            (head, 90, 70, 18, "Times-Bold")]
        rows += [(f"{p} Section on {TOPICS[p - 1]}", 72, 110, 14, "Times-Bold"), *body_lines(130, 20)]
        pages.append(rows)
    doc = compile_pages(tmp_path, pages)
    assert headings(doc)[1:] == [f"## {p} Section on {TOPICS[p - 1]}" for p in range(1, 6)]


def test_a_chapter_above_its_own_contents_list_keeps_its_number(tmp_path):
    contents = [("Contents", 72, 150, 12, "Times-Bold")] + [
        (f"1.{k} Topic number {k} . . . . . . . . {k + 1}", 90, 168 + 14 * k, 10, "Times-Roman") for k in range(1, 5)]
    pages = [[("A Template for a Thesis", 150, 200, 24, "Times-Bold"), ("Ian Paul Freely", 220, 300, 17)],
             [("Chapter 1", 72, 60, 24, "Times-Bold"), ("The One And Only", 72, 100, 24, "Times-Bold"), *contents]]
    for k in range(1, 5):
        pages.append([(f"1.{k} Topic number {k}", 72, 80, 17, "Times-Bold"), *body_lines(110, 20)])
    doc = compile_pages(tmp_path, pages)
    assert "## 1 The One And Only" in headings(doc)
    assert [h for h in headings(doc) if h.startswith("### ")] == [f"### 1.{k} Topic number {k}" for k in range(1, 5)]


def test_a_lone_title_bookmark_above_the_sections_is_not_a_level():
    E = OutlineEntry
    revtex = [E(1, "Adversarial Optimization", 1), E(2, "Abstract", 1), E(2, "Introduction", 1),
              E(3, "Background", 1), E(2, "Experiments", 4)]
    assert [(o.level, o.title) for o in _without_root(revtex)] == [
        (1, "Abstract"), (1, "Introduction"), (2, "Background"), (1, "Experiments")]
    book = [E(1, "Part I", 1), E(2, "Chapter", 2), E(1, "Part II", 9), E(2, "Chapter", 10)]
    assert _without_root(book) == book


@pytest.mark.skipif(not (REPO / "benchmarks" / ".cache" / "unseen").is_dir(),
                    reason="unseen papers not built (benchmarks/unseen_truth.py)")
def test_unseen_papers_floors():
    """Floors on the real unseen papers, a little under what was measured (2026-12-06, round 27,
    main 70d83d4: 50 papers, heading recall mean 0.983, min 0.786 - the LLNCS paper's three run-in
    \\subsubsection* leads, read as text (next lowest: elsarticle 0.857, IEEE Access 0.889 - its
    "B. COMPARISON ..." subsection and "1) Detection Performance" read into Table 5's rows); levels
    0.998; titles 50/50; authors 185/189 - imsart 0/3 (VTeX's placeholder "BY FIRST AUTHOR*1,a, ..."
    in capitals, marks between the names) and Frontiers 2/3 ("Grünwald" has no ü in its text layer);
    reference counts 50/50). No paper is exempt. Round 29 (main a55402f) adds a thirteenth set of five
    documents, three of them not papers (round29_unseen_rule.md): all 60 score recall 0.978, min 0.667 (the
    PeerJ submission's capitals heads beside line numbers; the Beamer deck 0.727), levels 0.958, titles 59/60
    (the Eisvogel book prints no title on page 1), authors 213/221 (Optica's capitals byline 0/2), reference
    counts 57/60 (the deck's and the Optica draft's lists are not found, PeerJ's over-split). Round 30 (main
    8e2d8f6) adds a fourteenth set of five documents that are not papers (round30_unseen_rule.md: a poster, a
    Doxygen manual, a cheat sheet, a classicthesis thesis, a problem sheet): all 65 with its fixes score recall
    0.970, min 0.167 (the problem sheet's run-in 'Problem n.' heads, read as text), levels 0.998. Round 31 adds
    a fifteenth set of five documents that are not papers (round31_unseen_rule.md: a moderncv CV, a notebook
    exported by nbconvert, an exam, scribe notes, a memoir book demo): all 70 score recall 0.958, min 0.0 (the
    memoir demo's two heads: a chapter line holding its number, a small-caps title and a 'Day 1' marker, and a
    colophon head after its page number), levels 0.984, titles 70/70, authors 223/231; with the round's fixes
    (main 74cf569) recall 0.979, min 0.5 (the memoir demo's colophon head), levels 0.998, authors 224/231: the
    floors are mean 0.97, min 0.45. Round 32 adds a sixteenth set (round32_unseen_rule.md: an ACM sigconf paper, a
    USENIX paper, a German lab report, a data report, a tikzposter poster): with the round's fixes all 75 score recall
    0.975, min 0.5, levels 0.998, titles 74/75 (the lab report's cover is a form with no title line), authors 229/240
    (the lab report's 0/3 names in the form's cells, the poster's placeholder 'Author(s)'), reference counts 75/75:
    the authors' floor is truth - 12 (it was truth - 9: the new set lowers it). Round 33 adds a seventeenth set
    (round33_unseen_rule.md: a beamerposter poster, ltxdoc documentation from a .dtx, a requirements document, a
    Springer svmult chapter, a bookdown book): with the round's fixes all 80 score recall 0.977, min 0.5, levels
    0.998, titles 79/80, authors 238/249, reference counts 79/80 (the poster's abbrv entries split at \\newblock):
    every floor holds unchanged."""
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "corpus.py"), "--papers",
                          str(REPO / "benchmarks" / ".cache" / "unseen")], capture_output=True, text=True,
                         timeout=1200, check=True)
    res = json.loads(out.stdout)
    s = res["summary"]
    assert s["refused_or_failed"] == 0
    recall = [p["headings"]["recall"] for p in res["papers"]]
    assert sum(recall) / len(recall) >= 0.97
    assert min(recall) >= 0.45
    assert s["heading_level_accuracy_mean"] >= 0.95
    found, truth = map(int, s["authors_found"].split("/"))
    assert found >= truth - 12
    t_ok, n = map(int, s["titles_exact"].split("/"))
    assert t_ok >= n - 1
    counts_ok, n = map(int, s["reference_counts_within_10pct"].split("/"))
    assert counts_ok >= n - 4


def test_blank_pages_of_a_two_sided_thesis_are_one_finding(tmp_path):
    pages = [[("A Template for a Thesis", 150, 200, 24, "Times-Bold")], []]
    for k in range(1, 5):
        pages += [[(f"{k} Chapter on {TOPICS[k]}", 72, 80, 17, "Times-Bold"), *body_lines(110, 20)], []]
    from ctxmill.compile import quality

    checks = [c for c in quality.assess(compile_pages(tmp_path, pages)).checks if c.id == "empty_page"]
    assert len(checks) == 1 and checks[0].severity == "info"
    assert checks[0].message.startswith("5 pages have no text") and "2, 4, 6, 8, 10" in checks[0].message


def test_double_spaced_lines_are_one_paragraph(tmp_path):
    # a thesis at 1.5 spacing: 12 pt type, 18 pt from baseline to baseline
    words = BODY.split()
    lines = [" ".join(words[k:k + 9]) for k in range(0, 36, 9)]
    pages = [[("A Template for a Thesis", 150, 200, 24, "Times-Bold")]]
    for p in range(3):
        rows = [(f"{p + 1} Chapter on {TOPICS[p]}", 72, 80, 17, "Times-Bold")]
        for para in range(3):
            rows += [(t, 72, 130 + 100 * para + 18 * k, 12, "Times-Roman") for k, t in enumerate(lines)]
        pages.append(rows)
    doc = compile_pages(tmp_path, pages)
    paras = [b for b in doc.blocks if b.kind.value == "paragraph" and b.page > 1]
    assert len(paras) == 9 and all(b.text.startswith("Running text") for b in paras)


def test_a_back_matter_label_ending_in_a_colon_is_no_heading(tmp_path):
    doc = compile_pages(tmp_path, [[
        ("Multimodel Approaches to Multifactorial Systems", 72, 80, 18, "Helvetica-Bold"),
        ("1 Introduction", 72, 130, 12, "Helvetica-Bold"), *body_lines(150, 8),
        ("2 Discussion", 72, 270, 12, "Helvetica-Bold"), *body_lines(290, 8),
        ("Acknowledgments:", 72, 400, 9, "Helvetica-Bold"), (BODY[:80], 72, 412, 9, "Times-Roman")]])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Discussion"]


def test_a_footnote_numbered_in_line_before_a_reference_column_is_a_footnote(tmp_path):
    # IEEE compsoc: "1. https://..." at the foot of the left column, the [n] entries going on in
    # the right one (it swallowed 49 entries of the TSE paper)
    def ref(k, x, y):
        return (f"[{k}] A. Author, \u201cA title of paper {k},\u201d in Proc. Conf., 2012.", x, y, 8, "Times-Roman")

    page2 = [ref(k, 60, 60 + 30 * k) for k in range(1, 11)] + [ref(k, 320, 60 + 30 * (k - 10)) for k in range(11, 21)]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [
        [("A Paper With Footnotes", 180, 80, 20, "Helvetica"), ("1 Introduction", 60, 130, 12, "Helvetica-Bold"),
         *body_lines(150, 30, x=60, size=9.5), ("References", 60, 560, 10, "Helvetica-Bold")],
        page2[:10] + [("1. https://github.com/example/replication", 68, 740, 8, "Times-Roman")] + page2[10:]]),
        CompileOptions())
    assert len(doc.references) == 20
    assert any(b.kind.value == "footnote" and "github.com" in b.text for b in doc.blocks)


def test_bare_numbers_of_a_bibliography_in_the_margin_are_labels_not_line_numbers(tmp_path):
    # LIPIcs: "1".."11" set flush right in the margin before two-line entries, no brackets and no
    # period; read as a column of line numbers they were dropped and the entries ran together
    rows = [("A Paper in LIPIcs Style", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 90, 100, 12,
                                                                       "Helvetica-Bold"),
            *body_lines(120, 6, x=90), ("References", 115, 210, 10, "Helvetica-Bold")]
    surnames = ["Büchi", "Carayol", "Choffrut", "Comon", "Doner", "Gurevich", "Pin", "Rabinovich", "Siefkes",
                "Thomas", "Walker"]
    for k, name in enumerate(surnames, start=1):
        y = 230 + 26 * k
        rows += [(str(k), 119 - 5 * len(str(k)), y, 9, "Helvetica-Bold"),
                 (f"Anna {name}. A study of automata number {k} on finite trees.", 132, y, 9, "Times-Roman"),
                 (f"Journal of Symbolic Logic, {k}(3):1-20, 19{60 + k}.", 132, y + 12, 9, "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows]), CompileOptions())
    assert [r.title for r in doc.references] == [f"A study of automata number {k} on finite trees"
                                                 for k in range(1, 12)]
    assert doc.references[0].authors == ["Anna Büchi"]


def test_line_numbers_on_every_fifth_line_are_removed(tmp_path):
    # Copernicus manuscripts (lineno's \modulolinenumbers[5]): "290", "295", ... left of every
    # fifth line; kept, they started bibliography entries and cut the others short
    rows = []
    for k in range(40):
        rows.append((BODY[:80], 55, 80 + 12 * k, 10, "Times-Roman"))
        if (k + 1) % 5 == 0:
            rows.append((str(285 + k + 1), 31, 80 + 12 * k, 8, "Times-Roman"))
    stream = load_source(make_pdf(tmp_path / "n.pdf", [rows]), CompileOptions(fast=True))
    page = stream.pages[0]
    assert layout.strip_line_numbers(page) == 8
    assert not any(line.text[:1].isdigit() for line in page.lines)
    # a page of display equations (lineno skips them) keeps three numbers, in the margin
    rows = [(BODY[:80], 55, 80, 10, "Times-Roman"), ("185", 31, 80, 8, "Times-Roman"),
            ("(12)", 540, 140, 10, "Times-Roman"), ("190", 31, 140, 8, "Times-Roman"),
            *[(BODY[:70], 55, 170 + 12 * k, 10, "Times-Roman") for k in range(8)],
            ("195", 31, 230, 8, "Times-Roman")]
    stream = load_source(make_pdf(tmp_path / "e.pdf", [rows]), CompileOptions(fast=True))
    assert layout.strip_line_numbers(stream.pages[0]) == 3


def test_unnumbered_subsections_under_numbered_sections_are_headings(tmp_path):
    # PLOS: "1 Data Management" numbered (the paper's own \section macro), the \subsection* under
    # it bare, bold and smaller; line numbers in 5 pt at the right, only 7 on the first page
    def numbered(rows, first):
        return [[r, (str(first + k), 593, r[2], 5, "Times-Roman")] for k, r in enumerate(rows)]

    page1 = [("Good Enough Practices in Scientific Computing", 198, 80, 17, "Helvetica-Bold"),
             ("Greg Wilson, Jennifer Bryan, Karen Cranston", 198, 110, 10, "Times-Roman")]
    intro = [("Introduction", 198, 600, 14.3, "Helvetica-Bold")] + body_lines(624, 6, x=198)
    page1 += [cell for row in numbered(intro, 1) for cell in row]
    page2 = [("1 Data Management", 198, 80, 14.3, "Helvetica-Bold"), *body_lines(100, 8, x=198),
             ("Manual Versioning", 198, 210, 12, "Helvetica-Bold"), *body_lines(230, 8, x=198),
             ("2 Software", 198, 340, 14.3, "Helvetica-Bold"), *body_lines(360, 8, x=198),
             ("Version Control Systems", 198, 470, 12, "Helvetica-Bold"), *body_lines(490, 8, x=198)]
    doc = compile_pages(tmp_path, [page1, page2])
    assert headings(doc)[1:] == ["## Introduction", "## 1 Data Management", "### Manual Versioning",
                                 "## 2 Software", "### Version Control Systems"]


# Times-Roman advance widths (AFM, per 1000 em) of what the small-caps headings below use
_TIMES = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ., ", [722, 667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889,
                                                   722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611,
                                                   250, 250, 250], strict=True))


def small_caps(text: str, centre: float, y: float) -> list[tuple]:
    """A heading in LaTeX's fake small caps (IEEE): each word's first capital in 10 pt, the rest
    in 8 pt, as separate text objects on one baseline, centred on ``centre``."""
    runs, word_start = [], True
    for ch in text:
        size = 10 if word_start or not ch.isalpha() else 8
        if runs and runs[-1][1] == size:
            runs[-1][0] += ch
        else:
            runs.append([ch, size])
        word_start = ch == " "
    widths = [sum(_TIMES[c] for c in t) * sz / 1000 for t, sz in runs]
    x = centre - sum(widths) / 2
    out = []
    for (t, sz), w in zip(runs, widths, strict=True):
        out.append((t, x, y, sz, "Times-Roman"))
        x += w
    return out


def test_a_centred_heading_broken_over_two_lines_is_one_heading(tmp_path):
    # IEEE journal: "II. THE DESIGN, INTENT, AND" centred over "LIMITATIONS OF THE TEMPLATES" in
    # small caps (10 pt capitals, 8 pt the rest: the lines start at different x and are not
    # joined); a table's label in capitals over its caption is no heading either
    col = [*small_caps("I. INTRODUCTION", 175, 100), *body_lines(116, 8, x=49, size=9.5),
           *small_caps("II. THE DESIGN, INTENT, AND", 175, 230), *small_caps("LIMITATIONS OF THE TEMPLATES", 175, 242),
           *body_lines(258, 8, x=49, size=9.5),
           *small_caps("TABLE I", 175, 370), *small_caps("AN EXAMPLE OF A TABLE", 175, 380),
           *small_caps("III. OTHER RESOURCES", 175, 420), *body_lines(436, 8, x=49, size=9.5)]
    doc = compile_pages(tmp_path, [[("A Sample Article Using IEEEtran", 150, 60, 22, "Times-Roman"), *col]])
    assert headings(doc)[1:] == ["## INTRODUCTION", "## THE DESIGN, INTENT, AND LIMITATIONS OF THE TEMPLATES",
                                 "## OTHER RESOURCES"]


def test_an_orcid_mark_after_a_name_is_no_dangling_footnote(tmp_path):
    # ReScience: the "iD" of an ORCID icon, raised after each editor's and reviewer's name
    from ctxmill.compile import quality

    doc = compile_document(make_pdf(tmp_path / "p.pdf", [[
        ("Reproducibility report: Identifying essential genes", 128, 100, 17, "Helvetica-Bold"),
        ("Karl W. Broman", 128, 130, 10, "Helvetica"), ("1", 196, 126, 6, "Helvetica"),
        ("Edited by", 40, 200, 8, "Helvetica"), ("Karthik Ram", 40, 210, 8, "Helvetica"),
        ("ID", 86, 206, 5, "Helvetica"),
        ("1 Introduction", 128, 260, 12, "Helvetica-Bold"), *body_lines(280, 8, x=128)]]), CompileOptions())
    assert "[^ID]" not in doc.markdown
    assert not [c for c in quality.assess(doc).checks if c.id == "missing_target"]


def test_a_title_pages_date_placeholder_is_no_author(tmp_path):
    # a thesis template's title page: "Month Year" where the date goes (and a real date the same)
    for date in ("Month Year", "February 2013"):
        doc = compile_pages(tmp_path, [[
            ("A Template for Creating a PhD Thesis", 150, 150, 20, "Times-Bold"),
            ("Ian Paul Freely", 250, 250, 14, "Times-Roman"),
            ("Submitted in total fulfilment of the requirements of the degree of", 150, 330, 11, "Times-Roman"),
            ("Doctor of Philosophy", 250, 345, 11, "Times-Roman"),
            (date, 265, 400, 12, "Times-Roman"),
            ("Department of the University", 230, 450, 11, "Times-Roman")],
            [("1 Introduction", 72, 80, 17, "Times-Bold"), *body_lines(110, 20)]])
        assert names(doc) == ["Ian Paul Freely"], date


def test_a_labelled_heading_in_section_type_ends_the_bibliography(tmp_path):
    # PLOS: "Box 1: Summary of Practices" after the references, set like the sections; read as a
    # run-in lead it stayed text and its lines became five more entries of the list
    page1 = [("Good Enough Practices in Scientific Computing", 198, 60, 17, "Helvetica-Bold"),
             ("1 Data Management", 198, 100, 14.3, "Helvetica-Bold"), *body_lines(124, 10, x=198),
             ("2 Software", 198, 260, 14.3, "Helvetica-Bold"), *body_lines(284, 10, x=198),
             ("References", 198, 420, 14.3, "Helvetica-Bold")]
    page1 += [(f"{k}. Author{'ABCDEFGH'[k - 1]} A, Writer B. A study of practice number {k}. J Comput. 2016.",
               198, 440 + 14 * k, 9, "Times-Roman") for k in range(1, 9)]
    page2 = [("Box 1: Summary of Practices", 198, 80, 14.3, "Helvetica-Bold"),
             *[(f"{k}. Save the raw data number {k} as it came, and keep it where it is safe.", 211, 104 + 14 * k,
                8, "Times-Roman") for k in range(1, 7)]]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [page1, page2]), CompileOptions())
    assert "## Box 1: Summary of Practices" in headings(doc)
    assert len(doc.references) == 8


def test_a_subsection_title_ending_in_a_period_is_a_heading(tmp_path):
    # IEEE TSE (compsoc): the appendix's second subsection is typed "... Classifiers." and set in
    # the bold of the numbered subsections, alone on its line
    page = [("Identifying Self-Admitted Technical Debt", 150, 60, 20, "Helvetica"),
            ("1 Introduction", 48, 100, 12, "Helvetica-Bold"), *body_lines(118, 6, x=48, size=9.5),
            ("1.1 Source Code Comments", 48, 200, 9.5, "Times-Bold"), *body_lines(216, 6, x=48, size=9.5),
            ("1.2 Technical Debt", 48, 300, 9.5, "Times-Bold"), *body_lines(316, 6, x=48, size=9.5),
            ("Detailed Precision and Recall Values When Using Classifiers.", 48, 400, 9.5, "Times-Bold"),
            *body_lines(416, 6, x=48, size=9.5)]
    doc = compile_pages(tmp_path, [page])
    assert headings(doc)[-1] == "### Detailed Precision and Recall Values When Using Classifiers."


def test_exponents_in_a_table_are_no_dangling_footnotes(tmp_path):
    # Copernicus: "5 × 10⁻³" and "m s⁻¹" in a parameter table; the raised "-" and "3" were
    # footnote markers [^-][^3] in the cells (18 dangling markers on one page)
    rows = [("1 Introduction", 72, 80, 12, "Helvetica-Bold"), *body_lines(100, 6),
            ("Table 1. Parameters of the groundwater model.", 72, 200, 9, "Times-Roman"),
            ("Symbol", 80, 222, 9, "Times-Bold"), ("Value", 180, 222, 9, "Times-Bold"),
            ("Description", 330, 222, 9, "Times-Bold")]
    params = [("cS", "5 × 10", "3", "", "Specific storage coefficient"),
              ("K0", "5 × 10", "6", " m s", "Hydraulic conductivity of the lower layer"),
              ("KU", "8 × 10", "5", " m s", "Hydraulic conductivity of the upper layer"),
              ("n", "3 × 10", "1", "", "Porosity of the weathered layer"),
              ("L", "1 × 10", "2", " m", "Length of the hillslope")]
    for k, (sym, mant, exp, unit, desc) in enumerate(params):
        y = 238 + 14 * k
        rows += [(sym, 80, y, 9, "Times-Roman"), (mant, 180, y, 9, "Times-Roman"),
                 ("-", 205, y - 3, 6, "Times-Roman"), (exp, 208, y - 3, 6, "Times-Roman"),
                 (desc, 330, y, 9, "Times-Roman")]
        if unit:
            rows += [(unit, 213, y, 9, "Times-Roman"), ("-", 232, y - 3, 6, "Times-Roman"),
                     ("1", 235, y - 3, 6, "Times-Roman")]
    rows += body_lines(330, 6)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows]), CompileOptions())
    assert any(b.kind.value == "table" for b in doc.blocks)
    table = next(b for b in doc.blocks if b.kind.value == "table")
    assert "[^" not in doc.markdown and "10⁻³" in str(table.attrs["rows"])


def test_a_raised_letter_in_a_table_cell_stays_a_mark_not_escaped_markup():
    # an OCR'd table raises stray letters ("Capabilit[^y],"): written as <sup>y</sup> they were
    # escaped into visible "&lt;sup&gt;" in HTML cells; only signs and digits become exponents
    from ctxmill.compile.structure import _cell_marks

    assert _cell_marks("Capabilit[^y], Safety") == "Capabilit[^y], Safety"
    assert _cell_marks("ris[^k] [^a]ssessment") == "ris[^k] [^a]ssessment"
    assert _cell_marks("5 × 10[^-][^3] m s[^-][^1]") == "5 × 10⁻³ m s⁻¹"


# ---- third set (2026-12-03, session 10): JSS, A&A referee copy, elsarticle math with an untitled
# alpha-labelled bibliography, PNAS


def test_running_heads_set_low_on_an_a4_page_are_not_sections(tmp_path):
    # jss.cls: "2 Evaluating Forecasts ..." on even pages and "Journal of Statistical Software 3" on
    # odd ones, 76 pt down an A4 page (0.09 of it, under the 0.075 band): three of them were sections
    head = "Evaluating Forecasts with scoringutils in R"
    pages = []
    for p in range(1, 9):
        rows = [(f"{p} {head}" if p % 2 == 0 else f"Journal of Statistical Software {p}", 81, 76, 10,
                 "Times-Roman")] if p > 1 else [("Evaluating Covid-19 Forecasts", 90, 110, 18, "Helvetica-Bold")]
        rows += [(f"{p} Section on {TOPICS[(p - 1) % 6]}", 81, 130, 14, "Helvetica-Bold"), *body_lines(150, 20, x=81)]
        pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages, size=(595, 842)), CompileOptions(fast=True))
    assert headings(doc)[1:] == [f"## {p} Section on {TOPICS[(p - 1) % 6]}" for p in range(1, 9)]
    assert "Journal of Statistical Software" not in doc.markdown


def test_an_untitled_bibliography_with_alphabetic_labels_is_read(tmp_path):
    # elsarticle's preprint thebibliography printed without a heading after the acknowledgements:
    # "[AKV13] ...", "[BC11] ...", in alphabetical order to the end of the paper
    labels = ["AKV13", "BC11", "BJJS11", "CTU15", "Hat02", "JKR15", "MS15"]
    surnames = ["Avgustinovich", "Branden", "Burstein", "Claesson", "Hatcher", "Jones", "McNamara"]
    pages = [[("The Poset of Mesh Patterns", 150, 60, 18, "Times-Bold")]]
    for k in range(1, 7):  # the list is the last part of the paper, not most of it
        y = 100 + 100 * ((k - 1) % 3)
        pages[-1] += [(f"{k} Section on {TOPICS[k - 1]}", 72, y, 12, "Times-Bold"), *body_lines(y + 20, 6)]
        if k % 3 == 0:
            pages.append([])
    rows = [("Acknowledgements", 72, 60, 12, "Times-Bold"), *body_lines(80, 2)]
    for k, (lab, name) in enumerate(zip(labels, surnames, strict=True)):
        y = 130 + 30 * k
        rows += [(f"[{lab}] Anna {name}. A study of mesh patterns number {k}.", 72, y, 10, "Times-Roman"),
                 (f"Discrete Mathematics, {k + 1}(2):1-20, 20{10 + k}.", 90, y + 12, 10, "Times-Roman")]
    pages[-1] = rows
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert [r.title for r in doc.references] == [f"A study of mesh patterns number {k}" for k in range(len(labels))]


def test_a_double_spaced_title_over_three_lines_is_one_title(tmp_path):
    # aa.cls [referee]: 16 pt title lines on 33 pt baselines, then a byline whose names break over
    # lines ("..., Lastufka" / "Erica¹, ..."); an acmart byline's lines end with a country and
    # start with the next name, unmarked: each line is one name and its affiliation
    def byline(y, parts):  # [(text, mark)]: the text, then its affiliation mark raised after it
        rows, x = [], 45.0
        for text, mark in parts:
            rows.append((text, x, y, 11, "Times-Roman"))
            x += 5.6 * len(text)
            if mark:
                rows.append((mark, x, y - 4, 7, "Times-Roman"))
                x += 5.0
        return rows

    doc = compile_pages(tmp_path, [[
        ("Data processing pipelines and the data platform", 52, 138, 16.4, "Helvetica-Bold"),
        ("for the X-ray spectrometer STIX onboard", 60, 171, 16.4, "Helvetica-Bold"),
        ("Solar Orbiter", 188, 204, 16.4, "Helvetica-Bold"),
        *byline(241, [("Hualin Xiao", "1"), (", Shane Maloney", "2"), (", Ewan Dickson", "4"), (", Lastufka", "")]),
        *byline(263, [("Erica", "1"), (", Nicky Hochmuth", "1"), (", Ryan Daniel", "1"), (", Frederic", "")]),
        *byline(284, [("Schuller", "7"), (", and Olivier Limousin", "5")]),
        ("1 Introduction", 72, 340, 12, "Helvetica-Bold"), *body_lines(360, 10)]])
    assert doc.metadata.title == ("Data processing pipelines and the data platform for the X-ray spectrometer STIX "
                                  "onboard Solar Orbiter")
    assert names(doc) == ["Hualin Xiao", "Shane Maloney", "Ewan Dickson", "Lastufka Erica", "Nicky Hochmuth",
                          "Ryan Daniel", "Frederic Schuller", "Olivier Limousin"]



def test_a_float_on_the_bibliographys_page_is_no_entry(tmp_path):
    # a knitr draft (JSS) sets a figure, its R call and its caption on the page of the references:
    # the code line, the plot's turned axis labels and the caption were read as three more entries
    rows = [("Forecast Evaluation in R", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 72, 100, 12,
                                                                        "Helvetica-Bold"),
            *body_lines(120, 20), ("References", 72, 380, 12, "Helvetica-Bold")]
    surnames = ["Bracher", "Dawid", "Funk", "Gneiting", "Jordan", "Timmermann"]
    y = 400
    for k, name in enumerate(surnames):
        rows.append((f"{name} A, Other B ({2000 + k}). A study of forecasts number {k}. Journal {k}, 1-20.",
                     72, y, 10, "Times-Roman"))
        y += 16
        if k == 2:  # the float, between two entries
            rows += [("> scoringutils::plot_coverage(scores)", 72, y + 4, 9, "Courier"),
                     ("France Germany Italy United Kingdom", 90, y + 120, 7, "Helvetica", True),
                     ("Figure 8: quantile and interval coverage", 200, y + 130, 10, "Times-Roman")]
            y += 150
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows]), CompileOptions())
    assert [r.title for r in doc.references] == [f"A study of forecasts number {k}" for k in range(6)]


def test_acmart_name_and_affiliation_lines_are_names(tmp_path):
    # acmsmall: "NAME, Institution, Country", one author a line, the name in small capitals; with
    # two of three parts not names, the lines were no byline (the second line's end, "China", and
    # the third's name must not be joined either)
    doc = compile_pages(tmp_path, [[
        ("Spineless Traversal for Layout Invalidation", 46, 85, 14.3, "Helvetica-Bold"),
        ("MARISA KIRISAME, University of Utah, USA", 46, 110, 10.9, "Times-Roman"),
        ("TIEZHI WANG, Tongji University, China", 46, 123, 10.9, "Times-Roman"),
        ("PAVEL PANCHEKHA, University of Utah, USA", 46, 136, 10.9, "Times-Roman"),
        *body_lines(160, 8, x=46, size=9), ("1 INTRODUCTION", 46, 280, 10, "Helvetica-Bold"), *body_lines(300, 10)]])
    assert names(doc) == ["Marisa Kirisame", "Tiezhi Wang", "Pavel Panchekha"]


def test_a_caption_in_body_type_with_a_colon_and_a_section_number_is_a_caption(tmp_path):
    # JSS and A&A set "Figure 1: ..." / "Fig. 2: ..." in the body's own type, not bold; elsarticle
    # numbers figures within sections ("Figure 2.1: ..."): neither was a caption, so 19 and 17
    # cross-references pointed at nothing
    doc = compile_pages(tmp_path, [[
        ("Evaluating Forecasts", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 72, 100, 12, "Helvetica-Bold"),
        *body_lines(120, 6), ("Figure 1: Schematic illustration of calibration and sharpness.", 120, 200, 10,
                              "Times-Roman"),
        *body_lines(230, 6), ("Figure 2.1: A pair of mesh patterns with an occurrence.", 130, 320, 10,
                              "Times-Roman"),
        *body_lines(350, 6)]])
    figures = {b.number: b.attrs.get("caption") for b in doc.blocks if b.kind.name == "FIGURE"}
    assert figures == {"1": "Schematic illustration of calibration and sharpness.",
                       "2.1": "A pair of mesh patterns with an occurrence."}


def test_an_entrys_url_in_typewriter_type_stays_in_the_entry(tmp_path):
    # the float rule above leaves monospaced lines out of the list: an entry's own URL set on a
    # line of its own in \url's typewriter type is not one of them
    rows = [("A Paper with Links", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 72, 100, 12, "Helvetica-Bold"),
            *body_lines(120, 20), ("References", 72, 380, 12, "Helvetica-Bold")]
    y = 400
    for k in range(4):
        rows.append((f"[{k + 1}] Anna Author{'abcd'[k]}. A software package number {k}. Zenodo, 20{10 + k}.",
                     72, y, 10, "Times-Roman"))
        rows.append((f"https://github.com/example/package-{k}", 90, y + 12, 9, "Courier"))
        y += 34
    # a URL broken inside, its tail on a line of its own (LNCS: "http://link.springer.com/10." over
    # "1007/s10902-009-9150-9")
    rows += [("[5] Anna Authore. A study of happiness. Journal, 2009, http://link.springer.com/10.", 72, y, 10,
              "Times-Roman"), ("1007/s10902-009-9150-9", 90, y + 12, 9, "Courier")]
    rows.append(("[6] Anna Authorf. A last entry without a link. Journal, 2020.", 72, y + 34, 10, "Times-Roman"))
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows]), CompileOptions())
    assert len(doc.references) == 6
    assert [r.url for r in doc.references[:5]] == [f"https://github.com/example/package-{k}" for k in range(4)] + [
        "http://link.springer.com/10.1007/s10902-009-9150-9"]


def run_in_page(lead_font: str) -> list[tuple]:
    """A PNAS-like page: a bold section line, then paragraphs that open with a bold lead."""
    rows = [("Serverless Experiment Management", 150, 70, 20, "Helvetica-Bold"),
            ("Methods", 72, 120, 11, lead_font)]
    y = 140
    for lead in ("Results.", "Discussion.", "Data Archival."):
        width = 6.2 * len(lead)
        rows.append((lead, 72, y, 10, lead_font))
        rows.append((BODY[:70], 72 + width + 4, y, 10, "Times-Roman"))
        rows += [(BODY[:88], 72, y + 12 * k, 10, "Times-Roman") for k in range(1, 5)]
        y += 80
    return rows


def test_run_in_subsections_in_a_sans_heading_face_are_headings(tmp_path):
    # pnas-new sets \subsection run-in in bold sans over a serif body: "Results. We ..."; the
    # standalone "Methods" in that face is the section above them
    doc = compile_pages(tmp_path, [run_in_page("Helvetica-Bold")])
    assert headings(doc)[1:] == ["## Methods", "### Results", "### Discussion", "### Data Archival"]
    assert any(p.startswith("We ") or p.startswith("Running text") for p in doc.markdown.split("\n\n")
               if not p.startswith("#"))


def test_run_in_leads_below_real_subsections_stay_text(tmp_path):
    # LIPIcs sets \\paragraph run-in in its sans heading face ("Structure of the paper."); the
    # document has numbered subsections, so its run-ins are the level below them: text
    rows = [("Serverless Experiment Management", 150, 60, 20, "Helvetica-Bold"),
            ("1 Introduction", 72, 100, 12, "Helvetica-Bold"), *body_lines(118, 4),
            ("1.1 Background", 72, 176, 11, "Helvetica-Bold"), *body_lines(194, 4)]
    y = 260
    for lead in ("Structure of the paper.", "Idea of a proof."):
        rows.append((lead, 72, y, 10, "Helvetica-Bold"))
        rows.append((BODY[:50], 72 + 6.2 * len(lead) + 4, y, 10, "Times-Roman"))
        rows += [(BODY[:88], 72, y + 12 * k, 10, "Times-Roman") for k in range(1, 5)]
        y += 80
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Introduction", "### 1.1 Background"]


def test_run_in_leads_in_the_bodys_own_family_stay_text(tmp_path):
    # article's \paragraph: a bold lead in the body's family ("Decision mapping. ...") is text
    doc = compile_pages(tmp_path, [run_in_page("Times-Bold")])
    assert not any(h.startswith("###") for h in headings(doc))


def test_numbered_affiliation_lines_of_a_hand_set_byline_are_no_sections(tmp_path):
    # an MBE manuscript set with article: the byline and "1 The Biodesign Institute, ..." lines by
    # hand in a flushleft block, in body type; the paper's own sections are unnumbered
    rows = [("COATi: statistical pairwise alignment of sequences", 72, 70, 17, "Times-Bold"),
            ("Juan J. Garcia Mesa, Ziqi Zhu, Reed A. Cartwright", 72, 100, 12, "Times-Roman"),
            ("1 The Biodesign Institute, Arizona State University, Tempe, Arizona, USA", 72, 130, 12, "Times-Roman"),
            ("2 Ira A. Fulton Schools of Engineering, Arizona State University, Tempe, USA", 72, 145, 12,
             "Times-Roman"),
            ("3 School of Life Sciences, Arizona State University, Tempe, Arizona, USA", 72, 160, 12, "Times-Roman"),
            ("Introduction", 72, 200, 12, "Times-Bold"), *body_lines(220, 6, size=12),
            ("Methods", 72, 320, 12, "Times-Bold"), *body_lines(340, 6, size=12)]
    doc = compile_pages(tmp_path, [rows])
    assert "## Introduction" in headings(doc)
    assert not any("Arizona" in h for h in headings(doc))


def test_a_venue_line_under_a_title_ending_in_a_stop_stays_in_its_entry(tmp_path):
    # mbe.bst: no hanging indent, entries set apart by space; an entry's title ends its first
    # line with a full stop and the journal starts the next ("Bioinformatics 28:495-502.")
    rows = [("References", 72, 60, 12, "Times-Bold")]
    y = 90
    for k in range(8):
        rows += [(f"Surname{chr(65 + k)} AB and Other C. 20{10 + k}. A study of alignments number {k}.", 72, y,
                  10, "Times-Roman"),
                 (f"Bioinformatics {20 + k}:495-502.", 72, y + 12, 10, "Times-Roman")]
        y += 36
    pages = [[("Aligning Sequences", 200, 60, 18, "Times-Bold"), ("1 Introduction", 72, 100, 12, "Times-Bold"),
              *body_lines(120, 8)], rows]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert len(doc.references) == 8
    assert all(r.raw.endswith(":495-502.") for r in doc.references)


def bioinfo_pages(question: str = "WTFgenes: What's The Function of these genes?") -> list[list[tuple]]:
    """A two-page Bioinformatics application note: the subject label above a title that asks a
    question mid-way, the running head '2  Names' atop page 2 over a sentence running on, and a
    natbib list with a hanging indent where one entry's second line opens with its year."""
    p1 = [("\u201cmain\u201d \u2014 2017/3/7 \u2014 21:49 \u2014 page 1 \u2014 #1", 250, 25, 8, "Times-Roman"),
          ("Bioinformatics doi.10.1093/bioinformatics/xxxxxx", 300, 50, 8, "Helvetica-Oblique"),
          ("Application Note", 300, 70, 9, "Helvetica"),
          ("Databases and ontologies", 72, 90, 14, "Helvetica"),
          (question, 72, 120, 18, "Helvetica-Bold"),
          ("Static sites for model-based gene set analysis", 72, 142, 18, "Helvetica-Bold"),
          ("Christopher J. Mungall and Ian H. Holmes", 72, 170, 12, "Helvetica-Bold"),
          ("Introduction", 72, 220, 11, "Helvetica-Bold"), *body_lines(240, 30)]
    p1[-1] = ("of the running text that goes on over the page break to the next page where it ends", 72,
              240 + 12 * 29, 10, "Times-Roman")
    p2 = [("2", 72, 60, 8, "Helvetica-Bold"), ("Christopher J. Mungall and Ian H. Holmes", 84, 60, 8,
                                                   "Helvetica-Oblique"),
          ("with the end of the sentence from the page before and more running text of the body of the", 72, 84,
           10, "Times-Roman"), *body_lines(96, 4),
          ("Results", 72, 160, 11, "Helvetica-Bold"), *body_lines(180, 6),
          ("References", 72, 270, 11, "Helvetica-Bold")]
    y = 290
    for k in range(6):
        first = f"Surname{chr(65 + k)}, A., Other, B., and Third, C."
        rows = [(first, 72, y, 8, "Times-Roman"), (f"(20{10 + k}). A study of gene sets number {k}.", 78, y + 10, 8,
                                                  "Times-Roman"),
                (f"Bioinformatics, {20 + k}(2), 1-10.", 78, y + 20, 8, "Times-Roman")] if k == 2 else \
            [(f"Surname{chr(65 + k)}, A. and Other, B. (20{10 + k}). A study of gene sets", 72, y, 8, "Times-Roman"),
             (f"number {k}. Bioinformatics, {20 + k}(2), 1-10.", 78, y + 10, 8, "Times-Roman")]
        p2 += rows
        y += 34
    return [p1, p2]


@pytest.fixture(scope="module")
def bioinfo_doc(tmp_path_factory):
    return compile_document(make_pdf(tmp_path_factory.mktemp("bio") / "p.pdf", bioinfo_pages()), CompileOptions())


def test_a_title_that_asks_a_question_mid_way_is_the_title(bioinfo_doc):
    assert bioinfo_doc.metadata.title == ("WTFgenes: What's The Function of these genes? Static sites for "
                                          "model-based gene set analysis")
    assert names(bioinfo_doc) == ["Christopher J. Mungall", "Ian H. Holmes"]


def test_a_subject_label_above_the_title_is_no_section(tmp_path):
    doc = compile_document(make_pdf(tmp_path / "p.pdf", bioinfo_pages("WTFgenes: the function of gene sets")),
                           CompileOptions(fast=True))
    assert doc.metadata.title == "WTFgenes: the function of gene sets Static sites for model-based gene set analysis"
    assert not any("Databases" in h for h in headings(doc))


def test_a_running_head_with_its_page_number_on_a_short_papers_page_is_no_section(bioinfo_doc):
    assert not any("Mungall" in h for h in headings(bioinfo_doc))
    assert bioinfo_doc.markdown.count("Mungall and Ian H. Holmes") == 1  # the byline's; the head is furniture


def test_a_year_opening_an_entrys_second_line_is_no_label(bioinfo_doc):
    # "(2012). A study ..." read as a label "(2012)" outvoted the hanging indent: one entry
    assert len(bioinfo_doc.references) == 6


def iop_title_page() -> list[tuple]:
    """iopart: a title with a mass number raised before its element ("with 9Be Nuclei"), then a
    byline of names written as bare initials over three lines, one line opening "V Kroha"."""
    rows = [("Clusterization and Coupled-Channels Effects in Deuteron Interaction with", 72, 80, 17, "Helvetica-Bold"),
            ("9", 200, 96, 10, "Helvetica-Bold"), ("Be Nuclei", 206, 100, 17, "Helvetica-Bold")]
    rows += [("B A Urazbekov, A S Denikin, S M Lukyanov,", 72, 140, 10, "Times-Bold"),
             ("V Kroha, J Mrazek, W H Trzaska,", 72, 152, 10, "Times-Bold"),
             ("I Stefan and D Verney", 72, 164, 10, "Times-Bold")]
    rows += [("Abstract. Angular distributions of protons and deuterons have been measured.", 72, 200, 10,
              "Times-Roman"), ("1. Introduction", 72, 240, 12, "Times-Bold"), *body_lines(260, 8)]
    return rows


def test_a_mass_number_before_an_element_in_the_title_is_part_of_it(tmp_path):
    doc = compile_pages(tmp_path, [iop_title_page()])
    assert doc.metadata.title == "Clusterization and Coupled-Channels Effects in Deuteron Interaction with ⁹Be Nuclei"


def test_a_byline_line_opening_with_a_bare_initial_like_v_is_no_heading(tmp_path):
    # "V Kroha, J Mrazek, ..." read as a roman-numbered heading "V Kroha" ended the byline
    doc = compile_pages(tmp_path, [iop_title_page()])
    assert names(doc) == ["B A Urazbekov", "A S Denikin", "S M Lukyanov", "V Kroha", "J Mrazek", "W H Trzaska",
                          "I Stefan", "D Verney"]


def test_an_unnumbered_subsection_asking_a_question_is_a_heading(tmp_path):
    # PLOS: "Why Two Recommendations for Manuscripts?" is a \subsection* like its neighbours; a
    # question mark ended every unnumbered candidate's chances
    page = [("Good Enough Practices in Scientific Computing", 198, 60, 17, "Helvetica-Bold"),
            ("1 Manuscripts", 198, 100, 14.3, "Helvetica-Bold"), *body_lines(120, 6, x=198),
            ("Single Master Online", 198, 200, 12, "Helvetica-Bold"), *body_lines(220, 6, x=198),
            ("Why Two Recommendations for Manuscripts?", 198, 300, 12, "Helvetica-Bold"), *body_lines(320, 6, x=198),
            ("2 Conclusion", 198, 400, 14.3, "Helvetica-Bold"), *body_lines(420, 6, x=198)]
    doc = compile_pages(tmp_path, [page])
    assert headings(doc)[1:] == ["## 1 Manuscripts", "### Single Master Online",
                                 "### Why Two Recommendations for Manuscripts?", "## 2 Conclusion"]


def test_a_run_in_subsection_inside_a_block_is_cut_out(tmp_path):
    # PNAS: "Supporting Information (SI)." opens a line right under a paragraph's last line, with
    # no space between (a column top), so the blocks stage made one block of both
    rows = run_in_page("Helvetica-Bold")
    y = 400
    rows += [(BODY[:88], 72, y + 12 * k, 10, "Times-Roman") for k in range(3)]
    rows.append(("and this paragraph ends here with its full stop.", 72, y + 36, 10, "Times-Roman"))
    rows.append(("Supporting Information.", 72, y + 48, 10, "Helvetica-Bold"))
    rows.append((BODY[:60], 72 + 6.2 * 23 + 4, y + 48, 10, "Times-Roman"))
    rows += [(BODY[:88], 72, y + 48 + 12 * k, 10, "Times-Roman") for k in range(1, 4)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[-1] == "### Supporting Information"
    assert "ends here with its full stop." in doc.markdown


# ---- fifth set (2026-12-03, evening): an ICML affiliations footnote under the first column
# (the corpus's icml-workshop-spn), the Tufte-LaTeX handout (tufte-latex's own sample)

def icml_first_page() -> list[tuple]:
    """A title, a byline with raised affiliation keys, '1 Introduction' atop the left column over
    a paragraph that runs on into the right column past the column's foot: one footnote holding
    both affiliations (the second's key glued to its text) and an unmarked notice under it."""
    col = [("Running text of the introduction that goes on", 55, 400 + 12 * k, 10, "Times-Roman") for k in range(7)]
    col.append(("and on: Optimising the objective can be", 55, 484, 10, "Times-Roman"))
    right = [("achieved by gradient ascent on the weights,", 307, 180, 10, "Times-Roman")]
    right += [("as the experiments below show in some detail.", 307, 192 + 12 * k, 10, "Times-Roman")
              for k in range(5)]
    return [
        ("Optimisation of Overparametrized Sum-Product Networks", 118, 100, 14, "Times-Bold"),
        ("Alice Trapp", 200, 150, 10, "Times-Bold"), ("1", 252, 146, 7, "Times-Roman"),
        ("Bob Peharz", 262, 150, 10, "Times-Bold"), ("2", 310, 146, 7, "Times-Roman"),
        ("1 Introduction", 55, 380, 11, "Times-Bold"), *col,
        ("1", 55, 636, 6, "Times-Roman"), ("Institute for AI, Vienna, Austria", 59, 640, 8, "Times-Roman"),
        ("2", 171, 636, 6, "Times-Roman"), ("CBL Lab, University of", 175, 640, 8, "Times-Roman"),
        ("Cambridge, United Kingdom. Correspondence to:", 55, 650, 8, "Times-Roman"),
        ("Alice Trapp <alice@example.org>.", 55, 660, 8, "Times-Roman"),
        ("TPM workshop at the International Conference", 55, 690, 8, "Times-Roman"),
        ("on Machine Learning, Long Beach, California,", 55, 700, 8, "Times-Roman"),
        ("2019. Copyright 2019 by the author(s).", 55, 710, 8, "Times-Roman"),
        *right,
    ]


def test_a_footnote_holding_the_next_notes_marks_is_one_note_per_mark(tmp_path):
    doc = compile_pages(tmp_path, [icml_first_page()])
    notes = {b.number: b.text for b in doc.blocks if b.kind.value == "footnote"}
    assert notes.get("1", "").startswith("Institute for AI") and "CBL" not in notes["1"]
    assert notes.get("2", "").startswith("CBL Lab")


def test_affiliations_in_a_first_page_footnote_after_the_first_section_are_read(tmp_path):
    doc = compile_pages(tmp_path, [icml_first_page()])
    affs = {a.name: a.affiliations for a in doc.metadata.authors}
    assert affs == {"Alice Trapp": ["Institute for AI, Vienna, Austria"],
                    "Bob Peharz": ["CBL Lab, University of Cambridge, United Kingdom"]}


def test_a_paragraph_runs_on_past_an_unmarked_notice_under_a_footnote(tmp_path):
    doc = compile_pages(tmp_path, [icml_first_page()])
    assert "objective can be achieved by gradient ascent" in doc.markdown
    assert "Copyright 2019 by the author(s)." in doc.markdown  # the notice is kept, after the paragraph


def tufte_pages() -> list[list[tuple]]:
    """tufte-handout: a title with its \\thanks as a margin note on the same baseline, an
    organisation's byline, an unlabelled abstract, a-heads in 14 pt italic (in the outline),
    b-heads in 10.9 pt italic over a 10 pt body, one b-head titled 'References' about citing,
    and the bibliography under a 'References' a-head at the end."""
    def body(top, n=3):
        return [("Running text of the handout, set in a ten point roman with a wide outer margin for", 72,
                 top + 12 * k, 10, "Times-Roman") for k in range(n)]

    p1 = [("An Example of the Usage of the Handout Style", 72, 80, 14.3, "Times-Italic"),
          ("1", 372, 76, 8, "Times-Roman"),
          ("Inspired by Edward R. Tufte!", 407, 80, 8, "Times-Roman"),
          ("The Handout Developers", 72, 105, 12, "Times-Italic"),
          ("This document describes the handout document style and it also provides examples", 84, 140, 9,
           "Times-Roman"),
          ("and comments on the use of the style, with only a brief overview presented here.", 84, 151, 9,
           "Times-Roman"),
          ("Page Layout", 72, 200, 14.3, "Times-Italic"),
          ("Headings", 72, 225, 10.9, "Times-Italic"), *body(245),
          ("Sidenotes", 72, 300, 10.9, "Times-Italic"), *body(320),
          ("References", 72, 375, 10.9, "Times-Italic"),
          ("References are placed alongside their citations as sidenotes, as well, which is done", 72, 395,
           10, "Times-Roman"), *body(407, 2),
          ("Typography", 72, 450, 14.3, "Times-Italic"),
          ("Typefaces", 72, 475, 10.9, "Times-Italic"), *body(495),
          ("Letterspacing", 72, 550, 10.9, "Times-Italic"), *body(570)]
    p2 = [("References", 72, 80, 14.3, "Times-Italic"),
          ("Robert Bringhurst. The Elements of Typography. Hartley & Marks, 3.1 edition, 2005.", 72, 105, 10,
           "Times-Roman"),
          ("Edward R. Tufte. Envisioning Information. Graphics Press, Cheshire, Connecticut, 1990.", 72, 120, 10,
           "Times-Roman"),
          ("Edward R. Tufte. Beautiful Evidence. Graphics Press, LLC, first edition, May 2006.", 72, 135, 10,
           "Times-Roman")]
    return [p1, p2]


@pytest.fixture(scope="module")
def tufte_doc(tmp_path_factory):
    path = make_pdf(tmp_path_factory.mktemp("tufte") / "p.pdf", tufte_pages())
    stream = load_source(path, CompileOptions())
    # its outline holds the a-heads only, as the handout's does
    stream.outline = [OutlineEntry(title=t, level=1, page=p) for t, p in
                      (("Page Layout", 1), ("Typography", 1), ("References", 2))]
    return compile_stream(stream, CompileOptions())


def test_a_margin_note_on_the_titles_baseline_is_no_part_of_the_title(tufte_doc):
    assert tufte_doc.metadata.title == "An Example of the Usage of the Handout Style"
    assert "Inspired by Edward R. Tufte!" in tufte_doc.markdown  # kept, after the title
    assert [a.name for a in tufte_doc.metadata.authors] == []  # no section name read as a byline


def test_italic_lines_below_the_sections_size_are_the_level_below(tufte_doc):
    assert headings(tufte_doc)[:7] == ["# An Example of the Usage of the Handout Style", "## Page Layout",
                                       "### Headings", "### Sidenotes", "### References", "## Typography",
                                       "### Typefaces"]


def test_a_references_section_of_running_text_is_not_the_bibliography(tufte_doc):
    assert [r.raw[:17] for r in tufte_doc.references] == ["Robert Bringhurst", "Edward R. Tufte. ",
                                                          "Edward R. Tufte. "]


def test_a_drafts_crop_marks_and_build_stamp_are_furniture(tmp_path):
    # bioinfo.cls in draft mode: a mark in each corner outside the text block (✐ there, a cross
    # here: any sign with no letter or digit) and the build stamp above the text, topmost once the
    # marks are out of the way; both leave document.md and are counted as removed on purpose
    def page(n):
        return [("+", 8, 84, 10, "Helvetica"), ("+", 596, 100, 10, "Helvetica"),
                (f"\u201cmain\u201d \u2014 2017/3/7 \u2014 21:49 \u2014 page {n} \u2014 #{n}", 200, 92, 6,
                 "Helvetica"),
                *body_lines(140, 30), ("+", 8, 700, 10, "Helvetica"), ("+", 596, 716, 10, "Helvetica")]

    p1 = [("A Two Page Application Note", 72, 110, 18, "Helvetica-Bold"), *page(1)[:3],
          ("1 Introduction", 72, 128, 11, "Helvetica-Bold"), *page(1)[3:]]
    doc = compile_pages(tmp_path, [p1, page(2)])
    assert "2017/3/7" not in doc.markdown
    assert not [b for b in doc.blocks if b.kind.value == "paragraph" and b.text.strip() == "+"]
    marks = [b for b in doc.blocks if b.attrs.get("furniture") == "printer_mark"]
    assert len(marks) >= 4


def test_unordered_lists_of_integers_in_brackets_are_no_citations(tmp_path):
    # an amsart mathematics report with no bibliography: '[1,1,2] = [1,2,1]' are unordered lists
    # (a callout never names one source twice) and '[1]' beside them is the same notation; a
    # document citing [1] and [2] without its list still gets the error
    from ctxmill.compile import quality

    def doc_with(line):
        return compile_document(make_pdf(tmp_path / f"p{len(line)}.pdf", [[
            ("Function Fields of Elliptic Curves", 150, 80, 17, "Times-Bold"),
            ("1 Dicriticals", 72, 130, 12, "Times-Bold"), *body_lines(150, 4),
            (line, 72, 210, 10, "Times-Roman"), *body_lines(222, 4)]]), CompileOptions())

    doc = doc_with("Lists of positive integers: [1,1,2] = [1,2,1] = [2,1,1] and [1] as well.")
    assert not [c for c in quality.assess(doc).checks if c.id == "no_reference_list"]
    doc = doc_with("As shown before [1] and again in later work [2], the method works well.")
    assert [c for c in quality.assess(doc).checks if c.id == "no_reference_list"]


def test_a_sidenote_on_a_body_lines_baseline_is_a_note_of_its_own(tmp_path):
    # tufte-handout: the sidenote stands in the outer margin on the baseline of the text line
    # beside it, a column-sized gap away in smaller type; the text layer put both on one line
    body = [("Running text of the handout, set in a ten point roman with a wide margin", 72,
             140 + 12 * k, 10, "Times-Roman") for k in range(3)]
    doc = compile_pages(tmp_path, [[
        ("Sidenotes in the Margin", 72, 80, 17, "Times-Bold"),
        ("1 Introduction", 72, 120, 12, "Times-Bold"), *body,
        ("In his later books, Tufte starts each section with a bit of vertical", 72, 176, 10, "Times-Roman"),
        ("2", 407, 172, 5, "Times-Roman"),
        ("Edward R. Tufte. Beautiful Evidence. Graphics", 411, 176, 8, "Times-Roman"),
        ("Press, LLC, first edition, May 2006.", 407, 185, 8, "Times-Roman"),
        ("space, a non-indented paragraph, and sets the first few words of the", 72, 188, 10, "Times-Roman"),
        ("sentence in small caps, which the class does with a command of its own.", 72, 200, 10,
         "Times-Roman")]])
    md = doc.markdown
    assert "a bit of vertical space, a non-indented paragraph" in md  # the paragraph is one
    assert "Edward R. Tufte. Beautiful Evidence. Graphics Press, LLC" in md  # the note kept, whole
    assert not any("vertical" in line and "Tufte." in line for line in md.splitlines())


def unnumbered_pages(heads: list[tuple[str, float]], font: str = "Times-Bold") -> list[list[tuple]]:
    """A title, then each (heading, size) over a paragraph of body text, or straight over the
    next heading when its size is negative; nothing numbered."""
    rows, y = [("Statistical Alignment of Coding Sequences", 72, 70, 17, "Times-Bold")], 110.0
    pages = []
    for title, size in heads:
        if y > 640:
            pages.append(rows)
            rows, y = [], 80.0
        rows.append((title, 72, y, abs(size), font))
        y += 18
        if size > 0:
            rows.extend(body_lines(y, 4))
            y += 60
    return [*pages, rows]


def test_sections_and_subsections_in_one_face_are_told_apart_by_what_follows(tmp_path):
    # titlesec [tiny] (MBE): sections and subsections alike in bold at one size; a section
    # opening straight onto its first subsection is the level above the headings after it
    doc = compile_pages(tmp_path, unnumbered_pages([
        ("Introduction", 12), ("Methods", -12), ("Finite State Transducers", 12), ("The Marginal Model", 12),
        ("Results", -12), ("Empirical Data and Alignments", 12), ("Semi-Empirical Benchmark", 12),
        ("Discussion", 12), ("Acknowledgments", 12)]))
    assert headings(doc)[1:] == ["## Introduction", "## Methods", "### Finite State Transducers",
                                 "### The Marginal Model", "## Results", "### Empirical Data and Alignments",
                                 "### Semi-Empirical Benchmark", "## Discussion", "## Acknowledgments"]


def test_a_known_title_printed_like_the_subsections_is_one(tmp_path):
    # wlscirep (Scientific Data): "Summary" closes a section as its last subsection
    doc = compile_pages(tmp_path, unnumbered_pages([
        ("Introduction", 14), ("Methods", 14), ("Spatial Unit", 11), ("Cluster Analysis", 11),
        ("Technical Validation", 14), ("Validation Approach", 11), ("Summary", 11), ("Usage Notes", 14)],
        "Helvetica-Bold"))
    assert headings(doc)[1:] == ["## Introduction", "## Methods", "### Spatial Unit", "### Cluster Analysis",
                                 "## Technical Validation", "### Validation Approach", "### Summary",
                                 "## Usage Notes"]


def test_the_score_counts_no_list_printed_and_none_found_as_the_right_count(tmp_path):
    # benchmarks/corpus_score.py, as ../shared/corpus/score_compile.py reports it (truth_printed 0,
    # ours 0): an amsart report without a bibliography is no reference-count miss
    sys.path.insert(0, str(REPO / "benchmarks"))
    from corpus_score import score
    (tmp_path / "document.md").write_text("# A Report\n\n## 1 Introduction\n\nText.\n")
    (tmp_path / "references.json").write_text("[]")
    truth = {"title": "A Report", "authors": [], "sections": [{"level": 1, "title": "Introduction"}]}
    assert score(tmp_path, {**truth, "n_references": 0})["references"]["count_ok"] is True
    (tmp_path / "references.json").write_text(json.dumps([{"raw": "A. Author. A title. 2020."}]))
    assert score(tmp_path, {**truth, "n_references": 0})["references"]["count_ok"] is False
    assert score(tmp_path, truth)["references"]["count_ok"] is False  # no count known: not scored right


def plos_first_page(extra: str) -> list[list[tuple]]:
    """A title page: title, byline, a bold 'Abstract' label over its paragraph, then `extra` in
    the numbered sections' type over running text, then two numbered sections."""
    return [[("Good Enough Practices in Scientific Computing", 72, 70, 17, "Helvetica-Bold"),
             ("Greg Wilson, Jennifer Bryan, Karen Cranston", 72, 100, 11, "Helvetica"),
             ("Abstract", 72, 140, 12, "Helvetica-Bold"), *body_lines(158, 3),
             (extra, 72, 210, 12, "Helvetica-Bold"), *body_lines(228, 3),
             ("1 Data Management", 72, 290, 12, "Helvetica-Bold"), *body_lines(308, 4),
             ("2 Software", 72, 370, 12, "Helvetica-Bold"), *body_lines(388, 4)]]


def test_a_section_after_the_abstract_on_the_title_page_is_a_heading(tmp_path):
    # PLOS: "Author Summary" follows the abstract on page 1, set like the numbered sections
    doc = compile_pages(tmp_path, plos_first_page("Author Summary"))
    assert headings(doc)[1:] == ["## Author Summary", "## 1 Data Management", "## 2 Software"]
    assert "Author Summary" not in (doc.metadata.abstract or "")


def test_a_front_matter_label_after_the_abstract_stays_text(tmp_path):
    doc = compile_pages(tmp_path, plos_first_page("Keywords"))
    assert headings(doc)[1:] == ["## 1 Data Management", "## 2 Software"]


def test_a_raised_digit_inside_a_heading_is_part_of_its_title(tmp_path):
    # ACL camera-ready (INLG 2024): "2.1 M² (Dahlmeier and Ng, 2012)", the metric's raised 2 set
    # in the math font mid-title; a raised mark used to make any line no heading at all
    def head(y, number_name, width, rest):
        return [(number_name, 72, y, 11, "Times-Bold"), ("2", 72 + width + 0.3, y - 3.5, 7, "Times-Roman"),
                (rest, 72 + width + 6.5, y, 11, "Times-Bold")]
    doc = compile_pages(tmp_path, [[
        ("An n-gram F-score for Evaluating Error Correction", 72, 70, 15, "Times-Bold"),
        ("1 Introduction", 72, 110, 12, "Times-Bold"), *body_lines(128, 4),
        ("2 Related Work", 72, 190, 12, "Times-Bold"), *body_lines(208, 3),
        *head(260, "2.1 M", 26.9, "(Dahlmeier and Ng, 2012)"), *body_lines(278, 3),
        *head(330, "2.2 PT-M", 47.7, "(Gong et al., 2022)"), *body_lines(348, 3),
        ("3 Proposed Method", 72, 400, 12, "Times-Bold"), *body_lines(418, 3)]])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Related Work", "### 2.1 M² (Dahlmeier and Ng, 2012)",
                                 "### 2.2 PT-M² (Gong et al., 2022)", "## 3 Proposed Method"]


def test_a_letter_spaced_label_is_no_lettered_appendix(tmp_path):
    # Elsevier CAS: "A R T I C L E I N F O" over the keywords, in letter-spaced capitals, read as
    # appendix "A" titled "R T I C L E ...", whose lettering then refused "1. Introduction"
    doc = compile_pages(tmp_path, [[
        ("This is a Specimen Title for the Double Column Class", 72, 70, 15, "Times-Bold"),
        ("J.K. Krishnan, Han Thane, T. Rafeeq", 72, 100, 11, "Times-Roman"),
        ("A R T I C L E   I N F O", 72, 140, 9, "Times-Bold"),
        ("Keywords: quadrupole exciton polariton", 72, 155, 9, "Times-Roman"),
        ("A B S T R A C T", 300, 140, 9, "Times-Bold"), *body_lines(155, 3, x=300, size=9),
        ("1. Introduction", 72, 220, 12, "Times-Bold"), *body_lines(238, 4),
        ("2. Installation", 72, 300, 12, "Times-Bold"), *body_lines(318, 4),
        ("3. Front matter", 72, 380, 12, "Times-Bold"), *body_lines(398, 4)]])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Installation", "## 3 Front matter"]


def biorxiv_pages() -> list[list[tuple]]:
    """The bioRxiv template (pnas-new's heir) sets everything in Helvetica: sections in bold
    10.4 pt, subsections run-in in the body's bold 8.5 pt, an abstract all in bold, authors'
    names in bold in the list, and a running foot across both columns under the list."""
    def lead(y, head, rest, x=72):
        return [(head, x, y, 8.5, "Helvetica-Bold"), (rest, x + 5.1 * len(head) + 4, y, 8.5, "Helvetica")]

    def text(y, n=3, x=72):
        return [("Lorem ipsum dolor sit amet, consectetuer adipiscing elit, ut purus elit.", x, y + 10 * k, 8.5,
                 "Helvetica") for k in range(n)]

    return [[("Description of an Amazing Research Project", 72, 70, 20, "Helvetica-Bold"),
             ("First Author, Second Author, Third Author", 72, 100, 9, "Helvetica"),
             ("Abstract of the paper goes here. Lorem ipsum dolor sit amet, consectetuer.", 72, 130, 8.5,
              "Helvetica-Bold"),
             ("Curabitur dictum gravida mauris. Nam arcu libero, nonummy eget, consectetuer.", 72, 140, 8.5,
              "Helvetica-Bold"),
             ("Introduction", 72, 180, 10.4, "Helvetica-Bold"), *text(196),
             *lead(236, "Citations and figures.", "Text is added like this, and it runs on."), *text(246),
             *lead(286, "Another subsection.", "Aliquam lectus. Vivamus leo. Quisque ornare."), *text(296),
             ("Methods", 72, 340, 10.4, "Helvetica-Bold"),
             *lead(356, "Cell biology.", "Nunc velit augue, scelerisque dignissim, lobortis."), *text(366),
             ("Bibliography", 72, 420, 10.4, "Helvetica-Bold"),
             *lead(436, "Alberts, B.", "(2002). Molecular biology of the cell. Garland Science."),
             *lead(450, "Watson, J. D.", "(1953). Molecular structure of nucleic acids. Nature."),
             *lead(464, "Zheng, L.-Y.", "(2011). Genome-wide patterns of genetic variation. Nature."),
             ("Smith et al. | Running title here", 72, 770, 6.6, "Helvetica"),
             ("bioRxiv | 3", 500, 770, 6.6, "Helvetica")]]


def test_run_in_subsections_in_the_face_of_the_sections_over_a_sans_body(tmp_path):
    doc = compile_pages(tmp_path, biorxiv_pages())
    assert headings(doc)[1:] == ["## Introduction", "### Citations and figures", "### Another subsection",
                                 "## Methods", "### Cell biology", "## Bibliography"]


def test_a_running_foot_across_the_page_under_the_list_is_no_entry(tmp_path):
    doc = compile_document(make_pdf(tmp_path / "p.pdf", biorxiv_pages()), CompileOptions())
    assert [r.raw[:8] for r in doc.references] == ["Alberts,", "Watson, ", "Zheng, L"]


def test_ieeetrans_numbered_run_in_subsubsections_are_headings(tmp_path):
    # IEEEtran (journal, draft): "1) Gradient descent method:" in italic opening a paragraph under
    # a lettered subsection, the text after it upright
    def run_in(y, lead, rest):
        return [(lead, 72, y, 12, "Times-Italic"), (rest, 72 + 5.2 * len(lead) + 4, y, 12, "Times-Roman")]
    doc = compile_pages(tmp_path, [[
        ("HYBRID TRANSMITTER WITH A PASSIVE ANTENNA ARRAY", 100, 70, 22, "Times-Roman"),
        ("I. INTRODUCTION", 250, 110, 12, "Times-Roman"), *body_lines(128, 4, size=12),
        ("II. ALTERNATING OPTIMIZATION", 220, 190, 12, "Times-Roman"),
        ("A. Optimization of the Digital Unit", 72, 210, 12, "Times-Italic"), *body_lines(228, 3, size=12),
        ("B. Optimization of the Configuration", 72, 280, 12, "Times-Italic"),
        *run_in(298, "1) Gradient descent method:", "Gradient descent is a general method to find"),
        *body_lines(312, 3, size=12),
        *run_in(360, "2) Majorization algorithm:", "The algorithm is another general method for"),
        *body_lines(374, 3, size=12)]])
    assert headings(doc)[-2:] == ["#### Gradient descent method", "#### Majorization algorithm"]
    assert "Gradient descent is a general method" in doc.markdown


def test_a_bold_numbered_run_in_subsubsection_under_its_subsection_is_a_heading(tmp_path):
    # IEEEtran compsoc conference: "1.1.1. Subsubsection Heading Here. Subsubsection text here."
    doc = compile_pages(tmp_path, [[
        ("Bare Demo of the Class for Computer Society Conferences", 90, 70, 22, "Times-Roman"),
        ("1. Introduction", 72, 120, 12, "Times-Bold"), *body_lines(138, 3),
        ("1.1. Subsection Heading Here", 72, 180, 11, "Times-Bold"), *body_lines(196, 3),
        ("1.1.1. Subsubsection Heading Here.", 72, 240, 10, "Times-Bold"),
        ("Subsubsection text here, which runs on.", 230, 240, 10, "Times-Roman"), *body_lines(252, 2),
        ("2.1.1. Not Under Its Subsection.", 72, 290, 10, "Times-Bold"),
        ("A lead numbered for elsewhere stays text.", 225, 290, 10, "Times-Roman"), *body_lines(302, 2),
        ("2. Conclusion", 72, 340, 12, "Times-Bold"), *body_lines(358, 3)]])
    assert headings(doc)[1:] == ["## 1 Introduction", "### 1.1 Subsection Heading Here",
                                 "#### 1.1.1 Subsubsection Heading Here", "## 2 Conclusion"]


def test_affiliation_keys_opening_the_affiliation_lines_are_no_footnote_callouts(tmp_path):
    # Elsevier CAS: raised letters key each name to its affiliation ("Krishnan^a,c") and open each
    # affiliation line ("^a Department of Physics, ..."); the line's key labels the text after it,
    # so it points at no footnote (QA 60 -> 52 once the sample's sections were found). The
    # article's byline follows a graphical-abstract page, so it is no title page's front matter.
    from ctxmill.compile import quality

    def raised(text, x, y):
        return (text, x, y - 3.5, 6, "Times-Roman")

    title = ("This is a Specimen Title for the Double Column Class", 72, 70, 15, "Times-Bold")
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [[  # a graphical-abstract page first
        ("Graphical Abstract", 72, 50, 11, "Times-Bold"), title,
        ("Jane Krishnan, Han Thane", 72, 100, 11, "Times-Roman")], [
        title, ("Jane Krishnan", 72, 100, 11, "Times-Roman"), raised("a", 137, 100),
        ("and Han Thane", 145, 100, 11, "Times-Roman"), raised("b", 213, 100),
        raised("a", 72, 125), ("Department of Physics, Institute of Science, Trivandrum, India", 76, 125, 8,
                               "Times-Roman"),
        raised("b", 72, 135), ("World Scientific University, Street 29, Amsterdam, The Netherlands", 76, 135, 8,
                               "Times-Roman"),
        ("1. Introduction", 72, 180, 12, "Times-Bold"), *body_lines(198, 8)]]), CompileOptions())
    assert "Department of Physics" in doc.markdown
    assert not [c for c in quality.assess(doc).checks if c.id == "missing_target"]


def test_initials_glued_in_a_text_layer_stay_as_printed(tmp_path):
    # Elsevier CAS: "J.K. Krishnan" printed without a space was written "J. K. Krishnan", a form
    # the scores read as a lettered item "J." before "K. Krishnan" (only OCR loses that space)
    doc = compile_pages(tmp_path, [[
        ("This is a Specimen Title for the Double Column Class", 72, 70, 15, "Times-Bold"),
        ("J.K. Krishnan, Han Thane, William J. Hansen, T. Rafeeq", 72, 100, 11, "Times-Roman"),
        ("1. Introduction", 72, 180, 12, "Times-Bold"), *body_lines(198, 8)]])
    assert names(doc) == ["J.K. Krishnan", "Han Thane", "William J. Hansen", "T. Rafeeq"]


def test_an_organisation_in_an_author_blocks_smaller_italic_is_no_author(tmp_path):
    # IEEEtran's conference author blocks: each name upright at 11 pt over its address in 10 pt
    # italic; "Twentieth Century Fox", Homer Simpson's employer, is name-shaped
    def block(x, name, *address):
        return [(name, x, 160, 11, "Times-Roman")] + [(a, x, 173 + 12 * k, 10, "Times-Italic")
                                                        for k, a in enumerate(address)]
    doc = compile_pages(tmp_path, [[
        ("Bare Demo of IEEEtran.cls for Biometrics Council Conferences", 100, 100, 14, "Times-Bold"),
        *block(60, "Michael Shell", "Georgia Institute of Technology", "Atlanta, Georgia 30332"),
        *block(250, "Homer Simpson", "Twentieth Century Fox", "Springfield, USA"),
        *block(430, "James Kirk", "Starfleet Academy", "San Francisco, California"),
        ("Abstract—The abstract goes here.", 54, 260, 9, "Times-Bold"),
        ("1. Introduction", 54, 290, 12, "Times-Bold"), *body_lines(308, 8, x=54)]])
    assert names(doc) == ["Michael Shell", "Homer Simpson", "James Kirk"]


def test_running_feet_whose_parts_change_sides_are_furniture(tmp_path):
    # bioRxiv (two-sided): "2 | bioRxiv" left of "Smith et al. | Running title here" on even pages,
    # right of it on odd ones, and "Supplementary Information" in place of "bioRxiv" on the
    # supplement's pages: no two feet read alike once the page number is set aside
    feet = [("2 | bioRxiv", "Smith et al. | Running title here"),
            ("Smith et al. | Running title here", "bioRxiv | 3"),
            ("4 | Supplementary Information", "Smith et al. | Running title here"),
            ("Smith et al. | Running title here", "Supplementary Information | 5")]
    pages = [[("A Study of Feet on Pages", 72, 70, 18, "Helvetica-Bold"), *body_lines(120, 40)]]
    for left, right in feet:
        pages.append([*body_lines(72, 50), (left, 72, 770, 6.6, "Helvetica"), (right, 400, 770, 6.6, "Helvetica")])
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert "Running title" not in doc.markdown
    removed = [b.text for b in doc.blocks if b.attrs.get("furniture") == "running_header"]
    assert len(removed) == 4 and all("Running title here" in t for t in removed)


def _run_in(y, lead, rest, x=84, size=10):
    # a bold lead and the paragraph's upright text on one baseline
    return [(lead, x, y, size, "Times-Bold"), (rest, x + 0.52 * size * len(lead) + 4, y, size, "Times-Roman")]


def test_numbered_sections_set_run_in_are_headings(tmp_path):
    # siamart: "1. Introduction. Multigrid methods ...", "2.1. 1D Poisson. Formally, ..." in bold
    # opening the section's first paragraph; a numbered lead out of turn stays text
    rows = [("A Supervised Learning Approach to Predicting Convergence", 90, 70, 14, "Times-Bold")]
    leads = [("1. Introduction.", "Multigrid methods are some of the most widely used"),
             ("2. Methods.", "The methods described here will be split into two parts"),
             ("2.1. 1D Poisson.", "Formally, the problem being solved is the Poisson equation"),
             ("7.4. Out Of Turn.", "A bold lead numbered for elsewhere stays in the text"),
             ("2.2. Poisson CNN.", "Two separate deep convolutional networks were trained"),
             ("3. Numerical Results.", "A total of many splittings were randomly generated")]
    for k, (lead, rest) in enumerate(leads):
        rows += [*_run_in(130 + 60 * k, lead, rest), *body_lines(142 + 60 * k, 3)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Methods", "### 2.1 1D Poisson",
                                 "### 2.2 Poisson CNN", "## 3 Numerical Results"]
    assert "Multigrid methods are some of the most widely used" in doc.markdown
    assert "Out Of Turn." in doc.markdown


def test_an_untitled_list_set_as_one_block_and_a_caption_on_its_page(tmp_path):
    # REVTeX's PRL letters print the list with no title, its entries close together (one block
    # of lines), and a float's caption in capitals ("FIG. 2. ...") may sit among them
    entries = ["[1] R. J. Gaitskell, Ann. Rev. Nucl. Part. Sci. 54, 315 (2004).",
               "[2] V. Trimble, Ann. Rev. Astron. Astrophys. 25, 425 (1987).",
               "[3] T. A. Porter and P. W. Graham, Ann. Rev. Astron. 49, 155 (2011).",
               "[4] R. D. Peccei and H. R. Quinn, Phys. Rev. Lett. 38, 1440 (1977).",
               "[5] S. Weinberg, Phys. Rev. Lett. 40, 223 (1978).",
               "[6] F. Wilczek, Phys. Rev. Lett. 40, 279 (1978)."]
    first = [("First Results from an Axion Search Experiment", 100, 70, 14, "Times-Bold")]
    for k in range(5):
        first += body_lines(120 + 80 * k, 5)
    rows = [(e, 72, 100 + 10 * k, 8, "Times-Roman") for k, e in enumerate(entries[:3])]
    rows += [("FIG. 2. The limits on the coupling from the data, with the earlier searches.", 72, 150, 8,
              "Times-Roman")]
    rows += [(e, 72, 180 + 10 * k, 8, "Times-Roman") for k, e in enumerate(entries[3:])]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [first, [*body_lines(60, 2), *rows]]), CompileOptions())
    assert [r.raw for r in doc.references] == entries


def test_a_labelled_line_under_the_byline_names_no_authors(tmp_path):
    # siamart's student paper: "In collaboration with: Matthew West, Luke Olson, Scott MacLachlan"
    # centred under the author's name
    doc = compile_pages(tmp_path, [[
        ("A SUPERVISED LEARNING APPROACH TO PREDICTING", 120, 70, 12, "Times-Bold"),
        ("NICOLAS NYTKO", 250, 100, 10, "Times-Roman"),
        ("In collaboration with: Matthew West, Luke Olson, Scott MacLachlan", 150, 130, 10, "Times-Roman"),
        ("1 Introduction", 72, 180, 12, "Times-Bold"), *body_lines(198, 8)]])
    assert names(doc) == ["NICOLAS NYTKO"]


def test_a_dated_line_under_the_addresses_is_no_part_of_one(tmp_path):
    # REVTeX: "(Dated: May 11, 2022)" right under the last address line
    def raised(text, x, y):
        return (text, x, y - 3.5, 6, "Times-Roman")
    doc = compile_pages(tmp_path, [[
        ("First Results from an Axion Search Experiment", 100, 70, 14, "Times-Bold"),
        ("Hsin Chang,", 200, 100, 10, "Times-Roman"), raised("1", 253, 100),
        ("and Shin-Shan Yu", 260, 100, 10, "Times-Roman"), raised("2", 335, 100),
        raised("1", 150, 120), ("Department of Physics, National Central University, Taoyuan City, Taiwan", 154, 120,
                                9, "Times-Italic"),
        raised("2", 150, 131), ("Institute of Physics, Academia Sinica, Taipei City, Taiwan", 154, 131, 9,
                                "Times-Italic"),
        ("(Dated: May 11, 2022)", 250, 142, 9, "Times-Roman"),
        ("1 Introduction", 72, 190, 12, "Times-Bold"), *body_lines(208, 8)]])
    affs = doc.metadata.affiliations
    assert affs and any("Academia Sinica" in a for a in affs) and not any("Dated" in a for a in affs)



def test_a_justified_block_spaced_wider_than_the_body_is_one_paragraph_per_gap(tmp_path):
    # achemso's manuscript: a double-spaced abstract in smaller type than the body; WileyNJD: a
    # summary set at 1.5 x its type where the body is at 1.3 x. Lines that end together are wrapped
    # text; the wider gap between two paragraphs still parts them.
    full = BODY[:88]

    def block(top, pitch, size, n=4):
        return [(full, 72, top + pitch * k, size, "Times-Roman") for k in range(n)] + \
            [("and the paragraph ends here.", 72, top + pitch * n, size, "Times-Roman")]
    doc = compile_pages(tmp_path, [[
        ("Hot Carriers from Scattering Mediated Absorption", 100, 60, 18, "Times-Bold"),
        ("Abstract", 72, 100, 11, "Times-Bold"), *block(124, 18, 9),
        ("Summary", 72, 260, 11, "Times-Bold"), *block(280, 15, 10), *block(380, 15, 10),
        ("1 Introduction", 72, 480, 12, "Times-Bold"), *body_lines(500, 12)]])
    def paragraphs(after: str, before: str) -> list[str]:
        text = doc.markdown.split(after, 1)[1].split(before, 1)[0]
        return [p for p in text.split("\n\n") if p.strip() and not p.startswith("#")]
    assert len(paragraphs("Abstract", "Summary")) == 1
    assert [p.endswith("the paragraph ends here.") for p in paragraphs("Summary", "1 Introduction")] == [True, True]


def test_marks_longer_than_the_name_before_them_are_still_raised_marks(tmp_path):
    # llncs: "Paul Dubois1,2[0009-0003-3856-8048]," - the raised affiliation numbers and ORCID iD
    # hold more characters than the name, so the line's commonest size was the marks'. (Each mark
    # character is drawn on its own, as TeX's PDFs give them, right after the name: Courier's
    # advance is 0.6 em, Times' digits 0.5 em.)
    def author(name, mark, y, x=200, tail=","):
        x += 6.0 * len(name)
        row = [(name, x - 6.0 * len(name), y, 10, "Courier")]
        for ch in mark:
            row.append((ch, x, y - 3, 7, "Times-Roman"))
            x += 7 * (0.25 if ch == "," else 0.333 if ch in "[]-" else 0.5)
        return row + [(tail, x + 0.5, y, 10, "Courier")]
    doc = compile_pages(tmp_path, [[
        ("Radiotherapy Dose Optimization via Clinical Knowledge", 120, 80, 14, "Times-Bold"),
        *author("Paul Dubois", "1,2[0009-0003-3856-8048]", 120),
        *author("Nikos Paragios", "2[0000-0002-9668-4763]", 132, tail=", and"),
        *author("Pascal Fenoglietto", "3", 144, tail=""),
        ("1 Introduction", 72, 200, 12, "Times-Bold"), *body_lines(218, 8)]])
    assert names(doc) == ["Paul Dubois", "Nikos Paragios", "Pascal Fenoglietto"]


def test_a_generation_after_the_surname_is_part_of_the_name(tmp_path):
    # achemso: "..., and Jonathan J. Foley IV*" - "IV" is no acronym beside a word
    doc = compile_pages(tmp_path, [[
        ("Unique Hot Carrier Distributions from Scattering", 120, 80, 16, "Times-Bold"),
        ("Jason Codrington, Noor Eldabagh, and Jonathan J. Foley IV", 150, 120, 11, "Times-Roman"),
        ("Department of Chemistry, William Paterson University, Wayne, NJ, USA", 130, 136, 10, "Times-Italic"),
        ("1 Introduction", 72, 200, 12, "Times-Bold"), *body_lines(218, 8)]])
    assert names(doc) == ["Jason Codrington", "Noor Eldabagh", "Jonathan J. Foley IV"]



def test_a_german_bibliography_heading_opens_the_list(tmp_path):
    # KOMA-Script in German: the list is "Literaturverzeichnis" (babel's names: "Literatur",
    # "Bibliographie" in French), here holding two entries: too few for a list without a title
    pages = [[("Bausteine für einen Bericht", 150, 60, 18, "Times-Bold")]]
    for k in range(1, 4):
        pages[-1] += [(f"{k} Kapitel über {TOPICS[k - 1]}", 72, 60 + 120 * k, 14, "Times-Bold"),
                      *body_lines(80 + 120 * k, 6)]
    rows = [("Literaturverzeichnis", 72, 60, 14, "Times-Bold")]
    for k in range(2):
        rows += [(f"[{k + 1}] L. Papula. Mathematische Formelsammlung, Band {k + 1}. Vieweg, 20{10 + k}.",
                  72, 90 + 20 * k, 10, "Times-Roman")]
    pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert len(doc.references) == 2 and doc.references[0].raw.startswith("[1] L. Papula")


def test_a_caption_label_in_capitals_is_a_caption(tmp_path):
    # WileyNJD: "FIGURE 1 Prior dose-response surface ..." in smaller type under the figure;
    # REVTeX: "FIG. 2. (a) Phase space ..." - the text's "Figure 1" and "Fig. 2" point at them
    doc = compile_pages(tmp_path, [[
        ("Principled Drug-Drug Interaction Terms", 150, 60, 18, "Times-Bold"),
        ("1 Introduction", 72, 100, 12, "Times-Bold"), *body_lines(118, 6),
        ("FIGURE 1 Prior dose-response surface for two drugs given together.", 72, 200, 8, "Times-Roman"),
        *body_lines(230, 4),
        ("FIG. 2. (a) Phase space in the plane of the two control parameters.", 72, 300, 8, "Times-Roman"),
        *body_lines(330, 4)]])
    figures = {b.number: b.attrs["caption"] for b in doc.blocks if b.kind.value == "figure"}
    assert figures == {"1": "Prior dose-response surface for two drugs given together.",
                       "2": "(a) Phase space in the plane of the two control parameters."}


def test_a_double_spaced_caption_keeps_its_lines(tmp_path):
    # Copernicus discussion papers and REVTeX preprints space a caption's lines like the body's.
    # (Courier: lines of one length end together, as justified lines do.)
    line = "Precipitation data were weighted by the polygon method over three stations"
    doc = compile_pages(tmp_path, [[
        ("Recession Modelling of a Mountain Catchment", 150, 60, 18, "Times-Bold"),
        ("1 Introduction", 72, 100, 12, "Times-Bold"), *body_lines(118, 6),
        ("Figure 2: " + line[:-10], 72, 200, 9, "Courier"), (line, 72, 218, 9, "Courier"),
        (line, 72, 236, 9, "Courier"), ("and the caption ends here.", 72, 254, 9, "Courier"),
        *body_lines(290, 4)]])
    caption = next(b.attrs["caption"] for b in doc.blocks if b.kind.value == "figure")
    assert caption.endswith("and the caption ends here.")


def test_raised_text_in_a_caption_is_a_superscript_not_a_dangling_footnote(tmp_path):
    # "... only every 16th case is shown" with "th" raised, in a figure's caption as in its text
    doc = compile_pages(tmp_path, [[
        ("Drop Impact on a Rigid Surface", 150, 60, 18, "Times-Bold"),
        ("1 Introduction", 72, 100, 12, "Times-Bold"), *body_lines(118, 6),
        ("Figure 2: Phase space, where only every 16", 72, 200, 9, "Times-Roman"),
        ("th", 228.5, 197, 6, "Times-Roman"), ("case is shown.", 236, 200, 9, "Times-Roman"),
        *body_lines(230, 4)]])
    caption = next(b.attrs["caption"] for b in doc.blocks if b.kind.value == "figure")
    assert "16<sup>th</sup> case" in caption and "[^" not in caption


def test_a_known_title_set_like_the_numbered_subsections_is_one(tmp_path):
    # llncs: "\subsection*{Appendix}" in the subsections' bold 10 pt under "5 Conclusion" (12 pt)
    rows = [("Radiotherapy Dose Optimization via Reinforcement Learning", 120, 60, 14, "Times-Bold")]
    y = 100
    for k in range(1, 3):
        rows += [(f"{k} Section on {TOPICS[k - 1]}", 72, y, 12, "Times-Bold"), *body_lines(y + 16, 3)]
        rows += [(f"{k}.1 Subsection on {TOPICS[k]}", 72, y + 60, 10, "Times-Bold"), *body_lines(y + 76, 3)]
        y += 130
    rows += [("Appendix", 72, y, 10, "Times-Bold"), *body_lines(y + 16, 3)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[-1] == "### Appendix"


def test_bookmarks_that_all_lead_to_page_one_are_matched_in_reading_order(tmp_path):
    # Frontiers built through pandoc: every \addcontentsline anchor lands on page 1, so the PDF's
    # bookmarks all name page 1 while the headings (bold capitals, nothing numbered) run on
    pages = [[("Novel Tools for Population Data with Emphasis on Clonality", 72, 80, 20, "Helvetica-Bold"),
              ("INTRODUCTION", 72, 160, 13, "Helvetica-Bold"), *body_lines(180, 20)]]
    for title in ("Methods", "Clonal Identification", "Results"):
        pages += [[*body_lines(80, 12), (title.upper(), 72, 240, 11.5, "Helvetica-Bold"), *body_lines(260, 12)]]
    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    stream.outline = [OutlineEntry(title=t, level=lvl, page=1) for t, lvl in
                      (("Introduction", 1), ("Methods", 1), ("Clonal Identification", 2), ("Results", 1))]
    doc = compile_stream(stream, CompileOptions())
    assert headings(doc)[1:] == ["## INTRODUCTION", "## METHODS", "### CLONAL IDENTIFICATION", "## RESULTS"]


def test_a_bold_title_under_the_article_type_in_capitals_is_the_title(tmp_path):
    # Taylor & Francis's interact: the article type in plain capitals, then the title flush left in
    # bold in the same 12 pt (a little over the 10.9 pt body), the names under it
    doc = compile_pages(tmp_path, [[
        ("RESEARCH ARTICLE", 94, 130, 12, "Times-Roman"),
        ("Paralleling generalization operations to support smooth zooming:", 94, 160, 12, "Times-Bold"),
        ("case study of merging area objects", 94, 175, 12, "Times-Bold"),
        ("Dongliang Peng, Martijn Meijers and Peter van Oosterom", 94, 202, 10.9, "Times-Roman"),
        ("1. Introduction", 94, 300, 12, "Times-Bold"), *body_lines(320, 12, x=94, size=10.9)]])
    assert doc.metadata.title == ("Paralleling generalization operations to support smooth zooming: "
                                  "case study of merging area objects")
    assert names(doc) == ["Dongliang Peng", "Martijn Meijers", "Peter van Oosterom"]


def test_a_title_beside_a_masthead_in_small_type_is_one_title(tmp_path):
    # SAGE (sagej): the journal's name, volume, copyright and DOI in 6.6 pt right of the title's
    # three 17 pt lines, row by row, so the lines alternate in reading order
    masthead = ["Journal Title", "XX(X):1-23", "The Author(s) 2020", "Reprints and permission:",
                "sagepub.co.uk/journalsPermissions.nav", "DOI: 10.1177/ToBeAssigned", "www.sagepub.com/"]
    rows = [(m, 423, 58 + 10.5 * k, 6.6, "Helvetica") for k, m in enumerate(masthead)]
    rows += [(t, 51, 75 + 25 * k, 17, "Helvetica-Bold") for k, t in
             enumerate(["Prehensile Manipulation Planning:", "Modelling, Algorithms and", "Implementation"])]
    rows += [("Florent Lamiraux, Joseph Mirabel", 51, 157, 11.4, "Helvetica-Bold"),
             ("Abstract", 51, 206, 9.5, "Helvetica-Bold"),
             ("This paper presents a software platform for prehensile manipulation planning named", 51, 222, 9.5,
              "Helvetica"),
             ("1 Introduction", 51, 300, 11.4, "Helvetica-Bold")]
    # the text block runs to the masthead's right edge: it is inside it, not a margin
    rows += [(BODY[:104], 51, 320 + 12 * k, 9.5, "Helvetica") for k in range(12)]
    doc = compile_pages(tmp_path, [rows])
    assert doc.metadata.title == "Prehensile Manipulation Planning: Modelling, Algorithms and Implementation"
    assert names(doc) == ["Florent Lamiraux", "Joseph Mirabel"]


def test_the_journals_name_set_large_over_the_title_is_a_masthead(tmp_path):
    # the RSC template: the journal's name as 36 pt artwork at the head of page 1, the title in
    # 15 pt bold under it, and the running foot opening with the same name
    doc = compile_pages(tmp_path, [[
        ("JournalName", 42, 70, 36, "Helvetica"),
        ("A Method for Studying the Diffusion of Quaternary", 188, 147, 15, "Helvetica-Bold"),
        ("Ammonium Cations Through Polyelectrolyte Phases", 188, 165, 15, "Helvetica-Bold"),
        ("Alexander M. Papiez, Justin J. B. Perry, and Les R. Dix", 188, 191, 10, "Helvetica"),
        ("1 Introduction", 42, 290, 12, "Helvetica-Bold"), *body_lines(310, 20, x=42, size=9),
        ("JournalName, [year], [vol.], 1-8 | 1", 448, 765, 8, "Helvetica")]])
    assert doc.metadata.title == ("A Method for Studying the Diffusion of Quaternary Ammonium Cations Through "
                                  "Polyelectrolyte Phases")
    assert names(doc) == ["Alexander M. Papiez", "Justin J. B. Perry", "Les R. Dix"]


def test_numbered_run_in_subsubsections_in_a_face_of_their_own_are_headings(tmp_path):
    # sagej: a \subsubsection is its number and title in sans italic, the text going on in roman
    # on the same line with no stop between them; each the next child of its subsection
    rows = [("Prehensile Manipulation Planning", 51, 80, 17, "Helvetica-Bold"),
            ("1 Introduction", 51, 130, 11.4, "Helvetica-Bold"), *body_lines(150, 4, x=51),
            ("1.1 Kinematic chains and Lie groups", 51, 215, 11.4, "Helvetica-Oblique"), *body_lines(235, 4, x=51)]
    for k, (lead, text) in enumerate([("1.1.1 Kinematic chain", "A kinematic chain is a tree of joints where"),
                                      ("1.1.2 Lie groups", "The joint configuration spaces enumerated in the")]):
        y = 300 + 90 * k
        rows += [(lead, 51, y, 9.5, "Helvetica-Oblique"), (text, 160, y, 10, "Times-Roman"),
                 *body_lines(y + 12, 5, x=51)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Introduction", "### 1.1 Kinematic chains and Lie groups",
                                 "#### 1.1.1 Kinematic chain", "#### 1.1.2 Lie groups"]
    assert "A kinematic chain is a tree of joints where" in doc.markdown


def test_a_numbered_list_going_on_past_the_section_number_stays_a_list(tmp_path):
    # RSC: a protocol listed "1. DC balance" ... "6. scale-ppm" in the body's type inside section 3;
    # its items 4 and 5 follow section 3's number, and were read as sections 4 and 5
    rows = [("A Method for Studying Diffusion Through Polyelectrolyte Phases", 72, 70, 15, "Helvetica-Bold")]
    y = 110
    for title in ("1 Introduction", "2 Experimental", "3 Procedure"):
        rows += [(title, 72, y, 12, "Helvetica-Bold"), *body_lines(y + 18, 3, size=9)]
        y += 70
    for k, item in enumerate(["1. DC balance", "2. Single exponential window function", "3. Zerofill (once)",
                              "4. Fast Fourier Transform", "5. Machinephase", "6. scale-ppm"]):
        rows.append((item, 80, y + 20 * k, 9, "Times-Roman"))
    rows += [*body_lines(y + 130, 3, size=9), ("4 Results and Discussion", 72, y + 180, 12, "Helvetica-Bold"),
             *body_lines(y + 198, 3, size=9)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Experimental", "## 3 Procedure",
                                 "## 4 Results and Discussion"]


def test_a_numbered_heading_hung_over_two_lines_is_one_heading(tmp_path):
    # SAGE and RSC: a long numbered subsection title fills its line, the rest hung under the
    # title past the number, in the same type, the text under them from the heading's edge
    rows = [("Prehensile Manipulation Planning", 51, 80, 17, "Helvetica-Bold"),
            ("1 Manipulation Problem", 51, 130, 11.4, "Helvetica-Bold"), *body_lines(150, 4, x=51),
            ("1.1 Grasp", 51, 215, 11.4, "Helvetica-Oblique"), *body_lines(235, 4, x=51),
            ("1.2 Merging a numerical constraint and its complement into a single", 51, 300, 11.4, "Helvetica-Oblique"),
            ("explicit constraint", 71, 317, 11.4, "Helvetica-Oblique"), *body_lines(337, 6, x=51)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Manipulation Problem", "### 1.1 Grasp",
                                 "### 1.2 Merging a numerical constraint and its complement into a single explicit constraint"]


def test_a_line_number_on_a_page_of_figures_goes_on_from_the_pages_before(tmp_path):
    # eLife's lineno review copy: every line numbered in the margin; a page of figures numbers
    # only its heading ("521 Supplemental Information"), too few to tell a column by itself
    p1 = [("Is structure based drug design ready for selectivity optimization?", 85, 80, 20, "Helvetica-Bold"),
          ("Steven K. Albanese, John D. Chodera", 85, 105, 10, "Helvetica-Bold"),
          ("Introduction", 85, 130, 11, "Helvetica-Bold"), ("Methods", 85, 360, 11, "Helvetica-Bold")]
    p1 += [(BODY[:90], 85, 150 + 14 * k, 9, "Times-Roman") for k in range(30) if k not in (14, 15)]
    p1 += [(str(k + 1), 62, 150 + 14 * k, 5, "Helvetica") for k in range(30)]
    p2 = [("31", 62, 80, 5, "Helvetica"), ("Supplemental Information", 85, 80, 11, "Helvetica-Bold"),
          ("Supplemental Figure 1. CDK2 adopts an inactive conformation in the crystal structure.", 85, 400, 9,
           "Times-Roman")]
    doc = compile_pages(tmp_path, [p1, p2])
    assert headings(doc)[1:] == ["## Introduction", "## Methods", "## Supplemental Information"]


def test_an_unmarked_line_naming_an_institution_under_marked_names_is_no_byline(tmp_path):
    # eLife: the names carry raised affiliation numbers; the first affiliation, in the byline's bold
    # 10 pt, is an institution named after a person ("Louis V. Gerstner, Jr. Graduate School ..."),
    # its own raised key read as a line of its own (left out here)
    doc = compile_pages(tmp_path, [[
        ("Is structure based drug design ready for selectivity optimization?", 85, 80, 20, "Helvetica-Bold"),
        ("Steven K. Albanese", 85, 130, 10, "Helvetica-Bold"), ("1", 181, 126, 7, "Helvetica-Bold"),
        (", John D. Chodera", 186, 130, 10, "Helvetica-Bold"), ("2", 275, 126, 7, "Helvetica-Bold"),
        ("Louis V. Gerstner, Jr. Graduate School of Biomedical Sciences, Memorial Sloan Kettering", 90, 154, 10,
         "Helvetica-Bold"),
        ("Cancer Center, New York, NY 10065; 2 Computational and Systems Biology Program", 85, 167, 10,
         "Helvetica-Bold"),
        ("Abstract", 85, 210, 11, "Helvetica-Bold"), *body_lines(230, 4, x=85),
        ("Methods", 85, 300, 11, "Helvetica-Bold"), *body_lines(320, 8, x=85)]])
    assert names(doc) == ["Steven K. Albanese", "John D. Chodera"]


def test_subsections_told_from_the_text_by_their_sans_face_only_are_headings(tmp_path):
    # bmcart (BMC): \section* in bold sans 12 pt, \subsection* in plain sans at the body's 10 pt
    # over serif text; the draft is double spaced, so the step under a subsection is a line's
    def body(top, n=5):
        return [(BODY[:88], 72, top + 18 * k, 10, "Times-Roman") for k in range(n)]

    pages = [[("A Parser for Scientific Names Based on Grammars", 72, 60, 17, "Helvetica-Bold"),
              ("Dmitry Y. Mozzherin and David J. Patterson", 72, 84, 11, "Helvetica"), *body(104, 2),
              ("Background", 72, 140, 12, "Helvetica-Bold"), *body(162),
              ("Adoption of Parsing Grammars", 72, 270, 10, "Helvetica"), *body(288),
              ("Adoption of the Language", 72, 396, 10, "Helvetica"), *body(414),
              ("Implementation", 72, 522, 12, "Helvetica-Bold"), *body(544),
              ("Parsing Rules", 72, 652, 10, "Helvetica"), *body(670, 3)]]
    assert headings(compile_pages(tmp_path, pages))[1:] == [
        "## Background", "### Adoption of Parsing Grammars", "### Adoption of the Language",
        "## Implementation", "### Parsing Rules"]


def test_numbered_entries_going_on_at_a_pages_foot_are_the_list_not_footnotes(tmp_path):
    # bmcart: a list of "n." entries in 6.3 pt, each second line hung under the first's text at a
    # line's pitch and a half, runs to the foot of the page; the entries there (a line each, apart
    # from their hung lines) follow the one above, they are no footnotes
    def entry(k, top):
        return [(f"{k}. Author, A., Writer, B.: A title of a paper number {k} on names. Journal of Names {k},",
                 72, top, 6.3, "Times-Roman"), (f"1-{k} (2012). doi:10.1000/names.{k}", 87, top + 9.8, 6.3, "Times-Roman")]

    refs = [("References", 72, 380, 12, "Helvetica-Bold")]
    for k in range(1, 17):
        refs += entry(k, 400 + 18.8 * (k - 1))
    pages = [[("A Parser for Scientific Names Based on Grammars", 72, 60, 17, "Helvetica-Bold"),
              ("Introduction", 72, 120, 12, "Helvetica-Bold"), *body_lines(140, 48)],
             [*body_lines(72, 24), *refs]]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert len(doc.references) == 16
    assert not [b for b in doc.blocks if b.kind.value == "footnote"]


def test_two_headings_in_a_row_in_one_type_are_two(tmp_path):
    # bmcart's draft: an empty \section*{Addendum (Alex)} right over \section*{Conventions}, both in
    # bold sans 10.8 pt at 15.4 pt apart; "Conventions" would have fit on the first line: no wrap
    pages = [[("A Parser for Scientific Names Based on Grammars", 72, 60, 17, "Helvetica-Bold"),
              ("Dmitry Y. Mozzherin and David J. Patterson", 72, 84, 11, "Helvetica"), *body_lines(104, 2),
              ("Background", 72, 140, 12, "Helvetica-Bold"), *body_lines(160, 8),
              ("Addendum (Alex)", 72, 270, 12, "Helvetica-Bold"), ("Conventions", 72, 287, 12, "Helvetica-Bold"),
              *body_lines(306, 8), ("Implementation", 72, 420, 12, "Helvetica-Bold"), *body_lines(440, 8),
              ("Parsing Rules", 72, 550, 10.5, "Helvetica-Bold"), *body_lines(568, 8)]]
    assert headings(compile_pages(tmp_path, pages))[1:] == [
        "## Background", "## Addendum (Alex)", "## Conventions", "## Implementation", "### Parsing Rules"]


def test_a_plots_turned_labels_atop_the_next_page_stay_out_of_an_entry_run_on(tmp_path):
    # a knitr draft (JSS): an entry broken at the page's foot after a comma goes on below a plot
    # whose turned axis labels the next page's text opens with; they were joined to the entry
    # as its run-on, and the entry's title read from them
    rows = [("Forecast Evaluation in R", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 72, 100, 12,
                                                                        "Helvetica-Bold"),
            *body_lines(120, 30), ("References", 72, 500, 12, "Helvetica-Bold")]
    for k, name in enumerate(["Bracher", "Dawid"]):
        rows += [(f"{name} A, Other B ({2000 + k}). A study of forecasts number {k}. Journal {k},", 72, 520 + 28 * k,
                  10, "Times-Roman"), ("1-20.", 84, 532 + 28 * k, 10, "Times-Roman")]
    rows += [("Funk S, Abbott S, Atkins BD, Baguelin M, Baillie JK, Birrell P, Blake J, Bosse NI,", 72, 576, 10,
              "Times-Roman"), ("Burton J, Carruthers J, Davies NG, Angelis DD, Dyson L, Edmunds WJ,", 84, 588, 10,
                               "Times-Roman")]
    page2 = [("% obs inside interval", 60, 300, 8, "Helvetica", True), ("% obs below quantile", 60, 560, 8,
                                                                         "Helvetica", True),
             # and the knitr code line over the plot, set as a paragraph in typewriter type
             ("> quantile_coverage(scores, facet_formula = ~target_type)", 72, 100, 10, "Courier"),
             ("Figure 8: quantile and interval coverage", 200, 600, 10, "Times-Roman"),
             ("Tang M, Tildesley MJ, Leeuwen EV (2002). Short-term forecasts of an epidemic.", 84, 630, 10,
              "Times-Roman"), ("Medical Journal 2, 1-20.", 84, 642, 10, "Times-Roman"),
             ("Gneiting T, Raftery AE (2007). Strictly proper scoring rules. Journal 3, 1-20.", 72, 660, 10,
              "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows, page2]), CompileOptions())
    assert [r.title for r in doc.references][2:] == ["Short-term forecasts of an epidemic",
                                                     "Strictly proper scoring rules"]
    assert "obs" not in doc.references[2].raw and "quantile_coverage" not in doc.references[2].raw
    assert "% obs inside interval" in doc.markdown  # the labels stay in the output, by their figure
    assert "quantile_coverage(scores" in doc.markdown


def test_a_plots_turned_labels_atop_the_next_page_stand_between_a_paragraph_and_its_run_on(tmp_path):
    # like a float: the paragraph broken at the page's foot still runs on past the labels, which
    # stay a paragraph of their own
    words = "the model reads every page of the paper and keeps the text in reading order while"
    rows = [("Forecast Evaluation in R", 150, 60, 18, "Helvetica-Bold"),
            ("1 Introduction", 72, 100, 12, "Helvetica-Bold"),
            *[(words, 72, 120 + 12 * i, 10, "Times-Roman") for i in range(50)]]
    page2 = [("% obs inside interval", 60, 300, 8, "Helvetica", True),
             ("the plots are set apart from it and the sentence ends here on the next page.", 72, 630, 10,
              "Times-Roman"),
             ("A new paragraph starts here with more text that follows on.", 84, 660, 10, "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows, page2]), CompileOptions())
    assert "reading order while the plots are set apart" in doc.markdown
    assert "\n\n% obs inside interval\n\n" in doc.markdown


def test_a_code_line_in_mid_sentence_stands_aside_as_a_float_does(tmp_path):
    # a listing set in a text column between a sentence's words (the blocks stage left its lines
    # a monospace paragraph): the sentence runs on past it, the code stays a paragraph of its own
    words = "the model reads every page of the paper and keeps the text in reading order while"
    rows = [("Forecast Evaluation in R", 150, 60, 18, "Helvetica-Bold"),
            ("1 Introduction", 72, 100, 12, "Helvetica-Bold"),
            *[(words, 72, 120 + 12 * i, 10, "Times-Roman") for i in range(8)],
            ("the nodes are kept in a queue of their own. This", 72, 216, 10, "Times-Roman"),
            ("val dirty : node -> field_name -> unit", 90, 250, 9, "Courier"),
            ("val clean : root : node -> unit", 90, 262, 9, "Courier"),
            ("means that no node is dirtied twice, which makes the insertion of a subtree faster.", 72, 296, 10,
             "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [rows]), CompileOptions())
    assert "of their own. This means that no node is dirtied twice" in doc.markdown
    assert "val dirty : node -> field_name -> unit" in doc.markdown


def test_an_article_type_in_bold_capitals_over_the_title_is_no_section(tmp_path):
    # bmcart: "SOFTWARE" in bold sans 11.7 pt over the 21.5 pt title: the article type
    pages = [[("SOFTWARE", 72, 50, 11.7, "Helvetica-Bold"),
              ("A Parser for Scientific Names Based on Grammars", 72, 84, 21.5, "Helvetica"),
              ("Dmitry Y. Mozzherin and David J. Patterson", 72, 112, 11, "Helvetica"), *body_lines(134, 3),
              ("Background", 72, 180, 12, "Helvetica-Bold"), *body_lines(200, 8),
              ("Implementation", 72, 310, 12, "Helvetica-Bold"), *body_lines(330, 8)]]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert headings(doc) == ["# A Parser for Scientific Names Based on Grammars", "## Background", "## Implementation"]


def test_running_heads_of_a_trim_page_centred_on_a4_are_not_sections(tmp_path):
    # a journal whose trim page sits in the middle of an A4 sheet (classic JFM) prints its running
    # heads 107 pt down the 842 pt page, below the top 0.12 of it: still furniture, not headings
    heads = ("Alice B. Writer and Carol D. Author", "Stratified Turbulence in a Small Box")
    pages = [[("Stratified Turbulence in a Small Box", 110, 160, 17, "Times-Bold"), *body_lines(200, 30, x=96)]]
    for p in range(2, 8):
        head = f"{p} {heads[0]}" if p % 2 == 0 else f"{heads[1]} {p}"
        rows = [(head, 96, 115, 10, "Times-Roman")]
        rows += [(f"{p - 1}. Section on {TOPICS[p - 2]}", 96, 135, 11, "Times-Bold"), *body_lines(155, 40, x=96)]
        pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages, size=(595, 842)), CompileOptions(fast=True))
    assert not any(heads[0] in h or heads[1] in h for h in headings(doc)[1:])
    assert [h for h in headings(doc) if "Section on" in h] == [
        f"## {p - 1} Section on {TOPICS[p - 2]}" for p in range(2, 8)]


def test_a_page_of_one_table_inside_the_reference_list_neither_ends_it_nor_is_entries(tmp_path):
    # AGU's draft: a full-page appendix table (caption, a table read as one, a sub-label, column
    # heads and rows the table reader left as text) stands between two pages of an author-year
    # list; the next page opens with the tail of the entry broken before the table. Its rows were
    # the list's entries and the next page's entries the run-on of its last row
    def entry(name, k, top):
        return [(f"{name}, A., & Other, B. ({2000 + k}). A study of the things number {k} in the field of", 72, top, 10,
                 "Times-Roman"), (f"volcanoes and glasses. Journal of Things, {k}(2), 1-20.", 86, top + 12, 10, "Times-Roman")]

    names = ["Allison", "Barth", "Blundy", "Branch", "Carvajal", "Cubillos", "Dixon", "Duncan", "Eilers", "Fine",
             "Hess", "Howie", "Kumagai", "Lee", "Lesher", "Mandeville", "McIntosh", "Menke"]
    p1 = [("A Package for Fitting Baselines to Spectra", 72, 60, 17, "Times-Bold"),
          ("1 Introduction", 72, 100, 12, "Times-Bold"), *body_lines(120, 20),
          ("References", 72, 420, 12, "Times-Bold")]
    for k, name in enumerate(names[:6]):
        p1 += entry(name, k, 440 + 28 * k)
    p1 += [("Gneiting, T., & Raftery, A. (2007). Strictly proper scoring rules, prediction and", 72, 608, 10,
            "Times-Roman")]
    p2 = [("Table A1: Assessment of analytical conditions, precision, and accuracy for analyzed", 72, 80, 10,
           "Times-Roman"), ("phases including glass and olivine", 72, 92, 10, "Times-Roman")]
    for j, head in enumerate(["Element", "Crystal", "Peak", "Time (s)", "Material", "Precision (%)"]):
        p2.append((head, 72 + 80 * j, 120, 9, "Times-Roman"))
    for r in range(14):
        for j, cell in enumerate([f"E{r}", "TAP", f"{27741 + r * 13}", f"{10 + r}", "Diopside", f"{0.4 + r / 10:.1f}"]):
            p2.append((cell, 72 + 80 * j, 140 + 14 * r, 9, "Times-Roman"))
    p2 += [("Olivine", 280, 360, 10, "Times-Bold"),
           ("Element Spectrometer Crystal Peak Location Counting Time (s)", 72, 380, 9, "Times-Roman")]
    for r in range(6):
        p2.append((f"C{r} Si Sp4 TAP 2774{r} 10 Diopside 0.4 Fe Sp3 LLIF 4808{r} 10 Fayalite 1.0 Mg Sp1 LTAP 3853{r}",
                   72, 400 + 12 * r, 9, "Times-Roman"))
    p3 = [("estimation. Journal of the American Statistical Association, 102(477), 359-378.", 86, 72, 10, "Times-Roman")]
    for k, name in enumerate(names[6:]):
        p3 += entry(name, k + 6, 84 + 28 * k)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [p1, p2, p3]), CompileOptions())
    assert [r.raw.split(",")[0] for r in doc.references] == [*names[:6], "Gneiting", *names[6:]]
    assert doc.references[6].title == "Strictly proper scoring rules, prediction and estimation"
    assert "C5 Si Sp4 TAP 27745" in doc.markdown  # the table's text stays in the output


def test_a_byline_led_by_by_names_its_authors(tmp_path):
    # classic JFM: "By Name and Name" centred under the title, the word "By" no part of a name
    doc = compile_pages(tmp_path, [[
        ("Stratified Turbulence in a Small Box", 150, 90, 17, "Times-Bold"),
        ("By Stephen M. de Bruyn Kops and James J. Riley", 150, 130, 11, "Times-Roman"),
        ("Department of Mechanical Engineering, University of Washington, Seattle, USA", 120, 150, 9,
         "Times-Italic"),
        ("1. Introduction", 72, 200, 11, "Times-Bold"), *body_lines(220)]])
    assert names(doc) == ["Stephen M. de Bruyn Kops", "James J. Riley"]


def test_run_in_subsections_with_an_upright_number_and_an_italic_title_are_headings(tmp_path):
    # imsart [aoas]: sections run-in in bold ("2. Section headings. Here ..."), subsections run-in
    # with the number upright and the title in italic ("2.1. A sub-section. Regular text."); a lead
    # numbered out of turn stays text
    def lead(y, num, title, rest, face="Times-Italic"):
        if face == "Times-Bold":
            return [(f"{num} {title}", 72, y, 11, face), (rest, 72 + 5.7 * len(num + title) + 9, y, 11, "Times-Roman")]
        x2 = 72 + 5.5 * len(num) + 4
        return [(num, 72, y, 11, "Times-Roman"), (title, x2, y, 11, face),
                (rest, x2 + 5.2 * len(title) + 4, y, 11, "Times-Roman")]
    rows = [("A Sample Article Title For The Annals", 120, 70, 14, "Times-Bold")]
    leads = [("1.", "Introduction.", "This template helps you to create a proper manuscript", "Times-Bold"),
             ("2.", "Section headings.", "Here are some of the sub-sections of the paper now", "Times-Bold"),
             ("2.1.", "A sub-section.", "Regular text goes on here after the title of it", "Times-Italic"),
             ("2.1.1.", "A sub-sub-section.", "Regular text goes on here after the title", "Times-Italic"),
             ("5.4.", "Out of turn.", "An italic lead numbered for elsewhere stays in text", "Times-Italic"),
             ("3.", "Text.", "The text of the third section goes on after its title", "Times-Bold"),
             ("3.1.", "Lists.", "The following is an example of an itemized list here", "Times-Italic")]
    for k, (num, title, rest, face) in enumerate(leads):
        rows += [*lead(130 + 60 * k, num, title, rest, face), *body_lines(142 + 60 * k, 3, size=11)]
    doc = compile_pages(tmp_path, [rows])
    assert headings(doc)[1:] == ["## 1 Introduction", "## 2 Section headings", "### 2.1 A sub-section",
                                 "#### 2.1.1 A sub-sub-section", "## 3 Text", "### 3.1 Lists"]
    assert "Regular text goes on here after the title of it" in doc.markdown
    assert "Out of turn." in doc.markdown


def test_numbered_heads_alone_in_the_section_heads_face_are_headings(tmp_path):
    # IEEE Access: "1) Efficiency" on a line of its own in sans regular, smaller than the serif body,
    # under sans bold sections and lettered subsections; a "1) ..." list in the body face stays a list
    rows = [("Android Malware Detection Based on Composition Ratio", 72, 60, 20, "Helvetica-Bold"),
            ("I. INTRODUCTION", 72, 110, 9, "Helvetica-Bold"), *body_lines(124, 3),
            ("1) Efficiency: Practical detection systems need accurate detection.", 72, 162, 10, "Times-Roman"),
            ("2) Stability: A detection scheme must detect old and new samples.", 72, 174, 10, "Times-Roman"),
            *body_lines(190, 3),
            ("II. SHORTCOMING OF CONVENTIONAL SCHEMES", 72, 240, 9, "Helvetica-Bold"), *body_lines(254, 3),
            ("1) Efficiency", 72, 296, 9, "Helvetica"), *body_lines(310, 3),
            ("2) Intelligibility", 72, 352, 9, "Helvetica"), *body_lines(366, 3),
            ("III. PROPOSED SCHEME", 72, 410, 9, "Helvetica-Bold"),
            ("A. ALGORITHM", 72, 430, 9, "Helvetica-BoldOblique"), *body_lines(444, 3),
            ("1) Proposed Score Calculation", 72, 486, 9, "Helvetica"), *body_lines(500, 3),
            ("2) Database Construction", 72, 542, 9, "Helvetica"), *body_lines(556, 3)]
    doc = compile_pages(tmp_path, [rows])
    heads = headings(doc)
    assert [h.lstrip("#").strip() for h in heads if h.startswith("####")] == [
        "Efficiency", "Intelligibility", "Proposed Score Calculation", "Database Construction"]
    assert "1) Efficiency: Practical detection systems" in doc.markdown


def test_a_byline_in_capitals_with_bracketed_grades_names_its_authors(tmp_path):
    # IEEE Access: names in capitals, each with its raised affiliation mark and a grade in
    # parentheses, the last name broken over two lines ("and IWAO" / "SASASE.¹"). Courier: every
    # glyph 0.6 em wide, so each raised mark sits right after its name.
    def row(y, parts, x=72.0):
        out = []
        for text, raised in parts:
            size = 6 if raised else 10
            out.append((text, x, y - 4 if raised else y, size, "Courier-Bold"))
            x += 0.6 * size * len(text)
        return out
    doc = compile_pages(tmp_path, [[
        ("Malware Detection Based on Permission Pairs", 72, 90, 20, "Helvetica"),
        *row(130, [("HIROYA KATO", 0), ("1", 1), (", (Graduate Student Member, IEEE), TAKAHIRO SASAKI", 0),
                   ("1", 1), (", and IWAO", 0)]),
        *row(142, [("SASASE.", 0), ("1", 1), (", (Senior Member, IEEE)", 0)]),
        ("1", 72, 154, 5, "Helvetica"),
        ("Department of Computer Science, Keio University, Yokohama 223-8522, Japan", 76, 157, 7, "Helvetica"),
        ("ABSTRACT Android malware is a threat to users, and detection by permissions is cheap.", 72, 190, 9,
         "Helvetica"),
        ("I. INTRODUCTION", 72, 240, 10, "Helvetica-Bold"), *body_lines(260)]])
    assert names(doc) == ["Hiroya Kato", "Takahiro Sasaki", "Iwao Sasase"]


def test_a_heading_right_under_a_tables_rows_is_no_row_of_it(tmp_path):
    # IEEE Access: a lettered subsection head in 9 pt bold sans right under a table set in 8 pt,
    # its text under it; the head was read as the table's last row (one cell across the columns)
    rows = [("Android Malware Detection Based on Composition Ratio", 72, 60, 20, "Helvetica-Bold"),
            ("I. INTRODUCTION", 72, 110, 9, "Helvetica-Bold"), *body_lines(124, 3),
            ("II. EVALUATION", 72, 170, 9, "Helvetica-Bold"),
            ("A. DATASET", 72, 184, 9, "Helvetica-BoldOblique"), *body_lines(198, 3),
            ("TABLE 4. Datasets of APK files used in our evaluation.", 72, 240, 8, "Times-Roman")]
    for r, cells in enumerate([("", "Source", "Period", "Testing", "Training"),
                               ("Malware", "Drebin", "2010-2012", "1,000", "3,000"),
                               ("Malware", "Androzoo", "2017-2020", "1,500", "6,000"),
                               ("Benign apps", "Androzoo", "2017-2020", "1,500", "6,000")]):
        for j, cell in enumerate(cells):
            if cell:
                rows.append((cell, 72 + 90 * j, 256 + 11 * r, 8, "Times-Roman"))
    rows += [("B. COMPARISON WITH CONVENTIONAL SCHEMES", 72, 330, 9, "Helvetica-BoldOblique"),
             *body_lines(344, 4)]
    doc = compile_pages(tmp_path, [rows])
    heads = [h.lstrip("#").strip() for h in headings(doc)]
    assert "COMPARISON WITH CONVENTIONAL SCHEMES" in heads
    assert not [line for line in doc.markdown.splitlines() if ("<td" in line or "|" in line) and "COMPARISON" in line]
    assert "| Benign apps | Androzoo | 2017-2020 |" in doc.markdown  # the rows above it stay the table


def short_first_entry_pages() -> list[list[tuple]]:
    """A numbered list whose first entry is one short line (BMVC's "[1] Project jupyter.
    http://jupyter.org/."), the later ones a full line wide, two of them below 0.9 of the page."""
    long = "Jesse Levinson and Jake Askeland. Towards fully autonomous driving: systems and algorithms."
    entries = [("[1] Project jupyter. http://jupyter.org/.", 72, 560, 10, "Times-Roman")]
    for k, y in zip(range(2, 9), range(575, 700, 18), strict=False):
        entries.append((f"[{k}] " + long, 72, y, 10, "Times-Roman"))
    entries += [("[9] Atsushi Sakai and Daniel Ingram. Github account. https://github.com/AtsushiSakai.", 72, 720, 10,
                 "Times-Roman"),
                ("[10] " + long, 72, 738, 10, "Times-Roman")]
    return [[("A Python Code Collection of Robotics Algorithms", 72, 80, 16, "Times-Bold"),
             ("1 Introduction", 72, 130, 12, "Times-Bold"), *body_lines(150, 20),
             ("References", 72, 530, 12, "Times-Bold"), *entries]]


def test_entries_at_the_pages_foot_after_a_short_first_entry_stay_in_the_list(tmp_path):
    doc = compile_document(make_pdf(tmp_path / "p.pdf", short_first_entry_pages()), CompileOptions())
    assert [r.raw.split("]")[0] + "]" for r in doc.references] == [f"[{k}]" for k in range(1, 11)]


def column_run_on_list_page() -> list[list[tuple]]:
    """A two-column author-year list with a hanging indent (OUP's namedate list): the left column
    ends inside an entry, the right one opens with its last line and holds two more entries."""
    def entry(lines, x, y):
        return [(t, x + (0 if k == 0 else 8.5), y + 10.5 * k, 7.5, "Times-Roman") for k, t in enumerate(lines)]

    left = [("Polymorphism of Genetic Ambigrams", 54, 60, 18, "Times-Bold"),
            ("1 Introduction", 54, 100, 10, "Times-Bold"),
            *[(BODY[:60], 54, 116 + 12 * k, 9, "Times-Roman") for k in range(30)],
            ("References", 54, 500, 10, "Times-Bold")]
    y = 518
    for lines in (["B. G. Barrell, G. M. Air, and C. A. Hutchison. Overlapping genes",
                   "in bacteriophage phiX174. Nature, 264:34-41, 1976."],
                  ["N. Chirico, A. Vianelli, and R. Belshaw. Why genes overlap in",
                   "viruses. Proc Biol Sci., 277:1701, 2010."],
                  ["M. Kimura. A simple method for estimating evolutionary rates of",
                   "base substitutions. J. Molecular Evolution, 16:111-20, 1980."],
                  ["M. Shi, X.-D. Lin, J.-H. Tian, L.-J. Chen, X. Chen, C.-X. Li,",
                   "X.-C. Qin, J. Li, J.-P. Cao, E. C. Holmes, and Y.-Z. Zhang.",
                   "Redefining"]):
        left += entry(lines, 54, y)
        y += 10.5 * len(lines)
    right = [("the invertebrate RNA virosphere. Nature, Nov. 2016. ISSN", 314.5, 72, 7.5, "Times-Roman"),
             ("1476-4687. doi: 10.1038/nature20167.", 314.5, 82.5, 7.5, "Times-Roman"),
             *entry(["M. Shi, P. Neville, J. Nicholson, and E. C. Holmes. High-",
                     "Resolution Metatranscriptomics Reveals the Ecological",
                     "Dynamics of Mosquito-Associated RNA Viruses. Journal of",
                     "Virology, 91(17), Sept. 2017."], 306, 93),
             *entry(["M. Wilkinson, D. Yllanes, and G. Huber. Polysomally protected",
                     "viruses. 2021. URL https://arxiv.org/abs/2102.00316."], 306, 135)]
    return [left + right]


def test_entries_in_the_column_an_entry_runs_on_into_are_entries(tmp_path):
    doc = compile_document(make_pdf(tmp_path / "p.pdf", column_run_on_list_page()), CompileOptions())
    assert [r.raw[:12] for r in doc.references] == ["B. G. Barrel", "N. Chirico, ", "M. Kimura. A", "M. Shi, X.-D",
                                                    "M. Shi, P. N", "M. Wilkinson"]
    assert doc.references[3].raw.endswith("doi: 10.1038/nature20167.")


def test_names_set_apart_by_a_wide_space_on_one_line_are_names(tmp_path):
    # EPTCS: "Jane Roe\hspace{1em}John Doe\hspace{1em}..." centred on one line, no comma between the
    # names (a gap of 1.5 em, under an author grid's), the team's name and an e-mail under them
    x, byline = 120.0, []
    for name in ("Fabrizio Genovese", "Andre Knispel", "Joshua Fitzgerald"):
        byline.append((name, x, 150, 12, "Courier"))
        x += 0.6 * 12 * len(name) + 18  # Courier: 0.6 em a character; then 1.5 em of space
    doc = compile_pages(tmp_path, [[
        ("Mapping Finite State Machines to Circuits", 120, 100, 17, "Times-Bold"), *byline,
        ("Statebox Team", 250, 164, 12, "Courier"), ("research@statebox.io", 230, 178, 12, "Courier"),
        ("We provide a categorical procedure to turn graphs into boolean circuits, and more.", 100, 218, 10,
         "Times-Roman"),
        ("1 Introduction", 72, 260, 14, "Times-Bold"), *body_lines(280)]])
    assert names(doc) == ["Fabrizio Genovese", "Andre Knispel", "Joshua Fitzgerald"]


def test_a_heading_with_a_subscript_under_its_superscript_is_one_heading(tmp_path):
    # JHEP: "2.2 The mono-X + E^miss_T signatures" in bold, the subscript T set under the raised
    # "miss" (left of the line's end): it was a line of its own, and the raised word refused the
    # heading as a note's mark
    from ctxmill.sources.pdf import extract

    def end_x(text, font, size):  # where a run set at x 72 ends, read back from a PDF of it alone
        return extract(make_pdf(tmp_path / "w.pdf", [[(text, 72, 100, size, font)]])).pages[0].lines[0].bbox[2]

    head = "2.2 The mono-X + E"
    x_sup = end_x(head, "Times-Bold", 11) + 0.3
    x_after = end_x("miss", "Times-Roman", 8) - 72 + x_sup
    x_sig = end_x("T", "Times-Roman", 8) - 72 + x_sup + 2.5
    rows = [("Constraints on Simplified Dark Matter Models", 72, 60, 17, "Times-Bold"),
            ("1 Introduction", 72, 110, 12, "Times-Bold"), *body_lines(128, 3, size=11),
            ("2 Simplified models", 72, 180, 12, "Times-Bold"), *body_lines(198, 3, size=11),
            ("2.1 Vector mediator", 72, 250, 11, "Times-Bold"), *body_lines(266, 3, size=11),
            (head, 72, 318, 11, "Times-Bold"), ("miss", x_sup, 314, 8, "Times-Roman"),
            ("T", x_sup, 321, 8, "Times-Roman"), ("signatures", max(x_after, x_sig) + 2.5, 318, 11, "Times-Bold"),
            *body_lines(336, 3, size=11),
            ("2.3 Mass and coupling points", 72, 388, 11, "Times-Bold"), *body_lines(404, 3, size=11)]
    doc = compile_pages(tmp_path, [rows])
    heads = headings(doc)
    assert "### 2.2 The mono-X + EᵐⁱˢˢT signatures" in heads, heads
    assert heads[-1] == "### 2.3 Mass and coupling points"


def test_a_name_shaped_institution_in_a_name_institution_grid_is_no_author(tmp_path):
    # bmvc2k's \addauthor: each row a name, its institution to the right, the e-mail under the name;
    # one institution is a company whose name reads like a person's ("Blue Harbor")
    rows = [("Sampling Planners for Mobile Robots in Python", 110, 60, 17, "Times-Bold")]
    for k, (name, inst, mail) in enumerate([("Maria Lopez", "State University of Ohio", "maria@osu.edu"),
                                            ("Peter Brandt", "Acme Robotics Inc.", "peter@acme.com"),
                                            ("Lena Fischer", "Technical University of Berlin", "lena@tu.de"),
                                            ("Tomas Novak", "Blue Harbor", "tomas@blueharbor.io")]):
        # written in the class's order, a cell at a time (name, e-mail, institution): a line of its own each
        rows += [(name, 72, 110 + 26 * k, 10, "Times-Roman"), (mail, 72, 122 + 26 * k, 9, "Courier"),
                 (inst, 300, 110 + 26 * k, 10, "Times-Roman")]
    rows += [("Abstract", 280, 230, 11, "Times-Bold"), *body_lines(246, 3), ("1 Introduction", 72, 300, 12, "Times-Bold"),
             *body_lines(320)]
    doc = compile_pages(tmp_path, [rows])
    assert names(doc) == ["Maria Lopez", "Peter Brandt", "Lena Fischer", "Tomas Novak"]


def test_a_grid_of_names_beside_names_keeps_every_name(tmp_path):
    # two authors a row, their institutions on the row under them: the right-hand cells beside names are names
    rows = [("Sampling Planners for Mobile Robots in Python", 110, 60, 17, "Times-Bold")]
    for k, (left, right) in enumerate([("Maria Lopez", "Peter Brandt"), ("Lena Fischer", "Tomas Novak"),
                                       ("Anna Berg", "Karl Weiss")]):
        rows += [(left, 72, 110 + 26 * k, 10, "Times-Roman"), (right, 300, 110 + 26 * k, 10, "Times-Roman"),
                 ("State University of Ohio", 72, 122 + 26 * k, 9, "Times-Roman"),
                 ("Technical University of Berlin", 300, 122 + 26 * k, 9, "Times-Roman")]
    rows += [("Abstract", 280, 230, 11, "Times-Bold"), *body_lines(246, 3), ("1 Introduction", 72, 300, 12, "Times-Bold"),
             *body_lines(320)]
    doc = compile_pages(tmp_path, [rows])
    assert names(doc) == ["Maria Lopez", "Peter Brandt", "Lena Fischer", "Tomas Novak", "Anna Berg", "Karl Weiss"]


def text_width(tmp_path, text: str, size: float, font: str) -> float:
    """How wide make_pdf sets ``text`` (from the page's own text layer)."""
    import pypdfium2 as pdfium
    pdf = pdfium.PdfDocument(str(make_pdf(tmp_path / "w.pdf", [[(text, 72, 100, size, font)]])))
    tp = pdf[0].get_textpage()
    right = tp.get_charbox(tp.count_chars() - 1)[2]
    pdf.close()
    return right - 72


def test_a_bold_unnumbered_head_ending_in_math_is_a_heading(tmp_path):
    # EPTCS: "Addendum - Building the morphisms S_G, T_G, S_m,n, T_m,n" in bold 14.3 pt, its symbols in the math
    # italic and their subscripts smaller and lower, not bold; the numbered sections bold 14.3 pt
    lead = "Addendum - Building the morphisms"
    x = 72 + text_width(tmp_path, lead, 14, "Times-Bold") + 3.5
    math = []
    for sym, sub in (("S", "G"), ("T", "G"), ("S", "m,n"), ("T", "m,n")):
        math += [(sym, x, 430, 14, "Times-Italic"),
                 *[(ch, x + 8 + 5 * k, 433, 10, "Times-Roman" if ch == "," else "Times-Italic")
                   for k, ch in enumerate(sub)],
                 (",", x + 8 + 5 * len(sub), 430, 14, "Times-Roman")]
        x += 14 + 5 * len(sub)
    page = [("Mapping Finite State Machines to Circuits", 72, 70, 17, "Times-Bold"),
            ("1 Introduction", 72, 110, 14, "Times-Bold"), *body_lines(130, 8),
            ("2 Conclusion", 72, 250, 14, "Times-Bold"), *body_lines(270, 8),
            ("Acknowledgements", 72, 380, 14, "Times-Bold"), *body_lines(400, 1),
            (lead, 72, 430, 14, "Times-Bold"), *math[:-1], *body_lines(450, 8)]
    heads = [h.lstrip("#").strip() for h in headings(compile_pages(tmp_path, [page]))]
    assert heads[1:4] == ["1 Introduction", "2 Conclusion", "Acknowledgements"]
    assert len(heads) == 5 and heads[4].startswith("Addendum - Building the morphisms SG")


def test_a_plain_head_clearly_larger_than_a_tables_rows_is_no_row_of_it(tmp_path):
    # OUP's authoring template: section heads in a 10 pt roman face (not bold) over a 7.5 pt body;
    # a head right under a table set in the body's size was read as the table's last row
    rows = [("Polymorphism of Genetic Ambigrams", 54, 60, 18, "Times-Bold"),
            ("Introduction", 54, 110, 10, "Times-Roman"), *body_lines(126, 4, x=54, size=7.5),
            ("Results", 54, 180, 10, "Times-Roman"), *body_lines(196, 4, x=54, size=7.5),
            ("Table 2. Doubly synonymous codons and their complements.", 54, 250, 7, "Times-Roman")]
    for r, cells in enumerate([("Strand", "N", "M", "Nn", "Nv", "ratio"),
                               ("CNV-RdRp", "1033", "46", "606", "362", "0.0068"),
                               ("ZMV-RdRp", "1075", "12", "210", "39", "0.0064"),
                               ("CNV-Robin", "272", "46", "213", "146", "0.0096"),
                               ("ZMV-Robin", "304", "10", "84", "48", "0.0145")]):
        for j, cell in enumerate(cells):
            rows.append((cell, 54 + 70 * j, 266 + 10.5 * r, 7.5, "Times-Roman"))
    rows += [("Discussion", 54, 352, 10, "Times-Roman"), *body_lines(368, 5, x=54, size=7.5)]
    doc = compile_pages(tmp_path, [rows])
    heads = [h.lstrip("#").strip() for h in headings(doc)]
    assert heads[-3:] == ["Introduction", "Results", "Discussion"]
    assert not [line for line in doc.markdown.splitlines() if ("<td" in line or "|" in line) and "Discussion" in line]
    assert "| ZMV-Robin | 304 | 10 | 84 | 48 | 0.0145 |" in doc.markdown  # the rows above it stay the table


def test_a_numbered_bold_lead_running_on_into_the_next_line_is_no_section(tmp_path):
    # OUP's authoring template: an enumerated item in the text, its number in roman and its lead in
    # bold, the lead wrapping to the next line and ending inside it ("of ribosomes with RNA. This
    # could ..."); the item's first line was read as section 2
    def item(number, lead, y):
        return [(number, 54, y, 7.5, "Times-Roman"), (lead, 64, y, 7.5, "Times-Bold")]

    run_on = "of ribosomes with RNA"
    x = 54 + text_width(tmp_path, run_on, 7.5, "Times-Bold")
    rows = [("Polymorphism of Genetic Ambigrams", 54, 60, 18, "Times-Bold"),
            ("Introduction", 54, 110, 10, "Times-Bold"), *body_lines(126, 6, x=54, size=7.5),
            ("Hypotheses", 54, 210, 10, "Times-Bold"), *body_lines(226, 3, x=54, size=7.5),
            *item("1.", "The reverse open reading frame codes a protein.", 266), *body_lines(276, 3, x=54, size=7.5),
            *item("2.", "The reverse open reading frame facilitates association", 316),
            (run_on, 54, 326, 7.5, "Times-Bold"),
            (". This could conceivably convey advantages by providing a mechanism", x, 326, 7.5, "Times-Roman"),
            *body_lines(336, 4, x=54, size=7.5),
            ("Results", 54, 400, 10, "Times-Bold"), *body_lines(416, 6, x=54, size=7.5)]
    doc = compile_pages(tmp_path, [rows])
    heads = [h.lstrip("#").strip() for h in headings(doc)]
    assert heads[1:] == ["Introduction", "Hypotheses", "Results"]
    assert "The reverse open reading frame facilitates association" in doc.markdown  # kept as text


def test_a_one_line_theorem_statement_is_no_heading_left_in_the_text(tmp_path):
    # OUP's authoring template: "Rule 1" (bold, with its number) and its statement in italic on one
    # line, space above and below (a \newtheorem environment); QA named it a heading read as text
    label = "Rule 1"
    x = 54 + text_width(tmp_path, label, 9, "Times-Bold") + 4
    rows = [("Polymorphism of Genetic Ambigrams", 54, 60, 18, "Times-Bold"),
            ("Introduction", 54, 110, 11, "Times-Bold"), *body_lines(128, 6, x=54, size=9),
            (label, 54, 214, 9, "Times-Bold"), ("All complementary-strand stops are removable", x, 214, 9, "Times-Italic"),
            *body_lines(240, 6, x=54, size=9)]
    doc = compile_pages(tmp_path, [rows])
    assert "All complementary-strand stops are removable" in doc.markdown
    assert "heading_like_text" not in [c.id for c in doc.qa.checks]


def test_the_score_counts_an_abstract_right_only_where_one_is_printed_and_it_is_the_printed_one(tmp_path):
    # benchmarks/corpus_score.py (round29_front_rule.md S1): `abstract` is any text; `abstract_agrees`
    # is ours given exactly when the truth has one, and then opening with the truth's words
    sys.path.insert(0, str(REPO / "benchmarks"))
    from corpus_score import score
    (tmp_path / "document.md").write_text("# A Report\n\n## 1 Introduction\n\nText.\n")
    truth = {"title": "A Report", "authors": [], "sections": [{"level": 1, "title": "Introduction"}]}

    def agrees(ours, theirs):
        (tmp_path / "metadata.json").write_text(json.dumps({"title": "A Report", "abstract": ours}))
        return score(tmp_path, {**truth, "abstract": theirs}).get("abstract_agrees")

    assert agrees("", "") is True  # a paper printing no abstract, given none
    assert agrees("", None) is True
    assert agrees("Department of Physics, Some University", "") is False
    assert agrees("Department of Physics, Some University", "We study the flow of sand in a pipe.") is False
    assert agrees("We study the flow of sand in a pipe and find two regimes.", "We study the flow of sand in a pipe.")
    assert agrees("", "We study the flow of sand in a pipe.") is False
    (tmp_path / "metadata.json").write_text(json.dumps({"title": "A Report", "abstract": ""}))
    assert "abstract_agrees" not in score(tmp_path, truth)  # a truth without the field: not scored


def small_caps_byline(parts: list[tuple[str, str]], x: float, y: float) -> list[tuple]:
    """imsart's byline: each name in LaTeX's fake small caps (the first capital 11 pt, the rest
    8.8 pt, separate text objects on one baseline) with its marks after it in 7.7 pt, raised a
    little: not small enough beside the 8.8 pt capitals for the source's superscript test."""
    out = []
    for text, marks in parts:
        word_start = True
        for k, ch in enumerate(text):
            lower = text[k - 1:k + 3] == " AND" or text[k - 2:k + 2] == " AND" or text[k - 3:k + 1] == " AND"
            size = 11 if (word_start and not lower) or not ch.isalpha() else 8.8  # "and" all in small capitals
            out.append((ch, x, y, size, "Times-Roman"))
            x += _TIMES.get(ch, 600) * size / 1000
            word_start = ch == " "
        if marks:
            out.append((marks, x, y - 3, 7.7, "Times-Roman"))
            x += 0.5 * 7.7 * len(marks)
    return out


def test_a_byline_in_small_capitals_is_read_as_typed_with_its_marks(tmp_path):
    # imsart (AOAS): "BY FIRST AUTHOR*1,a, SECOND AUTHOR2,b AND THIRD AUTHOR2,c" in small caps, the
    # marks in type only a little smaller than the small capitals; then the affiliation notes and
    # an unlabelled abstract (round29_front_rule.md A1)
    doc = compile_pages(tmp_path, [[
        ("A SAMPLE ARTICLE TITLE", 200, 88, 14, "Times-Bold"),
        *small_caps_byline([("BY FIRST AUTHOR", "*1,a"), (", SECOND AUTHOR", "2,b"),
                            (" AND THIRD AUTHOR", "2,c")], 150, 111),
        ("1", 80, 128, 6.8, "Times-Roman"),
        ("Department of Statistics, Some University, first@somewhere.com", 84, 131, 8, "Times-Roman"),
        ("2", 80, 156, 6.8, "Times-Roman"),
        ("Department of Biology, Other University, second@somewhere.com", 84, 159, 8, "Times-Roman"),
        ("The abstract should summarize the contents of the paper. It should be clear, descriptive and", 72, 191, 9,
         "Times-Roman"),
        ("self-explanatory and not longer than two hundred words, and it should be suitable for publication", 72,
         202, 9, "Times-Roman"),
        ("in abstracting services. Formulas should be used as sparingly as possible within the abstract.", 72,
         213, 9, "Times-Roman"),
        ("1 Introduction", 72, 250, 12, "Times-Bold"), *body_lines(270)]])
    assert names(doc) == ["First Author", "Second Author", "Third Author"]
    assert doc.metadata.abstract.startswith("The abstract should summarize")


def _two_rows(text: str) -> list[str]:
    cut = text.rfind(" ", 0, 95) if len(text) > 95 else len(text)
    return [r for r in (text[:cut], text[cut + 1:]) if r]


def front_page(abstract_rows: list[tuple], affiliation: str = "School of Electrical and Computer Engineering, "
               "Georgia Institute of Technology, Atlanta, Georgia 30332, Email: someone@example.org, "
               "Telephone: (800) 555 1212, Fax: (888) 555 1212") -> list[list[tuple]]:
    """A title page: title, one name, its long address paragraph, then ``abstract_rows``, then a
    numbered section over running text."""
    return [[("A Bare Demo of a Conference Paper Class", 150, 80, 20, "Helvetica"),
             ("Michael Shell", 260, 120, 11, "Times-Roman"),
             *[(row, 72, 140 + 11 * k, 9, "Times-Roman") for k, row in enumerate(_two_rows(affiliation))],
             *abstract_rows,
             ("1 Introduction", 72, 260, 12, "Helvetica-Bold"), *body_lines(280)]]


def test_a_labelled_abstract_however_short_is_the_abstract_not_the_address_above_it(tmp_path):
    # IEEEtran's bare demo ("Abstract—The abstract goes here.") and Copernicus's "Abstract. Text": a
    # label with its stop or dash is one, whatever the length of its text (round29_front_rule.md B1)
    doc = compile_pages(tmp_path, front_page([("Abstract—The abstract goes here.", 72, 200, 9, "Times-Bold")]))
    assert doc.metadata.abstract == "The abstract goes here."


def test_the_word_abstract_opening_a_sentence_is_no_label(tmp_path):
    # bioRxiv's template: "Abstract of the paper goes here." is the abstract's first sentence (B2)
    rows = [("Abstract of the paper goes here. Lorem ipsum dolor sit amet, consectetuer adipiscing elit. Ut", 72,
             200, 9, "Times-Roman"),
            ("purus elit, vestibulum ut, placerat ac, adipiscing vitae, felis. Curabitur dictum gravida mauris.", 72,
             211, 9, "Times-Roman")]
    doc = compile_pages(tmp_path, front_page(rows, affiliation="University of Somewhere"))
    assert doc.metadata.abstract.startswith("Abstract of the paper goes here. Lorem ipsum")


def test_an_abstract_head_with_nothing_under_it_gives_no_abstract(tmp_path):
    # AGU's draft: an "Abstract" head over nothing, then the first section; the address paragraph
    # above it is not the abstract (B3)
    doc = compile_pages(tmp_path, front_page([("Abstract", 72, 220, 12, "Helvetica-Bold")]))
    assert doc.metadata.abstract in ("", None)


def test_a_closing_summary_section_is_not_the_abstract(tmp_path):
    # REVTeX: the abstract unlabelled under the byline, numbered sections, and a closing "SUMMARY"
    # section on a later page; the search for a labelled abstract ends at the first numbered
    # section (round29_front_rule.md B4)
    abstract = [("Complex computer simulators are increasingly used across fields of science as generative", 72,
                 160, 10, "Times-Roman"),
                ("models tying parameters of an underlying theory to experimental observations, and inference in",
                 72, 172, 10, "Times-Roman"),
                ("this setup is often difficult, as simulators rarely admit a tractable density or likelihood.", 72,
                 184, 10, "Times-Roman")]
    doc = compile_pages(tmp_path, [
        [("Adversarial Variational Optimization of Simulators", 130, 80, 17, "Times-Bold"),
         ("Gilles Louppe and Kyle Cranmer", 220, 115, 11, "Times-Roman"),
         ("New York University", 250, 130, 10, "Times-Italic"), *abstract,
         ("I. INTRODUCTION", 72, 230, 12, "Times-Bold"), *body_lines(250, 20)],
        [("II. METHOD", 72, 80, 12, "Times-Bold"), *body_lines(100, 20),
         ("SUMMARY", 72, 380, 12, "Times-Bold"),
         ("In this note, we develop a likelihood-free inference algorithm for non-differentiable models, and", 72,
          400, 10, "Times-Roman"),
         ("the algorithm combines adversarial training with variational optimization of upper bounds.", 72, 412, 10,
          "Times-Roman")]])
    assert doc.metadata.abstract.startswith("Complex computer simulators are increasingly used")


def test_a_slide_decks_long_footline_on_every_page_is_furniture(tmp_path):
    # Beamer (OsloMet, infolines): every 16:9 slide ends in one line holding the short author, the
    # title, the date and "n / 12", 125 characters: longer than a running head's 120, still repeated
    foot = ("Writer et al. A Unified Representation Framework for the Evaluation of Optical Music Recognition Systems "
            "6th September 2024 {} / 12")
    pages = []
    for p in range(1, 13):
        rows = [(f"Slide on {TOPICS[p % 6]} number {p}", 20, 30, 14, "Helvetica-Bold"),
                (f"First point of slide {p} says something about {TOPICS[p % 6].lower()}.", 30, 70, 10, "Helvetica"),
                (f"Second point of slide {p} goes on with another remark.", 30, 90, 10, "Helvetica"),
                (foot.format(p), 10, 248, 5, "Helvetica")]
        pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages, size=(453, 255)), CompileOptions(fast=True))
    assert not any("Unified Representation" in b.text for b in doc.blocks if b.kind.value != "furniture")
    assert any("First point of slide 3" in b.text for b in doc.blocks)


def test_bibliography_titles_in_polish_and_a_continued_list_open_the_list(tmp_path):
    # babel's Polish \refname "Literatura" (the OSA/Optica template in Polish), and Beamer's
    # allowframebreaks frames that print "References I", "References II" over a list's pages
    for titles in (["LITERATURA"], ["References I", "References II"]):
        pages = [[("Projekt czujnika i jego badania", 150, 60, 18, "Times-Bold")]]
        for k in range(1, 4):
            pages[-1] += [(f"{k} Rozdział o {TOPICS[k - 1]}", 72, 60 + 120 * k, 14, "Times-Bold"),
                          *body_lines(80 + 120 * k, 6)]
        for t, title in enumerate(titles):
            rows = [(title, 72, 60, 14, "Times-Bold")]
            for k in range(2):
                n = 2 * t + k + 1
                rows += [(f"[{n}] F. S. Ingraham and D. F. Wooley, Polyvinylidene fluoride, part {n}. "
                          f"Ind. Eng. Chem. 56, 20{10 + n}.", 72, 90 + 20 * k, 10, "Times-Roman")]
            pages.append(rows)
        doc = compile_document(make_pdf(tmp_path / f"p{len(titles)}.pdf", pages), CompileOptions())
        assert len(doc.references) == 2 * len(titles), titles
        assert doc.references[0].raw.startswith("[1] F. S. Ingraham")


def test_the_score_counts_a_section_named_like_the_document(tmp_path):
    # benchmarks/corpus_score.py (round29_unseen_rule.md M1): only the title's own heading is left out
    # of our headings; a section with the title's words (elsarticle's "2 The Poset of Mesh Patterns"
    # in "The Poset of Mesh Patterns") is a section
    sys.path.insert(0, str(REPO / "benchmarks"))
    from corpus_score import score
    (tmp_path / "document.md").write_text("# The Poset of Mesh Patterns\n\n## 1 Introduction\n\nText.\n\n"
                                          "## 2 The Poset of Mesh Patterns\n\nMore text.\n")
    truth = {"title": "The Poset of Mesh Patterns", "authors": [],
             "sections": [{"level": 1, "title": "Introduction"}, {"level": 1, "title": "The Poset of Mesh Patterns"}]}
    assert score(tmp_path, truth)["headings"]["recall"] == 1.0


def test_a_books_running_feet_naming_the_chapter_and_section_are_furniture(tmp_path):
    # Sphinx's manual (and book/report classes): the foot of an even page reads "4 Chapter 2.
    # README", of an odd one "2.2 Basic principles 5", in a bold face; each chapter's name repeats on
    # too few pages for the running-head count, but the shape repeats on every page
    chapters = ["Getting Started", "Reference Guide", "Contributing Notes"]
    pages = [[("The Widget Manual", 200, 80, 24, "Helvetica-Bold")]]
    for p in range(2, 14):
        c = (p - 2) // 4
        rows = []
        if (p - 2) % 4 == 0:
            rows.append((f"{c + 1} {chapters[c]}", 72, 90, 20, "Helvetica-Bold"))
        rows += [(f"{c + 1}.{(p - 2) % 4 + 1} Part {(p - 2) % 4 + 1} of {chapters[c].lower()}", 72, 130, 12,
                  "Helvetica-Bold"), *body_lines(150, 30)]
        foot = f"{p} Chapter {c + 1}. {chapters[c]}" if p % 2 == 0 else f"{c + 1}.{(p - 2) % 4 + 1} Part {(p - 2) % 4 + 1} of {chapters[c].lower()} {p}"
        rows.append((foot, 72, 760, 10, "Helvetica-Bold"))
        pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions(fast=True))
    feet = [h for h in headings(doc) if "Chapter" in h or h.rstrip()[-1:].isdigit()]
    assert feet == []
    assert sum("Part 1 of" in h for h in headings(doc)) == 3


def peerj_pages() -> list[list[tuple]]:
    """A PeerJ-like paper: nothing numbered, capitals section heads in 12 pt bold, bold subsections
    in the body's size, bold affiliations above the abstract's label."""
    def text(top: float, n: int = 4) -> list[tuple]:
        return body_lines(top, n)
    p1 = [("Species Turnover in Mountain Hay Meadows Reveals Hidden Effects", 72, 70, 17, "Helvetica-Bold"),
          ("Ann Example and Bob Sample", 72, 100, 11, "Helvetica"),
          ("Institute of Plant Sciences, University of Somewhere", 72, 125, 10, "Helvetica-Bold"),
          ("Federal Office for Field Studies, Another Town", 72, 140, 10, "Helvetica-Bold"),
          ("ABSTRACT", 72, 170, 12, "Helvetica-Bold"), *text(190),
          ("INTRODUCTION", 72, 260, 12, "Helvetica-Bold"), *text(280),
          ("MATERIALS & METHODS", 72, 350, 12, "Helvetica-Bold"),
          ("Monitoring data and community measures", 72, 372, 10, "Helvetica-Bold"), *text(390),
          ("Statistical analyses", 72, 450, 10, "Helvetica-Bold"), *text(468),
          ("Data accessibility and reproducibility", 72, 528, 10, "Helvetica-Bold"), *text(546)]
    p2 = [("RESULTS", 72, 80, 12, "Helvetica-Bold"),
          ("Plant communities", 72, 102, 10, "Helvetica-Bold"), *text(120),
          ("Species turnover", 72, 180, 10, "Helvetica-Bold"), *text(198),
          ("DISCUSSION", 72, 260, 12, "Helvetica-Bold"), *text(280),
          ("ACKNOWLEDGEMENTS", 72, 350, 12, "Helvetica-Bold"), *text(370, 2)]
    return [p1, p2]


def test_a_stair_stepped_outline_gives_no_levels_and_hides_no_heads(tmp_path):
    # R Markdown's rticles (PeerJ) nests each unnumbered section one level under the one before,
    # and its first entry (Introduction) is a lone root that pdf.py takes for the title's
    stream = load_source(make_pdf(tmp_path / "p.pdf", peerj_pages()), CompileOptions())
    chain = ["Materials & Methods", "Monitoring data and community measures", "Statistical analyses",
             "Data accessibility and reproducibility", "Results"]
    stream.outline = [OutlineEntry(title=t, level=k + 1, page=1 + (t == "Results")) for k, t in enumerate(chain)]
    stream.outline += [OutlineEntry(title=t, level=6, page=2) for t in ("Plant communities", "Species turnover")]
    stream.outline += [OutlineEntry(title=t, level=5, page=2) for t in ("Discussion", "Acknowledgements")]
    doc = compile_stream(stream, CompileOptions(fast=True))
    assert headings(doc)[1:] == [
        "## INTRODUCTION", "## MATERIALS & METHODS", "### Monitoring data and community measures",
        "### Statistical analyses", "### Data accessibility and reproducibility", "## RESULTS",
        "### Plant communities", "### Species turnover", "## DISCUSSION", "## ACKNOWLEDGEMENTS"]


def test_a_book_outline_from_part_down_to_subsubsection_is_no_stair():
    # part > chapter > section > subsection > subsubsection is as deep as LaTeX's own sectioning
    # steps in a row: a thesis whose first entries are "Part I", "1 Introduction", "1.1", "1.1.1",
    # "1.1.1.1" keeps its outline's levels; one step more is R Markdown's stair
    from ctxmill.compile.structure import _stair
    book = [OutlineEntry(title=t, level=k, page=1 + k) for k, t in enumerate(
        ["Part I Background", "1 Introduction", "1.1 Motivation", "1.1.1 Scope", "1.1.1.1 Terms"])]
    book += [OutlineEntry(title="1.2 Outline", level=2, page=7)]
    assert not _stair(book)
    stair = book[:5] + [OutlineEntry(title="Results", level=5, page=7)]
    assert _stair(stair)


def test_a_book_with_no_title_page_takes_its_title_from_the_running_head_and_info(tmp_path):
    # pandoc's Eisvogel template in book mode: no title page, page 1 opens with the first chapter's
    # head; the title is printed only in the even pages' running head (and the PDF's /Title), so
    # page 1's largest type is a chapter head like pages 3 and 5, not the title
    pages = []
    for p in range(1, 7):
        rows = [("The Example Book 2017-02-20", 72, 80, 10, "Times-Roman")] if p % 2 == 0 else []
        if p % 2:
            rows.append((f"{['First', 'Second', 'Third'][p // 2]} chapter of the story told", 72, 190, 20,
                         "Helvetica-Bold"))
        rows += [(f"Line {k} of page {p} speaks of {TOPICS[(k + p) % 6].lower()} and goes on at length in the "
                  "body text.", 72, 250 + 14 * k, 10, "Times-Roman") for k in range(30)]
        rows.append((f"Author {p}" if p % 2 == 0 else f"{p}", 72, 770, 10, "Times-Roman"))
        pages.append(rows)
    stream = load_source(make_pdf(tmp_path / "b.pdf", pages, size=(595, 842)), CompileOptions(fast=True))
    stream.info["Title"] = "The Example Book"  # what pandoc writes to /Title (the generator writes no info)
    doc = compile_stream(stream, CompileOptions(fast=True))
    assert doc.metadata.title == "The Example Book"
    chapters = [h.split()[0] for h in headings(doc) if "chapter of the story" in h]
    assert chapters == ["##", "##", "##"], headings(doc)


def test_a_small_caps_byline_with_marks_in_the_small_capitals_size_keeps_its_names(tmp_path):
    # Optica: "JAN SZYMENDERSKI1,* AND PRZEMYSŁAW SAŁAPATA2,**" in small capitals, the marks set in the
    # small capitals' own size and regular weight, touching the name (round29_front_rule.md C7a)
    rows, x = [], 72.0
    for word in ["JAN", "KOWALSKI", "1,*", "AND", "ANNA", "NOWAK", "2,**"]:
        mark = not word.isalpha()
        if not mark and rows:
            x += 3  # the space between words
        for k, ch in enumerate(word):
            size = 11 if k == 0 and not mark and word != "AND" else 8.8
            rows.append((ch, x, 111, size, "Times-Roman" if mark else "Times-Bold"))
            x += _TIMES.get(ch, 600) * size / 1000
    doc = compile_pages(tmp_path, [[
        ("Projekt czujnika piezoelektrycznego", 72, 88, 20, "Times-Bold"), *rows,
        ("1", 72, 128, 6, "Times-Roman"),
        ("Department of Electrical Engineering, Some University of Technology, 60-965 Poznan", 76, 131, 8,
         "Times-Roman"),
        ("1 Wstep", 72, 250, 12, "Times-Bold"), *body_lines(270)]])
    assert names(doc) == ["Jan Kowalski", "Anna Nowak"]


def test_newblock_entries_of_an_apalike_list_with_no_indent_stay_whole(tmp_path):
    # apalike under Beamer (beamer-oslomet-omr-talk): every line at one left edge, each entry's
    # author-year head and its title set as blocks of their own (\newblock), the first entry with
    # no author ("(2023)."): that lone "(2023)" read as the list's only label made the list one
    # numbered entry, and block by block it would be two entries each
    first = [("A Talk in Beamer", 150, 60, 18, "Helvetica-Bold"), ("1 Introduction", 72, 100, 12, "Helvetica-Bold"),
             *body_lines(120, 40)]
    rows = [("References", 72, 210, 12, "Helvetica-Bold")]
    heads = [["(2023)."], ["Baró, A., Badal, C., and Fornés, A. (2020)."],
             ["Calvo-Zaragoza, J. and Rizo, D. (2018a)."], ["Gotham, M., Jonas, P., Bower, B., Bosworth, W.,",
                                                           "Rootham, D., and VanHandel, L. (2018)."],
             ["Hajic, J. and Pecina, P. (2017)."], ["Shatri, E. and Fazekas, G. (2021)."]]
    titles = ["String quartet corpus", "Handwritten music recognition with attention",
              "Camera scores: neural recognition on realistic scores", "Scores of scores: an open project",
              "The MUSCIMA dataset for handwritten music", "DoReMi: first glance at a universal dataset"]
    y = 236
    for head, title in zip(heads, titles, strict=True):
        for part in head:  # a name list cut over two blocks: each part a block of its own
            rows.append((part, 72, y, 6, "Times-Roman"))
            y += 11
        rows += [(f"{title}.", 72, y, 6, "Times-Roman"),
                 ("In Proceedings of the Conference on Music Information, pages 1-10.", 72, y + 7, 6, "Times-Roman")]
        y += 22
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [first, rows]), CompileOptions())
    assert [r.title for r in doc.references] == titles
    assert len(doc.references[3].authors) == 6  # the name list cut over two blocks is one entry's


def test_an_accent_set_as_a_glyph_of_its_own_goes_onto_its_letter(tmp_path):
    # pdfTeX's Polish (optica-draft-polish-piezo, round29_unseen_rule.md C8): the acute of a capital set as a
    # glyph of its own over the N after the heading's line (out of reading order), and a small letter's acute
    # set before its letter, with a space pdfium makes for the jump back: "BADA ´N", "odpowied ´z"
    n_x = 72 + (500 + 250 + 667 + 722 + 722 + 722) * 14 / 1000  # where the N of "2 BADAN" starts (Times-Roman)
    z_x = 72 + 6805 * 10 / 1000  # after "Mamy odpowied" in 10 pt Times-Roman
    doc = compile_pages(tmp_path, [[
        ("Projekt czujnika piezoelektrycznego", 72, 88, 20, "Times-Bold"),
        ("1 Wstep", 72, 150, 14, "Times-Roman"), *body_lines(170, 4),
        ("2 BADAN", 72, 250, 14, "Times-Roman"), ("´", n_x + 2.8, 250, 14, "Times-Roman"),
        *body_lines(270, 3),
        ("Mamy odpowied", 72, 306, 10, "Times-Roman"), ("´", z_x + 0.5, 306, 10, "Times-Roman"),
        ("z na pytanie, ktore pada w tekscie tej pracy, i piszemy dalej o czym innym.", z_x, 306, 10,
         "Times-Roman"), *body_lines(318, 3)]])
    assert "## 2 BADAŃ" in headings(doc), headings(doc)
    assert "Mamy odpowiedź na pytanie" in doc.markdown
    assert "´" not in doc.markdown


def test_a_macron_set_as_a_glyph_of_its_own_goes_onto_its_letter(tmp_path):
    # pdfTeX's \=o (round30_accents_rule.md): the macron is a glyph of its own set over its letter, like C8's
    # acute; the PDF reader's accent table lacked the macron (the compiler's had it), so "Ky¯oto" stayed split
    lower = dict(zip("deiklnorwy", [500, 444, 278, 500, 278, 500, 500, 333, 722, 500], strict=True))
    o_x = 72 + sum(lower.get(ch) or _TIMES[ch] for ch in "Field work in Ky") * 10 / 1000  # Times-Roman widths
    doc = compile_pages(tmp_path, [[
        ("Projekt czujnika piezoelektrycznego", 72, 88, 20, "Times-Bold"),
        ("1 Wstep", 72, 150, 14, "Times-Roman"), *body_lines(170, 4),
        ("Field work in Ky", 72, 226, 10, "Times-Roman"), ("¯", o_x + 0.5, 226, 10, "Times-Roman"),
        ("oto was done over two summers with the same instruments and the same team of people.", o_x, 226, 10,
         "Times-Roman"), *body_lines(238, 3)]])
    assert "Field work in Kyōto was done" in doc.markdown, doc.markdown
    assert "¯" not in doc.markdown


# ---- round 30, the fourteenth set (round30_unseen_rule.md): documents that are not papers ----

def _raw_pdf(path: Path, content: bytes, fonts: bytes, extra: list[bytes] | None = None,
             xobjects: bytes = b"") -> Path:
    """A one-page PDF of a content stream; ``fonts``/``xobjects`` are resource dictionary bodies naming
    objects 5, 6, ... given in ``extra``."""
    from _pdfgen import _assemble

    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<<" + fonts + b">>/XObject<<"
            + xobjects + b">>>>/Contents 4 0 R>>",
            b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream", *(extra or [])]
    path.write_bytes(_assemble(objs))
    return path


def _prose(y: int, n: int, x: int = 72, font: bytes = b"/F1 10 Tf") -> list[bytes]:
    return [b"BT " + font + b" %d %d Td (Running text of the manual that reads as prose and goes on for a line.) Tj ET"
            % (x, y - 12 * k) for k in range(n)]


def test_code_set_in_nimbus_mono_l_keeps_its_lines(tmp_path):
    # Doxygen's refman (doxygen-refman-rf24g, C1/M1): psnfss's Courier embeds as NimbusMonL-Regu, a name
    # without "mono" and a font without the fixed-pitch flag; the example program was reflowed as prose
    code = [b"void setup() {", b"    Serial.begin(9600);", b"    test = RF24_G(1, 7, 8);", b"}",
            b"void loop() {", b"    test.read(&receiver);", b"}"]
    ops = [b"BT /F1 12 Tf 72 720 Td (Example Documentation) Tj ET", *_prose(690, 5)]
    ops += [b"BT /F2 9 Tf 80 %d Td (" % (610 - 11 * k) + ln + b") Tj ET" for k, ln in enumerate(code)]
    ops += _prose(520, 3)
    widths = b" 600" * 94 + b" 601"  # (all equal, pdfium would call the font fixed-pitch itself)
    pdf = _raw_pdf(tmp_path / "p.pdf", b"\n".join(ops), b"/F1 5 0 R/F2 6 0 R", [
        b"<</Type/Font/Subtype/Type1/BaseFont/Times-Roman>>",
        b"<</Type/Font/Subtype/Type1/BaseFont/NimbusMonL-Regu/FirstChar 32/LastChar 126/Widths[" + widths
        + b"]/FontDescriptor 7 0 R>>",
        b"<</Type/FontDescriptor/FontName/NimbusMonL-Regu/Flags 32/FontBBox[-12 -237 650 811]/ItalicAngle 0"
        b"/Ascent 625/Descent -157/CapHeight 557/StemV 41>>"])
    md = compile_document(pdf, CompileOptions(fast=True)).markdown
    assert "```\nvoid setup() {\n    Serial.begin(9600);\n    test = RF24_G(1, 7, 8);\n}\nvoid loop() {" in md, md


def _header_bar_pdf(path: Path) -> Path:
    # a baposter box (baposter-landscape-conference-poster, C2/C3): a PGF shading is a form XObject far
    # larger than the header bar it is painted through (its clip), with the box's title on the bar and
    # the box's first line just under it, inside the form's unclipped extent
    ops = [b"BT /F1 24 Tf 150 740 Td (A Poster About Something) Tj ET",
           b"q 72 600 300 30 re W n /Fm1 Do Q",
           b"BT /F1 14 Tf 80 610 Td (OBJECTIVES) Tj ET",
           b"BT /F2 10 Tf 72 585 Td (First line of the box under its header bar, cut at a hyphen, sus-) Tj ET",
           *_prose(560, 4, font=b"/F2 10 Tf")]
    form = b"0 0 1 rg 0 570 612 100 re f"
    return _raw_pdf(path, b"\n".join(ops), b"/F1 5 0 R/F2 6 0 R", [
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica-Bold>>", b"<</Type/Font/Subtype/Type1/BaseFont/Times-Roman>>",
        b"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Length %d>>stream\n" % len(form) + form + b"\nendstream"],
        xobjects=b"/Fm1 7 0 R")


def test_a_clipped_shading_takes_no_text_under_its_clip(tmp_path):
    doc = compile_document(_header_bar_pdf(tmp_path / "p.pdf"), CompileOptions(fast=True))
    assert "First line of the box under its header bar" in doc.markdown, doc.markdown


def test_a_title_on_a_coloured_header_bar_is_text_not_a_figures_label(tmp_path):
    doc = compile_document(_header_bar_pdf(tmp_path / "p.pdf"), CompileOptions(fast=True))
    assert "OBJECTIVES" in doc.markdown, doc.markdown


def test_letter_spaced_capitals_read_as_words(tmp_path):
    # classicthesis (classicthesis-succinct-dags, C4/L1): titles set with tracking wider than the space
    # threshold came out one letter per word ("C O N T E N T S"); Courier's advance is 0.6 em a letter
    size, track, word = 14, 0.22, 0.6
    items = []
    for y, title in ((700, "CONTENTS"), (300, "COMPRESSION PRINCIPLES AND METHODS")):
        x = 72.0
        for w in title.split():
            for ch in w:
                items.append((ch, x, y, size, "Courier-Bold"))
                x += size * (0.6 + track)
            x += size * (word - track)
    pages = [[*items[:8], ("1 introduction . . . . . . . . . 1", 72, 730, 10, "Times-Roman"),
              *body_lines(740, 3), *items[8:], *body_lines(330, 20)]]
    md = compile_pages(tmp_path, pages).markdown
    assert "CONTENTS" in md and "COMPRESSION PRINCIPLES AND METHODS" in md, md
    assert "C O N" not in md


def test_an_abstract_label_under_the_title_block_is_no_section_but_a_thesis_abstract_page_is(tmp_path):
    # Elsevier CAS (elsevier-casdc-sample): once letter-spaced capitals read as words (above), its
    # "A B S T R A C T" label became "ABSTRACT" in a heading's type under the title block
    cover = [("Graphical Abstract", 72, 70, 14, "Helvetica-Bold"), *body_lines(100, 6),
             ("Highlights", 72, 200, 14, "Helvetica-Bold"), *body_lines(230, 6)]
    paper = [("A Paper Title Set Large Over Its Byline", 72, 70, 20, "Helvetica-Bold"),
             ("Ann Author and Bob Writer", 72, 100, 11, "Times-Roman"),
             ("ABSTRACT", 72, 130, 11, "Helvetica-Bold"), *body_lines(146, 5),
             ("1 Introduction", 72, 230, 11, "Helvetica-Bold"), *body_lines(246, 20),
             ("2 Methods", 72, 500, 11, "Helvetica-Bold"), *body_lines(516, 12)]
    assert not any("ABSTRACT" in h for h in headings(compile_pages(tmp_path, [cover, paper])))
    thesis = [[("A Thesis Title Set Large", 72, 200, 24, "Helvetica-Bold"), ("Ann Author", 72, 260, 12, "Times-Roman")],
              [("ABSTRACT", 72, 90, 16, "Helvetica-Bold"), *body_lines(130, 20)],
              [("1 Introduction", 72, 90, 16, "Helvetica-Bold"), *body_lines(130, 30)],
              [("2 Methods", 72, 90, 16, "Helvetica-Bold"), *body_lines(130, 30)]]
    (tmp_path / "t").mkdir()
    assert any("ABSTRACT" in h for h in headings(compile_pages(tmp_path / "t", thesis)))


def test_an_api_references_field_labels_are_no_sections(tmp_path):
    # Doxygen's refman (doxygen-refman-rf24g, C6/A1): "Returns", "Warning", "Parameters" in bold over each
    # member's indented description were headings, one per function
    page = [("Class Documentation", 72, 80, 20, "Helvetica-Bold"), ("5.1 packet Class Reference", 72, 120, 14, "Helvetica-Bold"),
            *body_lines(140, 4), ("5.1.1 Member Function Documentation", 72, 200, 12, "Helvetica-Bold"),
            ("5.1.1.1 getAddress()", 72, 225, 11, "Helvetica-Bold"), *body_lines(245, 2),
            ("Returns", 90, 275, 10, "Helvetica-Bold"),
            ("the address of the radio the packet was sent from or to.", 100, 289, 10, "Times-Roman"),
            ("5.1.1.2 getCnt()", 72, 320, 11, "Helvetica-Bold"), *body_lines(340, 2),
            ("Returns", 90, 370, 10, "Helvetica-Bold"), ("the packet's count, to tell dropped packets.", 100, 384, 10, "Times-Roman"),
            ("Warning", 90, 405, 10, "Helvetica-Bold"), ("a payload longer than 30 bytes is refused.", 100, 419, 10, "Times-Roman"),
            ("5.1.1.3 setCnt()", 72, 450, 11, "Helvetica-Bold"), *body_lines(470, 2),
            ("Parameters", 90, 500, 10, "Helvetica-Bold"), ("cnt the count to set on the packet.", 100, 514, 10, "Times-Roman"),
            *body_lines(540, 10)]
    doc = compile_pages(tmp_path, [page])
    assert not [h for h in headings(doc) if h.split()[-1] in ("Returns", "Warning", "Parameters")], headings(doc)
    assert "Returns" in doc.markdown and "Parameters" in doc.markdown


def test_footnoted_urls_in_typewriter_are_no_code_block(tmp_path):
    # jmlr-blocks-fuel (round30_unseen_rule.md U1): four notes at the page's foot, each a number and a \url set
    # in Courier; read as a run of monospace lines they became a fenced code block, a URL broken inside it
    notes = [("1. https://jaberg.github.io/skdata/", 72, 700, 8, "Courier"),
             ("2. https://github.com/mila-udem/picklable-itertools", 72, 710, 8, "Courier"),
             ("3. https://groups.google.com/d/forum/blocks-users and https://groups.google.com/", 72, 720, 8, "Courier"),
             ("d/forum/fuel-users", 84, 730, 8, "Courier"),
             ("4. https://github.com/mila-udem/blocks-examples", 72, 740, 8, "Courier")]
    doc = compile_pages(tmp_path, [[("Blocks and Fuel", 72, 88, 20, "Times-Bold"),
                                    ("1 Introduction", 72, 150, 12, "Times-Bold"), *body_lines(170, 8), *notes]])
    assert "```" not in doc.markdown, doc.markdown
    assert "https://github.com/mila-udem/blocks-examples" in doc.markdown


def test_a_listing_in_typewriter_stays_code(tmp_path):
    # U1's other side: a run of monospace lines that is code (one URL in it) is still fenced
    code = [("import requests", 72, 300, 9, "Courier"),
            ("r = requests.get('https://example.org/data.json')", 72, 311, 9, "Courier"),
            ("print(r.json()['items'][0])", 72, 322, 9, "Courier")]
    doc = compile_pages(tmp_path, [[("Blocks and Fuel", 72, 88, 20, "Times-Bold"),
                                    ("1 Introduction", 72, 150, 12, "Times-Bold"), *body_lines(170, 8), *code,
                                    *body_lines(345, 4)]])
    assert "```\nimport requests\nr = requests.get('https://example.org/data.json')" in doc.markdown, doc.markdown


def test_a_mark_raised_over_a_lone_letter_is_an_exponent_not_a_footnote():
    # acl-final-inlg-green (round30_unseen_rule.md U1): once its notes were read as notes, every M², PT-M², O(k²)
    # and β² linked to note 2; a note's mark follows a word, a number or a sign, an exponent a lone letter
    from ctxmill.compile.structure import _footnote_refs
    from ctxmill.model import Block, Kind

    blocks = [Block(Kind.HEADING, "1 Introduction", 1, level=2),
              Block(Kind.PARAGRAPH, "M[^2] and PT-M[^2] take O(k[^2]) time with (1 + β[^2]); we used v3.0.0[^2] and "
                                    "the official code[^3].", 1),
              Block(Kind.FOOTNOTE, "https://github.com/chrisjbryant/errant", 1, number="2"),
              Block(Kind.FOOTNOTE, "https://github.com/pygongnlp/PT-M2", 1, number="3")]
    _footnote_refs(blocks)
    assert blocks[1].text == ("M<sup>2</sup> and PT-M<sup>2</sup> take O(k<sup>2</sup>) time with (1 + β<sup>2</sup>); "
                              "we used v3.0.0[^2] and the official code[^3].")


def test_url_notes_in_the_body_size_are_notes_and_the_text_runs_on_past_them(tmp_path):
    # ACM sigconf (acm-sigalt-sessions, round30_unseen_rule.md U1c): notes that are only a \url, set in Courier at
    # the body's size at the page's foot; not smaller, they were no notes, and the sentence broken before them
    # ("the last re-" / "vision") was cut in two
    page1 = [("Sessions of Work", 72, 88, 20, "Times-Bold"), ("1 Data", 72, 150, 12, "Times-Bold"),
             *body_lines(170, 40),
             ("OSM groups changes into changesets when an editor saves. We used the timestamp of the last re-", 72, 662,
              10, "Times-Roman"),
             ("7", 72, 696, 6, "Times-Roman"), ("http://download.geofabrik.de/north-america.html", 76, 700, 10, "Courier"),
             ("8", 72, 708, 6, "Times-Roman"), ("http://wiki.openstreetmap.org/wiki/API_v0.6#Changesets_2", 76, 712, 10,
                                                "Courier")]
    page2 = [("vision in a changeset as the time the user saved it, and kept every changeset of the dump.", 72, 72, 10,
              "Times-Roman"), *body_lines(84, 6)]
    doc = compile_pages(tmp_path, [page1, page2])
    assert "[^7]: http://download.geofabrik.de/north-america.html" in doc.markdown, doc.markdown
    assert "the timestamp of the last revision in a changeset" in doc.markdown


def test_a_number_raised_over_a_lone_letter_is_no_citation():
    # optica-draft-polish-piezo, eptcs (round30_unseen_rule.md U1d): in a numbered paper "kg · m s<sup>2</sup>" and
    # "B<sup>n</sup>" are exponents; read as callouts they are citations of no entry (QA unresolved_citation)
    from ctxmill.compile import citations
    from ctxmill.compile.options import CompileOptions
    from ctxmill.model import Block, Document, Kind, Page, PageStream

    doc = Document(stream=PageStream(pages=[Page(number=1)], kind="markdown"))
    text = "A force in kg · m s<sup>2</sup> over B<sup>12</sup> as measured<sup>1</sup> before."
    doc.blocks = [Block(Kind.PARAGRAPH, text, 1, id="p0"),
                  Block(Kind.REFERENCE, "A. Author. A paper on forces. Journal, 2001.", 2, id="r0", number=1)]
    doc.block_spans = {"p0": (0, len(text))}
    doc.markdown = text
    from ctxmill.compile import references
    references.run(doc, CompileOptions())
    citations.run(doc, CompileOptions(ignore_pdf_links=True))
    assert [m.text for m in doc.mentions] == ["<sup>1</sup>"]
    assert doc.unresolved == []


_GLYPH_NAMES = {" ": "space", "(": "parenleft", ")": "parenright", "=": "equal", ".": "period", ",": "comma",
                ":": "colon", "[": "bracketleft", "]": "bracketright", "_": "underscore", "#": "numbersign",
                **{str(d): n for d, n in zip(range(10), ("zero", "one", "two", "three", "four", "five", "six",
                                                        "seven", "eight", "nine"), strict=True)}}


def type3_pdf(path: Path, lines: list[tuple[str, float, float, bool]]) -> Path:
    """A one-page PDF whose text is set in two Type 3 fonts (no /BaseFont, no flags: what dvips' PK fonts and
    XeTeX's fallback to them give): lines are (text, x, y from the top, fixed pitch); the fixed-pitch font
    advances every glyph 525/1000 em, the other as Times does (i 278, m 778, ...)."""
    chars = sorted({ch for text, *_ in lines for ch in text})  # (ASCII: each set by its own code)
    first, last = ord(chars[0]), ord(chars[-1])
    names = {ch: _GLYPH_NAMES.get(ch, ch) for ch in chars}
    narrow, wide = set("iljtfr.,:;'!|() "), set("mwMWOQ@%")

    def width(ch: str, fixed: bool) -> int:
        return 525 if fixed else 278 if ch in narrow else 778 if ch in wide else 500

    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R/F2 6 0 R>>>>"
            b"/Contents 4 0 R>>"]
    content = b""
    for text, x, y, fixed in lines:
        font = b"/F1" if fixed else b"/F2"
        hexed = "".join(f"{ord(ch):02X}" for ch in text).encode()
        content += b"BT %s 10 Tf 1 0 0 1 %.2f %.2f Tm <%s> Tj ET\n" % (font, x, 792 - y, hexed)
    objs.append(b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream")
    procs_at = 7
    for fixed in (True, False):
        widths = " ".join(str(width(chr(k), fixed) if chr(k) in names else 0) for k in range(first, last + 1)).encode()
        diffs = " ".join(f"{ord(ch)}/{names[ch]}" for ch in chars).encode()
        procs = " ".join(f"/{names[ch]} {procs_at + i} 0 R" for i, ch in enumerate(chars)).encode()
        objs.append(b"<</Type/Font/Subtype/Type3/FontBBox[0 -200 1000 800]/FontMatrix[0.001 0 0 0.001 0 0]"
                    b"/CharProcs<<" + procs + b">>/Encoding<</Type/Encoding/Differences[" + diffs + b"]>>"
                    b"/FirstChar %d/LastChar %d/Widths[" % (first, last) + widths + b"]/Resources<<>>>>")
        procs_at += len(chars)
    for fixed in (True, False):
        for ch in chars:
            w = width(ch, fixed)
            glyph = b"%d 0 0 0 %d 700 d1 %s" % (w, w, b"" if ch == " " else b"20 0 %d 650 re f" % (w - 40))
            objs.append(b"<</Length %d>>stream\n" % len(glyph) + glyph + b"\nendstream")
    path.write_bytes(_assemble(objs))
    return path


def test_code_in_a_nameless_type3_typewriter_font_is_code(tmp_path):
    # nbconvert through XeTeX with bitmap fonts (nbconvert-notebook-cross-correlation, round31_unseen_rule.md M2):
    # every font is Type 3 without a name, so no span was monospace and each code cell was reflowed into one
    # paragraph ("In [1]: import numpy as np import pandas as pd ...")
    prose = "Any list of values measured at discrete intervals in time is a timeseries, as we call it here."
    code = ["In [1]: import numpy as np", "import pandas as pd", "from numpy import random_sample",
            "import matplotlib.pyplot as plt", "sns.set()"]
    lines = [("Importing the libraries", 72, 80, False), (prose, 72, 100, False),
             (code[0], 72, 130, True), (code[1], 117, 143.5, True), (code[2], 117, 157, True),
             # an empty line of the cell, then the cell goes on at the same left edge
             (code[3], 117, 184, True), (code[4], 117, 197.5, True),
             (prose, 72, 230, False), (prose, 72, 243.5, False)]
    doc = compile_document(type3_pdf(tmp_path / "t3.pdf", lines), CompileOptions(fast=True))
    fence = doc.markdown.split("```")
    assert len(fence) == 3, doc.markdown
    assert [ln.strip() for ln in fence[1].strip().splitlines()] == code
    assert doc.markdown.count(prose) == 3  # (the proportional Type 3 face stays text)


def test_a_running_foot_of_three_lines_is_furniture(tmp_path):
    # moderncv (moderncv-casual-cv-letter, round31_unseen_rule.md F3): the contact details, three lines at every
    # page's foot, stayed text and ran into the next page's first entry
    foot = ["street and number – postcode city – country", "+1 (234) 567 890 • +2 (345) 678 901 • +3 (456) 789 012",
            "john@doe.org • www.johndoe.com • john.doe • jdoe • additional information {}/4"]
    pages = []
    for p in range(1, 5):
        page = [(f"Section {p}", 72, 80, 14, "Helvetica-Bold"), *body_lines(100, 30)]
        page += [(ln.format(p), 150, 740 + 11 * k, 8, "Helvetica") for k, ln in enumerate(foot)]
        pages.append(page)
    doc = compile_pages(tmp_path, pages)
    assert "street and number" not in doc.markdown and "john@doe.org" not in doc.markdown, doc.markdown
    assert doc.markdown.count(BODY[:88]) >= 4


def test_bookmarked_run_in_leads_are_headings_and_unbookmarked_ones_text(tmp_path):
    # homework-class-problem-sheet (round31_leftovers_rule.md C5): the class opens each problem with a bold run-in
    # "Problem n." and bookmarks it; only a lead alone on its line was a heading. imsart's run-in
    # "Acknowledgments." / "Funding." (bookmarked) are the same; a theorem's bold run-in label has no bookmark
    def lead(head, rest, top, face="Helvetica-Bold"):
        return [(head, 72, top, 11, face), (rest, 140, top, 11, "Times-Roman")]
    pages = [[("Math 101 Homework 1", 72, 80, 20, "Helvetica-Bold"),
              *lead("Problem 1.", "Prove that there is no rational number whose square is two.", 150),
              *body_lines(165, 6), *lead("Theorem 2.", "Every bounded sequence has a convergent subsequence.", 250,
                                         "Times-Bold"),
              *body_lines(265, 6), *lead("Problem 2", "(Ahlfors 4.2.3). Prove that an entire function is constant.", 350),
              *body_lines(365, 8)],
             [*body_lines(80, 6), *lead("Problem 3.", "Prove that there are infinitely many prime numbers.", 170),
              *body_lines(185, 10)]]
    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    stream.outline = [OutlineEntry(title=t, level=1, page=p) for t, p in
                      (("Problem 1", 1), ("Problem 2", 1), ("Problem 3", 2))]
    doc = compile_stream(stream, CompileOptions())
    assert headings(doc)[1:] == ["## Problem 1", "## Problem 2 (Ahlfors 4.2.3)", "## Problem 3"], headings(doc)
    md = doc.markdown
    assert "Prove that there is no rational number whose square is two." in md
    assert "Theorem 2. Every bounded sequence" in md  # (no bookmark: the label stays text)
    assert "\nProve that an entire function is constant." in md


def test_a_byline_by_family_comma_given_is_one_name_and_no_cell_under_a_heading_is_one(tmp_path):
    # cheatsheet-landscape-forensics-de (round31_leftovers_rule.md C7): "by Koll, Michael" under the centred title
    # was two parts of no name, and two short table cells below the first section's title were the authors
    doc = compile_pages(tmp_path, [[
        ("Cheatsheet", 270, 36, 14.3, "Helvetica"), ("by Koll, Michael", 271, 51, 9, "Helvetica"),
        ("Betriebssystemforensik (allgemein)", 46, 80, 14.3, "Helvetica"),
        ("Zusammenhängende Belegung", 46, 110, 8, "Helvetica-Bold"),
        ("Parallele Nutzung Rechnerkomponenten", 300, 110, 8, "Helvetica"),
        *body_lines(130, 20, x=46, size=8)]])
    assert names(doc) == ["Michael Koll"]


def test_a_chapter_opening_with_a_is_its_bookmarks_and_running_heads_are_no_chapters(tmp_path):
    # doxygen-refman-rf24g (round31_leftovers_rule.md C6): the chapter "A simple interface ..." read its "A" as a
    # letter number, so its bookmark took the running head "2  A simple interface ..." atop the next page; a
    # page holding only the head "4  RF24G" (chapter 2's title, the page number 4) was a chapter
    title = "A simple interface for the radio that abstracts the driver."
    pages = [[("RF24G Reference Manual", 72, 200, 30, "Helvetica-Bold"), ("Generated by Doxygen", 72, 260, 12, "Helvetica")],
             [("Chapter 1", 72, 155, 18.6, "Helvetica-Bold"), (title, 72, 215, 22, "Helvetica-Bold"),
              ("1.1 About", 72, 320, 13, "Helvetica-Bold"), *body_lines(350, 20)],
             [(f"2  {title}", 72, 43, 9, "Helvetica-Bold"), *body_lines(80, 10),
              ("1.2 Wiring", 72, 240, 13, "Helvetica-Bold"), *body_lines(270, 20)],
             [("Chapter 2", 72, 155, 18.6, "Helvetica-Bold"), ("RF24G", 72, 215, 22, "Helvetica-Bold"),
              *body_lines(290, 4)],
             [("4  RF24G", 72, 43, 9, "Helvetica-Bold")],
             [("Chapter 3", 72, 155, 18.6, "Helvetica-Bold"), ("Class Index", 72, 215, 22, "Helvetica-Bold"),
              *body_lines(290, 10)]]
    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    stream.outline = [OutlineEntry(title=t, level=lvl, page=p) for t, lvl, p in
                      ((f"1 {title}", 1, 2), ("1.1 About", 2, 2), ("1.2 Wiring", 2, 3), ("2 RF24G", 1, 4),
                       ("3 Class Index", 1, 6))]
    doc = compile_stream(stream, CompileOptions())
    hs = headings(doc)
    assert f"## 1 {title}" in hs and "## 2 RF24G" in hs, hs
    assert not [h for h in hs if "4 RF24G" in h or h.startswith("## 2 A simple")], hs


def test_a_chapter_marker_set_apart_in_small_type_is_no_part_of_the_title(tmp_path):
    # memoir chapter style (memoir-annotated-book-demo, round31_unseen_rule.md tU2 C6): the title in 30 pt, far right
    # on its line a running marker "Day 1" in 13 pt; the heading read "1 one Day", the marker's word in the title
    pages = [[("The Book Title", 120, 200, 24, "Helvetica")]]
    for k, word in enumerate(["one", "two", "three"], start=1):
        pages.append([(word, 150, 60, 30, "Helvetica"), (f"Day {k}", 400, 60, 13, "Times-Italic"),
                      *body_lines(140, 30)])
    doc = compile_pages(tmp_path, pages)
    chapters = [h for h in headings(doc) if h.startswith("## ")]
    assert chapters == ["## 1 one", "## 2 two", "## 3 three"], headings(doc)


def test_a_cvs_referees_under_references_give_way_to_its_numbered_publications(tmp_path):
    # moderncv (moderncv-casual-cv-letter, round31_unseen_rule.md tU2 C3): "References" is the referee list (names,
    # no label, no year), the bibliography the labelled list under "Publications"; the referees were read as entries
    page = [("Jane Roe", 72, 60, 24, "Helvetica"), ("Experience", 72, 100, 14, "Helvetica-Bold"), *body_lines(120, 8),
            ("References", 72, 240, 14, "Helvetica-Bold"),
            ("Professor Ada Smith, Head of Department, University of Somewhere", 72, 260, 10, "Times-Roman"),
            ("Dr Ben Jones, Senior Engineer, Company Limited", 72, 280, 10, "Times-Roman"),
            ("Further names available upon request", 72, 300, 10, "Times-Roman"),
            ("Publications", 72, 340, 14, "Helvetica-Bold")]
    pubs = ["[1] Jane Roe. Reading documents with care. Journal of Documents, 12(3):45-67, 2019.",
            "[2] Jane Roe and Ada Smith. A second study of reading. In Proceedings of Reading, pages 1-9, 2020.",
            "[3] Jane Roe. A third paper on the same matter. Another Journal, 4:100-110, 2021."]
    page += [(t, 72, 360 + 20 * k, 10, "Times-Roman") for k, t in enumerate(pubs)]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [page]), CompileOptions())
    raws = [r.raw for r in doc.references]
    assert len(raws) == 3 and raws[0].startswith("[1] Jane Roe") and not any("Ada Smith, Head" in r for r in raws), raws


def test_a_title_page_note_opening_with_its_mark_is_no_abstract(tmp_path):
    # memoir (memoir-annotated-book-demo, round31_unseen_rule.md tU2 C7): the title page holds only a long note, its
    # raised mark (a circle, no footnote sign) first; it was given as the abstract, though none is printed
    note = ["Hello, here is some text without a meaning. This text should show what a printed text",
            "will look like at this place. If you read this text, you will get no information. Really?",
            "Is there no information? Is there a difference between this text and some nonsense?"]
    title_page = [("The Book Title", 150, 200, 24, "Helvetica"), ("\u00b0", 73, 427, 6, "Times-Roman")]
    title_page += [(t, 78, 430 + 10 * k, 8, "Times-Roman") for k, t in enumerate(note)]
    doc = compile_pages(tmp_path, [title_page, [("1 Introduction", 72, 80, 14, "Helvetica-Bold"), *body_lines(110, 20)]])
    assert doc.metadata.abstract in ("", None), doc.metadata.abstract


def test_a_title_ending_in_a_colon_goes_on_in_smaller_type_below(tmp_path):
    # acmart sigconf (acm-sigconf-kdd-xai-workshop, round32_unseen_rule.md C1): the title's first line, ending in a
    # colon, in 17 pt bold, the rest under it in 14 pt of the same face; the title stopped at the colon
    page = [("A Careful Study of Reading Documents:", 150, 80, 17, "Helvetica-Bold"),
            ("Methods, Measures, and Lessons", 190, 102, 14, "Helvetica-Bold"),
            ("Jane Roe", 270, 135, 12, "Times-Roman"), ("ABSTRACT", 72, 180, 11, "Helvetica-Bold"),
            *body_lines(195, 5), ("1 INTRODUCTION", 72, 280, 11, "Helvetica-Bold"), *body_lines(300, 20)]
    doc = compile_pages(tmp_path, [page])
    assert doc.metadata.title == "A Careful Study of Reading Documents: Methods, Measures, and Lessons"
    assert headings(doc)[0] == "# A Careful Study of Reading Documents: Methods, Measures, and Lessons"
    assert names(doc) == ["Jane Roe"]


def test_a_contents_heading_larger_than_the_title_is_no_title(tmp_path):
    # a data report (data-report-md-analyses, round32_unseen_rule.md C2): a small centred title, name and date over a
    # contents list whose heading (renamed "Analyses") is the largest type on the page; it was taken for the title
    page = [("Data Report", 265, 100, 14.3, "Helvetica"), ("Jane Roe", 280, 125, 12, "Helvetica"),
            ("September 28, 2020", 255, 145, 12, "Helvetica"), ("Analyses", 72, 190, 17.2, "Helvetica-Bold"),
            ("1. Overview 2", 72, 225, 12, "Helvetica-Bold"), ("2. Distances 3", 72, 250, 12, "Helvetica-Bold"),
            ("3. Backbone Deviations 5", 72, 275, 12, "Helvetica-Bold"),
            ("4. Hydrogen Bond Analysis 7", 72, 300, 12, "Helvetica-Bold")]
    body = [[(f"{k}. {t}", 72, 80, 17.2, "Helvetica-Bold"), *body_lines(110, 20, size=12)]
            for k, t in enumerate(["Overview", "Distances", "Backbone Deviations", "Hydrogen Bond Analysis"], 1)]
    doc = compile_pages(tmp_path, [page, *body])
    assert doc.metadata.title == "Data Report"
    assert names(doc) == ["Jane Roe"]


def test_a_running_head_ending_in_the_section_mark_is_furniture(tmp_path):
    # fancyhdr with \rightmark (lab-report-plc-kelvin-german, round32_unseen_rule.md C3): "Group 7  2 METHODS", a fixed
    # part and the page's section in capitals, differs on every page; it stayed text, under the list an entry
    marks = ["1 INTRODUCTION", "2 METHODS", "2 METHODS", "3 RESULTS", "REFERENCES", "4 APPENDIX"]
    pages = [[("Report of the Second Exercise", 150, 80, 18, "Helvetica-Bold"), *body_lines(120, 20)]]
    for mark in marks:
        rows = [(f"E4-STP/01 - Group 7 {mark}", 60, 40, 10, "Times-Roman")]
        if mark == "REFERENCES":
            rows += [("References", 72, 80, 14, "Times-Bold"),
                     ("[1] Jane Roe. A study of reading documents. Journal of Documents, 12:45-67, 2019.", 72, 100, 10,
                      "Times-Roman")]
        else:
            rows += [(mark.split(" ", 1)[0] + " " + mark.split(" ", 1)[1].title(), 72, 80, 14, "Times-Bold"),
                     *body_lines(100, 20)]
        pages.append(rows)
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert "Group 7" not in doc.markdown
    assert [r.raw[:12] for r in doc.references] == ["[1] Jane Roe"]


def test_a_selected_references_block_is_a_bibliography(tmp_path):
    # tikzposter (tikzposter-lu-landscape-template, round32_unseen_rule.md C4): biblatex's list printed in a block
    # titled "Selected References" was no bibliography: no entry, its callout unresolved
    page = [("A Poster on Reading", 900, 100, 60, "Helvetica-Bold"), ("Methods", 100, 300, 40, "Helvetica-Bold"),
            ("Sample block which might mention a classic paper [1] in its running text here.", 100, 360, 28,
             "Times-Roman"),
            ("Selected References", 1800, 300, 40, "Helvetica-Bold"),
            ("[1] A. Einstein, 'Zur Elektrodynamik bewegter Körper,' Annalen der Physik, vol. 322, pp. 891-921, 1905.",
             1800, 360, 28, "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [page], size=(3370, 2384)), CompileOptions())
    assert [r.year for r in doc.references] == ["1905"]


def test_a_page_number_above_the_bottom_band_is_furniture_when_its_offset_repeats(tmp_path):
    # LaTeX's standard classes (ltxdoc-dtx-fvextra-manual, bookdown-minimal-book-example, round33_unseen_rule.md C1):
    # the folio centred at 0.88 of a letter page, above the 0.9 band; each stayed a paragraph "1", "2", ...
    pages = [[("A Study of Reading Documents", 150, 80, 17, "Times-Bold"), *body_lines(120, 40)]]
    pages += [body_lines(90, 45) for _ in range(3)]
    for k, page in enumerate(pages, 1):
        page.append((str(k), 303, 697, 10, "Times-Roman"))
    doc = compile_pages(tmp_path, pages)
    assert not [ln for ln in doc.markdown.splitlines() if ln.strip().isdigit()]
    assert doc.markdown.count("Running text of the introduction") == 40 + 3 * 45


def test_running_heads_are_found_in_a_document_of_short_paragraphs(tmp_path):
    # a short book (bookdown-minimal-book-example, round33_unseen_rule.md C2): no paragraph of 200 characters, so
    # no body size, and the even pages' heads 0.124 of the page down ("6 CHAPTER 1. PREREQUISITES") stayed text
    para = [("Short paragraphs of a small example book, each of them two lines long and no", 107, 0, 10, "Times-Roman"),
            ("longer, so that no paragraph holds two hundred characters.", 107, 12, 10, "Times-Roman")]
    pages = []
    for k in range(1, 11):
        rows = [(t, x, 300 + y, s, f) for t, x, y, s, f in para] + [(t, x, 360 + y, s, f) for t, x, y, s, f in para]
        if k % 2 == 0:
            rows.insert(0, (f"{k} CHAPTER {k // 2}. TOPIC NUMBER {k // 2}", 161, 106, 10, "Times-Roman"))
        pages.append(rows)
    doc = compile_pages(tmp_path, pages)
    assert "CHAPTER" not in doc.markdown
    assert doc.markdown.count("Short paragraphs of a small example book") == 20


def test_a_chapter_titled_literature_is_no_running_head_of_the_bibliography(tmp_path):
    # bookdown (bookdown-minimal-book-example, round33_unseen_rule.md C3): "Chapter 3" over "Literature" in the
    # chapter title's type, atop its page, with the list under "Bibliography" later: taken for the list's running
    # head and removed
    def chapter(n, title, text):
        return [(f"Chapter {n}", 107, 219, 20.7, "Times-Bold"), (title, 107, 275, 24.8, "Times-Bold"),
                (text, 107, 330, 10, "Times-Roman")]
    pages = [[("A Minimal Book", 230, 330, 17, "Times-Roman"), ("Jane Roe", 270, 385, 12, "Times-Roman")],
             chapter(1, "Prerequisites", "This is a sample book written in Markdown, a line of text."),
             chapter(2, "Introduction", "You can label chapter and section titles as you like."),
             chapter(3, "Literature", "Here is a review of existing methods."),
             chapter(4, "Methods", "We describe our methods in this chapter."),
             [("Bibliography", 107, 224, 24.8, "Times-Bold"),
              ("Roe, J. (2015). Dynamic Documents and their Readers. Chapman and Hall, Boca Raton.", 107, 275, 10,
               "Times-Roman"),
              ("Roe, J. (2020). Books from Markdown: Authoring Technical Documents. R package.", 107, 300, 10,
               "Times-Roman")]]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    assert [h for h in headings(doc) if h.startswith("## ")][:4] == [
        "## 1 Prerequisites", "## 2 Introduction", "## 3 Literature", "## 4 Methods"]


def test_a_listing_numbered_in_the_margin_is_one_code_block(tmp_path):
    # ltxdoc/docstrip's implementation listings: each line's number in small roman type in the margin,
    # then the code in typewriter, on one baseline; the number counted against the line's monospace
    # share, so short lines ("7 \else", "9 \fi}") fell under it and cut the listing into paragraphs
    code = ["\\begingroup", "\\catcode`\\ =\\active%", "\\gdef\\FV@ActiveSpaceToken{ }%", "\\else",
            "\\RequirePackage{textcomp}", "\\fi}", "\\endgroup%"]
    rows = [("A Package Manual", 54, 60, 18, "Times-Bold"),
            ("Implementation", 54, 110, 11, "Times-Bold"), *body_lines(128, 4, x=54, size=10)]
    for k, line in enumerate(code):
        y = 190 + 11 * k
        rows += [(str(14 + k), 55, y, 7, "Times-Roman"), (line, 66, y, 9, "Courier")]
    rows += body_lines(280, 4, x=54, size=10)
    doc = compile_pages(tmp_path, [rows])
    fences = doc.markdown.split("```")
    blocks = [fences[k] for k in range(1, len(fences), 2)]
    assert len(blocks) == 1, doc.markdown
    assert "14 \\begingroup" in blocks[0] and "20 \\endgroup%" in blocks[0]  # numbers kept, every line
    assert "17 \\else" in blocks[0] and "19 \\fi}" in blocks[0]
