"""What the labeller sees: tokens of glued text, the journal gazetteer, and the training
script's lexicon build and dev split (scripts/train_refparse.py).

The reference strings are written for these tests; none is in the training data.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from ctxmill.compile.refparse import parse
from ctxmill.compile.refparse.datasets import token_labels
from ctxmill.compile.refparse.features import features_of, journal_marks, sequence_features
from ctxmill.compile.refparse.fields import assemble
from ctxmill.compile.refparse.lexicon import gazetteer_path, gazetteers
from ctxmill.compile.refparse.tokens import tokenize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_refparse  # noqa: E402

from _refparse_train import fake_grobid, recorded_training  # noqa: E402


def _words(text: str) -> list[str]:
    return [t for t, _, _ in tokenize(text)]


def test_glued_words_and_numbers_split_and_slice_back():
    text = "Lee K 2013Interferometer design at 2 . 76TeV, superheavy isotopesBraz. J. Phys. (ClarendonPress)"
    words = _words(text)
    for piece in ("2013", "Interferometer", "76", "TeV", "isotopes", "Braz", "Clarendon", "Press"):
        assert piece in words
    # names and brands with one capital inside stay whole
    assert _words("McGraw-Hill, iPhone, ApJ, O'Neil, 35th, 2015a, 546-550") == [
        "McGraw-Hill", ",", "iPhone", ",", "ApJ", ",", "O'Neil", ",", "35th", ",", "2015a", ",", "546-550"]
    # every token is a slice of the string, so fields come back as printed
    assert all(text[s:e] == t for t, s, e in tokenize(text))


def test_journal_names_are_found_however_they_are_punctuated():
    for text in ("A. Author, Softly broken things, Phys. Rev. D 94, 1 (2016).",
                 "A. Author, Softly broken things, Phys .Rev .D 94, 1 (2016).",
                 "A. Author, Softly broken things, Physical Review D 94, 1 (2016)."):
        words = _words(text)
        marks = journal_marks(words)
        first = marks.index("jB")
        assert words[first] == "Phys." or words[first].startswith("Phys")
        assert all(m is None for m in marks[:first])  # the title is no journal
        assert words[max(i for i, m in enumerate(marks) if m)] == "D"
    # a lower-case run of journal words inside a title is not a journal
    assert not any(journal_marks(_words("A study of physical review processes, 2001")))
    feats = sequence_features(_words("A. Author, Softly broken things, Phys. Rev. D 94"))
    assert b"before_journal" in feats[6] and all(b"cn_c_journal" in feats[i] for i in (3, 4, 5))


def test_gazetteers_ship_with_the_model():
    g = gazetteers()
    assert Path(str(gazetteer_path())).stat().st_size < 1_000_000
    assert "phys rev lett" in g.journal and int(g.journal_first["phys"][0], 16) >= 3
    assert "smith" in g.family and "mary" in g.given


def test_lexicon_build_is_deterministic_and_reads_back(tmp_path, monkeypatch):
    lex = tmp_path / "grobid" / "grobid-home" / "lexicon"
    (lex / "journals").mkdir(parents=True)
    (lex / "names").mkdir()
    (lex / "journals" / "journals.txt").write_text("Physical Review Letters\nNature\nAI\n")
    (lex / "journals" / "abbrev_journals.txt").write_text("Phys. Rev. Lett.\nPhys.Rev.D\n")
    (lex / "journals" / "proceedings.txt").write_text("ACM Symposium on Theory of Computing\n")
    (lex / "names" / "firstname.5k").write_text("MARY\nJOHN PAUL\n")
    (lex / "names" / "lastname.5k").write_text("smith\n")
    out = tmp_path / "lexicon.txt.gz"
    stats = train_refparse.build_lexicon(tmp_path / "grobid", out)
    first = out.read_bytes()
    train_refparse.build_lexicon(tmp_path / "grobid", out)
    assert out.read_bytes() == first  # no timestamp in the gzip: same lexicons, same bytes
    monkeypatch.setattr("ctxmill.compile.refparse.lexicon.gazetteer_path", lambda: out)
    gazetteers.cache_clear()
    try:
        g = gazetteers()
        # "AI" is too short to tell a journal by; "JOHN PAUL" is no single given name
        assert g.journal == {"physical review letters", "nature", "phys rev lett", "phys rev d",
                             "acm symposium on theory of computing"}
        assert g.journal_first == {"physical": "3", "nature": "1", "phys": "3", "acm": "6"}
        assert g.given == {"mary"} and g.family == {"smith"}
        assert stats["lexicon_entries"] == 7
        assert gzip.decompress(first).decode().startswith("family\nsmith\fgiven\nmary\fjournal\n")
    finally:
        gazetteers.cache_clear()


def test_dev_split_is_stable_and_disjoint():
    examples = [(f"Author {i}, A title number {i}, J. Things {i} (2001) {i}.", []) for i in range(400)]
    rest, dev = train_refparse.dev_split(examples)
    assert len(rest) + len(dev) == 400 and 20 <= len(dev) <= 60
    assert not {t for t, _ in rest} & {t for t, _ in dev}
    assert train_refparse.dev_split(list(reversed(examples)))[1] == list(reversed(dev))


@pytest.mark.parametrize(("text", "title", "container"), [
    # physics styles: no quotes, no "In", the title ends where a known journal begins
    ("R. Jackiw and C. Rebbi, Solitons with fermion number one half, Phys. Rev. D 13, 3398 (1976).",
     "Solitons with fermion number one half", "Phys. Rev. D"),
    ("Lee K, Park J and Kim S 2013 Interferometer design of a cryogenic detector Class. Quantum Grav. 30 045001",
     "Interferometer design of a cryogenic detector", "Class. Quantum Grav."),
    # a decimal point the text layer spaced out does not end the title
    ("ALICE Collaboration, Flow of pions in Pb-Pb collisions at 2 . 76 TeV, Phys. Lett. B 719, 18 (2013).",
     "Flow of pions in Pb-Pb collisions at 2 . 76 TeV", "Phys. Lett. B"),
])
def test_title_ends_where_the_journal_begins(text, title, container):
    f = parse(text)
    assert (f["title"], f["container"]) == (title, container)


def test_a_known_journal_without_volume_stays_the_venue():
    # no volume and three plain words would read as a book title taken for the venue
    f = parse("O. Hen, G. A. Miller, E. Piasetzky and L. B. Weinstein, Reviews of Modern Physics (2017).")
    assert f["title"] is None and f["container"] == "Reviews of Modern Physics"


def test_search_scores_each_setting_on_the_dev_split(tmp_path):
    # a real (tiny) CRFsuite training per grid point, scored on the held-back strings
    examples = []
    for i in range(60):
        a, t, j = f"Author{i}, A.", f"A study of things number {i}", "J. Things"
        text = f"{a}, {t}, {j} {i + 3} (19{10 + i})."
        s1 = text.index(t)
        s2 = text.index(j)
        examples.append((text, [(0, len(a), "author"), (s1, s1 + len(t), "title"), (s2, s2 + len(j), "container"),
                                (text.index("(19") + 1, text.index("(19") + 5, "date")]))
    rows = train_refparse.search(examples, [(0.1, 0.01), (1.0, 0.01)], 20, tmp_path)
    assert [(r["c1"], r["c2"]) for r in rows] == [(0.1, 0.01), (1.0, 0.01)]
    assert all(0.5 < r["mean"] <= 1.0 and r["title"] > 0.5 for r in rows)
    assert not list(tmp_path.glob("*.crfsuite"))  # the grid's models are not left behind


def _labels_by_words(text: str, spans: dict[str, str]) -> tuple[list, list[str]]:
    # labels as the training data gives them: each substring of ``spans`` one field
    return token_labels(text, [(text.find(piece), text.find(piece) + len(piece), lab) for piece, lab in spans.items()])


def test_a_second_sentence_stays_in_the_title_when_the_venue_follows():
    # Vancouver: title, subtitle, journal. The labels run over the sentence end; the journal
    # the model found further on says the second sentence is the title's own
    text = ("Kruis W, Thieme CH. A diagnostic score for the irritable bowel syndrome. Its value in the "
            "exclusion of organic disease. Gastroenterology 1984; 87: 1-7.")
    toks, labels = _labels_by_words(text, {
        "Kruis W, Thieme CH": "author",
        "A diagnostic score for the irritable bowel syndrome. Its value in the exclusion of organic disease": "title",
        "Gastroenterology": "container", "1984": "date", "87": "volume", "1-7": "pages"})
    f = assemble(text, toks, labels)
    assert f["title"] == ("A diagnostic score for the irritable bowel syndrome. Its value in the exclusion of "
                          "organic disease")
    assert f["container"] == "Gastroenterology"
    # ... but "In ...", a year or a Title Case venue after a sentence-case title is the venue
    text = ("D. L. Davies and D. W. Bouldin. A cluster separation measure. Pattern Analysis and Machine "
            "Intelligence, IEEE Transactions on, (2):224-227, 1979.")
    toks, labels = _labels_by_words(text, {
        "D. L. Davies and D. W. Bouldin": "author",
        "A cluster separation measure. Pattern Analysis and Machine Intelligence": "title",
        "IEEE Transactions on": "container", "224-227": "pages", "1979": "date"})
    assert assemble(text, toks, labels)["title"] == "A cluster separation measure"
    # and with no venue found at all, what follows the sentence end is the venue
    text = "A. Author. Softly broken things. Black Hat USA, 2020."
    toks, labels = _labels_by_words(text, {"A. Author": "author",
                                           "Softly broken things. Black Hat USA": "title", "2020": "date"})
    f = assemble(text, toks, labels)
    assert (f["title"], f["container"]) == ("Softly broken things", "Black Hat USA")


def test_a_title_keeps_the_bracket_it_opened():
    text = ("P. Scherrer, 'Bestimmung der Grosse von Kolloidteilchen (in German),' Nachrichten von der "
            "Gesellschaft der Wissenschaften zu Gottingen 2 (1918) 98.")
    toks, labels = _labels_by_words(text, {"P. Scherrer": "author",
                                           "Bestimmung der Grosse von Kolloidteilchen (in German": "title",
                                           "Nachrichten von der Gesellschaft der Wissenschaften zu Gottingen": "container"})
    assert assemble(text, toks, labels)["title"] == "Bestimmung der Grosse von Kolloidteilchen (in German)"


def test_glue_features_tell_a_series_letter_glued_to_its_volume():
    # GROBID labels the "B" of "B262" as part of the volume and the "B" of "Phys. Rev. B 94" as
    # part of the journal: only the spacing tells them apart, so the features carry it
    toks = tokenize("Nucl. Phys. B262 (1985); Phys. Rev. B 94")
    words = [t for t, _, _ in toks]
    assert words[2:4] == ["B", "262"] and words[10:12] == ["B", "94"]
    feats = features_of(toks)
    assert b"g=_n" in feats[2] and b"g=p_" in feats[3]  # "B" touches "262"; "262" touches "B", not "("
    assert b"g=__" in feats[10] and b"g=__" in feats[11]
    assert sequence_features(words)[2][-3:] != feats[2][-3:] or b"g=_n" not in sequence_features(words)[2]


def test_family_first_names_end_with_their_initials():
    text = ("Li J, Yen C, Liaw D. PTEN, a putative protein tyrosine phosphatase gene mutated in human "
            "brain, breast, and prostate cancer. Science 1997; 275:1943-1947.")
    # the labels of the authors ran on over "PTEN"
    toks, labels = _labels_by_words(text, {
        "Li J, Yen C, Liaw D. PTEN": "author",
        "a putative protein tyrosine phosphatase gene mutated in human brain, breast, and prostate cancer": "title",
        "Science": "container", "1997": "date"})
    f = assemble(text, toks, labels)
    assert f["title"].startswith("PTEN, a putative protein")
    assert [p["family"] for p in f["people"]] == ["Li", "Yen", "Liaw"]
    # initials before a name: the word after the last initials is a family name, not the title's
    text = "Loven, J., H.A. Hoke, and R.A. Young, Selective inhibition of tumor oncogenes. Cell 153, 320 (2013)."
    toks, labels = _labels_by_words(text, {"Loven, J., H.A. Hoke, and R.A. Young": "author",
                                           "Selective inhibition of tumor oncogenes": "title"})
    assert assemble(text, toks, labels)["title"] == "Selective inhibition of tumor oncogenes"


def test_a_number_ending_the_venue_is_its_volume():
    text = "Wright, A. K. Simple imperative polymorphism. Lisp and Symbolic Computation 8, 4 (Dec. 1995), 343-356."
    toks, labels = _labels_by_words(text, {"Wright, A. K.": "author", "Simple imperative polymorphism": "title",
                                           "Lisp and Symbolic Computation 8": "container", "4": "issue",
                                           "Dec. 1995": "date", "343-356": "pages"})
    f = assemble(text, toks, labels)
    assert (f["container"], f["volume"]) == ("Lisp and Symbolic Computation", "8")
    # ... unless the number is part of a series' name
    text = "Zorgorski, J.S., 2006. The Quality of Our Nation's Waters. US Geological Survey Circular 1292, 101 p."
    toks, labels = _labels_by_words(text, {"Zorgorski, J.S.": "author", "2006": "date",
                                           "The Quality of Our Nation's Waters": "title",
                                           "US Geological Survey Circular 1292": "container"})
    assert assemble(text, toks, labels)["container"] == "US Geological Survey Circular 1292"


def test_a_collaboration_is_no_venue():
    text = ("Virgo, LIGO Scientific collaboration, B.P. Abbott et al., Observation of gravitational waves "
            "from a binary black hole merger, Phys. Rev. Lett. 116 (2016) 061102.")
    toks, labels = _labels_by_words(text, {"Virgo, LIGO Scientific collaboration": "container",
                                           "B.P. Abbott et al.": "author",
                                           "Observation of gravitational waves from a binary black hole merger": "title",
                                           "Phys. Rev. Lett.": "container", "116": "volume", "2016": "date"})
    f = assemble(text, toks, labels)
    assert f["container"] == "Phys. Rev. Lett."
    assert {"literal": "LIGO Scientific collaboration"} in f["people"]


# --- clean-up rules of issue 22's third round: labels as a model might give them -----------

def test_a_bracketed_year_wins_over_a_volume_or_page_that_looks_like_one():
    text = "A. Writer et al., JCAP 1712, 012 (2017)."
    toks, labels = _labels_by_words(text, {"A. Writer et al.": "author", "JCAP": "container", "1712": "date",
                                           "012": "pages", "2017": "date"})
    f = assemble(text, toks, labels)
    assert (f["year"], f["volume"], f["pages"]) == ("2017", "1712", "012")
    # the same year twice names the meeting, no volume ("... Applications 2014 ( 2014 )")
    text = "K. Roe, Flows, Conf. on Flow Applications 2014 ( 2014 )1- 6."
    toks, labels = _labels_by_words(text, {"K. Roe": "author", "Flows": "title",
                                           "Conf. on Flow Applications": "container", "2014 (": "date"})
    labels[[t for t, _, _ in toks].index("2014", 10)] = "date"
    assert assemble(text, toks, labels)["volume"] is None
    # a page range that the date labels ran over is passed over for the year after it
    text = "M. Roe. Sheaves. Math. Ann. ,288 (14-15):1581-1591,2015 ."
    toks, labels = _labels_by_words(text, {"M. Roe": "author", "Sheaves": "title", "Math. Ann.": "container",
                                           "288": "volume", "(14-15):1581-1591,2015": "date"})
    assert assemble(text, toks, labels)["year"] == "2015"
    assert parse("B. Writer, Phys. Rev. Lett. 81, 1562 (1998).")["year"] == "1998"


def test_the_last_part_of_an_initials_first_name_list_is_the_title_or_the_venue():
    text = "P. Q. Rowan and S. Tee, Strings, Nucl. Phys. B300, 10 (1988)."
    toks, labels = _labels_by_words(text, {"P. Q. Rowan and S. Tee, Strings": "author", "Nucl. Phys. B": "container",
                                           "300": "volume", "10": "pages", "1988": "date"})
    f = assemble(text, toks, labels)
    assert (f["title"], [p["family"] for p in f["people"]]) == ("Strings", ["Rowan", "Tee"])
    text = "G. Person, H. Other, Gen. Relat. Gravit. 40 (2008), 1997."
    toks, labels = _labels_by_words(text, {"G. Person, H. Other, Gen. Relat. Gravit.": "author", "40": "volume",
                                           "2008": "date", "1997": "pages"})
    f = assemble(text, toks, labels)
    assert (f["title"], f["container"], len(f["people"])) == (None, "Gen. Relat. Gravit.", 2)
    # family-first lists are left alone: there the last part is a name
    text = "Roe, K., Doe, J., Phys. Rev. D 40, 100 (1990)."
    toks, labels = _labels_by_words(text, {"Roe, K., Doe, J.": "author", "Phys. Rev. D": "container"})
    assert assemble(text, toks, labels)["title"] is None


def test_venue_abbreviations_go_back_to_the_venue():
    assert "contemp" in gazetteers().venue_abbrev and "psychology" not in gazetteers().venue_abbrev
    text = "Smith J A 2011 Contemp. Phys. 52 101"
    toks, labels = _labels_by_words(text, {"Smith J A 2011 Contemp.": "author", "Phys.": "container",
                                           "52": "volume", "101": "pages"})
    f = assemble(text, toks, labels)
    assert (f["container"], f["year"], f["people"][0]["family"]) == ("Contemp. Phys.", "2011", "Smith")
    # a title's last word before the venue stays in the title ("... Approach. International ...")
    text = "Roe, K. (1997). A Social Psychological Approach. International Journal of Psychology, 32, 369-386."
    toks, labels = _labels_by_words(text, {"Roe, K.": "author", "1997": "date",
                                           "A Social Psychological Approach": "title",
                                           "International Journal of Psychology": "container"})
    assert assemble(text, toks, labels)["title"] == "A Social Psychological Approach"


def test_venue_lexicon_counts_abbreviations_against_titles():
    text = "A. Roe, Waves, Contemp. Phys. 1, 1 (2001)."
    title = "Waves in Psychology."
    ex = [(text, [(text.find("Contemp. Phys."), text.find("Contemp. Phys.") + 14, "container")])] * 3
    ex += [(f"B. Doe, {title} Psychology. Rev. 2, 2", [(7, 7 + len(title) - 1, "title"), (28, 39, "container")])] * 3
    lex = train_refparse.venue_lexicon(ex)
    assert "contemp" in lex["venue_abbrev"] and "psychology" not in lex["venue_abbrev"]
    assert "contemp phys" in lex["venue_name"]


_SCORED = [
    "Bahcall, J.N., Flynn, C., Gould, A., 1992, ApJ, 389, 234",
    "S. Coleman, Q-balls, Nucl. Phys. B262, 263 (1985).",
    "Li J, Yen C, Liaw D. PTEN, a putative protein tyrosine phosphatase. Science 1997;275:1943-7.",
    "Joeran Beel and Min-Yen Kan. \u201cEvaluating AI scientists.\u201d In ACM SIGIR Forum, volume 59, pages 1\u201320. "
    "ACM New York, NY, USA, 2025. doi:10.1145/1234.5678",
    "[12] Smith, A. (ed.) 2001. The Book of Things. 2nd edn. Oxford: Clarendon Press. ISBN 0-19-850000-X",
    "M. Ackermann et al. (Fermi-LAT), JCAP 1509, 008 (2015), arXiv:1501.05464 [astro-ph.CO]",
    ",",
]


def test_parsing_scores_are_the_feature_lists_weights():
    """Parsing hands CRFsuite one score per label, summed from cached groups of features
    (model.py); that must be what the model gives the feature lists training uses: the
    same sums (up to the order of a floating-point sum), labels and confidence."""
    import numpy as np

    from ctxmill.compile.refparse.features import scores_of
    from ctxmill.compile.refparse.model import tag, tag_scores, tagger, weights

    w = weights()
    for text in _SCORED * 2:  # the second time from the caches
        toks = tokenize(text)
        feats = features_of(toks)
        expect = np.array([w.matrix[[w.index.get(f, w.absent) for f in fs]].sum(0) for fs in feats])
        got = scores_of(toks)
        assert got.shape == (len(toks), len(w.labels))
        assert np.allclose(got, expect, rtol=0, atol=1e-9)
        labels, confidence = tag(feats)
        labels2, confidence2 = tag_scores(got)
        assert labels2 == labels and abs(confidence2 - confidence) < 1e-9
    # the model's weights as read from its file are CRFsuite's own (its dump rounds to 6 places)
    info = tagger().info()
    for (attr, label), v in list(info.state_features.items())[::97]:
        assert abs(w.matrix[w.index[attr.encode()], w.labels.index(label.encode())] - v) < 1e-6
    assert len(info.state_features) == np.count_nonzero(w.matrix)
    # and the scores model has the trained transitions
    t = w.scores.info()
    assert t.transitions == info.transitions and t.labels == info.labels
    assert tag_scores(np.zeros((0, len(w.labels)))) == ([], 0.0)


def test_parses_in_threads_share_the_score_caches():
    """The cached score rows are shared by every parse in the process (the server and the web
    page compile in threads): parses in threads from empty caches give what one thread does."""
    from concurrent.futures import ThreadPoolExecutor

    from ctxmill.compile.refparse import features

    texts = [t for t in _SCORED * 3 if t != ","] + [f"A. Author{i}, Title number {i}, Phys. Rev. D {i}, 1 (2001)."
                                                    for i in range(60)]
    expect = [parse(t) for t in texts]
    features._rows = None  # from empty caches, so that the threads add rows at once
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(parse, texts))
    assert got == expect


_SHAPES = _SCORED[:-1] + [
    'A. Author, "A title: with a colon. And a second sentence", Phys. Rev. Lett. 69, 1608 (1992). "Quoted" again.',
    "Smith J. 2001. Title one. Title Two. Third sentence. Fourth Sentence. Nature 5: 1-2, 2003 2004.",
    "“Open quote never closed, Journal of Things 12 (2001)",
    "2019: a year first. Proc. Natl. Acad. Sci. USA 116, 1",
    "no capitals. at all: here 1999",
    ".",
]


def test_position_codes_are_the_token_by_token_reading():
    """features._layout finds the few tokens where the sentence or what has been seen changes
    and fills the tokens between at once; that must be what reading token by token gives."""
    from ctxmill.compile.refparse import features

    for text in _SHAPES:
        toks = tokenize(text)
        tokens = [t for t, _, _ in toks]
        glued = features._glued(toks)
        infos, journals, codes = features._layout(tokens, glued)
        assert journals == journal_marks(tokens)
        n = len(tokens)
        last_year = max((i for i, x in enumerate(infos) if x[5]), default=-1)
        glue = [*glued[1:], False]
        expect, sentence, state, prev = [], 0, 0, ""
        for i, t in enumerate(tokens):
            if prev == "." and sentence < 3 and t[:1].isupper():
                sentence += 1
            expect.append(10 * i // n | sentence << 4 | state << 6 | (i < last_year) << 10 | glued[i] << 11
                          | glue[i] << 12)
            if journals[i] in ("jB", "j1"):
                state |= 8
            if t in features._QUOTES:
                state ^= 2
            elif t == ":":
                state |= 4
            elif not state & 1 and infos[i][5]:
                state |= 1
            prev = t
        assert codes == expect, text


def test_strings_without_identifiers_skip_their_patterns():
    """The tokenizer and identifiers() try the URL, DOI and arXiv patterns only where the
    string has the text they need; the tokens and identifiers are those of trying them all."""
    import re

    from ctxmill.compile.refparse import fields, tokens

    texts = _SHAPES + ["See www.example.org/x, doi 10.1000/xyz.", "arXiv:hep-th/0603057 and hep-th/0603058v2",
                       "ISBN 0-19-850000-X; WWW.Example.com", "Nat. Phys. 6192195 (2010): http://x.org/a_b."]
    # every pattern, and none of the shortcuts for the commonest tokens
    slow = re.compile(tokens._IDS + tokens._REST[len(tokens._COMMON):], re.VERBOSE)
    for text in texts + [w for t in texts for w in (t.lower(), t.upper(), t.replace(" ", ""))]:
        whole = [(m.group(), m.start(), m.end()) for m in slow.finditer(text)]
        assert tokenize(text) == whole, text
    for text in texts:
        expect = {"doi": None, "arxiv_id": None, "url": None, "isbn": None}
        if m := fields._DOI.search(text):
            expect["doi"] = m.group(0).rstrip(".,;)]")
        if m := fields._ARXIV.search(text):
            expect["arxiv_id"] = (m.group(1) or m.group(2)).rstrip(".,;")
        if m := fields._URL.search(text):
            expect["url"] = m.group(0).rstrip(".,;)]")
            if expect["doi"] is None and "doi.org/" in expect["url"]:
                expect["doi"] = expect["url"].split("doi.org/", 1)[1]
        if m := fields._ISBN.search(text):
            expect["isbn"] = m.group(1).strip()
        assert fields.identifiers(text) == expect, text
    assert tokenize("J. Doe, Phys. Rev. D 94 (2016)") == [
        (m.group(), m.start(), m.end()) for m in tokens._PLAIN.finditer("J. Doe, Phys. Rev. D 94 (2016)")]


def test_words_end_where_the_character_by_character_test_ends_them():
    """tokens._WORD tests only capitals for a word's end; the per-character form it replaced
    tests every letter: both take the same words (glued ones split, names with a capital whole)."""
    import re

    from ctxmill.compile.refparse import tokens

    per_char = re.compile(r"[^\W\d_](?:(?<![a-zß-öø-ÿ]{2})[^\W\d_]|(?![A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ])[^\W\d_])*")
    now = re.compile(tokens._WORD)
    words = ["isotopesBraz", "ClarendonPress", "McGraw", "iPhone", "ApJ", "theElectron", "ÉcoleNormale", "aB", "abC",
             "abCd", "abCD", "ΑλφαΒήτα", "straßeÖffnung", "øreØre", "x", "DNA", "mRNA", "abcÞe", "ÞÞ", "naïveTest"]
    for w in words + [" ".join(words)]:
        assert [m.group() for m in now.finditer(w)] == [m.group() for m in per_char.finditer(w)], w


def test_the_lattice_tags_scores_exactly_as_pycrfsuites_tagger():
    """Parsing copies each string's score matrix into CRFsuite's own lattice (model.Lattice)
    instead of handing pycrfsuite a {label: score} dict a token: the labels and the confidence,
    unrounded, are those of pycrfsuite's Tagger on the same scores, for real strings, for
    made-up scores, and past the lattice's first size (the matrices are reallocated)."""
    import numpy as np

    from ctxmill.compile.refparse import model
    from ctxmill.compile.refparse.features import scores_of

    w = model.weights()
    assert w.lattice is not None  # this pycrfsuite's CRFsuite is the one Lattice reads
    matrices = [scores_of(tokenize(t)) for t in _SCORED if t.strip()]
    rng = np.random.default_rng(7)
    matrices += [rng.normal(0.0, s, (n, len(w.labels))) for n, s in ((1, 1.0), (3, 10.0), (40, 2.0), (700, 3.0), (5, 0.0))]
    for scores in matrices + matrices[:3]:  # back to short strings after the long one
        with model._lock:
            expect = model._tag_items(w.scores, w.labels, scores)
            got = w.lattice.tag(scores)
        assert got == expect
        assert model.tag_scores(scores) == expect


def test_edge_labels_mark_where_a_field_begins_and_ends():
    from ctxmill.compile.refparse.model import field_label

    labels = ["author", "O", "title", "title", "title", "O", "container", "container", "O", "title", "volume"]
    assert train_refparse.edge_labels(labels, ("title",), ("title",)) == [
        "author", "O", "B-title", "title", "E-title", "O", "container", "container", "O", "B-title", "volume"]
    assert train_refparse.edge_labels(labels, ("title", "container"), ()) == [
        "author", "O", "B-title", "title", "title", "O", "B-container", "container", "O", "B-title", "volume"]
    # read back as fields; the labels of the shipped model pass unchanged
    marked = train_refparse.edge_labels(labels, ("title", "container"), ("title", "container"))
    assert [field_label(x) for x in marked] == labels
    assert [field_label(x) for x in ("O", "author", "doi", "isbn", "url")] == ["O", "author", "doi", "isbn", "url"]


def _tiny_examples(n: int = 60) -> list:
    examples = []
    for i in range(n):
        a, t, j = f"Author{i}, A.", f"A study of things number {i}", "J. Things"
        text = f"{a}, {t}, {j} {i + 3} (19{10 + i})."
        s1, s2 = text.index(t), text.index(j)
        examples.append((text, [(0, len(a), "author"), (s1, s1 + len(t), "title"), (s2, s2 + len(j), "container"),
                                (text.index("(19") + 1, text.index("(19") + 5, "date")]))
    return examples


def test_a_model_trained_with_edge_labels_parses_into_fields(tmp_path, monkeypatch):
    """scripts/train_refparse.py --begin/--end: the model's own labels (B-title, E-title) come
    back as fields through both tagging paths (feature lists, and the scores parsing uses)."""
    import pycrfsuite

    from ctxmill.compile.refparse import features, model

    path = tmp_path / "edge.crfsuite"
    train_refparse.train(_tiny_examples(), path, 0.1, 0.01, 30, ("title",), end=("title",))
    t = pycrfsuite.Tagger()
    t.open(str(path))
    assert {"B-title", "E-title", "title"} <= set(t.labels())
    monkeypatch.setattr(model, "model_path", lambda: path)
    monkeypatch.setattr(model, "_tagger", None)
    monkeypatch.setattr(model, "_weights", None)
    monkeypatch.setattr(features, "_rows", None)
    text = "Author77, A., A study of things number 77, J. Things 80 (1987)."
    toks = tokenize(text)
    by_lists, _ = model.tag(features_of(toks))
    by_scores, _ = model.tag_scores(features.scores_of(toks))
    assert by_lists == by_scores
    assert "title" in by_scores and not any(x.startswith(("B-", "E-")) for x in by_scores)
    assert assemble(text, toks, by_scores)["title"] == "A study of things number 77"


def test_word_label_lexicon_buckets_a_words_field_from_the_training_labels():
    rows = train_refparse.word_label_lexicon(_tiny_examples(10))
    # "study" is a title word in all ten strings; "things" is in the title and the journal alike
    # (half each: the first kind by name); a word of one string ("author3") is not kept
    assert "study\tT3" in rows and "things\tC1" in rows
    assert not any(r.startswith("author3\t") for r in rows)


def test_affix_features_only_when_asked(monkeypatch):
    from ctxmill.compile.refparse import features

    assert features._affixes("Interferometer") == ()  # not in the shipped model's features
    monkeypatch.setattr(features, "AFFIXES", True)
    assert features._affixes("Interferometer") == ("p3=int", "p4=inte", "s4=eter")
    assert features._affixes("Phys") == () and features._affixes("2013a") == ()


def test_doc_split_keeps_whole_documents_on_one_side():
    """--dev-split docs: a GROBID file of one document's references is dev or training as a
    whole (by a hash of its name), a file of many documents always trains, and of AnyStyle's
    files only bad.xml is dev; the split does not depend on the order of the strings."""
    examples = []
    for d in range(40):  # forty one-document files of five strings each
        examples += [(f"Author{d}, A., Title {d}.{i}, J. Things {i} (2001).", [], f"grobid/doc{d}.tei.xml")
                     for i in range(5)]
    examples += [(f"Many{i}, B., Title, J. X 1 (2002).", [], "grobid/citations.xml") for i in range(200)]
    examples += [(f"Any{i}, C. (2003). Title. Publisher.", [], f"anystyle/{n}.xml")
                 for i, n in enumerate(["core", "good", "bad", "bad"])]
    train, dev = train_refparse.doc_split(examples)
    dev_files = {src for *_, src in dev}
    assert len(train) + len(dev) == len(examples) and all(len(e) == 2 for e in train)
    assert "grobid/citations.xml" not in dev_files and "anystyle/bad.xml" in dev_files
    assert {"anystyle/core.xml", "anystyle/good.xml"}.isdisjoint(dev_files)
    g = [f for f in dev_files if f.startswith("grobid/")]
    assert 4 <= len(g) <= 20  # about one document in four
    # each dev document whole: none of its strings trains
    train_texts = {t for t, _ in train}
    assert not any(t in train_texts for t, _, _ in dev)
    assert all(sum(1 for *_, s in dev if s == f) == 5 for f in g)
    assert train_refparse.doc_split(list(reversed(examples)))[1] == list(reversed(dev))
    # the four folds take each one-document file as dev exactly once
    folds = [{src for *_, src in train_refparse.doc_split(examples, fold=k)[1]} - {"anystyle/bad.xml"}
             for k in range(4)]
    assert folds[0] == set(g) and sum(map(len, folds)) == len(set.union(*folds)) == 40


def test_wide_folds_split_anystyles_good_and_ugly_by_style_and_number_the_dev_strings():
    """--wide-folds: AnyStyle's good.xml and ugly.xml strings are dev too, each in the fold its
    style_key hashes to (entries printed alike on one side, whichever file they sit in), every one
    in exactly one fold; without it the split is as before. numbered() puts a bare list number
    before each dev string that begins with a capital, its fields moved past it."""
    examples = [(f"Author{d}, A., Title {d}, J. Things {d} (2001).", [], f"grobid/doc{d}.tei.xml") for d in range(8)]
    for i in range(40):  # two styles, printed in both files
        t = f"Smith{i}, J. {1900 + i}. Book {i}. London: Press."
        examples.append((t, [(0, t.index(" 19"), "author"), (t.index("Book"), t.index(". London"), "title")],
                         f"anystyle/{('good', 'ugly')[i % 2]}.xml"))
        t = f"[{i}] J. Smith{i}, Article {i}, Journal, {i}, 2001."
        examples.append((t, [(t.index("J. "), t.index(", Art"), "author"), (t.index("Art"), t.index(", Jour"), "title")],
                         f"anystyle/{('good', 'ugly')[i % 2]}.xml"))
    examples.append(("Bad, B. (2003). Title. Publisher.", [(0, 6, "author")], "anystyle/bad.xml"))
    assert train_refparse.style_key(*examples[8][:2]) == "author. title" and \
        train_refparse.style_key(*examples[9][:2]) == "[N] author title"
    assert train_refparse.doc_split(examples, fold=1) == train_refparse.doc_split(examples, fold=1, wide=False)
    assert not any(src.startswith(("anystyle/good", "anystyle/ugly"))
                   for *_, src in train_refparse.doc_split(examples, fold=1)[1])
    seen: list = []
    for k in range(4):
        train, dev = train_refparse.doc_split(examples, fold=k, wide=True)
        assert len(train) + len(dev) == len(examples)
        wide = [(t, s) for t, s, src in dev if src.startswith(("anystyle/good", "anystyle/ugly"))]
        assert {train_refparse.style_key(t, s) for t, s in wide}.isdisjoint(
            {train_refparse.style_key(t, s) for t, s in train})
        seen += wide
        assert "anystyle/bad.xml" in {src for *_, src in dev}
    assert len(seen) == 80 and len({t for t, _ in seen}) == 80
    text, spans, src = examples[8]
    (ntext, nspans, nsrc), = train_refparse.numbered([(text, spans, src), examples[9]])  # not "[0] ..."
    lead = ntext[:ntext.index(" ") + 1]
    assert ntext == lead + text and 1 <= int(lead) <= 150 and nsrc == src
    assert [ntext[s:e] for s, e, _ in nspans] == [text[s:e] for s, e, _ in spans]
    assert train_refparse.numbered([(text, spans, src)])[0][0] == ntext  # (by its text, every run)


def test_a_dev_model_trains_without_its_dev_documents(tmp_path, monkeypatch):
    """--without-dev writes a dev model and its own gazetteers beside it, never the shipped ones,
    trained on the strings outside the dev split only."""
    exs = _tiny_examples(40)
    files = [(t, s, f"grobid/doc{i % 8}.tei.xml") for i, (t, s) in enumerate(exs)]
    monkeypatch.setattr(train_refparse, "load_training", lambda g, a, with_files=False, parscit=None: (list(files), {}))
    fake_grobid(tmp_path)
    trained = recorded_training(monkeypatch, train_refparse)
    from ctxmill.compile.refparse import lexicon

    shipped = Path(str(gazetteer_path())).read_bytes()
    out = tmp_path / "dev.crfsuite"
    monkeypatch.setattr(lexicon, "gazetteer_path", gazetteer_path)  # main() points it at the dev gazetteers
    try:
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--without-dev", "-o", str(out)]) == 0
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--without-dev"]) == 2  # not over the shipped model
    finally:
        lexicon.gazetteer_path = gazetteer_path
        gazetteers.cache_clear()
    _, dev = train_refparse.doc_split(files)
    assert dev and len(trained[0]) == len(files) - len(dev)
    assert not {t for t, _, _ in dev} & {t for t, _ in trained[0]}
    assert train_refparse.dev_lexicon_path(out).exists()
    assert Path(str(gazetteer_path())).read_bytes() == shipped


def test_training_does_not_depend_on_the_order_features_are_listed_in(tmp_path, monkeypatch):
    """The model's bytes depend on which features each token has, not on the order features_of
    lists them in (CRFsuite numbers features as it first sees them and sums a token's weights in
    list order: c9c16b5 listed the same features in another order, and the shipped model of
    7096b42 could no longer be trained again byte for byte)."""
    exs = _tiny_examples(30)
    train_refparse.train(exs, tmp_path / "a.crfsuite", 0.1, 0.01, 20)
    shuffled = lambda toks: [f[::-1] for f in features_of(toks)]  # noqa: E731
    monkeypatch.setattr(train_refparse, "features_of", shuffled)
    train_refparse.train(exs, tmp_path / "b.crfsuite", 0.1, 0.01, 20)
    assert (tmp_path / "a.crfsuite").read_bytes() == (tmp_path / "b.crfsuite").read_bytes()


def test_cross_validation_trains_each_fold_without_its_documents(tmp_path, monkeypatch):
    """--cv runs this script once per fold of --dev-split docs (--without-dev --dev-fold k), each
    writing OUTPUT.foldK.crfsuite, and passes the other options through."""
    import subprocess

    calls = []

    def run(cmd, **kw):
        calls.append(cmd)
        fold = cmd[cmd.index("--dev-fold") + 1]
        return subprocess.CompletedProcess(cmd, 0, stdout=json.dumps({"dev_fold": int(fold)}), stderr="")

    monkeypatch.setattr(subprocess, "run", run)
    out = tmp_path / "cand.crfsuite"
    argv = ["--grobid", "/g", "--anystyle", "/a", "--cv", "--jobs", "2", "--c2", "0.3", "--dev-split", "random",
            "-o", str(out)]
    assert train_refparse.main(argv) == 0
    assert sorted(c[c.index("--dev-fold") + 1] for c in calls) == ["0", "1", "2", "3"]
    for c in calls:
        k = c[c.index("--dev-fold") + 1]
        assert c[c.index("-o") + 1] == str(tmp_path / f"cand.fold{k}.crfsuite")
        assert "--without-dev" in c and c[c.index("--dev-split") + 1] == "docs" and "random" not in c
        assert c[c.index("--c2") + 1] == "0.3" and "--cv" not in c and "--jobs" not in c
    assert train_refparse.cv_path(out, 2).name == "cand.fold2.crfsuite"


def test_parscit_tagged_lines_read_as_labelled_spans(tmp_path):
    """read_parscit: one reference a line, ParsCit's tags mapped to our labels (booktitle and
    journal the container, institution the publisher, tech a note), text outside the tags and
    tags of other uses (<br>) unlabelled."""
    from ctxmill.compile.refparse.datasets import read_parscit

    f = tmp_path / "x.tagged.txt"
    f.write_text("<author> F. Rossi, </author> <title> ‘Un titolo’, </title> <editor> in A. Bianchi (ed.), "
                 "</editor> <booktitle> Studi vari, </booktitle> <location> Firenze </location> <date> 1989, "
                 "</date> <pages> pp. 1-9. </pages> <br>\n\n"
                 "<author> A. Ng. </author> <title> A report. </title> <tech> TR-12, </tech> "
                 "<institution> Some University, </institution> <date> 1990. </date>\n", encoding="utf-8")
    (t1, s1), (t2, s2) = read_parscit(f)
    assert t1 == ("F. Rossi, ‘Un titolo’, in A. Bianchi (ed.), Studi vari, Firenze 1989, pp. 1-9.")
    assert [(t1[a:b], lab) for a, b, lab in s1] == [
        ("F. Rossi,", "author"), ("‘Un titolo’,", "title"), ("in A. Bianchi (ed.),", "editor"),
        ("Studi vari,", "container"), ("Firenze", "location"), ("1989,", "date"), ("pp. 1-9.", "pages")]
    assert [lab for *_, lab in s2] == ["author", "title", "note", "publisher", "date"]
    toks, labels = token_labels(t1, s1)
    assert [w for (w, _, _), lab in zip(toks, labels, strict=True) if lab == "container"] == ["Studi", "vari"]


def test_parscit_strings_train_and_are_never_dev(tmp_path):
    """--parscit: ParsCit's sets are read after GROBID's and AnyStyle's (a string they share keeps
    its GROBID or AnyStyle source, so its fold), and no fold takes a ParsCit file as dev."""
    g = tmp_path / "grobid" / train_refparse.GROBID_SUB
    (g / "corpus").mkdir(parents=True)
    (g / "evaluation").mkdir()
    tei = ('<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><back><listBibl>{}</listBibl></back></text></TEI>')
    bibl = '<bibl><author>A. Author</author>, <title level="a">Title {}</title>, <date>2001</date></bibl>'
    (g / "corpus" / "doc1.tei.xml").write_text(tei.format(bibl.format("one") + bibl.format("two")))
    (g / "evaluation" / "ev.tei.xml").write_text(tei.format(bibl.format("held")))
    a = tmp_path / "anystyle" / train_refparse.ANYSTYLE_SUB
    a.mkdir(parents=True)
    for n in ("core", "good", "ugly", "bad", "gold"):
        a.joinpath(f"{n}.xml").write_text("<dataset></dataset>")
    p = tmp_path / "ParsCit"
    for rel in train_refparse.PARSCIT_FILES:
        (p / rel).parent.mkdir(parents=True, exist_ok=True)
        (p / rel).write_text("")
    (p / train_refparse.PARSCIT_FILES[0]).write_text(
        "<author> A. Author </author> , <title> Title one </title> , <date> 2001 </date>\n"
        "<author> A. Author </author> , <title> Title held </title> , <date> 2001 </date>\n"
        "<author> B. Other </author> <title> Another title. </title> <date> 1999. </date>\n")
    examples, stats = train_refparse.load_training(tmp_path / "grobid", tmp_path / "anystyle", with_files=True,
                                                   parscit=p)
    sources = [src for *_, src in examples]
    assert sources == ["grobid/doc1.tei.xml", "grobid/doc1.tei.xml", "parscit/cora.tagged.txt"]
    assert stats["duplicates"] == 1 and stats["dropped_as_held_out"] == 1
    for k in range(4):
        assert "parscit/cora.tagged.txt" not in {src for *_, src in train_refparse.doc_split(examples, fold=k)[1]}
    without, _ = train_refparse.load_training(tmp_path / "grobid", tmp_path / "anystyle", with_files=True)
    assert [src for *_, src in without] == sources[:2]


def _use_model(monkeypatch, path: Path) -> None:
    """Parse with the model at ``path`` for this test (all three tagging roads: feature lists,
    numpy scores, CRFsuite's sums); the caller drops the cached score rows (use_* does)."""
    from ctxmill.compile.refparse import model

    monkeypatch.setattr(model, "model_path", lambda: path)
    monkeypatch.setattr(model, "_tagger", None)
    monkeypatch.setattr(model, "_weights", None)
    monkeypatch.setattr(model, "_native", None)
    monkeypatch.setattr(model, "_native_tried", False)


def _train_and_use(monkeypatch, path, feature: str) -> None:
    """Train a tiny model at ``path`` with the features now on, check it learnt some starting with
    ``feature``, and put it in use."""
    import pycrfsuite

    train_refparse.train(_tiny_examples(), path, 0.1, 0.01, 30)
    t = pycrfsuite.Tagger()
    t.open(str(path))
    assert any(a.startswith(feature) for a, _ in t.info().state_features), feature
    _use_model(monkeypatch, path)


def _three_roads_agree(strings) -> None:
    """The model in use tags each string alike through the feature lists, the numpy scores and
    CRFsuite's sums."""
    from ctxmill.compile.refparse import features, model

    for s in strings:
        tk = tokenize(s)
        labels, confidence = model.tag(features_of(tk))
        by_scores = model.tag_scores(features.scores_of(tk))
        assert by_scores[0] == labels and abs(by_scores[1] - confidence) < 1e-9  # (sums in another order)
        assert features.tag_tokens(tk) == by_scores  # (the same sums, to the bit)
        assert model.native() is not None  # (tag_tokens took CRFsuite's road)


def test_stretch_kinds_only_when_asked_and_scored_as_listed(tmp_path, monkeypatch):
    """--stretch-kinds: each stretch's kind (length, lower-case words, abbreviation, number,
    initials) is a feature of its tokens and of the stretches either side, only when asked (the
    shipped model's features are as before); a model trained with them tags the same through the
    feature lists, the scores parsing sums and CRFsuite's own sums of them."""

    from ctxmill.compile.refparse import features

    text = "Smith J, Jones K. Softly broken symmetry. Nucl. Phys. B 193 (1981) 150"
    toks = tokenize(text)
    assert not any(b"kind" in f for fs in features_of(toks) for f in fs)
    path = tmp_path / "kinds.crfsuite"
    try:
        features.use_stretch_kinds(True)
        by_word = dict(zip(_words(text), features_of(toks), strict=False))
        assert b"c_kind=20i" in by_word["Smith"] and b"cn_c_kind=52i" in by_word["Smith"]  # names, then words
        assert b"c_kind=40adi" in by_word["Phys."] and b"cp_c_kind=52i" in by_word["Phys."]  # after them
        _train_and_use(monkeypatch, path, "c_kind=")
        features.use_stretch_kinds(True)  # (the caches of the shipped model's rows go)
        _three_roads_agree(("Author77, A., A study of things number 77, J. Things 80 (1987).", text))
    finally:
        features.use_stretch_kinds(False)
    assert not any(b"kind" in f for fs in features_of(toks) for f in fs)
