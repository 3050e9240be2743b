"""Word classes learned from unlabelled reference strings as the labeller's features
(scripts/train_refparse.py --clusters, round 32 of issue 22): the classes, the features the
gazetteer file gives a token and its neighbours, and which strings a fold's classes are learned from.

The reference strings are written for these tests; none is in the training data.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from ctxmill.compile.refparse import lexicon
from ctxmill.compile.refparse.features import sequence_features

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_refparse  # noqa: E402

from _refparse_train import fake_grobid, kept_gazetteers, recorded_training  # noqa: E402

_VENUES = ("Phys.", "Chem.", "Nucl.", "Astron.", "Geophys.", "Biol.")
_TITLE = ("waves", "fields", "stars", "cells", "grains", "flows")


def _strings() -> list[str]:
    # a venue word always between a comma and "Rev."; a title word always after "On" and before "of"
    return [f"A. Writer{i}, On {_TITLE[i % 6]} of {_TITLE[(i + 1) % 6]} matter, {_VENUES[i % 6]} Rev. {i}, {i + 1} (1999)."
            for i in range(60)]


def test_words_between_the_same_neighbours_share_a_class_and_the_classes_repeat():
    rows = train_refparse.word_clusters(_strings(), sizes=(4, 6), least=5)
    assert rows == train_refparse.word_clusters(_strings(), sizes=(4, 6), least=5)  # deterministic
    table = {w: f for w, *f in (r.split("\t") for r in rows)}
    venue = {table[lexicon.lexkey(v)][1] for v in _VENUES}
    title = {table[w][1] for w in _TITLE}
    assert len(venue) == 1 and not venue & title
    assert all(f[0].startswith("cluster4=") and f[1].startswith("cluster6=") for f in table.values())
    assert "1999" in table and "writer1" not in table  # printed once: no class
    # under: the frequent words (printed 60 times here) are clustered alike but get no row
    rare = train_refparse.word_clusters(_strings(), sizes=(4, 6), least=5, under=60)
    assert rare == {r for r in rows if r.split("\t")[0] not in ("a", "writer", "on", "of", "matter", "rev", "1999")}
    assert {r.split("\t")[0] for r in rare} >= {"phys", "waves"}


def test_a_token_and_its_neighbours_get_the_classes_the_gazetteers_hold(tmp_path):
    lex = tmp_path / "lexicon.txt.gz"
    lex.write_bytes(gzip.compress(b"cluster\nphys\tcluster32=3\tcluster128=70", mtime=0))
    with kept_gazetteers():
        lexicon.gazetteer_path = lambda: lex
        lexicon.gazetteers.cache_clear()
        assert lexicon.gazetteers().cluster == {"phys": ("cluster32=3", "cluster128=70")}
        feats = sequence_features(["Nucl.", "Phys.", "Rev."])
        assert {b"cluster32=3", b"cluster128=70"} <= set(feats[1])
        assert b"n1:cluster32=3" in feats[0] and b"p1:cluster128=70" in feats[2]
        assert not any(f.startswith(b"cluster") for f in feats[0] + feats[2])
    # off unless the gazetteers hold classes: the shipped ones hold none
    assert not any(f.startswith(b"cluster") for f in sequence_features(["Phys."])[0])


def test_a_folds_classes_are_learned_from_its_training_and_unlabelled_strings_only(tmp_path, monkeypatch):
    texts = _strings()
    files = [(t, [(0, 10, "author")], f"grobid/doc{i % 8}.tei.xml") for i, t in enumerate(texts[:16])]
    monkeypatch.setattr(train_refparse, "load_training",
                        lambda g, a, with_files=False, parscit=None, bbl=None: (list(files), {}))
    held = "Z. Heldout, A held-out string that nothing may learn from, J. Things 1 (2001)."
    monkeypatch.setattr(train_refparse, "held_out", lambda g, a: {"g": [(held, [])]})
    unlabelled = tmp_path / "unlabelled.txt"
    unlabelled.write_text("\n".join([texts[40], "Y. Other, " + held, texts[3]]) + "\n")
    seen: list = []
    monkeypatch.setattr(train_refparse, "word_clusters", lambda t, **k: (seen.append(list(t)), {"on\tcluster32=1"})[1])
    fake_grobid(tmp_path)
    recorded_training(monkeypatch, train_refparse)
    out = tmp_path / "dev.crfsuite"
    with kept_gazetteers():
        assert train_refparse.main(["--grobid", str(tmp_path / "grobid"), "--anystyle", str(tmp_path),
                                    "--dev-split", "docs", "--dev-fold", "0", "--without-dev", "-o", str(out),
                                    "--clusters", str(unlabelled)]) == 0
        assert lexicon.gazetteers().cluster == {"on": ("cluster32=1",)}
    train, dev = train_refparse.doc_split(files, fold=0)
    assert dev and train
    dev_texts = {t for t, _, _ in dev}
    # the fold's training strings, then the unlabelled ones less a dev string's and a held-out string's text
    assert seen == [[t for t, _ in train] + [texts[40]] + ([texts[3]] if texts[3] not in dev_texts else [])]
    assert not set(seen[0]) & dev_texts
