"""Training strings rendered by citation styles (refparse/render.py, train_refparse.py --render).

The styles here are written for these tests (two small CSL styles: a physics one that prints no
article title, an author-date one that does); the training script reads real ones from a
checkout of github.com/citation-style-language/styles. Rendering needs citeproc-py, a
training-time package: those tests skip without it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ctxmill.compile.refparse import render
from ctxmill.compile.refparse.datasets import token_labels

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_refparse  # noqa: E402

_HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" '
         'version="1.0" default-locale="en-US"><info><title>{0}</title><id>{0}</id>'
         '<updated>2026-01-01T00:00:00+00:00</updated></info>'
         '<citation><layout><text variable="citation-number"/></layout></citation><bibliography>')
# physics: numbered, initials first, no article title, the year last in brackets
PHYSICS = _HEAD.format("phys") + (
    '<layout suffix="."><text variable="citation-number" prefix="[" suffix="] "/>'
    '<names variable="author"><name initialize-with=". " delimiter=", " and="text"/></names>'
    '<group delimiter=" " prefix=", "><text variable="container-title"/><text variable="volume"/></group>'
    '<text variable="page" prefix=", "/><date variable="issued" prefix=" (" suffix=")">'
    '<date-part name="year"/></date></layout></bibliography></style>')
# author-date: family names first, the year after the names, the title in quotes
AUTHOR_DATE = _HEAD.format("ad") + (
    '<layout suffix="."><names variable="author"><name name-as-sort-order="all" sort-separator=", " '
    'initialize-with="." delimiter=", " and="symbol"/></names>'
    '<date variable="issued" prefix=" (" suffix=")."><date-part name="year"/></date>'
    '<text variable="title" prefix=" " quotes="true" suffix="."/>'
    '<text variable="container-title" prefix=" "/><text variable="volume" prefix=", "/>'
    '<text variable="page" prefix=", "/></layout></bibliography></style>')


def _example(text: str, fields: list[tuple[str, str]]) -> tuple[str, list]:
    """(text, spans) with each (piece, label) found in ``text`` in order."""
    spans, at = [], 0
    for piece, lab in fields:
        s = text.index(piece, at)
        spans.append((s, s + len(piece), lab))
        at = s + len(piece)
    return text, spans


BAHCALL = _example("Bahcall, J.N., Flynn, C., Gould, A., 1992, Rotation curves of the Galaxy, ApJ, 389, 234-240",
                   [("Bahcall, J.N., Flynn, C., Gould, A.", "author"), ("1992", "date"),
                    ("Rotation curves of the Galaxy", "title"), ("ApJ", "container"), ("389", "volume"),
                    ("234-240", "pages")])


def test_a_labelled_string_reads_back_as_a_csl_item():
    item = render.item_of(BAHCALL, "x")
    assert item["author"] == [{"family": "Bahcall", "given": "J. N."}, {"family": "Flynn", "given": "C."},
                              {"family": "Gould", "given": "A."}]
    assert (item["type"], item["title"], item["container-title"]) == ("article-journal", "Rotation curves of the Galaxy", "ApJ")
    assert (item["volume"], item["page"], item["issued"]) == ("389", "234-240", {"date-parts": [[1992]]})
    book = _example("Kuhn, T. S. (1962). The Structure of Scientific Revolutions. Chicago: UCP.",
                    [("Kuhn, T. S.", "author"), ("(1962).", "date"), ("The Structure of Scientific Revolutions.", "title"),
                     ("Chicago", "location"), ("UCP.", "publisher")])
    item = render.item_of(book, "b")
    assert (item["type"], item["title"], item["publisher"], item["publisher-place"]) == (
        "book", "The Structure of Scientific Revolutions", "UCP", "Chicago")
    # nothing a style could print as a reference: no year, or no person
    assert render.item_of(_example("Bahcall, J.N., ApJ, 389", [("Bahcall, J.N.", "author"), ("ApJ", "container")]), "n") is None
    assert render.item_of(_example("ApJ, 389, 1992", [("ApJ", "container"), ("1992", "date")]), "n") is None


def test_sentinels_become_spans_and_a_doubled_full_stop_goes():
    o, c = render._OPEN, render._CLOSE
    text, spans = render.strip_sentinels(f"{o['author']}Lam, M.{c['author']}. ({o['date']}1993{c['date']}). "
                                         f"{o['title']}Code  generation{c['title']}.")
    assert text == "Lam, M. (1993). Code generation."
    assert [(text[a:b], lab) for a, b, lab in spans] == [("Lam, M.", "author"), ("1993", "date"),
                                                         ("Code generation", "title")]


@pytest.fixture
def styles(tmp_path, monkeypatch):
    citeproc = pytest.importorskip("citeproc")
    d = tmp_path / "styles"
    d.mkdir()
    (d / "phys.csl").write_text(PHYSICS, encoding="utf-8")
    (d / "ad.csl").write_text(AUTHOR_DATE, encoding="utf-8")
    monkeypatch.setattr(render, "STYLES", ("phys", "ad"))
    return d, Path(citeproc.LOCALES_PATH)


def test_each_style_prints_the_item_and_labels_what_it_printed(styles):
    """A style that prints no title gives a string without one, the year where the style puts
    it, and the labels of what it printed; the style's own punctuation stays unlabelled."""
    from citeproc import model

    saved = model.Text.process
    out, stats = render.render([BAHCALL], *styles, share=2.0, names=("phys", "ad"))
    assert model.Text.process is saved  # citeproc-py is left as it was
    assert stats["rendered"] == 2
    got = {text: [(text[a:b], lab) for a, b, lab in spans] for text, spans in out}
    assert got == {
        "J. N. Bahcall, C. Flynn, and A. Gould, ApJ 389, 234–240 (1992).": [
            ("J. N. Bahcall, C. Flynn, and A. Gould", "author"), ("ApJ", "container"), ("389", "volume"),
            ("234–240", "pages"), ("(1992)", "date")],
        "Bahcall, J.N., Flynn, C., & Gould, A. (1992). “Rotation curves of the Galaxy”. ApJ, 389, 234–240.": [
            ("Bahcall, J.N., Flynn, C., & Gould, A.", "author"), ("(1992).", "date"),
            ("Rotation curves of the Galaxy", "title"), ("ApJ", "container"), ("389", "volume"),
            ("234–240", "pages")]}
    text, spans = next(x for x in out if "Rotation" in x[0])
    toks, labels = token_labels(text, spans)
    assert [w for (w, _, _), lab in zip(toks, labels, strict=True) if lab == "O"] == [
        "(", ")", ".", "“", "”", ".", ",", ",", "."]
    # the same inputs, the same strings; share 0 renders nothing
    assert render.render([BAHCALL], *styles, share=2.0, names=("phys", "ad"))[0] == out
    assert render.render([BAHCALL], *styles, share=0.0, names=("phys", "ad"))[0] == []


def test_only_the_training_part_is_rendered_and_never_a_held_out_string(styles, tmp_path, monkeypatch):
    """--render adds rendered strings to what is trained on: those of the training part only
    (a dev fold's strings never reach its model), not AnyStyle's noisy sets, and none equal to
    a held-out string."""
    exs = []
    for i in range(24):
        exs.append(_example(f"Author{chr(65 + i)}, B., A study of thing {i}, J. Things, {i + 1}, {10 + i} ({1990 + i})",
                            [(f"Author{chr(65 + i)}, B.", "author"), (f"A study of thing {i}", "title"),
                             ("J. Things", "container"), (str(i + 1), "volume"), (str(10 + i), "pages"),
                             (str(1990 + i), "date")]))
    files = [(t, s, f"grobid/doc{i % 8}.tei.xml" if i < 20 else "anystyle/good.xml") for i, (t, s) in enumerate(exs)]
    monkeypatch.setattr(train_refparse, "load_training", lambda g, a, with_files=False, parscit=None: (list(files), {}))
    held = "AuthorA, B. (1990). “A study of thing 0.” J. Things, 1, 10."
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [(held, [])]})
    lex = tmp_path / "grobid" / "grobid-home" / "lexicon"
    (lex / "journals").mkdir(parents=True)
    (lex / "names").mkdir()
    for f in ("journals/journals.txt", "journals/abbrev_journals.txt", "journals/proceedings.txt",
              "names/firstname.5k", "names/lastname.5k"):
        (lex / f).write_text("Journal of Things\n")
    trained = []
    monkeypatch.setattr(train_refparse, "train", lambda ex, out, *a, **k: (trained.append(ex), out.write_bytes(b"m")))
    from ctxmill.compile.refparse import lexicon

    gp = lexicon.gazetteer_path
    d, loc = styles
    try:
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--without-dev", "-o", str(tmp_path / "dev.crfsuite"),
                                    "--render", "1", "--csl-styles", str(d), "--csl-locales", str(loc)]) == 0
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--without-dev", "-o", str(tmp_path / "x.crfsuite"), "--render", "1"]) == 2
    finally:
        lexicon.gazetteer_path = gp
        lexicon.gazetteers.cache_clear()
    _, dev = train_refparse.doc_split(files)
    originals = {t for t, _ in trained[0]} & {t for t, _, _ in files}
    rendered = [t for t, _ in trained[0] if t not in originals]
    assert len(originals) == len(files) - len(dev) and rendered and held not in rendered
    # each rendered string is one of the GROBID training part's, in a style (named for its index)
    train_part = {i for i, (t, _, src) in enumerate(files) if src.startswith("grobid/") and t in originals}
    dev_part = {i for i, (t, _, _) in enumerate(files) if t in {d for d, _, _ in dev}}
    assert dev_part and train_part
    got = sorted(ord(re.search(r"Author([A-Z])", t).group(1)) - 65 for t in rendered)
    assert set(got) <= train_part and len(got) == len(train_part) - (0 in train_part and 0 not in got)
    assert 0 not in got or "AuthorA, B. (1990)" not in rendered[got.index(0)]  # the held-out copy is dropped
