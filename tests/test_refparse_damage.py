"""Training strings with the faults of PDF text layers and OCR (refparse/damage.py,
train_refparse.py --damage): the faults are counted as GROBID's strings show them, made in
copies at those rates, and the copies keep every field's label."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

from ctxmill.compile.refparse import _LABEL, damage
from ctxmill.compile.refparse.datasets import token_labels

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_refparse  # noqa: E402

from _refparse_train import fake_grobid, kept_gazetteers, recorded_training  # noqa: E402


def _example(parts: list[tuple[str, str | None]]) -> tuple[str, list]:
    text, spans = "", []
    for piece, lab in parts:
        if text:
            text += " "
        if lab:
            spans.append((len(text), len(text) + len(piece), lab))
        text += piece
    return text, spans


WALD = _example([("R. M. Wald,", None), ("General Relativity,", "title"), ("University of Chicago Press,", "publisher"),
                 ("Chicago,", "location"), ("1984.", "date")])
BAHCALL = _example([("Bahcall, J.N., Flynn, C., Gould, A.,", "author"), ("1992,", "date"),
                    ("Classification of stellar fields in the Galaxy,", "title"),
                    ("ApJ,", "container"), ("389,", "volume"), ("234", "pages")])
STRINGS = [WALD, BAHCALL, _example([("Dunn-Walters DK, Dogan A, Boursier L.", "author"),
                                    ("Base-specific sequences of somatic hypermutation.", "title"),
                                    ("J Immunol", "container"), ("1998;", "date"), ("160:2360-4.", "pages")])]


def _fields(example) -> dict[str, str]:
    """Each label's characters in order, without spaces, hyphens and ligatures: what a fault
    may change in a field, so two copies of one string compare equal field by field."""
    text, spans = example
    out: dict[str, str] = {}
    for s, e, lab in spans:
        out[lab] = out.get(lab, "") + unicodedata.normalize("NFKC", text[s:e]).replace(" ", "").replace("-", "")
    return {k: v.strip(".,;:") for k, v in out.items()}


def _only(kind: str, **extra) -> dict:
    rates = {k: {"share": 0.0, "mean": 1.0} for k in damage.PATTERNS}
    rates[kind] = {"share": 1.0, "mean": 1.0, **extra}
    return rates


def test_measure_counts_the_faults_of_a_text_layer():
    texts = ["Gu,L .,Kaastra ,J .,& Raassen ,A . 2016 ,ApJ 5 , 1",   # spaces before marks, most moved
             "C. G. Bollini and J. J. Giambiagi:Il Nuovo Cim. B 12, 20 (1972).",  # glue after a mark
             "Occasion on tradition, OralTradition 6 (1991), pp. 93-103.",          # glue between words
             "[15] R. M. Wald, General Relativity, Chicago, 1984.",                # a list label
             "Superconducting single- photon detector, Supercond. Sci. Technol.",   # a line-break hyphen
             "Classiﬁcation of stars, ApJ 389, 234 (1992)",                         # a ligature
             "See http://arXiv.org/abs/1234.5678v2,Phys.Rev in the URL"]            # a URL's dots are no fault
    r = damage.measure(texts + ["A clean string, J. Phys. 12, 34 (1999)."])
    assert r["strings"] == 8 and r["damaged"] == 6 / 8
    assert r["space_punct"]["share"] == round(1 / 6, 4) and r["space_punct"]["mean"] == 7
    assert r["space_punct"]["moved"] == round(5 / 7, 4)
    assert r["glue"]["share"] == round(2 / 6, 4)
    for kind in ("label", "hyphen", "ligature"):
        assert r[kind]["share"] == round(1 / 6, 4), kind


def test_each_fault_is_made_where_measure_finds_it_and_the_fields_keep_their_labels():
    for kind in damage.MADE:
        extra = {"per_mark": 1.0, "moved": 1.0} if kind == "space_punct" else {}
        for ex in STRINGS:
            if kind == "ligature" and not any(x in ex[0] for x in ("fi", "fl", "ff")):
                continue
            copy = damage.damage(ex, _only(kind, **extra))
            assert copy is not None and copy[0] != ex[0], (kind, ex[0])
            if kind == "glue":
                # a lost space: one fewer, where measure's patterns would see it only after two
                # lower-case letters ("Giambiagi:Il"), not after an initial ("J.N.,Flynn")
                assert copy[0].count(" ") == ex[0].count(" ") - 1
                assert copy[0].replace(" ", "") == ex[0].replace(" ", "")
            elif kind == "split":
                # a space more, inside a word (measure sees it only where one letter stands apart)
                assert copy[0].count(" ") == ex[0].count(" ") + 1
                assert copy[0].replace(" ", "") == ex[0].replace(" ", "")
            else:
                assert damage.measure([copy[0]])[kind]["share"] == 1.0, (kind, copy[0])
            assert _fields(copy) == _fields(ex), (kind, copy)
            # the labels reach the tokens: the title's words are still its words
            toks, labels = token_labels(*copy)
            assert "title" in labels or "title" not in {lab for *_, lab in ex[1]}


def test_a_list_label_is_measured_but_never_made():
    # parse() strips "[15] ", "102. ", "(7) " before it labels, so a copy opening with one would
    # teach the labeller a string it never meets (a number opening a string labelled O)
    assert "label" in damage.PATTERNS and "label" not in damage.MADE
    assert damage.damage(BAHCALL, _only("label")) is None
    both = {**_only("label"), "glue": {"share": 1.0, "mean": 1.0}}
    for i in range(30):
        copy = damage.damage(BAHCALL, both, salt=str(i))
        assert copy is not None and not _LABEL.match(copy[0]), copy[0]


def test_damage_is_the_same_for_the_same_string_and_draws_kinds_at_the_rates():
    rates = damage.measure(["Gu,L .,Kaastra ,J .,& Raassen ,A .J .J .2016 ,ApJ",
                            "T. Fukuyamaand A. J.Silenko ,InternationalJournal ofModernPhysics 24 , 361(2007 )."])
    assert damage.damage(BAHCALL, rates) == damage.damage(BAHCALL, rates)
    assert damage.damage(BAHCALL, rates, salt="1") != damage.damage(BAHCALL, rates)
    # never a kind the measured strings do not show
    assert rates["label"]["share"] == 0
    copies = [damage.damage(ex, rates, salt=str(i)) for i in range(40) for ex in STRINGS]
    assert not any(c[0][:1] in "[(" or c[0][:1].isdigit() for c in copies if c)
    assert sum(damage.measure([c[0]])["damaged"] for c in copies if c) >= 0.8 * len(copies)



def _glued_examples() -> list:
    """24 labelled strings of one shape; every third shows one fault only: glue after a mark
    (``stars,Journal``; the spans move with the text)."""
    exs = []
    for i in range(24):
        exs.append(_example([(f"Author{chr(65 + i)}, B.,", "author"), (f"Thing {i} in stars,", "title"),
                             ("Journal of Things,", "container"), (f"{i + 1},", "volume"), (f"{10 + i}", "pages"),
                             (f"({1990 + i})", "date")]))
    return [(t.replace("stars, Journal", "stars,Journal"), [(a - (a > t.index("Journal")), b - (b > t.index("Journal")), lab)
                                                            for a, b, lab in s]) if i % 3 == 0 else (t, s)
            for i, (t, s) in enumerate(exs)]

def test_damage_copies_the_training_part_only_at_the_training_strings_rates(tmp_path, monkeypatch):
    """--damage adds damaged copies of the GROBID and AnyStyle core.xml strings being trained on
    (never a dev fold's), with rates measured on the GROBID training strings, none equal to a
    held-out string."""
    exs = _glued_examples()
    files = [(t, s, f"grobid/doc{i % 8}.tei.xml" if i < 20 else "anystyle/good.xml") for i, (t, s) in enumerate(exs)]
    monkeypatch.setattr(train_refparse, "load_training", lambda g, a, with_files=False, parscit=None: (list(files), {}))
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [("nothing held out here", [])]})
    fake_grobid(tmp_path)
    trained = recorded_training(monkeypatch, train_refparse)
    with kept_gazetteers():
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--without-dev", "-o", str(tmp_path / "dev.crfsuite"),
                                    "--damage", "2"]) == 0
    train_part, dev = train_refparse.doc_split(files)
    originals = [t for t, _ in trained[0] if t in {t for t, _, _ in files}]
    copies = [(t, s) for t, s in trained[0] if t not in {t for t, _, _ in files}]
    assert len(originals) == len(train_part) and dev
    grobid_train = [t for t, _ in train_part if t in {t for t, _, src in files if src.startswith("grobid/")}]
    # two copies of each GROBID training string (AnyStyle's good.xml is not copied), each one
    # with spaces lost (glue), the only fault the training strings show
    assert len(copies) == 2 * len(grobid_train)
    dev_texts = {t for t, _, _ in dev}
    for t, s in copies:
        n = int(re.search(r"Thing ?(\d+)", t).group(1))
        assert exs[n][0] not in dev_texts and files[n][2].startswith("grobid/")
        assert t.replace(" ", "") == exs[n][0].replace(" ", "") and t.count(" ") < exs[n][0].count(" ")
        assert _fields((t, s)) == _fields(exs[n])


def test_identifiers_stay_whole():
    """URLs, DOIs and arXiv ids keep every character (measure() does not count faults in them
    either): the product keeps them exactly, and the tokenizer reads each as one token."""
    ex = _example([("Kurita, K., Vyas, N.", "author"), ("Measuring bias in contextualized word representations.", "title"),
                   ("ArXiv,", "container"), ("abs/1906.07337,", "arxiv"), ("2019.", "date"),
                   ("doi:10.1103/PhysRevLett.116.103901,", "doi"), ("arXiv:1906.07337v2", "arxiv"),
                   ("https://www.example.org/a.b,c.pdf", "url")])
    rates = {k: {"share": 1.0, "mean": 4.0, "per_mark": 1.0, "moved": 1.0} for k in damage.PATTERNS}
    ids = ("abs/1906.07337,", "doi:10.1103/PhysRevLett.116.103901,", "arXiv:1906.07337v2", "https://www.example.org/a.b,c.pdf")
    for i in range(20):
        text, spans = damage.damage(ex, rates, salt=str(i))
        for one in ids:
            assert one in text, (one, text)
        assert _fields((text, spans)) == _fields(ex)


def test_scale_c_keeps_the_regularisation_per_labelled_string(tmp_path, monkeypatch):
    """--scale-c: with copies added (--damage), c1 and c2 grow by all strings / labelled strings,
    so CRFsuite's one penalty term weighs on the labelled strings as it did without the copies."""
    exs = [_example([(f"Author{chr(65 + i)}, B.,", "author"), (f"Thing {i} in stars,", "title"),
                     ("Journal of Things,", "container"), (f"{i + 1},", "volume"), (f"({1990 + i})", "date")])
           for i in range(12)]
    exs = [(t.replace("stars, Journal", "stars,Journal"), [(a - (a > t.index("Journal")), b - (b > t.index("Journal")), lab)
                                                            for a, b, lab in s]) for t, s in exs]
    files = [(t, s, "grobid/citations.xml") for t, s in exs]
    monkeypatch.setattr(train_refparse, "load_training", lambda g, a, with_files=False, parscit=None: (list(files), {}))
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [("nothing held out here", [])]})
    monkeypatch.setattr(train_refparse, "build_lexicon", lambda *a, **k: {})
    runs = []
    monkeypatch.setattr(train_refparse, "train",
                        lambda ex, out, c1, c2, *a, **k: (runs.append((len(ex), c1, c2)), out.write_bytes(b"m")))
    out = tmp_path / "m.crfsuite"
    base = ["--grobid", str(tmp_path), "--anystyle", str(tmp_path), "-o", str(out), "--c1", "0.3", "--c2", "0.01"]
    (tmp_path / "grobid-home" / "lexicon").mkdir(parents=True)  # gazetteers "built" (build_lexicon above)
    for extra in ([], ["--damage", "1"], ["--damage", "1", "--scale-c"]):
        assert train_refparse.main(base + extra) == 0
    (n0, *c_plain), (n1, *c_damaged), (n2, *c_scaled) = runs
    assert n0 == 12 and n1 == n2 == 24
    assert c_plain == c_damaged == [0.3, 0.01]
    assert abs(c_scaled[0] - 0.6) < 1e-9 and abs(c_scaled[1] - 0.02) < 1e-9
