"""benchmarks/corpus_score.py: case never decides a heading or title match, in any script (Turkish's dotless and
dotted i: "YAZIMI".lower() is "yazimi" but "Yazımı".lower() is "yazımı")."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from corpus_score import match_headings, norm, score, squash  # noqa: E402


def test_a_heading_printed_in_capitals_matches_its_truth():
    truth = [(1, "1 Yazım Kuralları"), (2, "1.1 İstanbul Türkçesi"), (1, "2 Straße und Weg")]
    ours = [(1, "1 YAZIM KURALLARI"), (2, "1.1 istanbul türkçesi"), (1, "2 STRASSE UND WEG")]
    recall, hits, level_ok, missing, extra = match_headings(truth, ours)
    assert (recall, hits, level_ok, missing, extra) == (1.0, 3, 3, [], [])


def test_norm_and_squash_fold_case_the_same_on_both_sides():
    for a, b in [("YAZIMI", "Yazımı"), ("İSTANBUL", "istanbul"), ("ΣΟΦΟΣ", "σοφος")]:
        assert norm(a) == norm(b)
        assert squash(a) == squash(b)
    assert norm("Yazımı") != norm("Yazarı")  # letters still decide


def test_a_title_in_capitals_is_the_truths_title(tmp_path):
    (tmp_path / "document.md").write_text("# TÜRKÇE YAZIM KILAVUZU\n\n## GİRİŞ\n\nMetin.\n", encoding="utf-8")
    (tmp_path / "metadata.json").write_text('{"title": "TÜRKÇE YAZIM KILAVUZU"}', encoding="utf-8")
    truth = {"title": "Türkçe Yazım Kılavuzu", "authors": [], "sections": [{"level": 1, "title": "Giriş"}]}
    res = score(tmp_path, truth)
    assert res["headings"]["recall"] == 1.0
    assert res["title_ok"] is True


def test_the_ocr_benchmark_keys_headings_the_same_way():
    from ocr import title_key

    assert title_key("2 DENKLEM YAZIMI") == title_key("2 Denklem Yazımı") == "denklem yazimi"
