"""Round 35 (benchmarks/results/round35_tCit_rule.md): GB/T 7714 entries, an article number read as the year,
entries printed with "????" for their year, and a list whose first entry is one \\newblock line."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from test_citations import make_doc

GBT = [
    "[1] LI Q, CHEN L, ZENG Y. The Mechanism and Effectiveness of Credit Scoring: Evidence from Renrendai.com[J]. "
    "China Finance Review International, 2018, 8(3):256-274.",
    "[2] 张三. 所有制、制度环境与信贷资金配置[J]. 经济研究, 2007(12):82-92.",
    "[3] 王五, 赵六, 孙七. 高投资、结构失衡与价格指数[J]. 金融研究, 2017(02):54-69.",
    "[4] 李四. 计量经济学导论[M]. 北京: 科学出版社, 2008.",
    "[5] A. Smith. An ordinary entry [with a bracket] in Proc. X, 2001.",
]


def test_gbt_7714_entries_take_the_title_before_the_type_code():
    # T1 (ctex-elegantpaper): the labeller read a CJK title as names and the names as the title ("张三"), and
    # the Latin entries kept the code ("... Renrendai.com[J]")
    doc = make_doc(["Lending [1] and credit [2, 3], books [4], other [5]."], bib=GBT)
    refs = doc.references
    assert [r.title for r in refs[:4]] == [
        "The Mechanism and Effectiveness of Credit Scoring: Evidence from Renrendai.com",
        "所有制、制度环境与信贷资金配置", "高投资、结构失衡与价格指数", "计量经济学导论"]
    assert [r.venue for r in refs[:3]] == ["China Finance Review International", "经济研究", "金融研究"]
    assert [r.authors for r in refs[1:4]] == [["张三"], ["王五", "赵六", "孙七"], ["李四"]]
    assert [r.year for r in refs[:4]] == ["2018", "2007", "2017", "2008"]
    assert refs[3].venue is None  # a book's place and publisher are no venue
    assert "bracket" not in (refs[4].title or "x") or refs[4].title != "An ordinary entry"  # no code: untouched
    assert [m.reference_ids for m in doc.mentions][:2] == [["ref-1"], ["ref-2", "ref-3"]]


def test_a_volume_colon_number_printed_like_a_year_is_not_the_entrys_year():
    # T2 (oup-authoring-virusevol-ambigrams): "Proc Biol Sci., 277:1701, 2010." had year 1701 (the article number),
    # so "Chirico et al. (2010)" was unresolved
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import reference_fields

    raw = ("N. Chirico, A. Vianelli, and R. Belshaw. Why genes overlap in viruses. Proc Biol Sci., 277:1701, 2010. "
           "doi: 10.1098/rspb. 2010.1052.")
    assert reference_fields(raw, parse_entry)["year"] == "2010"
    doc = make_doc(["As found by Chirico et al. (2010)."], bib=[raw, "A. Other. Another paper. J. Virol. 1:3, 2011."])
    assert [m.reference_ids for m in doc.mentions] == [["ref-1"]]


JSS = [
    "Funk S, Abbott S, Atkins BD (????a). “Short-Term Forecasts to Inform the Response.” p. 2020.11.11.20220962. "
    "doi:10.1101/2020.11.11.20220962.",
    "Funk S, Camacho A, Kucharski AJ (????b). “Assessing the Performance of Real-Time Epidemic Forecasts.” 15(2), "
    "e1006785. doi:10.1371/journal.pcbi.1006785.",
    "Gneiting T, Balabdaoui F, Raftery AE (????). “Probabilistic Forecasts, Calibration and Sharpness.” 69(2), "
    "243–268. doi:10.1111/j.1467-9868.2007.00587.x.",
    "Gneiting T, Raftery AE (2007). “Strictly Proper Scoring Rules.” 102(477), 359–378.",
    "Smith J, Jones K, Brown L (2019). “A Dated Paper of Three.” 1(2), 3–4.",
]


def test_entries_printed_without_a_year_are_cited_by_their_names_and_letter():
    # T3 (jss-scoringutils-forecasts): the list prints "(????)" and the text "Gneiting, Balabdaoui, and Raftery",
    # "(Funk et al. a)", "Funk et al. (b)"; the years read from the DOIs (2007, 2020) made these entries dated,
    # and a three-author entry had no label of its three names
    doc = make_doc(["The paradigm Gneiting, Balabdaoui, and Raftery that guides it (Funk et al. a), see Funk et "
                    "al. (b) and Gneiting and Raftery (2007), never Funk et al. "
                    "(2020) nor Gneiting et al. (2007)."], bib=JSS)
    got = [(m.text, m.reference_ids) for m in doc.mentions]
    assert ("Gneiting, Balabdaoui, and Raftery", ["ref-3"]) in got
    assert ("Funk et al. a", ["ref-1"]) in got
    assert ("Funk et al. (b)", ["ref-2"]) in got
    assert ("Gneiting and Raftery (2007)", ["ref-4"]) in got
    # a year the list never printed links none of them: the text cannot cite by it
    assert not [g for g in got if "2020" in g[0] and g[1]]
    assert not [g for g in got if g[1] == ["ref-3"] and "2007" in g[0]]


BODY = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
        "dolore magna aliqua.")


def test_a_one_line_first_entry_is_no_measure_of_the_lists_width(tmp_path):
    # T4 (beamerposter-zh-optofmri-portrait, abbrv): "[1] P. Name." is its own block (\newblock), the list sits at
    # the page's foot, and the wider title line under it, then the whole second entry, were taken for the page foot
    body = [("A Poster Title Here", 150, 60, 18, "Helvetica-Bold"), ("Introduction", 72, 100, 12, "Helvetica-Bold")]
    body += [(BODY[:88], 72, 120 + 12 * k, 10, "Times-Roman") for k in range(44)]
    foot = [("References", 72, 690, 12, "Helvetica-Bold"),
            ("[1] P. Marjamaki.", 72, 716, 9, "Times-Roman"),
            ("IMAGING OF TRANSPORTERS - Studies with Radiotracers for Emission Tomography. PhD thesis,", 84, 728, 9,
             "Times-Roman"),
            ("University of Turku, 2011.", 84, 739, 9, "Times-Roman"),
            ("[2] S. O. Ogren, T. M. Eriksson, and O. Stiedl.", 72, 752, 9, "Times-Roman"),
            ("The role of receptors in learning and memory. Behavioural Brain Research, 195(1):54-77,", 84, 766, 9,
             "Times-Roman"),
            ("Dec 2008.", 84, 777, 9, "Times-Roman")]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [body + foot]), CompileOptions())
    assert [r.title for r in doc.references] == [
        "IMAGING OF TRANSPORTERS - Studies with Radiotracers for Emission Tomography",
        "The role of receptors in learning and memory"]


PNAS = [f"{i}. Author{i} A, Other B ({2000 + i}) Paper number {i}. J Test {i}:1-2." for i in range(1, 8)]


def test_numbers_in_parentheses_cite_a_list_labelled_with_dotted_numbers():
    # T5 (pnas-clowdr-serverless): "e.g. (1) and (2, 3)." beside a list "1. Belkin M, Niyogi P (2002) ..."
    doc = make_doc(["References are cited in order, e.g. (1) and (2, 3). Maps were used before (4–6); see "
                    "Eqs. 1 and (2), we (1) fit the model and (2) test it, in Eq. (3), and Step (4)."], bib=PNAS)
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [
        ("(1)", ["ref-1"]), ("(2, 3)", ["ref-2", "ref-3"]), ("(4–6)", ["ref-4", "ref-5", "ref-6"])]
    # a number no entry has: no callout of this kind (and nothing reported unresolved)
    doc = make_doc(["First (1), then the model (9)."], bib=PNAS)
    assert [m.text for m in doc.mentions] == ["(1)"] and not [u for u in doc.unresolved if u.kind == "citation"]


def test_numbers_in_parentheses_are_no_callouts_beside_other_callouts_or_out_of_order():
    # the text cites by brackets: "(1)" is an equation's or an item's number there
    doc = make_doc(["As in [1], the model (2), and the bound (3)."], bib=PNAS)
    assert [m.text for m in doc.mentions] == ["[1]"]
    # the first parenthesis is no "(1)": these lists number entries in the order the text cites them
    doc = make_doc(["The bound (3), and the model (1)."], bib=PNAS)
    assert not doc.mentions
    # a list labelled "[1]" is cited by brackets
    doc = make_doc(["The model (1), the bound (2)."], bib=[f"[{i}] A. Author{i}, Paper {i}, 20{10 + i}." for i in
                                                           range(1, 5)])
    assert not doc.mentions


def test_a_note_in_a_numbered_list_cites_other_entries():
    # T6 (revtex-prl-drop-impact): REVTeX prints the notes in the list, "[25] We note that ... As our recent studies
    # [9, 15] have indicated, ...": callouts the text search skipped (an entry holds none)
    bib = [f"[{i}] A. Author{i}, J. Test {i}, {i} (20{10 + i})." for i in range(1, 5)]
    bib.append("[5] We note that the first peak need not be the largest: as our studies [1, 3] have indicated, a "
               "second one may follow; see also Springer [2] B. Other, J. Test 9, 1 (2019).")
    doc = make_doc(["A drop [5] falls."], bib=bib)
    got = [(m.text, m.reference_ids) for m in doc.mentions]
    assert got == [("[5]", ["ref-5"]), ("[1, 3]", ["ref-1", "ref-3"])]  # not "[2]": an entry's start follows it
