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

from _refparse_train import fake_grobid, kept_gazetteers, recorded_training  # noqa: E402

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
    fake_grobid(tmp_path)
    trained = recorded_training(monkeypatch, train_refparse)
    d, loc = styles
    with kept_gazetteers():
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--without-dev", "-o", str(tmp_path / "dev.crfsuite"),
                                    "--render", "1", "--csl-styles", str(d), "--csl-locales", str(loc)]) == 0
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--without-dev", "-o", str(tmp_path / "x.crfsuite"), "--render", "1"]) == 2
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


# --- train_refparse.py --render-shapes (render.render_shapes; issue 22, round 29) ---------------
# a style that prints the failing shapes: "Title, Series" for a book, "Title, Journal" for an article
COMMA = _HEAD.format("comma") + (
    '<layout suffix="."><names variable="author"><name initialize-with=". " delimiter=", "/></names>'
    '<text variable="title" prefix=", "/><text variable="collection-title" prefix=", "/>'
    '<text variable="container-title" prefix=", "/><text variable="volume" prefix=" "/>'
    '<group prefix=" (" suffix=")" delimiter=", "><text variable="publisher"/>'
    '<date variable="issued"><date-part name="year"/></date></group></layout></bibliography></style>')
# and one that prints "Title. Journal"
STOP = _HEAD.format("stop") + (
    '<layout suffix="."><names variable="author"><name name-as-sort-order="all" initialize-with="." '
    'delimiter=", "/></names><date variable="issued" prefix=" (" suffix=")."><date-part name="year"/></date>'
    '<text variable="title" prefix=" " suffix="."/><text variable="container-title" prefix=" "/>'
    '<text variable="volume" prefix=", "/></layout></bibliography></style>')

BOOK = _example("W. Thurston, The geometry and topology of 3-manifolds (Springer, 1997)",
                [("W. Thurston", "author"), ("The geometry and topology of 3-manifolds", "title"),
                 ("Springer", "publisher"), ("1997", "date")])
SERIES = _example("M. Hirsch, Differential topology, Graduate Texts in Mathematics, Springer, 1976",
                  [("M. Hirsch", "author"), ("Differential topology", "title"),
                   ("Graduate Texts in Mathematics", "collection"), ("Springer", "publisher"), ("1976", "date")])
TWO = _example("Hendel, F., 1907. Neue Dipteren aus Wien. Zweiter Teil. Wiener Ent. Ztg., 26",
               [("Hendel, F.", "author"), ("1907", "date"), ("Neue Dipteren aus Wien. Zweiter Teil", "title"),
                ("Wiener Ent. Ztg.", "container"), ("26", "volume")])
EDITED = _example("R. K. Gupta, in: E. Gadioli (Ed.), Nuclear Reaction Mechanisms, Ricerca Scientifica, 1988",
                  [("R. K. Gupta", "author"), ("E. Gadioli", "editor"), ("Nuclear Reaction Mechanisms", "title"),
                   ("Ricerca Scientifica", "publisher"), ("1988", "date")])


def test_shape_items_give_each_failing_shape():
    """series: a book gets a series of the training strings'; swap: an article gets a journal the
    gazetteers do not know; two-sentence: a title with an inner stop; book: a book, and an edited
    one as the chapter of no title whose book is the title."""
    exs = [BAHCALL, BOOK, SERIES, TWO, EDITED]
    series = render.shape_items(exs, "series")
    assert {it["title"]: it["collection-title"] for _, it, _ in series} == {
        "The geometry and topology of 3-manifolds": "Graduate Texts in Mathematics",
        "Differential topology": "Graduate Texts in Mathematics",
        "Nuclear Reaction Mechanisms": "Graduate Texts in Mathematics"}
    assert all(it["type"] == "book" for _, it, _ in series)
    # a journal the gazetteers know is never drawn; an article never gets its own journal back
    assert render.shape_items(exs, "swap", known={"wiener ent ztg", "apj"}) == []
    assert [(i, it["container-title"]) for i, it, _ in render.shape_items(exs, "swap", known={"wiener ent ztg"})] == [
        (3, "ApJ")]
    swapped = render.shape_items(exs, "swap")
    assert [(i, it["title"], it["container-title"]) for i, it, _ in swapped] == [
        (0, "Rotation curves of the Galaxy", "Wiener Ent. Ztg"), (3, "Neue Dipteren aus Wien. Zweiter Teil", "ApJ")]
    assert swapped[0][1]["volume"] == "389"  # all else of the item stays
    assert [i for i, _, _ in render.shape_items(exs, "two-sentence")] == [3]
    book = render.shape_items(exs, "book")
    assert [(i, it["type"], lab) for i, it, lab in book] == [(1, "book", "title"), (2, "book", "title"),
                                                              (4, "book", "title"), (4, "chapter", "container")]
    assert book[-1][1]["container-title"] == "Nuclear Reaction Mechanisms" and "title" not in book[-1][1]


def test_has_shape_reads_the_labels():
    assert render.has_shape(SERIES, "series") and not render.has_shape(BOOK, "series")
    assert render.has_shape(BAHCALL, "swap") and not render.has_shape(BOOK, "swap")
    assert render.has_shape(TWO, "two-sentence") and not render.has_shape(BAHCALL, "two-sentence")
    assert render.has_shape(BOOK, "book") and not render.has_shape(BAHCALL, "book")


def test_the_probe_picks_each_shapes_styles_and_renderings_keep_their_shape(styles):
    d, loc = styles
    (d / "comma.csl").write_text(COMMA, encoding="utf-8")
    (d / "stop.csl").write_text(STOP, encoding="utf-8")
    probe = render.probe_styles(d, loc)
    assert probe["comma"] == {"series": ", ", "journal": ", "}
    assert probe["stop"] == {"series": None, "journal": ". "}
    assert probe["phys"]["journal"] is None  # prints no title
    chosen = render.shape_styles(probe)
    assert (chosen["series"], chosen["swap"], chosen["two-sentence"]) == (("comma",), ("comma",), ("stop",))
    out, stats = render.render_shapes([BAHCALL, BOOK, SERIES, TWO, EDITED], d, loc, render.SHAPES, probe=probe)
    got = {(shape, text): [(text[a:b], lab) for a, b, lab in spans] for shape, (text, spans) in out}
    assert got[("series", "W. Thurston, The geometry and topology of 3-manifolds, Graduate Texts in Mathematics "
                          "(Springer, 1997).")] == [
        ("W. Thurston", "author"), ("The geometry and topology of 3-manifolds", "title"),
        ("Graduate Texts in Mathematics", "collection"), ("Springer", "publisher"), ("1997", "date")]
    assert got[("swap", "J. N. Bahcall, C. Flynn, A. Gould, Rotation curves of the Galaxy, Wiener Ent. Ztg 389 (1992).")][
        1:3] == [("Rotation curves of the Galaxy", "title"), ("Wiener Ent. Ztg", "container")]
    assert got[("two-sentence", "Hendel, F. (1907). Neue Dipteren aus Wien. Zweiter Teil. Wiener Ent. Ztg, 26.")][2] == (
        "Neue Dipteren aus Wien. Zweiter Teil", "title")
    # the edited book, as a book or as the chapter of no title: the book is the title, never a container
    edited = [spans for (shape, text), spans in got.items() if shape == "book" and "Nuclear Reaction" in text]
    assert edited and all(("Nuclear Reaction Mechanisms", "title") in s and all(lab != "container" for _, lab in s)
                          for s in edited)
    assert all(render.has_shape((t, [(t.index(p), t.index(p) + len(p), lab) for p, lab in s]), sh)
               for (sh, t), s in got.items())
    assert stats["series"]["rendered"] == 3 and stats["swap"]["rendered"] == 2
    assert stats["book"]["no_shape"] == 2  # the physics style prints no title: no book shape
    assert render.render_shapes([BAHCALL, BOOK, SERIES, TWO, EDITED], d, loc, render.SHAPES, probe=probe)[0] == out


def test_a_rendering_sharing_a_run_with_a_held_out_string_is_dropped(monkeypatch):
    held = "Moser, J. and Veselov, A. P., Two-dimensional discrete hydrodynamics and Monge-Ampere equations"
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [(held, [])]})
    runs = train_refparse.held_out_runs(Path("g"), Path("a"))
    assert train_refparse.shares_run("A. Other, Two-dimensional discrete hydrodynamics and Monge-Ampère, J. X", runs)
    assert not train_refparse.shares_run("A. Other, Two-dimensional discrete hydrodynamics, J. X 12 (1999)", runs)


def test_render_shapes_trains_on_the_training_part_only(styles, tmp_path, monkeypatch):
    """--render-shapes adds renderings of the training part's items only (a dev fold's strings never
    reach its model), none sharing a 40-character run with a held-out string; a shape name not in
    render.SHAPES is refused."""
    d, loc = styles
    (d / "comma.csl").write_text(COMMA, encoding="utf-8")
    # each journal printed once: not a venue name of the gazetteers, so each may be drawn
    exs = [_example(f"Author{chr(65 + i)}, B., A study of thing number {i} in the long run of time, J. Things {i}, "
                    f"{i + 1}, {10 + i} ({1990 + i})",
                    [(f"Author{chr(65 + i)}, B.", "author"), (f"A study of thing number {i} in the long run of time", "title"),
                     (f"J. Things {i}", "container"), (str(i + 1), "volume"), (str(10 + i), "pages"),
                     (str(1990 + i), "date")]) for i in range(24)]
    files = [(t, s, f"grobid/doc{i % 8}.tei.xml") for i, (t, s) in enumerate(exs)]
    monkeypatch.setattr(train_refparse, "load_training", lambda g, a, with_files=False, parscit=None: (list(files), {}))
    held = "B. AuthorB, A study of thing number 1 in the long run of time. Proc. Things 2, 11 (1991)"
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [(held, [])]})
    fake_grobid(tmp_path)
    trained = recorded_training(monkeypatch, train_refparse)
    args = ["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path), "--dev-split", "docs", "--without-dev",
            "-o", str(tmp_path / "dev.crfsuite"), "--csl-styles", str(d), "--csl-locales", str(loc)]
    with kept_gazetteers():
        assert train_refparse.main([*args, "--render-shapes", "swap"]) == 0
        assert train_refparse.main([*args, "--render-shapes", "swap,sries"]) == 2
    _, dev = train_refparse.doc_split(files)
    originals = {t for t, _, _ in files}
    rendered = [t for t, _ in trained[0] if t not in originals]
    assert rendered and len(trained) == 1
    got = {int(re.search(r"number (\d+) ", t).group(1)) for t in rendered}
    dev_part = {int(re.search(r"number (\d+) ", t).group(1)) for t, _, _ in dev}
    assert dev_part and not got & dev_part
    assert 1 not in got and 1 not in dev_part  # its rendering shares a run with the held-out string: dropped
    assert all(re.search(r"of time, J\. Things \d+ \d", t) for t in rendered)  # "Title, Journal": the shape
    assert len(got) == 24 - len(dev_part) - 1
