"""refparse.features._filled: both stores of the feature sums (_Rows, numpy; _Blobs, CRFsuite)
fill their caches through it: what a string lacks is added once, distinct, and a string seen
before adds nothing."""

from __future__ import annotations

import pytest

from ctxmill.compile.refparse import features, model
from ctxmill.compile.refparse.tokens import tokenize

TEXT = "Q. Zed and Q. Zed, Made-up results on made-up things, J. Nowhere 12 (2031) 1-9."


def _parts(text):
    tokens = [t for t, _, _ in tokenize(text)]
    infos, journals, codes = features._positions(tokens, features._glued(tokenize(text)))
    return tokens, features._span_keys(tokens, journals, infos), codes


def _check(store):
    tokens, spans, codes = _parts(TEXT)
    sizes = (len(store.tokens), len(store.spans), len(store.tails))
    blocks, span_rows, tails = features._filled(store, tokens, spans, codes)
    assert None not in blocks and None not in tails and all(k in span_rows for _, _, k in spans)
    # each distinct key once: "Q.", "Zed" and "made-up" repeat
    assert len(store.tokens) - sizes[0] == len(set(tokens))
    assert len(store.tails) - sizes[2] == len(set(codes))
    again = features._filled(store, tokens, spans, codes)
    assert (len(store.tokens), len(store.spans), len(store.tails)) == (
        sizes[0] + len(set(tokens)), sizes[1] + len({k for _, _, k in spans}), sizes[2] + len(set(codes)))
    assert again == (blocks, span_rows, tails)


def test_numpy_rows_filled_once():
    _check(features._Rows())


def test_crfsuite_rows_filled_once():
    nat = model.native()
    if nat is None:
        pytest.skip("this pycrfsuite is not the one the native road was written for")
    _check(features._Blobs(nat))
