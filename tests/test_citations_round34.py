"""Round 34 (benchmarks/results/round34_cit_rule.md): numbers of mathematics and measures are no callouts."""

from __future__ import annotations

from test_citations import make_doc

NUMBERED = [f"[{i}] A. Author{i}, \"Paper {i},\" in Proc. X, 20{10 + i}." for i in range(1, 40)]


def citations(doc):
    return [u for u in doc.unresolved if u.kind == "citation"]


def test_an_interval_from_zero_is_no_numbered_callout():
    # E1: a book with no bibliography printed "uniformly at random in [0, 1]": three unresolved citations
    # "no reference list found", and the QA's error with them
    doc = make_doc(["Choose a number uniformly at random in [0, 1]. Sample w from the interval [0, 1]."], bib=[])
    assert not doc.mentions and not citations(doc)
    # with a numbered list, "[0, 1]" linked [1] and reported "no reference numbered 0"; "t ∈ [1, 2]" linked two
    doc = make_doc(["Draw u in [0, 1] and t ∈ [1, 2], S = [4,5] ∪ [8,9], as in [3] and [4, 5]."], bib=NUMBERED)
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("[3]", ["ref-3"]), ("[4, 5]", ["ref-4", "ref-5"])]
    assert not citations(doc)


def test_an_entry_numbered_zero_is_still_cited():
    bib = ["[0] A. Zero, \"First,\" in Proc. X, 2001.", "[1] B. One, \"Second,\" in Proc. Y, 2002."]
    doc = make_doc(["Both [0, 1] say so."], bib=bib)
    assert [m.reference_ids for m in doc.mentions] == [["ref-1", "ref-2"]]


def test_powers_of_ten_and_units_are_exponents_not_superscript_callouts():
    # E2: "7.5 × 10<sup>34</sup> cm^-2 s^-1" was "no reference numbered 34"; "64.8 mm<sup>2</sup>",
    # "150µm<sup>2</sup>", "50 MHz/cm<sup>2</sup>", "40 mm<sup>3</sup>" linked entries 2 and 3
    doc = make_doc([
        "Luminosity reaches 7.5 × 10<sup>34</sup> cm^-2 s^-1 and rates 50 MHz/cm<sup>2</sup>. "
        "The area is 2 × 16.2 × 64.8 mm<sup>2</sup>, the pixel 100 × 150µm<sup>2</sup>, the box 40 mm<sup>3</sup>, "
        "the plate 12 cm², a dose of 10<sup>5</sup> cells.",
    ], bib=NUMBERED)
    assert not doc.mentions and not citations(doc)


def test_superscript_callouts_after_words_years_and_decades_still_link():
    doc = make_doc([
        "Detectors were studied<sup>2</sup> and in 2010<sup>3</sup>, as in the 1990s<sup>4,5</sup>, "
        "with 12 modules<sup>6</sup> and rates², see Fig. 10<sup>x</sup>.",
    ], bib=NUMBERED)
    got = [(m.text, m.reference_ids) for m in doc.mentions]
    assert got == [("<sup>2</sup>", ["ref-2"]), ("<sup>3</sup>", ["ref-3"]), ("<sup>4,5</sup>", ["ref-4", "ref-5"]),
                   ("<sup>6</sup>", ["ref-6"]), ("²", ["ref-2"])]


def test_a_superscript_after_a_year_is_a_callout_after_another_number_a_power():
    # wiley-njd-ama-ddi's table cell "Thall et al, 2003⁶" (round33_citations_rule.md cause 4): a digit before
    # superscript digits read as an exponent; a year is no base of a power
    doc = make_doc(["Designs | Thall et al, 2003⁶ | an area of 12² and 1.5³ units"], bib=NUMBERED)
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("⁶", ["ref-6"])]


def test_a_lone_word_in_parentheses_cites_the_one_yearless_entry_it_labels():
    # jss-scoringutils-forecasts: a bibliography printed without years ("(????)") is cited "(Timmermann)", "(Dawid)"
    bib = ["Timmermann A (????). “Forecasting Methods in Finance.” 10(1), 449–479.",
           "Dawid AP (????). “Present Position and Potential Developments.” 147(2), 278–292.",
           "Jordan A (2019). “Evaluating Probabilistic Forecasts.” 90(12), 1–37.",
           "Jordan B (????). “Another Paper.” 3, 1–2."]
    doc = make_doc(["Fields like finance (Timmermann), the PIT (Dawid) and (Python) or (Jordan) or (Jordan 2019)."],
                   bib=bib)
    got = [(m.text, m.reference_ids) for m in doc.mentions]
    assert ("Timmermann", ["ref-1"]) in got and ("Dawid", ["ref-2"]) in got
    # "(Jordan)": an entry with a year has the label too, so the lone word tells nothing
    assert not [g for g in got if g[0] in ("Python", "Jordan")]


def test_an_item_citing_a_span_of_years_links_by_its_first_year():
    # jmlr-blocks-fuel: "(The HDF Group, 1997-2015)" and its entry "..., version 5, 1997-2015." (no year parsed)
    bib = ["The HDF Group. Hierarchical Data Format, version 5, 1997-2015. http://www.hdfgroup.org/HDF5/.",
           "Mark Smith. A first paper. Journal A, 2004."]
    doc = make_doc(["Files in HDF5 (The HDF Group, 1997-2015) and (Smith, 2004-2006), not (Second World War, "
                    "1939-1945)."], bib=bib)
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("The HDF Group, 1997-2015", ["ref-1"]),
                                                                 ("Smith, 2004-2006", ["ref-2"])]
    assert not citations(doc)


def test_same_year_entries_of_one_first_author_are_never_guessed():
    # round 33's census (aastex "Briceño et al. 2007", sagej "Tonneau et al. 2018"): the text prints no a/b, so
    # the callout names either entry; it stays unresolved "ambiguous", linked to neither
    bib = ["Briceño, C., Preibisch, T., Sherry, W. H., et al. 2007, in Protostars and Planets V, 345",
           "Briceño, C., Hartmann, L., Hernández, J., et al. 2007, ApJ, 661, 1119",
           "Briceño, C. 2008, in Handbook of Star Forming Regions, 838"]
    doc = make_doc(["The association (Briceño et al. 2007) and Briceño et al. (2007), unlike (Briceño 2008)."],
                   bib=bib)
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("Briceño 2008", ["ref-3"])]
    assert [u.reason.split(":")[0] for u in citations(doc)] == ["ambiguous", "ambiguous"]


# E3 (refparse): APA's software, data and report entries


def test_apa_software_and_report_entries_keep_version_and_institution_out_of_the_title():
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import reference_fields

    f = reference_fields("Holke, J., Burstedde, C., Knapp, D., & Boeing, N. (2022). t8code (Version 1.0.0). "
                         "https://doi.org/10.5281/zenodo.7034838", parse_entry)
    assert (f["title"], f["edition"], f["year"]) == ("t8code", "Version 1.0.0", "2022")
    f = reference_fields("Elsweijer, S. (2021). Curved domain adaptive mesh refinement with hexahedra. Hochschule "
                         "Bonn-Rhein-Sieg. https://elib.dlr.de/143537/", parse_entry)
    assert (f["title"], f["publisher"]) == ("Curved domain adaptive mesh refinement with hexahedra",
                                            "Hochschule Bonn-Rhein-Sieg")
    f = reference_fields("Smith, A. (2020). Plotly (Version 4.2) [Computer software]. Plotly Technologies.", parse_entry)
    assert f["title"] == "Plotly"
    # a subtitle stays: its words name no publisher
    f = reference_fields("Jasanoff, S. (2005). States of Knowledge. The Co-production of Science and Social Order. "
                         "London: Routledge.", parse_entry)
    assert f["title"] == "States of Knowledge. The Co-production of Science and Social Order"


def test_an_issue_printed_like_a_year_is_not_the_entrys_year():
    # oup-authoring-virusevol-ambigrams: "Proc. R. Soc. B, 277(1701):3809–3817, 2010" had year 1701, so
    # "Chirico et al. (2010)" was unresolved
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import reference_fields

    raw = "N. Chirico, A. Vianelli, and R. Belshaw. Why genes overlap in viruses. Proc. R. Soc. B, 277(1701):3809–3817, 2010."
    assert reference_fields(raw, parse_entry)["year"] == "2010"
    # no year elsewhere: the number stays the year read
    raw = "A. Smith. A title here. J. Chem. 12(2010):1-5. doi:10.1098/rspb.2010.1186"
    assert reference_fields(raw, parse_entry)["year"] == "2010"
    doc = make_doc(["As found by Chirico et al. (2010)."], bib=[
        "N. Chirico, A. Vianelli, and R. Belshaw. Why genes overlap in viruses. Proc. R. Soc. B, 277(1701):3809–3817, "
        "2010.", "A. Other. Another paper. J. Virol. 1(2):3-4, 2011."])
    assert [m.reference_ids for m in doc.mentions] == [["ref-1"]]
