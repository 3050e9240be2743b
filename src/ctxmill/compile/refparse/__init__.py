"""Fields of one reference string, by a trained sequence labeller (issue 22).

    >>> from ctxmill.compile.refparse import parse
    >>> f = parse("Bahcall, J.N., Flynn, C., Gould, A., 1992, ApJ, 389, 234")
    >>> f["people"][0], f["container"], f["year"], f["volume"], f["pages"]
    ({'family': 'Bahcall', 'given': 'J.N.'}, 'ApJ', '1992', '389', '234')

The string is split into tokens (tokens.py), each token described by features (features.py)
and labelled by a linear-chain CRF trained on GROBID's and AnyStyle's labelled citations
(scripts/train_refparse.py, model in ctxmill/data). The labels become fields (fields.py);
authors and editors become people (names.py). ``confidence`` is the mean marginal
probability of the labels chosen: low where the model hesitated, as it does on styles
unlike anything it was trained on.
"""

from __future__ import annotations

import re

from ctxmill.compile.refparse.features import sequence_features
from ctxmill.compile.refparse.fields import assemble
from ctxmill.compile.refparse.model import tag
from ctxmill.compile.refparse.tokens import tokenize

# "[12]", "12.", "(12)" before the entry: the citation label, not part of the reference
_LABEL = re.compile(r"^\s*(?:\[(\w{1,6})\]|(\d{1,4})\.(?=\s)|\((\d{1,4})\))\s*")
# Below this, an entry's parse is reported as doubtful in the QA report (see quality.py);
# chosen on the held-out sets, where most entries with a wrong title fall below it.
DOUBTFUL = 0.80


def label(text: str) -> list[tuple[str, str, float]]:
    """[(token, label, marginal probability)] for one reference string."""
    toks = tokenize(text)
    labels, probs = tag(sequence_features([t for t, _, _ in toks]))
    return [(t, lab, p) for (t, _, _), lab, p in zip(toks, labels, probs, strict=True)]


def parse(raw: str) -> dict:
    """Every field of one reference string; absent fields are None (lists empty)."""
    text = re.sub(r"\s+", " ", raw).strip()
    m = _LABEL.match(text)
    number = None
    if m:
        number = next(g for g in m.groups() if g)
        text = text[m.end() :]
    toks = tokenize(text)
    labels, probs = tag(sequence_features([t for t, _, _ in toks]))
    out = assemble(text, toks, labels, probs)
    out["label"] = number
    out["confidence"] = round(sum(probs) / len(probs), 3) if probs else 0.0
    return out
