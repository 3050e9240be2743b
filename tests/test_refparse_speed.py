"""The labeller's faster roads give what the old ones gave, to the bit (issue 26, round twelve):
parsing sums and tags in CRFsuite without numpy (features.tag_tokens, model.Native), a string's
new score rows are built in one gather, a token's views of itself from its encoded features."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ctxmill.compile.refparse import features, model, parse
from ctxmill.compile.refparse.features import scores_of, tag_tokens, token_features
from ctxmill.compile.refparse.tokens import tokenize

STRINGS = [
    "Bahcall, J.N., Flynn, C., Gould, A., 1992, ApJ, 389, 234",
    "S. Coleman, Q-balls, Nucl. Phys. B262, 263 (1985).",
    "Li J, Yen C, Liaw D. PTEN, a putative protein tyrosine phosphatase. Science 1997;275:1943-7.",
    "Joeran Beel and Min-Yen Kan. \u201cEvaluating AI scientists.\u201d In ACM SIGIR Forum, volume 59, pages 1\u201320. "
    "ACM New York, NY, USA, 2025. doi:10.1145/1234.5678",
    "[12] Smith, A. (ed.) 2001. The Book of Things. 2nd edn. Oxford: Clarendon Press. ISBN 0-19-850000-X",
    "M. Ackermann et al. (Fermi-LAT), JCAP 1509, 008 (2015), arXiv:1501.05464 [astro-ph.CO]",
    "Ünïcödé Ñame, Ø. Tïtle. J. Phys. 1 (2020) 1–2.",
    ",", ".", "x",
    "A. Author, B. Writer. A title 7. In Proc. X, 2020. " * 12,  # past the lattice's first 256 tokens
] + [f"A. Author{i}, Title number {i}, Phys. Rev. D {i}, 1 (2001)." for i in range(40)]


def _old_road(text: str) -> tuple[list[str], float]:
    return model.tag_scores(scores_of(tokenize(text)))


def test_tagging_in_crfsuite_is_the_numpy_road_to_the_bit(monkeypatch):
    """Labels and the unrounded confidence of tag_tokens are those of tag_scores(scores_of()),
    from empty caches, from full ones, and across the caches starting again."""
    assert model.native() is not None  # this pycrfsuite's CRFsuite is the one Native drives
    for text in STRINGS * 2:
        assert tag_tokens(tokenize(text)) == _old_road(text), text
    monkeypatch.setattr(features, "_blobs", None)
    monkeypatch.setattr(features, "_BLOBS_MAX", 300)
    for text in reversed(STRINGS):
        assert tag_tokens(tokenize(text)) == _old_road(text), text
    assert tag_tokens([]) == ([], 0.0)


def test_without_native_crfsuite_parsing_takes_the_numpy_road(monkeypatch):
    expect = [parse(t) for t in STRINGS]
    monkeypatch.setattr(model, "_native", None)
    monkeypatch.setattr(model, "_native_tried", True)
    assert [parse(t) for t in STRINGS] == expect


def test_parsing_does_not_import_numpy():
    """numpy's import was over half of what a compile paid before its first entry was labelled."""
    code = ("import sys; from ctxmill.compile.refparse import parse, reference_fields; "
            "from ctxmill.compile.references import parse_entry; "
            "parse('Bahcall, J.N., Flynn, C., Gould, A., 1992, ApJ, 389, 234'); "
            "reference_fields('[3] A. Author, A title. https://example.org/x, 2020.', parse_entry); "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_parses_in_threads_share_the_crfsuite_buffers(monkeypatch):
    expect = [parse(t) for t in STRINGS * 2]
    monkeypatch.setattr(features, "_blobs", None)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(parse, STRINGS * 2))
    assert got == expect


def test_new_rows_in_one_gather_add_as_numpy_sums_each_group():
    """_Rows._sums adds each group's rows one after another, as matrix[ids].sum(0) does
    (np.add.reduceat does not: it was off in the last bit on most groups)."""
    rows = features._Rows()
    w = model.weights()
    names = sorted(w.index, key=w.index.__getitem__)
    rng = np.random.default_rng(3)
    groups = [tuple(names[i] for i in rng.integers(0, len(names), k)) + ((b"no such feature",) if k % 3 else ())
              for k in rng.integers(1, 40, 300)]
    got = rows._sums(groups)
    for g, row in zip(groups, got, strict=True):
        expect = w.matrix[[w.index.get(f, w.absent) for f in g]].sum(0)
        assert np.array_equal(row, expect)


def test_a_tokens_views_are_its_encoded_features():
    def near(tok, tag):  # the views as they were built (f-strings, then encoded)
        nf = token_features(tok)
        out = [f"{tag}:{nf[0]}", f"{tag}:{nf[1]}"]
        if tag in ("p1", "n1"):
            out.extend(f"{tag}:{x}" for x in nf[3:] if not x.startswith("len="))
        return tuple(x.encode() for x in out)

    for tok in ["Phys.", ",", "1992", "McGraw-Hill", "J.N.", "ἀλφα", "doi:10.1/x", "hep-th/0603057", "x", "Ünï"]:
        info = features._info(tok)
        assert info[0] == tuple(x.encode() for x in token_features(tok))
        assert info[1:5] == tuple(near(tok, t) for t in ("p1", "n1", "p2", "n2"))


def test_token_features_shortcuts_read_as_before():
    """A word of letters has no digit; the shape's runs collapse as the character loop did."""
    import re

    for tok in ["Phys.", "1992a", "x²", "ABC", "aaBBcc", "Ωmega", "١٢٣", "doi:10.1/x", "A.B.", "hep-th/0603057"]:
        f = token_features(tok)
        assert ("digit" in f) == any(c.isdigit() for c in tok)
        assert ("initial" in f) == bool(re.fullmatch(r"(?:[^\W\d_]\.)+|[A-Z]{1,3}", tok))
        if tok.isascii():
            s = features._shape(tok)
            t = tok.translate(features._ASCII_SHAPE)
            assert s == "".join(c for i, c in enumerate(t) if i == 0 or c != t[i - 1])[:8]


def test_other_gazetteers_drop_what_was_cached_from_the_old_ones(tmp_path, monkeypatch):
    """A token's features read the gazetteers (family, given, journal names): when they change (a
    dev model's, the training script's), the cached features and score rows go with them."""
    import gzip

    from ctxmill.compile.refparse import lexicon

    text = "Smith, J. Nuovo Cimento B 20, 1 (1974)."
    before = tag_tokens(tokenize(text))
    assert "given" in token_features("John")  # (the shipped gazetteers: cached from now on)
    lex = tmp_path / "lex.txt.gz"
    lex.write_bytes(gzip.compress(b"family\nsmith\fgiven\nmary\fjournal\nnuovo cimento b\fjournal_first\nnuovo\t3"))
    monkeypatch.setattr(lexicon, "gazetteer_path", lambda: lex)
    lexicon.gazetteers.cache_clear()
    try:
        got = tag_tokens(tokenize(text))
        assert "family" in token_features("Smith") and "given" not in token_features("John")
        assert got == _old_road(text)
    finally:
        monkeypatch.undo()
        lexicon.gazetteers.cache_clear()
    assert tag_tokens(tokenize(text)) == before == _old_road(text)
