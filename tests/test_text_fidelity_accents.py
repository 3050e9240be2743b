"""benchmarks/text_fidelity.py: a spacing accent the text layer sets apart by a blank ("RSA `e", "uygun ¸sekilde",
"uwag ˛e") is composed with its letter without gluing two words into one, so a word the output holds is no loss."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from text_fidelity import lost_words, words  # noqa: E402


def lost(layer: str, md: str) -> int:
    return sum(lost_words(words(layer), words(md)).values())


def test_an_accent_at_the_next_words_start_does_not_glue_the_words():
    assert lost("the RSA `e la chiave", "the RSA è la chiave") == 0
    assert lost("uygun ¸sekilde yazılır", "uygun şekilde yazılır") == 0


def test_an_accent_inside_a_word_still_joins_its_letter():
    assert lost("bez uwag ˛e na to", "bez uwagę na to") == 0
    assert lost("odr˛ebnych", "odrębnych") == 0


def test_a_word_the_output_lacks_is_still_lost():
    assert lost("uygun ¸sekilde", "uygun") == 1
    # the layer's two "RSA" need two in the output, whichever reading the accent gets
    assert lost("RSA and RSA `e", "RSA and è") == 1
    assert lost("plain words here", "plain here") == 1


def test_the_word_count_is_unchanged_by_the_reading():
    assert sum(words("uygun ¸sekilde RSA `e").values()) == 2


def test_plain_words_count_once():
    assert lost("word word word", "word") == 2
