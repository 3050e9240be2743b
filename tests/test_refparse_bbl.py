"""scripts/bbl_refdata.py (papers' printed bibliographies labelled from their .bib records) and
train_refparse.py --bbl-data (those strings train in every fold, never as a fold's dev)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import bbl_refdata  # noqa: E402
import train_refparse  # noqa: E402

from ctxmill.compile.refparse.datasets import read_bbl  # noqa: E402

BIB = r"""
@string{prd = "Physical Review D"}
@article{kohn65,
  author = {Kohn, Walter and Sham, Lu Jeu},
  title = {Self-Consistent Equations Including Exchange and Correlation Effects},
  journal = {Physical Review},
  volume = {140}, number = {4A}, pages = {A1133--A1138}, year = 1965,
  doi = {10.1103/PhysRev.140.A1133}
}
@article{bovy15, author = {{Bovy}, J.}, title = {galpy}, journal = {\apjs}, year = {2015},
  volume = {216}, pages = {29}, doi = {10.1088/0067-0049/216/2/29}}
@article{twice, author = {Roe, P.}, title = {On things}, journal = prd, volume = {12}, year = {2001}}
@book{extra, author = {Doe, Jane}, title = {A Book}, publisher = {Springer}, year = {1999}}
"""

BBL = r"""\begin{thebibliography}{4}
\providecommand{\natexlab}[1]{#1}
\bibitem[Kohn \& Sham(1965)]{kohn65}
Walter Kohn and Lu~Jeu Sham.
\newblock Self-consistent equations including exchange and correlation effects.
\newblock \emph{Phys. Rev.}, 140\penalty0 (4A):\penalty0 A1133--A1138, 1965.
\newblock \doi{10.1103/PhysRev.140.A1133}.

\bibitem[{Bovy}(2015)]{bovy15}
{Bovy}, J. 2015, \apjs, 216, 29, \dodoi{10.1088/0067-0049/216/2/29}

\bibitem[Roe(2001)]{twice}
P.~Roe.
\newblock On things.
\newblock \emph{Phys. Rev. D}, 12, 12, 2001.

\bibitem[Doe(1999)]{extra}
Jane Doe.
\newblock \emph{A Book}.
\newblock Springer, Heidelberg, 1999.
\end{thebibliography}
"""


def _labelled(text, spans):
    return [(text[a:b], lab) for a, b, lab in spans]


def test_a_natbib_entry_is_labelled_from_its_record():
    recs = bbl_refdata.bib_records(BIB)
    items = dict(bbl_refdata.bibitems(BBL))
    text = bbl_refdata.to_text(items["kohn65"])
    assert text == ("Walter Kohn and Lu Jeu Sham. Self-consistent equations including exchange and correlation "
                    "effects. Phys. Rev., 140 (4A): A1133–A1138, 1965. doi: 10.1103/PhysRev.140.A1133.")
    assert _labelled(text, bbl_refdata.align(text, recs["kohn65"])) == [
        ("Walter Kohn and Lu Jeu Sham", "author"),
        ("Self-consistent equations including exchange and correlation effects", "title"),
        ("Phys. Rev.", "container"), ("140", "volume"), ("4A", "issue"), ("A1133–A1138", "pages"),
        ("1965", "date"), ("doi: 10.1103/PhysRev.140.A1133", "doi")]


def test_a_sequence_reads_back_as_the_printed_text(tmp_path):
    recs = bbl_refdata.bib_records(BIB)
    text = bbl_refdata.to_text(dict(bbl_refdata.bibitems(BBL))["kohn65"])
    spans = bbl_refdata.align(text, recs["kohn65"])
    (tmp_path / "bbl-a+b.xml").write_text("<dataset>" + bbl_refdata.sequence(text, spans) + "</dataset>")
    assert read_bbl(tmp_path / "bbl-a+b.xml") == [(text, spans)]


def test_an_aas_entry_resolves_the_journal_macro_and_prints_no_title():
    recs = bbl_refdata.bib_records(BIB)
    text = bbl_refdata.to_text(dict(bbl_refdata.bibitems(BBL))["bovy15"])
    assert text == "Bovy, J. 2015, ApJS, 216, 29, doi: 10.1088/0067-0049/216/2/29"
    assert _labelled(text, bbl_refdata.align(text, recs["bovy15"])) == [
        ("Bovy, J.", "author"), ("2015", "date"), ("ApJS", "container"), ("216", "volume"), ("29", "pages"),
        ("doi: 10.1088/0067-0049/216/2/29", "doi")]


def test_an_ambiguous_or_unexplained_entry_is_dropped_not_guessed():
    recs = bbl_refdata.bib_records(BIB)
    items = dict(bbl_refdata.bibitems(BBL))
    # "12" is printed twice and the record has one volume 12 (no issue): which one is the volume?
    with pytest.raises(bbl_refdata.Unresolved, match="volume twice"):
        bbl_refdata.align(bbl_refdata.to_text(items["twice"]), recs["twice"])
    # "Heidelberg" is in no field of the record
    with pytest.raises(bbl_refdata.Unresolved, match="unaligned word"):
        bbl_refdata.align(bbl_refdata.to_text(items["extra"]), recs["extra"])


def test_bib_records_expand_strings_and_names():
    recs = bbl_refdata.bib_records(BIB)
    assert recs["twice"]["journal"] == "Physical Review D"
    assert bbl_refdata.people(recs["kohn65"]["author"]) == [(["kohn"], ["walter"]), (["sham"], ["lu", "jeu"])]
    assert bbl_refdata.to_text(r"J{\"u}rgen Schmidhuber and Linar{\`e}s and {\o}ksendal") == \
        "Jürgen Schmidhuber and Linarès and øksendal"


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex (TeX Live) is not installed")
def test_bibtex_writes_the_bbl_of_the_keys_a_paper_cites(tmp_path):
    tex = r"\cite{kohn65} and \citep[see][]{extra}"
    bbl = bbl_refdata.run_bibtex(tex, {"refs.bib": BIB}, {}, "plainnat")
    assert [k for k, _ in bbl_refdata.bibitems(bbl)] == ["extra", "kohn65"]


def test_bbl_strings_train_in_every_fold_and_never_dev(tmp_path):
    """--bbl-data: the builder's files are read after GROBID's and AnyStyle's, never a fold's dev, and
    a string sharing a 40-character run with a held-out string is dropped."""
    g = tmp_path / "grobid" / train_refparse.GROBID_SUB
    (g / "corpus").mkdir(parents=True)
    (g / "evaluation").mkdir()
    tei = '<TEI xmlns="http://www.tei-c.org/ns/1.0"><text><back><listBibl>{}</listBibl></back></text></TEI>'
    bibl = '<bibl><author>A. Author</author>, <title level="a">Title {}</title>, <date>2001</date></bibl>'
    (g / "corpus" / "doc1.tei.xml").write_text(tei.format(bibl.format("one") + bibl.format("two")))
    held = "A held-out title that is long enough to share a run"
    (g / "evaluation" / "ev.tei.xml").write_text(tei.format(bibl.format(held)))
    a = tmp_path / "anystyle" / train_refparse.ANYSTYLE_SUB
    a.mkdir(parents=True)
    for n in ("core", "good", "ugly", "bad", "gold"):
        a.joinpath(f"{n}.xml").write_text("<dataset></dataset>")
    d = tmp_path / "bbl"
    d.mkdir()
    seq = "<sequence><author>{}</author><ignore>. </ignore><title>{}</title><ignore>, </ignore><date>2019</date></sequence>"
    (d / "bbl-owner+paper.xml").write_text(
        "<dataset>" + seq.format("B. Other", "A new title") + seq.format("C. Third", held + " again")
        + "<sequence><author>D. Fourth</author><ignore>, </ignore><arxiv>arXiv:1912.10179</arxiv></sequence></dataset>")
    # joined as written: no space before the comma (AnyStyle's reader would print "D. Fourth , arXiv")
    assert read_bbl(d / "bbl-owner+paper.xml")[2] == ("D. Fourth, arXiv:1912.10179", [(0, 9, "author"), (11, 27, "arxiv")])
    examples, stats = train_refparse.load_training(tmp_path / "grobid", tmp_path / "anystyle", with_files=True,
                                                   bbl=d)
    sources = [src for *_, src in examples]
    assert sources == ["grobid/doc1.tei.xml", "grobid/doc1.tei.xml", "bbl/bbl-owner+paper.xml",
                       "bbl/bbl-owner+paper.xml"]
    assert stats["bbl_shares_held_out_run"] == 1 and stats["bbl_strings"] == 2
    for k in range(4):
        train, dev = train_refparse.doc_split(examples, fold=k)
        assert not any(src.startswith("bbl/") for *_, src in dev)
        assert sum(1 for t, _ in train if t.startswith(("B. Other", "D. Fourth"))) == 2


def test_the_manifest_holds_no_excluded_repository_and_only_permissive_licences():
    import json

    man = json.loads(bbl_refdata.MANIFEST.read_text(encoding="utf-8"))
    banned = bbl_refdata.excluded_repos()
    assert len(man["sources"]) >= 30
    for src in man["sources"]:
        assert src["repo"].lower() not in banned
        assert src["licence"] in bbl_refdata.LICENCES
        assert len(src["commit"]) == 40


def test_bbl_damage_copies_the_bbl_strings_only(tmp_path, monkeypatch):
    """--bbl-damage: damaged copies (PDF text-layer faults, at the GROBID training strings' rates)
    of the bbl strings only, never of GROBID's or AnyStyle's."""
    from _refparse_train import fake_grobid, kept_gazetteers, recorded_training
    from test_refparse_damage import _glued_examples

    exs = _glued_examples()
    files = [(t, s, f"grobid/doc{i % 8}.tei.xml" if i < 16 else "bbl/bbl-o+p.xml") for i, (t, s) in enumerate(exs)]
    monkeypatch.setattr(train_refparse, "load_training",
                        lambda g, a, with_files=False, parscit=None, bbl=None: (list(files), {}))
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [("nothing held out here", [])]})
    fake_grobid(tmp_path)
    trained = recorded_training(monkeypatch, train_refparse)
    with kept_gazetteers():
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--without-dev", "-o", str(tmp_path / "dev.crfsuite"),
                                    "--bbl-data", str(tmp_path), "--bbl-damage", "1"]) == 0
    originals = {t for t, _, _ in files}
    copies = [t for t, _ in trained[0] if t not in originals]
    bbl_texts = [t for t, _, src in files if src.startswith("bbl/")]
    assert len(copies) == len(bbl_texts)
    for t in copies:
        n = int(re.search(r"Thing ?(\d+)", t).group(1))
        assert files[n][2].startswith("bbl/") and t.replace(" ", "") == exs[n][0].replace(" ", "")
