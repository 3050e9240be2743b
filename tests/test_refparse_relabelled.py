"""refparse.fields._relabelled: how a post-model rule hands a run of tokens to another field (the
run relabelled, the punctuation that ends it unlabelled), without touching the model's list."""

from __future__ import annotations

from ctxmill.compile.refparse.fields import _relabelled


def test_run_relabelled_and_its_end_unlabelled():
    labels = ["author", "author", "O", "container", "container", "O", "date"]
    got = _relabelled(labels, 0, 5, "title")
    assert got == ["title"] * 5 + ["O", "date"]
    assert labels == ["author", "author", "O", "container", "container", "O", "date"]  # a copy


def test_empty_run_only_unlabels_its_end():
    assert _relabelled(["title", ","], 1, 1, "author") == ["title", "O"]
