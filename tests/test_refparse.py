"""The reference-string labeller (compile/refparse) and the BibTeX / CSL-JSON outputs.

The strings below are written for these tests in the styles bibliographies print (APS,
MNRAS/ApJ, ACM, IEEE, Nature, chemistry, LNCS, Chicago, Vancouver); none is in the
training data.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from ctxmill.compile.refparse import DOUBTFUL, label, parse
from ctxmill.compile.refparse.names import is_name, split_people
from ctxmill.model import BlockKind

# (style, string, expected fields; "family" is the first author's family name)
STYLES = [
    ("APS", "M. A. Metlitski and T. Grover, Phys. Rev. B 86, 115129 (2012).",
     {"family": "Metlitski", "container": "Phys. Rev. B", "volume": "86", "pages": "115129", "year": "2012",
      "title": None}),
    ("APS with title", 'J. D. Smith, A. Brown, and K. Lee, "Quantum dots in strong magnetic fields," '
     "Phys. Rev. Lett. 104, 056401 (2010).",
     {"family": "Smith", "title": "Quantum dots in strong magnetic fields", "container": "Phys. Rev. Lett.",
      "volume": "104", "year": "2010"}),
    ("MNRAS", "Bahcall J. N., Flynn C., Gould A., 1992, ApJ, 389, 234",
     {"family": "Bahcall", "container": "ApJ", "volume": "389", "pages": "234", "year": "1992", "title": None}),
    ("ApJ", "Beck, R., Brandenburg, A., Moss, D., Shukurov, A., & Sokoloff, D. 1996, ARA&A, 34, 155",
     {"family": "Beck", "container": "ARA&A", "volume": "34", "year": "1996", "title": None}),
    ("ACM", "Martin F. Arlitt and Carey L. Williamson. 1997. Internet Web servers: workload characterization "
     "and performance implications. IEEE/ACM Trans. Netw. 5, 5 (Oct. 1997), 631-645.",
     {"family": "Arlitt", "year": "1997",
      "title": "Internet Web servers: workload characterization and performance implications",
      "container": "IEEE/ACM Trans. Netw."}),
    ("IEEE", '[7] K. He, X. Zhang, S. Ren, and J. Sun, "Deep residual learning for image recognition," in '
     "Proc. IEEE Conf. Comput. Vis. Pattern Recognit., 2016, pp. 770-778.",
     {"family": "He", "year": "2016", "title": "Deep residual learning for image recognition",
      "pages": "770-778", "label": "7"}),
    ("Nature", "Keller, S. C. et al. A single low-energy, iron-poor supernova as the source of metals in the "
     "star SMSS J031300.36-670839.3. Nature 506, 463-466 (2014).",
     {"family": "Keller", "container": "Nature", "volume": "506", "pages": "463-466", "year": "2014"}),
    ("chemistry", "Thomson, W. Proc. R. Soc. London 1856, 8, 546-550.",
     {"family": "Thomson", "year": "1856", "pages": "546-550", "title": None}),
    ("LNCS", "Lamport, L.: Time, clocks, and the ordering of events in a distributed system. "
     "Commun. ACM 21(7), 558-565 (1978)",
     {"family": "Lamport", "year": "1978",
      "title": "Time, clocks, and the ordering of events in a distributed system", "container": "Commun. ACM",
      "volume": "21", "issue": "7", "pages": "558-565"}),
    ("Chicago", "Kuhn, Thomas S. 1962. The Structure of Scientific Revolutions. Chicago: University of "
     "Chicago Press.",
     {"family": "Kuhn", "year": "1962", "title": "The Structure of Scientific Revolutions",
      "publisher": "University of Chicago Press", "location": "Chicago"}),
    ("Vancouver", "Smith JA, Jones BC. Effects of caffeine on sleep latency. J Sleep Res. 2015;24(3):210-9.",
     {"family": "Smith", "year": "2015", "title": "Effects of caffeine on sleep latency", "volume": "24"}),
]


def _first_family(f: dict) -> str | None:
    p = f["people"][0] if f["people"] else {}
    return p.get("family") or p.get("literal")


@pytest.mark.parametrize(("style", "text", "want"), STYLES, ids=[s[0] for s in STYLES])
def test_fields_of_many_styles(style, text, want):
    f = parse(text)
    got = {k: (_first_family(f) if k == "family" else f.get(k)) for k in want}
    assert got == want


def test_doi_arxiv_and_url_are_kept_exactly():
    f = parse("A. Vaswani et al., Attention is all you need, arXiv:1706.03762v5 [cs.CL] (2017), "
              "doi:10.48550/arXiv.1706.03762, https://arxiv.org/abs/1706.03762v5.")
    assert f["arxiv_id"] == "1706.03762v5"
    assert f["doi"] == "10.48550/arXiv.1706.03762"
    assert f["url"] == "https://arxiv.org/abs/1706.03762v5"
    assert f["et_al"] and f["authors"][-1] == "et al."
    old = parse("E. J. Copeland, M. Sami and S. Tsujikawa, Int. J. Mod. Phys. D 15, 1753 (2006) [hep-th/0603057].")
    assert old["arxiv_id"] == "hep-th/0603057"


def test_a_collaboration_is_one_author_and_no_title_is_invented():
    f = parse("ATLAS Collaboration, G. Aad et al., JINST 3 (2008) S08003.")
    assert f["people"][0] == {"literal": "ATLAS Collaboration"}
    assert f["title"] is None
    assert f["container"] == "JINST" and f["pages"] == "S08003" and f["year"] == "2008"


@pytest.mark.parametrize(("text", "people"), [
    ("Bahcall, J.N., Flynn, C., Gould, A.", [("Bahcall", "J.N."), ("Flynn", "C."), ("Gould", "A.")]),
    ("D. Diakonov, N. Gromov, and V. Petrov", [("Diakonov", "D."), ("Gromov", "N."), ("Petrov", "V.")]),
    ("Pérez-Higueras JJ, de la Macorra JC", [("Pérez-Higueras", "JJ"), ("de la Macorra", "JC")]),
    ("P. van Baal & J. von Neumann", [("van Baal", "P."), ("von Neumann", "J.")]),
    ("Smith, John; Doe, Jane", [("Smith", "John"), ("Doe", "Jane")]),
    ("Kingma, D. P. and Ba, J.", [("Kingma", "D. P."), ("Ba", "J.")]),
    # abbreviated particles after initials (round 32, P): the family name keeps its particle
    ("J. T. v. Mierlo, G. J. Overheul", [("v. Mierlo", "J. T."), ("Overheul", "G. J.")]),
    ("Lagos C. d. P., Theuns T.", [("Lagos", "C. d. P."), ("Theuns", "T.")]),
    ("Walt S. v. d., Colbert S. C.", [("v. d. Walt", "S."), ("Colbert", "S. C.")]),
])
def test_people_are_split_into_family_and_given(text, people):
    got, _ = split_people(text)
    assert [(p["family"], p.get("given")) for p in got] == people


def test_a_first_author_with_an_abbreviated_particle_is_kept():
    # "v."/"d." were lowercase words no particle table holds, so the person was dropped as debris
    mierlo = parse("J. T. v. Mierlo, G. J. Overheul, and R. P. v. Rij. Novel Drosophila Viruses Encode "
                   "Host-Specific Suppressors of RNAi. PLOS Pathogens, 10(7):e1004256, July 2014.")
    assert [p["family"] for p in mierlo["people"]] == ["v. Mierlo", "Overheul", "v. Rij"]
    lagos = parse("Lagos C. d. P., et al., 2018, MNRAS, 473, 4956")
    assert lagos["people"] == [{"family": "Lagos", "given": "C. d. P."}]
    walt = parse("Walt S. v. d., Colbert S. C., Varoquaux G., 2011, Comput Sci Eng, 13, 22")
    assert walt["authors"][0] == "S. v. d. Walt"
    # a "v." after a word that is no initial stays what it was: a court case is no person
    people, _ = split_people("Bartz v. Anthropic PBC, no.")
    assert not any(is_name(p) for p in people)


def test_labels_are_deterministic_and_noise_is_doubtful():
    text = "Beck, R., et al., 1996, Ann. Rev. Astron. Astrophys., 34, 155"
    first = label(text)
    assert all(label(text) == first for _ in range(3))
    assert {lab for _, lab in first} >= {"author", "date", "container", "volume", "pages"}
    good = parse(text)
    assert good["confidence"] > DOUBTFUL and good["doubtful"] is None
    noise = parse("qx zzv 17 ; ;; ) blorp 9 ## fnord (( wibble")
    assert noise["confidence"] < DOUBTFUL and noise["doubtful"]
    # prose labels confidently as one long title: the missing who and when give it away
    prose = parse("The results are shown in Table 3 and we conclude that the method works well.")
    assert prose["doubtful"] == "no authors and no year"


def test_model_loads_in_a_fresh_process():
    code = ("from ctxmill.compile.refparse import parse; "
            "import json; print(json.dumps(parse('Kuhn, T. S. 1962. The Structure. Chicago: UCP.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout)["year"] == "1962"


# ---------------------------------------------------------------- BibTeX and CSL-JSON


def _read_bib(text: str) -> list[tuple[str, str, dict]]:
    """A strict little BibTeX reader: @type{key, name = {value}, ...} with balanced braces."""
    entries, i = [], 0
    while True:
        m = re.compile(r"@(\w+)\{([^,\s]+),").search(text, i)
        if not m:
            break
        kind, key, i = m.group(1), m.group(2), m.end()
        fields = {}
        while True:
            fm = re.compile(r"\s*(\w+) = \{").match(text, i)
            if not fm:
                break
            depth, j = 1, fm.end()
            while depth:
                c = text[j]
                if c == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(c, 0)
                j += 1
            fields[fm.group(1)] = text[fm.end() : j - 1]
            i = j
            if text[i] == ",":
                i += 1
        assert re.compile(r"\s*\}").match(text, i), f"entry {key} is not closed"
        i = text.index("}", i) + 1
        entries.append((kind, key, fields))
    return entries


def _doc_with(strings: list[str]):
    from ctxmill.compile import references
    from ctxmill.compile.options import CompileOptions
    from ctxmill.model import Block, Document, PageStream

    doc = Document(stream=PageStream(pages=[], kind="markdown"))
    doc.blocks = [Block(kind=BlockKind.REFERENCE, text=s, page=1, id=f"b{i}") for i, s in enumerate(strings)]
    references.run(doc, CompileOptions())
    return doc


def test_bibtex_reads_back_with_every_field():
    from ctxmill.render.bibtex import bibtex

    doc = _doc_with([s for _, s, _ in STYLES] + [
        "Vaswani, A. et al. 2017. Attention is all you need. In Advances in NeurIPS 30. arXiv:1706.03762.",
        "Vaswani, A. 2017. Attention again: 100% of $x_i$ & {braces} #1. Tech. Rep. ~home^2.",
    ])
    entries = _read_bib(bibtex(doc))
    assert len(entries) == len(doc.references)
    keys = [k for _, k, _ in entries]
    assert len(set(keys)) == len(keys)
    kind, key, f = entries[4]  # ACM
    assert kind == "article" and key == "arlitt1997internet"
    assert f["author"] == "Arlitt, Martin F. and Williamson, Carey L."
    assert f["journal"] == "IEEE/ACM Trans. Netw." and f["year"] == "1997"
    assert entries[-2][2]["eprint"] == "1706.03762" and entries[-2][2]["author"].endswith(" and others")
    assert r"100\% of \$x\_i\$ \& \{braces" in entries[-1][2]["title"]  # escaped, and the file reads back


def test_csl_json_items_carry_the_fields():
    from ctxmill.render.csl_json import csl_items

    doc = _doc_with([STYLES[8][1], "ATLAS Collaboration, G. Aad et al., JINST 3 (2008) S08003."])
    items = json.loads(json.dumps(csl_items(doc)))
    lamport, atlas = items
    assert lamport["id"] == doc.references[0].id and lamport["type"] == "article-journal"
    assert lamport["author"] == [{"family": "Lamport", "given": "L."}]
    assert lamport["issued"] == {"date-parts": [[1978]]}
    assert (lamport["container-title"], lamport["volume"], lamport["issue"], lamport["page"]) == \
        ("Commun. ACM", "21", "7", "558-565")
    assert atlas["author"][0] == {"literal": "ATLAS Collaboration"}


def test_compile_writes_bib_and_csl_beside_references_json(tmp_path):
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    md = ("# A small paper\n\nAs shown before [1], and again [2].\n\n## References\n\n"
          f"[1] {STYLES[4][1]}\n\n[2] {STYLES[8][1]}\n")
    src = tmp_path / "paper.md"
    src.write_text(md)
    doc = compile_document(src, CompileOptions(chunks=False))
    files = write_outputs(doc, tmp_path / "out", CompileOptions(chunks=False))
    refs = json.loads(files["references.json"].read_text())
    assert len(refs) == 2
    assert refs[0]["people"][0] == {"family": "Arlitt", "given": "Martin F."}
    assert refs[1]["container"] == "Commun. ACM" and refs[1]["volume"] == "21"
    assert 0 < refs[0]["confidence"] <= 1
    assert len(_read_bib(files["references.bib"].read_text())) == 2
    assert [i["id"] for i in json.loads(files["references.csl.json"].read_text())] == [r["id"] for r in refs]
    import zipfile

    names = zipfile.ZipFile(files["bundle.zip"]).namelist()
    assert "references.bib" in names and "references.csl.json" in names


def test_qa_reports_a_bibliography_the_labeller_cannot_read():
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.quality import assess

    good = _doc_with([s for _, s, _ in STYLES[:6]])
    assert not [c for c in assess(good, CompileOptions()).checks if c.id == "doubtful_reference_fields"]
    noise = _doc_with(["qx zzv 17 ; ;; ) blorp 9 ## fnord (( wibble", "--- ;; 42 ((( zzz ]] 7 7 7 ~~",
                       "The results are shown in Table 3 and we conclude that the method works well.",
                       STYLES[0][1]])
    checks = [c for c in assess(noise, CompileOptions()).checks if c.id == "doubtful_reference_fields"]
    assert len(checks) == 1 and checks[0].severity == "warning"  # 3 of 4: more than a quarter
    assert checks[0].location["reference_ids"] == ["ref-1", "ref-2", "ref-3"]
    assert all(r.doubtful for r in noise.references[:3]) and noise.references[3].doubtful is None


@pytest.mark.parametrize("raw", [
    # the text layer broke the URL with a space; the labels ran on over the year
    "John Hughes. Claude Code auto mode: A safer way to skip permissions. Anthropic Engineering, "
    "https://www. anthropic.com/engineering/claude-code-auto-mode, 2026.",
    "Leon Staufer, Kevin Feng, and Noam Kolt. The 2025 ai agent index: Documenting technical and safety "
    "features of deployed agentic ai systems. arXiv preprint arXiv:2602.17753, 2026.",
])
def test_a_year_after_a_url_or_a_note_is_the_date(raw):
    """The sample paper's author-year callouts "(Hughes, 2026)" link only when the entry has its year."""
    assert parse(raw)["year"] == "2026"


def test_the_rule_parser_is_asked_only_where_its_parse_can_change_a_field():
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import reference_fields

    asked: list[str] = []

    def rules(raw: str) -> dict:
        asked.append(raw)
        return parse_entry(raw)

    sure = STYLES[1][1]  # a confident parse with no URL or DOI: nothing for the rules to change
    assert parse(sure)["doubtful"] is None
    assert reference_fields(sure, rules) == reference_fields(sure, None) and asked == []
    doubted = "qx zzv 17 ; ;; ) blorp 9 ## fnord (( wibble"  # low confidence
    prose = "The results are shown in Table 3 and we conclude that the method works well."
    assert parse(doubted)["doubtful"].startswith("low confidence")
    assert parse(prose)["doubtful"] == "no authors and no year"  # the rules' title is as unsure there
    for raw in (doubted, prose):
        reference_fields(raw, rules)
    assert asked == [doubted]
    # a URL the text layer broke at a space: the rules know how it continues
    url = "Chip Huyen. Agents. https://huyenchip.com/2025/01/ 07/agents.html, 2025."
    f = reference_fields(url, rules)
    assert asked[-1] == url and f["url"] == "https://huyenchip.com/2025/01/07/agents.html" != parse(url)["url"]


def test_the_rules_title_may_not_hold_the_names_before_the_labellers_title():
    from ctxmill.compile.refparse import _plausible_title

    text = "Vali, Ferenc A., The Turkish Straits and NATO, California, Stanford University, Hoover Institution Press, 1972."
    f = {"people": [{"family": "Vali", "given": "Ferenc A."}], "title": "The Turkish Straits and NATO", "year": "1972",
         "container": None}
    # the rule parser did not find where the names end: its title starts with them
    assert not _plausible_title("Vali, Ferenc A., The Turkish Straits and NATO, California", f, text)
    assert _plausible_title("The Turkish Straits and NATO", f, text)
    # nor a name from the list before the labeller's title
    names = "Becker, Ernest. Smith, Anna. The Denial of Death. New York: Free Press, 1973."
    h = {"people": [{"family": "Becker", "given": "Ernest"}, {"family": "Smith", "given": "Anna"}],
         "title": "The Denial of Death", "year": "1973", "container": None}
    assert not _plausible_title("Smith, Anna", h, names) and _plausible_title("The Denial of Death", h, names)
    # a title before a wrong labeller title is no name: "A title 1525" stands against "In Proc. X"
    entry = "A. Author, B. Writer. A title 1525. In Proc. X, 2020."
    k = {"people": [{"family": "Author", "given": "A."}, {"family": "Writer", "given": "B."}], "title": "In Proc. X",
         "year": "2020", "container": None}
    assert _plausible_title("A title 1525", k, entry)
    # a web page named as its maker keeps the rules' title (the labeller read the name as an author, no title)
    page = "Binder. http://mybinder.org//, 2017. last accessed, March 2017."
    g = {"people": [{"family": "Binder"}], "title": None, "year": "2017", "container": None}
    assert _plausible_title("Binder", g, page)


@pytest.mark.parametrize(("raw", "title", "container"), [
    # Vancouver style with the full stop after the title lost: the known journal ends the title
    ("Romano JM, Turner JA, Jensen MP. The Chronic Illness Problem Inventory as a measure of dysfunction in "
     "chronic pain patients Pain (1992) 49(1):71-75.",
     "The Chronic Illness Problem Inventory as a measure of dysfunction in chronic pain patients", "Pain"),
    ("Lee K, Park J. Magnetic resonance imaging of the knee in young athletes Radiology (2001) 220:12-18.",
     "Magnetic resonance imaging of the knee in young athletes", "Radiology"),
    # a place before a comma and the year is no journal
    ("Green, B. Renovation and Green Agenda Support Weak Construction Activity across Europe, 2012.",
     "Renovation and Green Agenda Support Weak Construction Activity across Europe", None),
])
def test_a_known_journal_at_the_end_of_a_sentence_case_title_is_the_venue(raw, title, container):
    f = parse(raw)
    assert (f["title"], f["container"]) == (title, container)


def test_short_words_with_a_spaced_full_stop_before_the_venue_begin_it():
    """One text layer prints abbreviations as "Braz .J .Phys" (a space before the full stop,
    none after) and glues the first to the title's last word."""
    f = parse("Lee K and Park J 2018 Magnetic order in strained thin films of cobalt oxidesBraz .J .Phys .48 301 -12")
    assert (f["title"], f["container"], f["volume"]) == (
        "Magnetic order in strained thin films of cobalt oxides", "Braz .J .Phys", "48")
    # a sentence end printed the same way after a long word stays the title's end
    g = parse("Lundgren R and Fiete G A 2014 Thermoelectric properties of Weyl and Diracsemimetals .Phys .Rev .B 90 ,165115")
    assert g["title"] == "Thermoelectric properties of Weyl and Diracsemimetals"


def test_prose_after_numbers_inside_a_title_goes_back_to_the_title():
    """The model read "p27 and p21" inside a title as pages and the prose after them, up to the
    sentence end, as the journal: that prose and the numbers are the title's. Not past a
    sentence end: "Tide and time. Pages 1-12 in ..." keeps its title."""
    from ctxmill.compile.refparse.fields import title_runs_into_container
    from ctxmill.compile.refparse.tokens import tokenize

    def runs(*parts: tuple[str, int]) -> list[str]:
        return [lab for lab, n in parts for _ in range(n)]

    toks = tokenize("Landberg G. Cyclin E dependent kinase activity in relation to cyclin E, p27 and p21 expression "
                    "and retinoblastoma protein phosphorylation. Oncogene 1999; 18: 2751-2765.")
    labels = runs(("author", 2), ("title", 10), ("O", 2), ("pages", 4), ("container", 7), ("date", 1), ("O", 1),
                  ("volume", 1), ("O", 1), ("pages", 1), ("O", 1))
    assert len(labels) == len(toks)
    out = title_runs_into_container(toks, labels)
    assert out[2:23] == ["title"] * 21 and out[23] == "O" and out[24] == "container"
    toks = tokenize("Dunne, P. 1997. Tide and time. Pages 1-12 in the annual report of the bay survey. Coastal Research 12.")
    labels = runs(("author", 3), ("date", 1), ("O", 1), ("title", 3), ("O", 1), ("pages", 2), ("container", 11),
                  ("volume", 1), ("O", 1))
    assert len(labels) == len(toks)
    assert title_runs_into_container(toks, labels) == labels


@pytest.mark.parametrize(("raw", "title"), [
    ("Lakoff, George, and Mark Johnson. Metaphors We Live By. With a new afterword. Chicago: University of "
     "Chicago Press, 2003.", "Metaphors We Live By. With a new afterword"),
    ("Bradbury, Bettina. Working Families. Age, Gender and Daily Survival in Industrializing Montreal. Toronto: "
     "McClelland and Stewart, 1993.", "Working Families. Age, Gender and Daily Survival in Industrializing Montreal"),
])
def test_a_books_second_sentence_before_its_publisher_is_its_subtitle(raw, title):
    """No volume, issue or pages, a place or publisher after it: the second sentence of a
    book's title is its subtitle, not a journal."""
    f = parse(raw)
    assert (f["title"], f["container"]) == (title, None)


def _runs(*parts: tuple[str, int]) -> list[str]:
    return [lab for lab, n in parts for _ in range(n)]


def test_prose_in_the_names_begins_the_title():
    """The author labels ran on into the title's first words and the title's labels begin
    after a quote or a bracket inside it: a lower-case word no list of names holds is prose,
    so the title begins at the capitalised word after the last initials or comma."""
    from ctxmill.compile.refparse.fields import prose_ends_names
    from ctxmill.compile.refparse.tokens import tokenize

    raw = 'Moreau DM, Rome J. Familial dominant "Noonan" syndrome due to a deletion. Am J Med Genet 1998; 80:12-15.'
    toks = tokenize(raw)
    labels = _runs(("author", 9), ("O", 1), ("title", 5), ("O", 1), ("container", 4), ("date", 1), ("O", 1),
                   ("volume", 1), ("O", 1), ("pages", 1), ("O", 1))
    assert len(labels) == len(toks)
    out = prose_ends_names(toks, labels)
    assert out[:5] == ["author"] * 5 and out[5:15] == ["title"] * 10 and out[15] == "O"
    assert parse_labels_title(raw, out) == 'Familial dominant "Noonan" syndrome due to a deletion'
    # the article after a comma: "L. Niu, A generalized (G /G)-expansion method ..."
    toks = tokenize("H. Lu, L. Niu, A generalized (G /G)-expansion method for evolution equations, Appl. Math. 215 (2010) 38")
    labels = _runs(("author", 12), ("O", 1), ("title", 6), ("O", 1), ("container", 2), ("volume", 1), ("O", 1),
                   ("date", 1), ("O", 1), ("pages", 1))
    assert len(labels) == len(toks)
    out = prose_ends_names(toks, labels)
    assert out[:6] == ["author"] * 6 and out[6:19] == ["title"] * 13 and out[19] == "O"
    # the names go on after a particle ("Bâ el H, Richardson K, ..."), a role, "with" in French: names
    for raw, n in (("Cissé B, Bâ el H, Gaye O: Seasonal treatment of malaria. Lancet 2009", 9),
                   ("Estève M. dir., Andreï Tarkovsky. Lettres modernes, Paris, 1986", 3),
                   ("Taschereau, Sylvie avec Paul-André Linteau. Les transformations de Montréal. Atlas, 1993", 6)):
        toks = tokenize(raw)
        labels = ["author"] * n + ["O"] + ["title"] * (len(toks) - n - 1)
        assert prose_ends_names(toks, labels) == labels


def parse_labels_title(raw: str, labels: list[str]) -> str | None:
    from ctxmill.compile.refparse.fields import _title
    from ctxmill.compile.refparse.tokens import tokenize

    toks = tokenize(raw)
    run = [k for k, lab in enumerate(labels) if lab == "title"]
    return _title(raw[toks[run[0]][1] : toks[run[-1]][2]])


def test_a_year_inside_the_title_of_an_undated_entry_ends_it():
    """"Names Title Year Venue" with no punctuation: the model ran the title over the year and
    the venue; the year ends the title. Not where more follows the year than precedes it
    (names, the year, then the title, all read as one title)."""
    from ctxmill.compile.refparse.fields import year_ends_title
    from ctxmill.compile.refparse.tokens import tokenize

    raw = "Wu, Y., Takatsuka, M. Spherical maps using indexed geodesic data structures 2006 Neural Networks 900--910"
    toks = tokenize(raw)
    labels = _runs(("author", 7), ("title", 10), ("pages", 1))
    assert len(labels) == len(toks)
    out = year_ends_title(toks, labels)
    assert parse_labels_title(raw, out) == "Spherical maps using indexed geodesic data structures"
    assert out[14:18] == ["date", "container", "container", "pages"]
    toks = tokenize("Banks T 2003 A Critique of pure string theory: opinions of diverse dimensions (arXiv:hep-th/0306074)")
    labels = ["title"] * (len(toks) - 3) + ["O", "arxiv", "O"]
    assert year_ends_title(toks, labels) == labels
    # a dated entry keeps a year inside its title ("The 2008 Financial Crisis ...")
    toks = tokenize("Lo, A. W. 2012. Reading about the 2008 Financial Crisis: a review. J. Econ. Lit. 50, 151-178.")
    labels = ["author"] * 4 + ["date", "O"] + ["title"] * 8 + ["O"] + ["container"] * 5 + ["volume", "O", "pages", "O"]
    assert len(labels) == len(toks)
    assert year_ends_title(toks, labels) == labels


# issue 22, thirteenth round: clean-up rules chosen by cross-validation over the document folds
# of scripts/train_refparse.py --dev-split docs. The shipped model, trained on those folds too,
# labels most of these strings right itself, so the rules are tested on the labels of a dev
# model's errors, given by hand (the strings are written for the tests)
def _assembled(text: str, fields: list[tuple[str, str]]) -> dict:
    """assemble() of ``text`` with each (label, substring) labelled so, the rest "O" (each
    substring found after the one before it)."""
    from ctxmill.compile.refparse.fields import assemble
    from ctxmill.compile.refparse.tokens import tokenize

    toks = tokenize(text)
    labels = ["O"] * len(toks)
    s = 0
    for lab, sub in fields:
        s = text.index(sub, s)
        for i, (_, a, b) in enumerate(toks):
            if a >= s and b <= s + len(sub):
                labels[i] = lab
    return assemble(text, toks, labels)


@pytest.mark.parametrize(("raw", "labelled_title", "title"), [
    # a title runs on past a comma into what the work was or where it was printed
    ("B. Writer, Quantum things on a lattice of spins, talk at this conference, https://example.org/talk/12",
     "Quantum things on a lattice of spins, talk at this conference", "Quantum things on a lattice of spins"),
    ("B. Writer, Hadron things, plenary talk given at the 40th Symposium on Lattice Things, Somewhere, 2030",
     "Hadron things, plenary talk given at the 40th Symposium on Lattice Things", "Hadron things"),
    ("B. Writer, Rotating frames of spins,in Integrable Things ,Quantum Frames ,Eds. A. Editor (Imaginary, 1993)",
     "Rotating frames of spins,in Integrable Things ,Quantum Frames", "Rotating frames of spins"),
    # a field does not end inside a bracket it opened: the publisher's bracket is no part of it
    ("C. Penman, Theory of Rotating Frames (Imaginary Press, Nowhere, 1971).",
     "Theory of Rotating Frames (Imaginary Press", "Theory of Rotating Frames"),
    ("C. Penman, Theory of Rotating Frames (Lect. Notes Imag., Vol. 12), Imaginary Press, Nowhere (1971).",
     "Theory of Rotating Frames (Lect", "Theory of Rotating Frames"),
    # ... and where the closing bracket follows its labels, it takes it
    ("D. Scribe, Spins and frames (of rotating things ), J. Imag. Phys. 12 (2001) 3.",
     "Spins and frames (of rotating things", "Spins and frames (of rotating things )"),
    # a title with a comma, "in" and no capital after it stays whole
    ("D. Scribe, Spins, in theory and practice, J. Imag. Phys. 12 (2001) 3.",
     "Spins, in theory and practice", "Spins, in theory and practice"),
])
def test_a_title_ends_before_a_talk_a_venue_or_a_publishers_bracket(raw, labelled_title, title):
    f = _assembled(raw, [("author", raw.split(",")[0]), ("title", labelled_title)])
    assert f["title"] == title


def test_a_known_journal_before_its_volume_is_no_title():
    raw = "D. Scribe and E. Quill, Vacuum, 91:47 (2013)"  # a known journal of one word
    f = _assembled(raw, [("author", "D. Scribe and E. Quill"), ("title", "Vacuum"), ("volume", "91"), ("pages", "47")])
    assert f["title"] is None and f["container"] == "Vacuum"
    # a word that begins a journal's name, and no more, stays the title
    g = _assembled(raw.replace("Vacuum", "Vacuum tubes"), [("title", "Vacuum tubes"), ("volume", "91"), ("pages", "47")])
    assert g["title"] == "Vacuum tubes" and g["container"] is None


# Invented titles (issue 22, fourteenth round; rules chosen by cross-validation over the document
# folds: 7 titles right that were wrong, none the other way, invented 42 -> 35 of 1,524)
@pytest.mark.parametrize(("raw", "labelled_title", "container"), [
    ("G. Rossi and P. Bianchi, Il Nuovo Cimento 41 B (1979) 215.", "Il Nuovo Cimento 41 B", "Il Nuovo Cimento 41 B"),
    ("R. Mann and T. Holt, Acta Physica Polonica 27 B (1996) 1201.", "Acta Physica Polonica 27 B",
     "Acta Physica Polonica 27 B"),
    # the text layer glued "Journal" to the next word
    ("Park ,S. ,&Lee , J. 2019, Journalof Atmospheric Sciences (Clouds ) ,76,1187",
     "Journalof Atmospheric Sciences (Clouds )", "Journalof Atmospheric Sciences (Clouds )"),
])
def test_a_journals_name_before_its_volume_or_pages_is_the_venue(raw, labelled_title, container):
    f = _assembled(raw, [("author", raw.split(",")[0]), ("title", labelled_title), ("pages", raw.rstrip(".").split()[-1])])
    assert f["title"] is None and f["container"] == container


@pytest.mark.parametrize("title", [
    "A Review of Particle Things",  # "A ..." is a title
    "Proceedings of the Royal Workshop on Things",  # a proceedings volume cited whole: a book
    "Journal of a plague year",  # not Title Case
])
def test_a_title_with_a_journal_word_stays_a_title(title):
    raw = f"A. Author, {title}, 12, 1-20 (2001)."
    f = _assembled(raw, [("author", "A. Author"), ("title", title), ("volume", "12"), ("pages", "1-20")])
    assert f["title"] == title and f["container"] is None
    quoted = 'A. Author, "Review Letters", 12, 1-20 (2001).'
    g = _assembled(quoted, [("author", "A. Author"), ("title", "Review Letters"), ("volume", "12"), ("pages", "1-20")])
    assert g["title"] == "Review Letters"


def test_the_part_after_the_names_before_a_volume_and_pages_is_the_journal():
    raw = "K. L. Moore and T. R. Hill, Estuarine Coastal Dynamics, 81, 11-29 (1997)."
    f = _assembled(raw, [("author", "K. L. Moore and T. R. Hill, Estuarine Coastal Dynamics"), ("volume", "81"),
                         ("pages", "11-29"), ("date", "1997")])
    assert f["title"] is None and f["container"] == "Estuarine Coastal Dynamics" and f["volume"] == "81"
    # with no pages after the volume it stays the title ("S. Coleman, Q-balls, 262 (1985)" is not asked)
    g = _assembled(raw.replace(", 11-29", ""), [("author", "K. L. Moore and T. R. Hill, Estuarine Coastal Dynamics"),
                                                 ("volume", "81"), ("date", "1997")])
    assert g["title"] == "Estuarine Coastal Dynamics"


@pytest.mark.parametrize("status", ["these proceedings", "this volume", "in this volume", "this conference"])
def test_these_proceedings_is_no_title(status):
    raw = f"L. Moretti et al., {status}."
    f = _assembled(raw, [("author", "L. Moretti et al."), ("title", status)])
    assert f["title"] is None and f["note"] == status


def test_a_collaboration_glued_to_its_name_is_no_title():
    raw = "9.Ortiz ,P .,et al .:( ALICECollaboration ),arXiv :1603.00001[ nucl-ex]"
    f = parse(raw)
    assert f["title"] is None
    g = _assembled("P. Ortiz et al. (ALICECollaboration), Imag. Phys. Lett. 12 (2016) 3.",
                   [("author", "P. Ortiz et al."), ("title", "ALICECollaboration"), ("container", "Imag. Phys. Lett.")])
    assert g["title"] is None


# Missed titles: a title and its journal's name labelled as one venue run, no punctuation between
# (issue 22, fourteenth round; over the folds 7 titles right that were wrong, none the other way)
def test_the_prose_before_a_known_journal_in_a_venue_run_is_the_title():
    raw = "Quill E and Penman C 1996 Indecomposable rotating frames Nucl. Phys. B 477 293-318"
    f = _assembled(raw, [("container", "Indecomposable rotating frames Nucl. Phys. B")])
    assert (f["title"], f["container"]) == ("Indecomposable rotating frames", "Nucl. Phys. B")
    # a capitalised word before the name: a Title Case venue ("Annals of Imaginary Things Nucl. Phys. B")
    g = _assembled(raw.replace("rotating frames", "Rotating Frames"), [("container", "Indecomposable Rotating Frames Nucl. Phys. B")])
    assert g["title"] is None


# Entries of lists whose numbers have no stop or bracket ("33 Bergk, V."), with the family
# name the entry opens with; and strings whose opening number is no list number
BARE_NUMBERED = [
    ("33 Bergk, V., Die Geschichte der Musik. Leipzig: Teubner, 1872.", "33", "Bergk"),
    ("7 Smith JA, Brown K. Outcomes of surgery in older adults. Lancet 2001;357:1001-5.", "7", "Smith"),
    ("12 M. A. Metlitski and T. Grover, Phys. Rev. B 86, 115129 (2012).", "12", "Metlitski"),
    ("104 Bahcall J. N., Flynn C., Gould A., 1992, ApJ, 389, 234", "104", "Bahcall"),
]
NOT_LIST_NUMBERS = [
    "2016 Smith, J., Brown, K. A history of the valley. Oxford, 2016.",  # a year
    "86 Phys. Rev. B, 115129 (2012).",  # a volume before its journal
    "3 vols. London: John Murray, 1850.",
]


@pytest.mark.parametrize("raw, number, family", BARE_NUMBERED)
def test_a_bare_list_number_before_names_is_the_entrys_label_when_asked(raw, number, family, monkeypatch):
    from ctxmill.compile import refparse

    monkeypatch.setattr(refparse, "BARE_NUMBERS", False)
    off = parse(raw)
    assert off["label"] is None  # off: as at 298a037, the number goes to the labeller
    rest = raw.split(" ", 1)[1]
    without = parse(rest)
    refparse.use_bare_numbers(True)
    on = parse(raw)
    assert on["label"] == number
    assert on["people"][0]["family"] == family
    # the entry is parsed as if it had been printed without its number
    assert {k: v for k, v in on.items() if k != "label"} == {k: v for k, v in without.items() if k != "label"}


@pytest.mark.parametrize("raw", NOT_LIST_NUMBERS)
def test_a_year_or_volume_that_opens_an_entry_is_no_list_number(raw, monkeypatch):
    from ctxmill.compile import refparse

    monkeypatch.setattr(refparse, "BARE_NUMBERS", False)
    off = parse(raw)
    monkeypatch.setattr(refparse, "BARE_NUMBERS", True)
    assert parse(raw) == off


def test_the_product_strips_a_bare_list_number_before_names():
    # on by default since round 24b: what ``ctxmill compile`` writes for a Nature-style list
    f = parse(BARE_NUMBERED[0][0])
    assert (f["label"], f["people"][0]["family"]) == ("33", "Bergk")


# Real entries whose labeller parse is doubtful and whose rules title holds the entry's own
# identifier: GROBID training strings (no title in their labels) and the corpus paper
# aastex-twocol-billy's software and technical-report entries.
ID_TITLES = [
    ("A. G. Cohen, S. L. Glashow, and Z. Ligeti, arXiv:0810.4602[ hep-ph].", None),
    ("D. Semikoz and G. Sigl, arXiv.org:hep-ph/0309328.", None),
    ("Hurier, G. & Lacasa, F. 2017, ArXiv e-prints [arXiv:1701.09067]", None),
    ("Moe, M., & Kratter, K. M. 2019, arXiv:1912.01699 [astro-ph], arXiv: 1912.01699", None),
    ("Tenenbaum, P., & Jenkins, J. 2018, TESS Science Data Products Description Document, EXP-TESS-ARC-ICD-0014 "
     "Rev D, https://archive.stsci.edu/missions/tess/doc/EXP-TESS-ARC-ICD-TM-0014.pdf",
     "TESS Science Data Products Description Document"),
]


@pytest.mark.parametrize(("raw", "title"), ID_TITLES)
def test_the_product_takes_no_rules_title_that_holds_the_entrys_identifier(raw, title, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    labeller = parse(raw)
    assert labeller["doubtful"] and labeller["title"] == title
    monkeypatch.setattr(refparse, "IDS_NOT_TITLES", False)
    monkeypatch.setattr(refparse, "WITHIN_TITLES", False)  # (round 27's: I alone is tested here)
    before = refparse.reference_fields(raw, parse_entry)  # as at bb7690d: the rules' title and names
    ids = [labeller[k] for k in ("doi", "arxiv_id", "url") if labeller[k]]
    assert any(i.lower() in before["title"].lower() for i in ids)
    refparse.use_ids_not_titles(True)  # the default since round 25
    f = refparse.reference_fields(raw, parse_entry)
    assert f["title"] == title  # the labeller's: none, or the report's own name
    assert (f["authors"], f["year"], f["venue"]) == (labeller["authors"], labeller["year"], labeller["container"])


# Real corpus entries (aastex-twocol-billy, lncs-geotweet-happiness) whose labeller parse is
# doubtful and whose rules title holds the labeller's and runs on past it, into a report number
# or the journal's volume.
WITHIN_TITLES = [
    "Bryson, S. T., Jenkins, J. M., Klaus, T. C., et al. 2020, Kepler Data Processing Handbook: Target and "
    "Aperture Definitions: Selecting Pixels for Kepler Downlink, Kepler Data Processing Handbook (KSCI-19081-003)",
    "The Geography of Happiness: Connecting Twitter sentiment and expression, demographics, and objective "
    "characteristics of place PLoS ONE, 8(5): e64417, 2013",
]


@pytest.mark.parametrize("raw", WITHIN_TITLES)
def test_the_product_takes_no_rules_title_that_runs_on_past_the_labellers(raw, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    labeller = parse(raw)
    assert labeller["doubtful"] and labeller["title"]
    monkeypatch.setattr(refparse, "WITHIN_TITLES", False)
    before = refparse.reference_fields(raw, parse_entry)  # as before round 27: the rules' longer title
    assert labeller["title"] in before["title"] and len(before["title"]) > len(labeller["title"])
    refparse.use_within_titles(True)  # the default since round 27
    f = refparse.reference_fields(raw, parse_entry)
    assert f["title"] == labeller["title"]
    assert (f["authors"], f["year"], f["venue"]) == (labeller["authors"], labeller["year"], labeller["container"])


# GROBID training strings (the round 27 fold losses) where the labeller rightly saw no title and
# the rules took the entry's note for one.
NOTE_TITLES = [
    "P. Richardson, private communication.",
    "C. Gattringer, O. Orasch, work in preparation.",
    "R. Bürkle, A. Gaidoukov, and J. R. Anglin, In prepara-tion.",
    "D. MATTE. Thèse, Université de Nancy I, Nancy. 1986.",
    "K. Kebkal et al., these proceedings.",
]


@pytest.mark.parametrize("raw", NOTE_TITLES)
def test_the_product_takes_no_rules_title_that_is_a_note(raw, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    labeller = parse(raw)
    assert labeller["doubtful"] and labeller["title"] is None
    f = refparse.reference_fields(raw, parse_entry)  # the default since round 28
    assert f["title"] is None
    monkeypatch.setattr(refparse, "NOTES_NOT_TITLES", False)
    before = refparse.reference_fields(raw, parse_entry)  # as before round 28: the note as the title
    assert refparse._NOTE_TITLE.match(before["title"].replace("-", ""))
    assert (f["authors"], f["year"], f["venue"]) == (labeller["authors"], labeller["year"], labeller["container"])


# GROBID training strings (the round 30 fold count) that print no title, where the labeller saw
# none and the rules cut one from the names or the collaboration.
NAME_TITLES = [
    "J. Zhang, W. Slysz, A. Pearlman, A. Verevkin, Roman Sobolewski,O .Okunev ,G .Chulkova ,and G .N .",
    "J. Slim, R. Gebel, D. Heberling, F. Hinder, D.Hölscher ,A .Lehrach ,B .Lorentz ,S .Mey ,A .Nass, F. Rathmann, "
    "L. Reifferscheidt, H. Solt- ner,H.Straatmann",
    "CMS Collaboration, CMS-PAS-TOP-16-022.",
]


@pytest.mark.parametrize("raw", NAME_TITLES)
def test_the_product_takes_no_rules_title_that_is_names_or_a_collaboration(raw, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    labeller = parse(raw)
    assert labeller["doubtful"] and labeller["title"] is None
    f = refparse.reference_fields(raw, parse_entry)  # the default since round 30
    assert f["title"] is None
    monkeypatch.setattr(refparse, "NAMES_NOT_TITLES", False)
    before = refparse.reference_fields(raw, parse_entry)  # as before round 30: names as the title
    assert before["title"] and refparse._names_venue_or_collab(before["title"], raw)
    assert (f["authors"], f["year"], f["venue"]) == (labeller["authors"], labeller["year"], labeller["container"])


def test_a_rules_title_cut_at_a_journal_abbreviation_is_refused():
    from ctxmill.compile import refparse

    f = {"title": None, "people": [{"family": "Volkova", "given": "L."}], "year": "1980", "container": None,
         "doi": None, "arxiv_id": None, "url": None}
    text = "L. Volkova Yad. Fiz. 31 (1980) 1510."
    assert not refparse._plausible_title("Fiz", f, text)  # "Yad. Fiz.", the journal, cut at its stop
    assert not refparse._plausible_title("Nucl", f, "M. Ambrosio et al. Nucl. Phys. (Proc. Suppl.) B110 (2002)519 .")
    # a title ending in a plain word before its full stop stands, and so does a dotted acronym in a title
    assert refparse._plausible_title("Linear and Nonlinear Waves", f, "G. B. Whitham, Linear and Nonlinear Waves. Wiley")
    assert refparse._plausible_title("Secular changes to the U.S. hurricane record, revisited", f,
                                     "Secular changes to the U.S. hurricane record, revisited. Geophys. Res. Lett.")
    assert refparse._plausible_title("Collaboration in science", f, "A. B. Smith, Collaboration in science, 2001")
    assert refparse._plausible_title("Data", f, "Data. Wiley")


def test_a_title_that_only_starts_with_a_thesis_word_is_no_note():
    from ctxmill.compile import refparse

    assert refparse._NOTE_TITLE.match("PhD thesis, MIT") and refparse._NOTE_TITLE.match("to appear in Phys. Rev.")
    assert not refparse._NOTE_TITLE.match("Thesis writing in physics")
    assert not refparse._NOTE_TITLE.match("In pressure vessels")


# Identifiers as PDF text layers print them, spaced around their marks (GROBID training strings,
# cut from real PDFs): found, and kept as the identifier itself.
SPACED_IDS = [
    ("11.Benesch ,J .,et al .:( MOLLERCollaboration ),arXiv :1411.4088[ nucl-ex]", "arxiv_id", "1411.4088"),
    ("P.deForcrand ,PoS LAT 2009( 2009 ) 010 [arXiv:1005 . 0539[hep-lat] ].", "arxiv_id", "1005.0539"),
    ("Nachtergaele, B., Sims, R.: On the dynamics of lattice systems with unbounded on-site terms in the "
     "Hamiltonian.e -printarXiv :1410.8174v1", "arxiv_id", "1410.8174v1"),
    ("[10]http ://cern.ch/garfield.", "url", "http://cern.ch/garfield"),
    ("A. Marshak, A. Davis, R. Cahalan, W. Wiscombe, Bounded cascade models asnonstationary multifractals ,Phys "
     ".Rev .E 49 ( 1994)55 -69.doi :10.1103 /PhysRevE.49.55.", "doi", "10.1103/PhysRevE.49.55"),
    # biblatex's spaced DOIs (the corpus paper book-abstract-hoare): whole, not cut at the first space
    ("[Cou+12] Patrick Cousot, Radhia Cousot, Francesco Logozzo, and Michael Barnett. “An Abstract Interpretation "
     "Framework for Refactoring with Application to Extract Methods with Contracts”. In: ACM SIGPLAN Notices 47 "
     "(Oct. 2012). doi: 10 . 1145 / 2384616 . 2384633 (cit. on pp. 16, 21, 29, 34).", "doi", "10.1145/2384616.2384633"),
    ("[CS08] Michael R. Clarkson and Fred B. Schneider. “Hyperproperties”. In: 2008 21st IEEE Computer Security "
     "Foundations Symposium. 2008, pp. 51–65. doi: 10 . 1109 / CSF . 2008.7 (cit. on p. 23).", "doi", "10.1109/CSF.2008.7"),
    # a host cut by a space is no address: nothing, rather than "http://link"
    ("Soto-Crespo, J. M., Devine, N. & Akhmediev, N. In-tegrableturbulence and rogue waves :Breathers or soli "
     "-tons?Phys. Rev. Lett. 116, 103901( 2016 ).URLhttp : //link. aps.org/doi/", "url", None),
]


@pytest.mark.parametrize(("raw", "field", "value"), SPACED_IDS)
def test_a_spaced_identifier_is_found_unspaced(raw, field, value):
    assert parse(raw)[field] == value  # on by default since round 26


@pytest.mark.parametrize("raw", [SPACED_IDS[0][0], "F. Couchot, S. Henrot-Versillé, O. Perdereau, S. Plaszczynski, "
                                 "B. R. D'Orfeuil, M.Spinelli and M .Tristram ,arXiv :1703.10829."])
def test_the_product_takes_no_rules_title_that_holds_a_spaced_identifier(raw, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import fields

    f = refparse.reference_fields(raw, parse_entry)  # on by default since round 26
    assert f["title"] is None and f["arxiv_id"] in raw.replace(" ", "")  # the labeller's: the entry has none
    monkeypatch.setattr(fields, "DAMAGED_IDS", False)
    monkeypatch.setattr(refparse, "NAMES_NOT_TITLES", False)  # (round 30 refuses the second's names too)
    before = refparse.reference_fields(raw, parse_entry)  # as at round 25: the stretch with the id, a title
    assert "arXiv :" in before["title"]


# Missed titles of styles none of the training sets print (the 35 unseen papers, round 29): with no
# title, the labeller took the title and what follows its full stop for one venue run.
@pytest.mark.parametrize(("raw", "labelled", "title", "container"), [
    ("Writer, A. B. and Reader, C. D. (2011). Citation parsing. Annual review of information science, 45(1):1–40.",
     [("container", "Citation parsing. Annual review of information science")],
     "Citation parsing", "Annual review of information science"),
    # the stop and the "In" after it labelled outside the run
    ("Ann Lee and Bob Kimball. Pylint: a static checker for python source. In Proceedings of the Python in Science "
     "Conference (SciPy), July 2012.",
     [("author", "Ann Lee and Bob Kimball"), ("container", "Pylint: a static checker for python source"),
      ("container", "Proceedings of the Python")],
     "Pylint: a static checker for python source", "Proceedings of the Python"),
])
def test_the_words_before_a_stop_in_a_title_less_venue_run_are_the_title(raw, labelled, title, container, monkeypatch):
    from ctxmill.compile.refparse import fields

    monkeypatch.setattr(fields, "TITLE_BEFORE_STOP", True)
    f = _assembled(raw, labelled)
    assert (f["title"], f["container"]) == (title, container)
    monkeypatch.setattr(fields, "TITLE_BEFORE_STOP", False)  # as before round 29: no title, one venue
    assert _assembled(raw, labelled)["title"] is None


@pytest.mark.parametrize("venue", [
    "Ann. Rev. Astron. Astrophys.",  # an abbreviated journal: its first stop follows its first word
    "IEEE Trans. Pattern Anal. Mach. Intell.",  # a journal word before the stop
    "Journal of Imaginary Physics. Series B",  # the words before the stop name a venue
    "Proceedings of the Lattice Meeting. Somewhere",
])
def test_a_venue_with_a_stop_inside_gives_no_title(venue, monkeypatch):
    from ctxmill.compile.refparse import fields

    monkeypatch.setattr(fields, "TITLE_BEFORE_STOP", True)
    f = _assembled(f"Quill, E. 2001, {venue}, 12, 34", [("container", venue)])
    assert f["title"] is None and f["container"].startswith(venue.split()[0])


def test_the_labeller_finds_the_title_before_a_stop_in_its_venue_run(monkeypatch):
    from ctxmill.compile.refparse import fields

    raw = "Writer, A. B. and Reader, C. D. (2011). Citation parsing. Annual review of information science and technology, 45(1):1–40."
    f = parse(raw)  # on by default since round 29
    assert (f["title"], f["container"]) == ("Citation parsing", "Annual review of information science and technology")
    monkeypatch.setattr(fields, "TITLE_BEFORE_STOP", False)
    assert parse(raw)["title"] is None  # the model's labels: one venue run


# Synthetic entries the labeller parses whole; the threshold raised so that it is doubtful of
# each and the rules' fields are taken, as for an entry it is unsure of.
SAME_TITLE_VENUES = [
    ("[44] S. Holm and D. Varga, Prandtl and Rayleigh number scaling of the heat flux in turbulent rotating "
     "convection, Phys. Rev. E 66, 016305 (2002).", "Phys. Rev. E", "Phys. Rev. E 66, 016305"),
    ("[Hol08] Sara Holm. „Lamport and Lynch clocks in a cluster of many cores“. In: Computer 41.2 (2008), "
     "pp. 40–49 (cit. on p. 9).", "Computer", "In: Computer 41.2"),
    # no container from the labeller: the rules' venue stays
    ("[11] J. Roe and K. Lamb. Gradient estimation by random search. ArXiv e-prints, March 2014, 1403.1234.",
     "ArXiv e-prints, March", "ArXiv e-prints, March"),
]


@pytest.mark.parametrize(("raw", "venue", "rules_venue"), SAME_TITLE_VENUES)
def test_where_the_rules_title_is_the_labellers_the_venue_is_the_labellers_container(raw, venue, rules_venue,
                                                                                      monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    monkeypatch.setattr(refparse, "DOUBTFUL", 1.01)
    labeller, rules = parse(raw), parse_entry(raw)
    assert labeller["doubtful"] and labeller["title"] == rules["title"] and rules["venue"] == rules_venue
    f = refparse.reference_fields(raw, parse_entry)
    # the venue without the volume and pages the labeller split off from it, which stay
    assert f["venue"] == venue and f["volume"] == labeller["volume"] and f["pages"] == labeller["pages"]
    assert (f["authors"], f["year"], f["title"]) == (rules["authors"], rules["year"], rules["title"])


@pytest.mark.parametrize(("raw", "labelled", "title"), [
    # a book that prints its volume with its word, the labeller's venue before it: the title
    ("Q. Author, Introduction to Imaginary Plasmas, Vol. 2 (Quill Press, New York, 1999).",
     [("author", "Q. Author"), ("container", "Introduction to Imaginary Plasmas"), ("volume", "Vol. 2"),
      ("publisher", "Quill Press"), ("location", "New York"), ("date", "1999")], "Introduction to Imaginary Plasmas"),
    ("Q. Author, Applied imaginary analysis, vol. 5 (Quill Hall, Upper River, NJ, 2002).",
     [("author", "Q. Author"), ("container", "Applied imaginary analysis"), ("volume", "5"),
      ("location", "Quill Hall, Upper River"), ("date", "2002")], "Applied imaginary analysis"),
    # a book whose name begins as a journal's ("Pattern Recognition") and is no journal's whole name
    ("Q. Author, Pattern Recognition for Imaginary Readers (Quill, 2006).",
     [("author", "Q. Author"), ("container", "Pattern Recognition for Imaginary Readers"), ("publisher", "Quill"),
      ("date", "2006")], "Pattern Recognition for Imaginary Readers"),
])
def test_a_book_with_a_volume_or_a_journal_word_first_is_no_venue(raw, labelled, title, monkeypatch):
    from ctxmill.compile.refparse import fields

    f = _assembled(raw, labelled)
    assert (f["title"], f["container"]) == (title, None)
    monkeypatch.setattr(fields, "BOOKS_WITH_VOLUMES", False)  # as before round 27: the venue stays
    assert _assembled(raw, labelled)["title"] is None


@pytest.mark.parametrize(("raw", "labelled"), [
    # a journal's volume is a bare number; a journal's whole name stays the venue; a name
    # printed after the publisher (a translation) is not the book's title
    ("Q. Author, 2017, Physics of the Dark Universe, 15, Quill", [("author", "Q. Author"), ("date", "2017"),
     ("container", "Physics of the Dark Universe"), ("volume", "15"), ("publisher", "Quill")]),
    ("Q. Author, Pattern Recognition, Vol. 5 (Quill, 2006).", [("author", "Q. Author"), ("container", "Pattern Recognition"),
     ("volume", "Vol. 5"), ("publisher", "Quill"), ("date", "2006")]),
    ("Q. Author, Nauka, Moscow (1965); Imaginary Things Translated Anew, Vol. 2.", [("author", "Q. Author"),
     ("publisher", "Nauka"), ("location", "Moscow"), ("date", "1965"), ("container", "Imaginary Things Translated Anew"),
     ("volume", "Vol. 2")]),
])
def test_a_journal_or_a_later_name_with_a_volume_stays_the_venue(raw, labelled):
    f = _assembled(raw, labelled)
    assert f["title"] is None and f["container"]


# Physics-style entries with no title where the labeller, confident, found the volume and pages but
# missed the journal (the first a GROBID training string of round 27's dev folds, the second made up
# in its shape): asked for a title, the rules made one of the journal ("JETP 100").
VOLUME_PAGES_ONLY = [
    "B. A. Klumov, V. I. Molotkov, O. F. Petrov, JETP 100, 152 (2005).",
    "R. S. Fenwick, T. Okada, JETP 112, 1045 (2011).",
]


@pytest.mark.parametrize("raw", VOLUME_PAGES_ONLY)
def test_the_product_takes_no_rules_title_where_a_sure_labeller_saw_only_volume_and_pages(raw, monkeypatch):
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    labeller = parse(raw)
    assert labeller["title"] is None and labeller["container"] is None
    assert labeller["volume"] and labeller["pages"] and labeller["confidence"] >= refparse.DOUBTFUL
    f = refparse.reference_fields(raw, parse_entry)  # the default since round 28
    assert f["title"] is None
    assert (f["authors"], f["year"]) == (labeller["authors"], labeller["year"])
    monkeypatch.setattr(refparse, "VOLUME_PAGES_ONLY", False)
    before = refparse.reference_fields(raw, parse_entry)  # as before round 28: the journal as the title
    assert before["title"] and "JETP" in before["title"]


def test_a_doubtful_labellers_volume_and_pages_do_not_refuse_the_rules_title():
    # the corpus's software release (aastex-twocol-billy): the labeller, unsure, reads "v0.8" and "0"
    # as volume and pages; the rules' title is the release's name and stays
    from ctxmill.compile import refparse
    from ctxmill.compile.references import parse_entry

    raw = "Servén, D., Brummitt, C., & Abedi, H. 2018, dswah/pyGAM: v0.8.0"
    labeller = parse(raw)
    assert labeller["volume"] and labeller["pages"] and labeller["confidence"] < refparse.DOUBTFUL
    assert refparse.reference_fields(raw, parse_entry)["title"] == "dswah/pyGAM: v0.8.0"


# eptcs.bst's head, "Given Family, Given Family & Given Family: Title." (round 28, the unseen EPTCS paper):
# the labeller ended the author run early and read the rest of the names, the "&" and the colon as title.
@pytest.mark.parametrize(("raw", "labelled", "authors", "title"), [
    ("Ada Quill, Bruno Tarn, Cleo Vance & Dario Wex: Fast Proofs for Small Circuits. In Proc. of Things, pp. 1-9.",
     [("author", "Ada Quill, Bruno Tarn"), ("title", "Cleo Vance & Dario Wex: Fast Proofs for Small Circuits")],
     ["Ada Quill", "Bruno Tarn", "Cleo Vance", "Dario Wex"], "Fast Proofs for Small Circuits"),
    # no author labelled at all: the names start the title run
    ("Ada Quill & Bruno Tarn: Safe Contracts: A State Machine Approach. Available at https://example.org/x.",
     [("title", "Ada Quill & Bruno Tarn: Safe Contracts: A State Machine Approach")],
     ["Ada Quill", "Bruno Tarn"], "Safe Contracts: A State Machine Approach"),
    # one name, known to the gazetteer as a given name
    ("John Wex: Notes on Small Circuits. Available at https://example.org/y.",
     [("title", "John Wex: Notes on Small Circuits")], ["John Wex"], "Notes on Small Circuits"),
])
def test_names_before_a_colon_at_a_titles_head_are_authors(raw, labelled, authors, title, monkeypatch):
    from ctxmill.compile.refparse import fields

    monkeypatch.setattr(fields, "NAMES_HEAD_TITLE", True)
    f = _assembled(raw, labelled)
    assert (f["authors"], f["title"]) == (authors, title)
    monkeypatch.setattr(fields, "NAMES_HEAD_TITLE", False)  # as before: the names stay in the title
    assert _assembled(raw, labelled)["title"] != title


@pytest.mark.parametrize(("raw", "labelled"), [
    # name-shaped words, but no "&", no initials, no known given name: a title with a subtitle
    ("A. Smith, Machine Learning: A Survey, J. Imag. Learn. 3, 1-20 (2001).",
     [("author", "A. Smith"), ("title", "Machine Learning: A Survey")]),
    ("Game Theory: An Introduction. Springer, 2001.", [("title", "Game Theory: An Introduction")]),
    # a one-word maker is not taken (nothing tells it from a one-word title head)
    ("Scipr-lab: Libsnark Github Page. Available at https://example.org/z.",
     [("title", "Scipr-lab: Libsnark Github Page")]),
    # the author run ends at a full stop: what follows is the title, colon and all
    ("A. Smith. Romeo Montague & Juliet Capulet: A Reading. Verona Press, 1999.",
     [("author", "A. Smith"), ("title", "Romeo Montague & Juliet Capulet: A Reading")]),
])
def test_a_title_head_that_is_no_name_list_stays_the_title(raw, labelled, monkeypatch):
    from ctxmill.compile.refparse import fields

    monkeypatch.setattr(fields, "NAMES_HEAD_TITLE", True)
    assert _assembled(raw, labelled)["title"] == labelled[-1][1]


def test_the_labeller_gives_eptcs_names_before_the_colon_to_the_authors(monkeypatch):
    from ctxmill.compile.refparse import fields

    raw = ("Anastasia Mavridou & Aron Laszka: Designing Secure Ethereum Smart Contracts: A Finite State Machine "
           "Based Approach. Available at http://arxiv.org/abs/1711.09327. (Cited on page 1.)")
    f = parse(raw)  # on by default since round 28
    assert f["authors"] == ["Anastasia Mavridou", "Aron Laszka"]
    assert f["title"] == "Designing Secure Ethereum Smart Contracts: A Finite State Machine Based Approach"
    monkeypatch.setattr(fields, "NAMES_HEAD_TITLE", False)
    assert parse(raw)["title"].startswith("Anastasia Mavridou")
