"""refparse.damage's marks inside words (_split's space, _hyphen's "- ", one helper): inside a
word long enough, never at its edges, labelled as the word; the same string gets the same copy."""

from __future__ import annotations

import random
import re

from ctxmill.compile.refparse import damage

TEXT = "Quantum transport measurements in layered superconductors"


def _edit(kind: str, seed: int) -> tuple[str, list]:
    cs, ls = list(TEXT), ["title"] * len(TEXT)
    made = damage._EDITS[kind](cs, ls, random.Random(seed), {"mean": 2.0})
    assert made >= 1 and len(ls) == len(cs)
    assert set(ls) == {"title"}
    return "".join(cs), ls


def test_split_puts_a_space_inside_a_word_of_four_or_more_letters():
    for seed in range(40):
        text, _ = _edit("split", seed)
        assert text.replace(" ", "") == TEXT.replace(" ", "")
        new = [w for w in text.split() if w not in TEXT.split()]
        assert new and all(w.isalpha() for w in new)  # pieces of words: no mark at a word's edge


def test_hyphen_leaves_two_letters_before_and_one_after():
    for seed in range(40):
        text, _ = _edit("hyphen", seed)
        assert text.replace("- ", "") == TEXT
        for m in re.finditer(r"(\w+)- (\w+)", text):
            assert len(m[1]) >= 2 and len(m[2]) >= 1
    assert _edit("hyphen", 3) == _edit("hyphen", 3)
