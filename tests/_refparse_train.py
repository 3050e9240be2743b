"""What the training script's tests stub alike: a GROBID checkout's lexicon folder with one
journal name in each list, a `train` that records its examples instead of running CRFsuite, and the
product's gazetteer path put back after a run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_LISTS = ("journals/journals.txt", "journals/abbrev_journals.txt", "journals/proceedings.txt",
          "names/firstname.5k", "names/lastname.5k")


def fake_grobid(tmp_path: Path) -> Path:
    """tmp_path/grobid with grobid-home/lexicon's five lists, each holding "Journal of Things"."""
    lex = tmp_path / "grobid" / "grobid-home" / "lexicon"
    (lex / "journals").mkdir(parents=True)
    (lex / "names").mkdir()
    for f in _LISTS:
        (lex / f).write_text("Journal of Things\n")
    return tmp_path / "grobid"


def recorded_training(monkeypatch, train_refparse) -> list:
    """The examples each `train` call got, in order; the model it writes is a placeholder."""
    trained: list = []
    monkeypatch.setattr(train_refparse, "train", lambda ex, out, *a, **k: (trained.append(ex), out.write_bytes(b"m")))
    return trained


@contextmanager
def kept_gazetteers() -> Iterator[None]:
    """The training script points the product's gazetteer path at the lists it writes: put the
    path back, and drop the lists read from it, when the block ends."""
    from ctxmill.compile.refparse import lexicon

    gp = lexicon.gazetteer_path
    try:
        yield
    finally:
        lexicon.gazetteer_path = gp
        lexicon.gazetteers.cache_clear()
