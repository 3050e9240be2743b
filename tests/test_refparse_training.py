"""Training-only options of the reference labeller (issue 22): arXiv "abs/" ids as one token, the
no-title renderings, and the paired comparison of two cross-validations."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from ctxmill.compile.refparse import render, tokens

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def abs_ids():
    tokens.use_abs_ids(True)
    try:
        yield
    finally:
        tokens.use_abs_ids(False)


def _words(text: str) -> list[str]:
    return [t for t, _, _ in tokens.tokenize(text)]


def test_abs_ids_stay_split_unless_a_model_was_trained_so():
    # the shipped model was trained on the split tokens: the product's tokens must not change
    assert not tokens.ABS_IDS
    assert _words("ArXiv, abs/1909.01326, 2019.") == ["ArXiv", ",", "abs", "/", "1909.01326", ",", "2019", "."]


def test_abs_ids_are_one_token_with_the_option(abs_ids):
    assert _words("ArXiv, abs/1909.01326, 2019.") == ["ArXiv", ",", "abs/1909.01326", ",", "2019", "."]
    assert _words("CoRR abs/1706.03762v2.") == ["CoRR", "abs/1706.03762v2", "."]
    # offsets still index the string
    text = "CoRR, abs/2001.09977"
    assert [text[s:e] for _, s, e in tokens.tokenize(text)] == _words(text)
    # a URL keeps its own token; "abs" inside a word or path is no id
    assert _words("http://arxiv.org/abs/1007.3733") == ["http://arxiv.org/abs/1007.3733"]
    assert "abs/1909.01326" not in _words("Xabs/1909.01326")
    assert "abs/1909.01326" not in _words("arxiv.org/abs/1909.01326")


def test_abs_ids_option_turns_off_again():
    tokens.use_abs_ids(True)
    tokens.use_abs_ids(False)
    assert _words("CoRR, abs/1706.03762") == ["CoRR", ",", "abs", "/", "1706.03762"]


def test_no_title_styles_are_rendering_styles():
    assert render.NO_TITLE_STYLES and set(render.NO_TITLE_STYLES) <= set(render.STYLES)


def _references():
    spec = importlib.util.spec_from_file_location("references_bench", REPO / "benchmarks" / "references.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _outcome(title_right: bool, year_right: bool, invented: bool = False) -> list:
    per = [[True, True, title_right], [True, True, True], [True, True, True], [True, True, year_right]]
    return [title_right, invented, "G", 0.9, title_right and year_right, per]


def test_compare_counts_the_strings_that_changed_and_bootstraps_the_change(tmp_path):
    refs = _references()
    base, other = {}, {}
    for fold in range(2):
        for i in range(20):
            key = f"{fold} G string {fold}-{i}"
            base[key] = _outcome(i < 15, True)
            # the other model: two more titles right in each fold, one year lost, one title invented
            other[key] = _outcome(i < 17, i != 0, invented=(fold == 1 and i == 19))
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "other.json").write_text(json.dumps(other))
    out = refs.compare([tmp_path / "base.json", tmp_path / "other.json"], rounds=200)
    assert out["strings"] == {"G": 40}
    assert out["base"]["G"]["title"]["value"] == pytest.approx(0.75, abs=1e-4)  # a wrong title: one false positive, one miss
    g = out["against_base"][0]["G"]
    assert (g["title"]["now_right"], g["title"]["now_wrong"]) == (4, 0)
    assert (g["year"]["now_right"], g["year"]["now_wrong"]) == (0, 2)
    assert (g["invented"]["change"], g["invented"]["now"], g["invented"]["no_more"]) == (1, 1, 0)
    assert g["title"]["change"] == pytest.approx(2 * 17 / 40 - 0.75, abs=1e-4)
    # the interval is the resampled change's: it holds the change, and it is not a point
    assert g["title"]["lo"] <= g["title"]["change"] <= g["title"]["hi"] and g["title"]["sd"] > 0
    assert g["container"] == {"change": 0.0, "sd": 0.0, "lo": 0.0, "hi": 0.0, "now_right": 0, "now_wrong": 0}


def test_compare_refuses_outcomes_without_the_fields(tmp_path):
    refs = _references()
    old = {"0 G a string": [True, False, "G", 0.9, True]}  # written before the per-field outcomes
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(SystemExit, match="per-field outcomes"):
        refs.compare([tmp_path / "old.json", tmp_path / "old.json"], rounds=10)


def test_score_set_counts_the_strings_with_a_field_right():
    refs = _references()
    a = "Smith, J. 2001, A study of things, J. Phys. 12, 3"
    b = "Jones, K. 1999, Nucl. Phys. B 5, 7"
    truth = {a: [(0, 9, "author"), (10, 14, "date"), (16, 33, "title"), (35, 42, "container")],
             b: [(0, 9, "author"), (10, 14, "date"), (16, 30, "container")]}
    got = {a: {"title": "A study of things", "container": "J. Phys.", "first_family": "Smith", "year": "2001"},
           b: {"title": "Nucl. Phys. B", "container": None, "first_family": "Jones", "year": "1998"}}
    out = refs.score_set([(t, s) for t, s in truth.items()], lambda t: got[t])
    f = out["fields"]
    assert (f["title"]["right"], f["container"]["right"], f["first_family"]["right"], f["year"]["right"]) == (1, 1, 2, 1)
    assert out["invented_titles"]["invented"] == 1
