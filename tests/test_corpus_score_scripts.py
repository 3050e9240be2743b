"""benchmarks/corpus_score.py reads numbering and abstracts in any script: a Greek appendix head 'Β.1 Τίτλος' is the
truth's 'Τίτλος' (as 'B.1 Title' is 'Title'), and a Russian abstract is compared on its Russian words, not on the few
Latin ones it cites."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from corpus_score import match_headings, norm, score  # noqa: E402


def test_numbering_in_any_script_is_stripped():
    assert norm("Β.1 Τίτλος πρώτης ενότητας") == norm("Τίτλος πρώτης ενότητας")  # Greek capital beta
    assert norm("А.2 Приложение") == norm("Приложение")  # Cyrillic A
    assert norm("B.2 Results") == norm("Results")  # Latin, as before
    assert norm("Β.1 Τίτλος") != norm("Β.1 Λέξη")  # the words still decide
    # a one-letter word of a script without letter numbering is a word: Korean '절 제목' ('section title')
    assert norm("2.1 절 제목") == norm("절 제목") != norm("제목")


def test_a_greek_appendix_head_matches_its_truth():
    truth = [(1, "Εισαγωγή"), (2, "Τίτλος πρώτης ενότητας"), (2, "Τίτλος δεύτερης ενότητας")]
    ours = [(1, "1 Εισαγωγή"), (2, "Β.1 Τίτλος πρώτης ενότητας"), (2, "Β.2 Τίτλος δεύτερης ενότητας")]
    recall, hits, level_ok, missing, extra = match_headings(truth, ours)
    assert (recall, hits, missing, extra) == (1.0, 3, [], [])


def _out(tmp_path, abstract):
    (tmp_path / "document.md").write_text("# T\n", encoding="utf-8")
    (tmp_path / "metadata.json").write_text(json.dumps({"title": "T", "abstract": abstract}), encoding="utf-8")
    return tmp_path


def test_a_russian_abstract_is_compared_on_its_russian_words(tmp_path):
    truth = {"title": "T", "sections": [], "abstract": "В работе описан пакет MGRA2 для реконструкции предковых геномов"}
    right = score(_out(tmp_path, "В работе описан пакет MGRA2 для реконструкции предковых геномов, GNU GPL v2.0"), truth)
    assert right["abstract_agrees"] is True
    # an affiliation that shares only the Latin tokens is no abstract
    wrong = score(_out(tmp_path, "Кафедра информатики, MGRA2 GNU GPL v2.0"), truth)
    assert wrong["abstract_agrees"] is False


def test_a_latin_abstract_is_compared_as_before(tmp_path):
    # a Greek letter in ours (the truth's \\alpha was dropped by the builder) does not decide a Latin abstract
    truth = {"title": "T", "sections": [], "abstract": "We study -helix folding in small proteins under stress"}
    res = score(_out(tmp_path, "We study α-helix folding in small proteins under stress."), truth)
    assert res["abstract_agrees"] is True


def test_a_repeated_title_pairs_with_the_one_in_its_place():
    # PNAS's template: a run-in subsection 'References' about citing, and the list's own 'References' at the end;
    # ours has only the list's, at the top level: it is the list's heading, so its level is right
    truth = [(1, "Methods"), (2, "Results"), (2, "References"), (2, "Data"), (2, "Figures"), (1, "References")]
    ours = [(2, "Methods"), (3, "Results"), (3, "Data"), (3, "Figures"), (2, "References")]
    recall, hits, level_ok, missing, extra = match_headings(truth, ours)
    assert (hits, level_ok, missing, extra) == (5, 5, ["References"], [])
    # equal counts pair in order, as before
    assert match_headings([(1, "A"), (2, "A")], [(1, "A"), (2, "A")])[:3] == (1.0, 2, 2)
